"""One virtual environment per TensorFlow release, built with uv and kept between runs.

Each release is installed as a user installing it on the day it came out would
have got it: its newest patch, and every other package (Keras, NumPy, tf-keras)
resolved as PyPI stood a day after the newest of the release's own packages
was published (uv's ``--exclude-newer``). Installing TensorFlow 2.16 today
would otherwise pull a Keras written years later for a newer TensorFlow. What
was installed is recorded beside the environment and with its results.

An environment is marked complete only by its record, written last: one cut
short (a failure, Ctrl-C) is built again from scratch on the next run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from tfspeedlab.core.results.history import VERSION_FIELDS
from tfspeedlab.core.results.store import write_json_atomic
from tfspeedlab.core.spec.releases import Release, is_version, tensorflow_distribution
from tfspeedlab.harness.machine import utc_now

# Where environments are kept (default: ~/.cache/tfspeedlab/envs).
ENVS_VARIABLE = "TFSPEEDLAB_ENVS"
# The uv command, when not the uv installed with this package (tests give a stand-in).
UV_VARIABLE = "TFSPEEDLAB_UV"
# The base of PyPI's JSON API (tests give a file:// folder of their own).
PYPI_VARIABLE = "TFSPEEDLAB_PYPI"
PYPI_JSON = "https://pypi.org/pypi"
RECORD = "environment.json"
# Packages are resolved as PyPI stood this long after the release's newest upload.
RESOLVE_AFTER = timedelta(days=1)
_PYPI_TIMEOUT_S = 30
# Lines of a failed command's output kept in the failure record.
_TAIL_LINES = 12


class EnvironmentBuildError(RuntimeError):
    """A release's environment could not be built; the message says why."""


@dataclass(frozen=True)
class Environment:
    release: Release
    folder: Path
    record: dict[str, Any]

    @property
    def python(self) -> Path:
        return interpreter(self.folder)


def interpreter(folder: Path) -> Path:
    return folder / "bin" / "python"


def default_envs_dir() -> Path:
    if configured := os.environ.get(ENVS_VARIABLE):
        return Path(configured)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "tfspeedlab" / "envs"


def ensure(release: Release, runner: str, envs_dir: Path, log: Callable[[str], None] = print) -> Environment:
    """The release's environment: the one kept from an earlier run if it installed the same
    requirements, else a new one (EnvironmentBuildError if that fails)."""
    folder = Path(envs_dir) / f"{runner}-{release.folder}"
    wanted = release.requirements(runner)
    record = read_record(folder)
    if (record is not None and record.get("requirements") == wanted and interpreter(folder).exists()
            and record_holds(record, release) and installed_tensorflow(folder, runner) == record["tensorflow"]):
        return Environment(release, folder, record)
    log(f"  building the environment for TensorFlow {release.name} in {folder} …")
    return Environment(release, folder, _build(release, runner, folder, wanted))


def record_holds(record: dict[str, Any], release: Release) -> bool:
    """Whether a kept record is one this code writes, for ``release``: a record edited by hand or
    left by another tool is rebuilt rather than trusted onto a page."""
    versions_ok = all(record.get(name) is None or is_version(record.get(name)) for name in VERSION_FIELDS)
    return versions_ok and is_version(record.get("tensorflow")) and record["tensorflow"].startswith(release.name + ".")


def installed_tensorflow(folder: Path, runner: str) -> str | None:
    """The TensorFlow version the environment's own Python has installed (None if none): what the
    record claims is checked against what will run."""
    probe = ("import importlib.metadata as m, sys\n"
             "for name in sys.argv[1:]:\n"
             "    try:\n        print(m.version(name)); break\n"
             "    except m.PackageNotFoundError:\n        pass\n")
    try:
        completed = subprocess.run([str(interpreter(folder)), "-c", probe, tensorflow_distribution(runner), "tensorflow"],
                                   capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    version = completed.stdout.strip()
    return version if completed.returncode == 0 and is_version(version) else None


def read_record(folder: Path) -> dict[str, Any] | None:
    try:
        record = json.loads((Path(folder) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _build(release: Release, runner: str, folder: Path, wanted: list[str]) -> dict[str, Any]:
    uv = uv_command()
    distribution = tensorflow_distribution(runner)
    pins, newest_upload = [], None
    for requirement in wanted:
        project = requirement.split("==")[0]
        version, uploaded = newest_patch(project.split("[")[0], release)
        pins.append(f"{project}=={version}")
        newest_upload = uploaded if newest_upload is None else max(newest_upload, uploaded)
    resolved_at = newest_upload + RESOLVE_AFTER
    shutil.rmtree(folder, ignore_errors=True)  # what an interrupted build left
    python = interpreter(folder)
    _call([*uv, "venv", "--quiet", "--python", sys.executable, str(folder)])
    _call([*uv, "pip", "install", "--quiet", "--python", str(python),
           "--exclude-newer", resolved_at.strftime("%Y-%m-%dT%H:%M:%SZ"), *pins])
    packages = _call([*uv, "pip", "freeze", "--python", str(python)]).split()
    installed = dict(line.split("==", 1) for line in packages if "==" in line)
    record = {
        "release": release.name,
        "requirements": wanted,
        "installed_pins": pins,
        "tensorflow": installed.get(distribution),
        "keras": installed.get("keras"),
        "tf_keras": installed.get("tf-keras") or installed.get("tf_keras"),
        "numpy": installed.get("numpy"),
        "resolved_at": resolved_at.isoformat(timespec="seconds"),
        "python": _call([str(python), "-c", "import platform; print(platform.python_version())"]).strip(),
        "packages": packages,
        "built_utc": utc_now(),
    }
    write_json_atomic(Path(folder) / RECORD, record)  # last: it marks the environment complete
    return record


def uv_command() -> list[str]:
    if configured := os.environ.get(UV_VARIABLE):
        return shlex.split(configured)
    if importlib.util.find_spec("uv") is not None:
        return [sys.executable, "-m", "uv"]
    if found := shutil.which("uv"):
        return [found]
    raise EnvironmentBuildError("uv is not installed: pip install uv (it builds one environment per release)")


_PATCH = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:\.post(\d+))?")


def newest_patch(project: str, release: Release) -> tuple[str, datetime]:
    """The newest patch of ``release`` that ``project`` publishes (no pre-releases, nothing
    yanked), and when its first file was uploaded."""
    index = _pypi_index(project)
    found = []
    for version, files in index.get("releases", {}).items():
        match = _PATCH.fullmatch(version)
        if not match or (int(match.group(1)), int(match.group(2))) != (release.major, release.minor):
            continue
        live = [entry for entry in files if not entry.get("yanked")]
        if live:
            uploaded = min(_upload_time(entry) for entry in live)
            found.append(((int(match.group(3)), int(match.group(4) or 0)), version, uploaded))
    if not found:
        raise EnvironmentBuildError(f"PyPI lists no {project} {release.name}.x release")
    _, version, uploaded = max(found)
    return version, uploaded


def _pypi_index(project: str) -> dict[str, Any]:
    url = f"{os.environ.get(PYPI_VARIABLE, PYPI_JSON).rstrip('/')}/{project}/json"
    try:
        with urllib.request.urlopen(url, timeout=_PYPI_TIMEOUT_S) as response:
            return json.load(response)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise EnvironmentBuildError(f"cannot read {url}: {error}") from None


def _upload_time(entry: dict[str, Any]) -> datetime:
    text = entry.get("upload_time_iso_8601") or entry.get("upload_time") or ""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _call(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        raise EnvironmentBuildError(f"cannot run {shlex.join(command[:4])}: {error}") from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-_TAIL_LINES:])
        raise EnvironmentBuildError(f"{shlex.join(command[:4])} … exited with {done.returncode}:\n{tail}")
    return done.stdout
