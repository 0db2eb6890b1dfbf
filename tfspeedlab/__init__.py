"""tfspeedlab: fair timing of TensorFlow code, and the results behind the guide."""

from tfspeedlab.artifacts import artifact_path
from tfspeedlab.measurement import IQR_WARN_THRESHOLD, Measurement
from tfspeedlab.timer import RetracingError, bench
from tfspeedlab.units import format_time, select_unit
from tfspeedlab.workload import Case, Prepared, SkipExample, Workload, main

__all__ = [
    "IQR_WARN_THRESHOLD",
    "Case",
    "Measurement",
    "Prepared",
    "RetracingError",
    "SkipExample",
    "Workload",
    "artifact_path",
    "bench",
    "format_time",
    "main",
    "select_unit",
]
