"""tfspeedlab: fair timing of TensorFlow code, and the results behind the guide."""

from tfspeedlab.measure.measurement import IQR_WARN_THRESHOLD, Measurement
from tfspeedlab.measure.memory import PeakMemory
from tfspeedlab.measure.timer import RetracingError, bench
from tfspeedlab.results.artifacts import artifact_path
from tfspeedlab.analysis.diagnosis import Diagnosis
from tfspeedlab.run.diagnose import diagnose
from tfspeedlab.run.standalone import main
from tfspeedlab.spec.layout import Cases, Grid, OpLayers, PerOp, Sweep
from tfspeedlab.spec.workload import Case, CaseUnavailable, Prepared, SkipExample, Workload
from tfspeedlab.units import format_time, select_unit

__all__ = [
    "IQR_WARN_THRESHOLD",
    "Case",
    "CaseUnavailable",
    "Cases",
    "Diagnosis",
    "Grid",
    "OpLayers",
    "PeakMemory",
    "PerOp",
    "Sweep",
    "Measurement",
    "Prepared",
    "RetracingError",
    "SkipExample",
    "Workload",
    "artifact_path",
    "bench",
    "diagnose",
    "format_time",
    "main",
    "select_unit",
]
