"""tfspeedlab: fair timing of TensorFlow code, and the results behind the guide."""

from tfspeedlab.core.measure.measurement import IQR_WARN_THRESHOLD, Measurement
from tfspeedlab.core.measure.memory import PeakMemory
from tfspeedlab.core.measure.timer import RetracingError, bench
from tfspeedlab.core.results.artifacts import artifact_path
from tfspeedlab.core.spec.layout import Cases, Grid, OpLayers, PerOp, Sweep
from tfspeedlab.core.spec.workload import Case, CaseUnavailable, Prepared, SkipExample, Workload
from tfspeedlab.core.units import format_time, select_unit
from tfspeedlab.diagnosis.function import diagnose
from tfspeedlab.diagnosis.function_core import Diagnosis
from tfspeedlab.harness.standalone import main

__all__ = ["IQR_WARN_THRESHOLD", "Case", "CaseUnavailable", "Cases", "Diagnosis", "Grid", "OpLayers", "PeakMemory",
           "PerOp", "Sweep", "Measurement", "Prepared", "RetracingError", "SkipExample", "Workload", "artifact_path",
           "bench", "diagnose", "format_time", "main", "select_unit"]
