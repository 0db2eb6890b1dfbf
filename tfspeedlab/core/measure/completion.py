"""Make sure the work behind a returned value is finished before the clock is read.

TensorFlow may return before a result exists: GPU kernels run on a CUDA stream
after the Python call has returned, and ``set_synchronous_execution(False)``
queues ops on any device. Reading every returned tensor back to the host
(``.numpy()``) waits for the ops that produce it; ``sync_devices()`` then waits
for everything still queued on every device.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any


def materialize(value: Any) -> int:
    """Read every tensor (TensorFlow, PyTorch or JAX) in a nested structure back to the host; return how many."""
    if isinstance(value, Mapping):
        return sum(materialize(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return sum(materialize(item) for item in value)
    if callable(getattr(value, "block_until_ready", None)):
        value.block_until_ready()  # a JAX array: dispatch is asynchronous
        return 1
    if callable(getattr(value, "detach", None)):
        value.detach().cpu().numpy()  # a PyTorch tensor: .cpu() waits for a GPU stream
        return 1
    if hasattr(value, "numpy") and callable(value.numpy):
        value.numpy()
        return 1
    return 0


def tensorflow_drives_gpu() -> bool:
    """True when TensorFlow is imported and has a GPU.

    TensorFlow is only consulted if the caller already imported it: timing a
    plain Python function must not pay for importing TensorFlow.
    """
    tf = sys.modules.get("tensorflow")
    return tf is not None and bool(tf.config.list_logical_devices("GPU"))


def device_sync() -> Callable[[], None] | None:
    """``tf.test.experimental.sync_devices`` when TensorFlow drives a GPU, else None."""
    if not tensorflow_drives_gpu():
        return None
    return sys.modules["tensorflow"].test.experimental.sync_devices


def describe(tensor_count: int, synced_devices: bool) -> str:
    """A one-line account of how completion was forced, stored with the results."""
    parts = []
    if tensor_count:
        parts.append(f".numpy() on the {tensor_count} returned tensor(s) of the last call in each block")
    else:
        parts.append("no tensors returned; the call itself is synchronous")
    if synced_devices:
        parts.append("tf.test.experimental.sync_devices() before each clock read")
    return "; ".join(parts)
