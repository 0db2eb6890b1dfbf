"""Peak memory of the process running a case: host RSS high-water mark, and a GPU's allocator peak.

The host figure is the kernel's high-water mark of resident memory
(``ru_maxrss``), which only ever grows; a case that must be measured alone
therefore runs in a process of its own (``Case(process=...)``), and the growth
over the mark taken before the case was built is what the case itself used.
"""

from __future__ import annotations

import resource
import sys

from tfspeedlab.core.measure.completion import tensorflow_drives_gpu


def peak_rss_bytes() -> int:
    """The process's resident-memory high-water mark so far, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB, macOS bytes


def reset_gpu_peak(device: str = "GPU:0") -> None:
    import tensorflow as tf

    tf.config.experimental.reset_memory_stats(device)


def gpu_peak_bytes(device: str = "GPU:0") -> int:
    """Peak bytes TensorFlow's allocator held on the device since the last reset."""
    import tensorflow as tf

    return int(tf.config.experimental.get_memory_info(device)["peak"])


class PeakMemory:
    """Marks taken when a case is built; ``metrics()`` after it ran gives its peaks."""

    def __init__(self) -> None:
        self.rss_before = peak_rss_bytes()
        self.on_gpu = tensorflow_drives_gpu()  # its allocator reports a peak
        if self.on_gpu:
            reset_gpu_peak()

    def metrics(self) -> dict[str, float]:
        peak = peak_rss_bytes()
        values = {"peak_rss_bytes": float(peak), "peak_rss_growth_bytes": float(peak - self.rss_before)}
        if self.on_gpu:
            values["gpu_peak_bytes"] = float(gpu_peak_bytes())
        return values
