"""A case's measured quantities other than time: a number by name, as its results file stores them.

``Metrics`` is that mapping (the file format is unchanged, and ``{{ metric … }}`` reads any name);
the quantities the tables, charts and statistics read are typed fields of it, so that no module
spells a key: ``case.metrics.loss_end``, None where the case did not record it. A new quantity a
module reads gets a field here, beside the ones its writer records.
"""

from __future__ import annotations

from collections.abc import Mapping


class Metric:
    """A quantity of ``Metrics``, stored under the field's own name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, metrics: Mapping[str, float] | None, owner: type | None = None) -> float | None:
        return None if metrics is None else metrics.get(self.key)


class Metrics(dict[str, float]):
    """One case's (or one process's) metrics: the file's mapping, with the fields modules read."""

    # Proof that a training case trained: its loss before and after timing, its largest weight change.
    loss_start = Metric()
    loss_end = Metric()
    weight_change = Metric()
    # The process's peaks while the case ran (``core.measure.memory.PeakMemory``).
    peak_rss_bytes = Metric()
    peak_rss_growth_bytes = Metric()
    gpu_peak_bytes = Metric()
    # Resident memory followed over repeated calls in parts (``core.resident_memory.follow_memory``).
    follow_calls = Metric()
    follow_parts = Metric()
    heap_per_call = Metric()
    rss_end_bytes = Metric()
    # glibc's arenas after a followed loop (``core.allocators.glibc_arenas``), where glibc's malloc ran.
    glibc_arenas = Metric()
    # Resident memory over one loop of repeated calls, without parts (the predict ladder, the backends).
    memory_calls = Metric()
    rss_bytes = Metric()
    rss_growth_bytes = Metric()
    rss_growth_per_call_bytes = Metric()
    # The profiled call (``core.profiling.trace.Breakdown.metrics``), and each host layer's share of it.
    profiled_call_s = Metric()
    device_busy_fraction = Metric()
    # A training loop's feed and its step's Python code (input pipeline, training APIs).
    data_wait_share = Metric()
    traces = Metric()
    step_runs_first_call = Metric()
    step_runs_per_later_step = Metric()
    # CPU settings and precision: TensorFlow's own oneDNN decision, a policy's error against float32.
    onednn_opts = Metric()
    relative_error_vs_float32 = Metric()
    # Start-up: the whole of ``python -X importtime``'s record.
    importtime_total_s = Metric()

    def layer_fraction(self, layer: str) -> float | None:
        """A profiled host layer's share of the profiled call (``core.profiling.HOST_LAYERS``)."""
        return self.get(f"{layer}_fraction")

    def rss_part_per_call(self, index: int) -> float | None:
        """Resident bytes per call in one part of a followed loop."""
        return self.get(f"rss_part_{index}_per_call")

    def loss_after_steps(self, steps: int) -> float | None:
        """The loss after a fixed number of training steps (mixed precision's check)."""
        return self.get(f"loss_after_{steps}_steps")
