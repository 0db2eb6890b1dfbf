"""What ``tfspeedlab diagnose`` found about a reader's function, and what to do about it: the names
other code uses, gathered from the three modules that each do one job.

- ``diagnosis_core``: the records of what was measured (each mode's raw blocks, the retracing
  probe, the profiler's host-time split, the place on the guide's cost model), the speed-ups and
  break-evens derived from them, and pooling;
- ``diagnosis_verdict``: the verdict and the fixes in words, and the guide's pages that explain them;
- ``diagnosis_codec``: the JSON a diagnosis round-trips through unchanged, so that a committed
  report renders on the site exactly as the terminal printed it.
"""

from tfspeedlab.analysis.diagnosis_codec import from_json, to_json
from tfspeedlab.analysis.diagnosis_core import (HOST_SPLIT_PART, MODES, PROBE_PART, Diagnosis, ModeResult, Placement,
                                                RetraceProbe, break_even, host_split_part, pool)
from tfspeedlab.analysis.diagnosis_verdict import BATCH_FIX, NUMBER_FIX, PAGES, graph_helps, topics, verdict

__all__ = ["BATCH_FIX", "HOST_SPLIT_PART", "MODES", "NUMBER_FIX", "PAGES", "PROBE_PART", "Diagnosis", "ModeResult",
           "Placement", "RetraceProbe", "break_even", "from_json", "graph_helps", "host_split_part", "pool",
           "to_json", "topics", "verdict"]
