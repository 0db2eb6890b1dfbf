"""Where a call's host time goes: capture a profiler trace, split it into layers.

``capture`` runs TensorFlow's profiler; ``trace`` reads what it wrote.
"""

from tfspeedlab.core.profiling.capture import capture, profile
from tfspeedlab.core.profiling.trace import HOST_LAYERS, HOST_LAYER_LABELS, Breakdown

__all__ = ["HOST_LAYERS", "HOST_LAYER_LABELS", "Breakdown", "capture", "profile"]
