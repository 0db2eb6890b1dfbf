"""Which TensorFlow releases a history covers, and what each one's environment installs."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Every minor release with Python 3.11 wheels for both tensorflow and tensorflow-cpu.
OLDEST_MINOR = 12
NEWEST_MINOR = 21
# Keras 3 became tf.keras in 2.16; Keras 2 lives on as the tf-keras package from then on.
KERAS_3_FROM = (2, 16)
# A minor release in its one spelling: ASCII digits, no leading zero ("2.15", never "2.015" or "2.١٥").
_MINOR = re.compile(r"2\.([1-9][0-9]*)", re.ASCII)


class UnknownReleaseError(ValueError):
    """A --tf value that names no release this history covers."""


@dataclass(frozen=True, order=True)
class Release:
    """One minor release, measured at its newest patch (looked up when its environment is built)."""

    major: int
    minor: int

    @property
    def name(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def folder(self) -> str:
        """The results folder of this release: ``results/<runner>/history/tf-2.15/``."""
        return f"tf-{self.name}"

    @property
    def keras_3(self) -> bool:
        return (self.major, self.minor) >= KERAS_3_FROM

    def requirements(self, runner: str) -> list[str]:
        """What its environment installs; the Keras and NumPy versions follow from the date
        the environment is resolved at (``environments.py``)."""
        extra = "[and-cuda]" if runner == "gpu" else ""
        pins = [f"{tensorflow_distribution(runner)}{extra}=={self.name}.*"]
        if self.keras_3:  # Keras 2, for TF1-style graph mode and the legacy-Keras modes
            pins.append(f"tf-keras=={self.name}.*")
        return pins


# A package version as an environment record states it (PEP 440's characters, bounded: it reaches a page).
_VERSION_TEXT = re.compile(r"[0-9][0-9A-Za-z.+!_-]{0,63}")


def is_version(value: object) -> bool:
    """Whether ``value`` is a version string an environment record may hold ("2.15.1", "3.0.0rc1")."""
    return isinstance(value, str) and _VERSION_TEXT.fullmatch(value) is not None


def tensorflow_distribution(runner: str) -> str:
    """The PyPI project a runner installs TensorFlow from: the CPU-only build where no GPU is used."""
    return "tensorflow" if runner == "gpu" else "tensorflow-cpu"


ALL_RELEASES = tuple(Release(2, minor) for minor in range(OLDEST_MINOR, NEWEST_MINOR + 1))


def release_named(text: str) -> Release | None:
    """The release ``"2.15"`` names, or None when it names none this history covers."""
    match = _MINOR.fullmatch(text)
    release = Release(2, int(match.group(1))) if match else None
    return release if release in ALL_RELEASES else None


def release_from_folder(name: str) -> Release | None:
    """The release a ``tf-2.15`` folder holds, or None for any other name."""
    return release_named(name.removeprefix("tf-")) if name.startswith("tf-") else None


def parse_selection(text: str | None) -> list[Release]:
    """``"2.15,2.21"`` → those releases, oldest first; None → all of them."""
    if text is None:
        return list(ALL_RELEASES)
    chosen = []
    for part in (piece.strip() for piece in text.split(",")):
        release = release_named(part)
        if release is None:
            raise UnknownReleaseError(
                f"--tf {part!r}: give minor releases from 2.{OLDEST_MINOR} to 2.{NEWEST_MINOR}, "
                f"separated by commas (e.g. --tf 2.15,2.21); each is measured at its newest patch")
        chosen.append(release)
    return sorted(set(chosen))
