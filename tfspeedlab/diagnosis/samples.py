"""Each runner's committed ``tfspeedlab diagnose`` reports (``results/<runner>/diagnose/NAME.json``) and
the guide's full runs measured beside them in the same sitting (``diagnose/guide/``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfspeedlab.core.results.schema import ResultsFile
from tfspeedlab.core.results.store import load_runner
from tfspeedlab.diagnosis.saved import DIAGNOSIS_DIR, SavedDiagnosis, load, sample_files

# The guide's full runs measured in the same sitting as the samples, beside them.
GUIDE_DIR = "guide"


@dataclass(frozen=True)
class Samples:
    """One runner's committed diagnoses, and the full runs measured beside them."""

    reports: dict[str, SavedDiagnosis]
    guide: dict[str, ResultsFile]


def load_samples(results_root: Path, runner: str) -> Samples:
    """Every committed diagnosis of one runner, by sample name, and the full runs beside them."""
    guide = Path(results_root) / runner / DIAGNOSIS_DIR / GUIDE_DIR
    return Samples({path.stem: load(path) for path in sample_files(results_root, runner)},
                   load_runner(guide, runner) if guide.is_dir() else {})
