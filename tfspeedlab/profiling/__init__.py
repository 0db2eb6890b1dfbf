"""Where a call's host time goes: capture a profiler trace, split it into layers.

``capture`` runs TensorFlow's profiler; ``trace`` reads what it wrote.
"""

from tfspeedlab.profiling.capture import capture, profile
from tfspeedlab.profiling.trace import HOST_LAYER_LABELS, HOST_LAYERS, Breakdown

__all__ = ["HOST_LAYERS", "HOST_LAYER_LABELS", "Breakdown", "capture", "profile"]
