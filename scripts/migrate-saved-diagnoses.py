"""One-off (issue 43): rewrite the committed saved diagnoses, written as {"kind": "function", "modes": …,
"environment": …}, as results files with a diagnosis block. Run once from the repository root:
``python scripts/migrate-saved-diagnoses.py``; a file already migrated is left alone."""

from __future__ import annotations

from pathlib import Path

from tfspeedlab.core.measure.measurement import Measurement
from tfspeedlab.core.results.schema import CaseResult, ResultsFile
from tfspeedlab.core.results.store import read_json, write_json_atomic
from tfspeedlab.diagnosis.codec import from_results, to_json

# The mode entries' copies for readers, recomputed by to_json.
READERS_COPIES = ("median_s", "per_call_s", "speedup_over_eager", "break_even_calls")


def migrate(path: Path) -> None:
    old = read_json(path)
    if "schema" in old:
        return
    # Each run kept its samples alone (a median at most, for readers): its statistics are derived from them.
    cases = tuple(CaseResult(mode, {}, tuple(Measurement(tuple(run["samples_s"]), run["calls_per_block"],
                                                         run["first_call_s"], run["completion"], run["tracing_count"])
                                             for run in entry["runs"]))
                  for mode, entry in old["modes"].items() if "runs" in entry)
    unavailable = {mode: entry["error"] for mode, entry in old["modes"].items() if "runs" not in entry}
    block = {name: value for name, value in old.items() if name not in ("modes", "environment")}
    results = ResultsFile(path.stem, old["target"], "gpu" if old["environment"]["gpus"] else "cpu", False, {},
                          old["environment"], cases, unavailable=unavailable, diagnosis=block, source=path)
    write_json_atomic(path, to_json(from_results(results), old["environment"], path.stem))
    print(f"migrated {path}")


if __name__ == "__main__":
    for found in sorted(Path("results").glob("*/diagnose/*.json")):
        migrate(found)
