"""Which C allocator serves a process's ``malloc``, and the settings a process can be started with to
change it: another allocator loaded first (``LD_PRELOAD``: jemalloc, tcmalloc), glibc's
``MALLOC_ARENA_MAX``, and glibc's ``malloc_trim(0)`` after each call. Linux only: it reads
``/proc/self/maps`` and calls glibc.

The dynamic loader and glibc read these variables once, when a process starts, so a setting is
given to a fresh process (``MallocSetting.env``), which then checks on itself that it took effect
(``MallocSetting.refusal``). That check matters: the loader skips a preload it cannot find with one
line on stderr and runs the process on glibc's ``malloc``, which must not be recorded as jemalloc's.
(A module of its own, apart from ``resident_memory``: every definition of a module an example
imports decides whether that example's committed results are still fresh.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

GLIBC = "glibc"
# The variable glibc reads at start for its arena count (default: eight per core on 64-bit).
ARENA_MAX_VARIABLE = "MALLOC_ARENA_MAX"
PRELOAD_VARIABLE = "LD_PRELOAD"


@dataclass(frozen=True)
class Preloadable:
    """An allocator that replaces glibc's ``malloc`` when the loader loads it first."""

    name: str  # "jemalloc"
    library: str  # the name ``ctypes.util.find_library`` looks for: "jemalloc"
    soname: str  # what a reader's LD_PRELOAD names: "libjemalloc.so.2"
    package: str  # Debian's and Ubuntu's package that installs it

    @property
    def install(self) -> str:
        return f"apt-get install -y {self.package}"

    def is_file(self, path: str) -> bool:
        """Whether ``path`` is a build of this allocator: ``libtcmalloc_minimal.so.4.5.16`` and the
        full ``libtcmalloc.so.4`` are both tcmalloc."""
        return Path(path).name.startswith(f"lib{self.name}")


PRELOADABLE = {allocator.name: allocator for allocator in (
    Preloadable("jemalloc", "jemalloc", "libjemalloc.so.2", "libjemalloc2"),
    Preloadable("tcmalloc", "tcmalloc_minimal", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4"),
)}
ALLOCATORS = (GLIBC, *PRELOADABLE)


def preload_library(name: str) -> str | None:
    """The library file the loader would preload for allocator ``name`` here (``libjemalloc.so.2``,
    found as ``ldconfig`` finds it), or None where it is not installed."""
    return ctypes.util.find_library(PRELOADABLE[name].library)


def file_mapped_at(address: int, maps: str) -> str:
    """The file mapped at ``address`` in a ``/proc/<pid>/maps`` listing; "" where none is (an
    anonymous mapping, or an address outside every mapping)."""
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 6:
            continue
        start, _, end = fields[0].partition("-")
        if int(start, 16) <= address < int(end, 16):
            return fields[5].strip()
    return ""


def allocator_of(path: str) -> str:
    """The allocator a library file is: ``jemalloc``, ``tcmalloc``, ``glibc`` for libc itself, else the
    file's own name (an allocator this module does not know); "unknown" for no file."""
    for allocator in PRELOADABLE.values():
        if allocator.is_file(path):
            return allocator.name
    name = Path(path).name
    if name.startswith(("libc.so", "libc-")):
        return GLIBC
    return name or "unknown"


def malloc_provider() -> str:
    """The file whose ``malloc`` this process calls: the first definition in the loader's global
    lookup order, where every library's calls to ``malloc`` go, so a preloaded allocator's where the
    preload took effect, else libc's. "" where the address is in no mapped file."""
    address = ctypes.cast(ctypes.CDLL(None).malloc, ctypes.c_void_p).value
    with open("/proc/self/maps") as maps:
        return file_mapped_at(address, maps.read())


def malloc_in_use() -> str:
    """The allocator this process's ``malloc`` comes from: ``glibc``, ``jemalloc``, ``tcmalloc`` …"""
    return allocator_of(malloc_provider())


def _glibc() -> ctypes.CDLL:
    # glibc's own functions, by its soname: a preloaded allocator exports no malloc_trim or
    # malloc_info of its own, and the process's global lookup must not pick another library's.
    return ctypes.CDLL("libc.so.6")


def malloc_trim() -> bool:
    """glibc's ``malloc_trim(0)``: free memory at the top of every arena and whole free pages inside
    them handed back to the system. True where it released any."""
    return bool(_glibc().malloc_trim(0))


def glibc_arenas() -> int | None:
    """How many arenas glibc's ``malloc`` has made in this process (the heaps ``malloc_info`` lists):
    a thread that finds every arena busy gets a new one, up to ``MALLOC_ARENA_MAX``. None where glibc
    cannot say."""
    libc = _glibc()
    libc.fdopen.restype = ctypes.c_void_p
    libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    with tempfile.TemporaryFile() as scratch:
        stream = libc.fdopen(os.dup(scratch.fileno()), b"w")
        if not stream:
            return None
        try:
            failed = libc.malloc_info(0, stream)
        finally:
            libc.fclose(stream)  # flushes, and closes the duplicate
        scratch.seek(0)
        report = scratch.read().decode("utf-8", errors="replace")
    return None if failed else report.count("<heap nr=")


@dataclass(frozen=True)
class MallocSetting:
    """How a process's memory is allocated: whose ``malloc`` it runs (``allocator``), glibc's arena
    limit (``arena_max``) and whether ``malloc_trim(0)`` runs after each call (``trim``)."""

    label: str
    allocator: str = GLIBC
    arena_max: int | None = None
    trim: bool = False

    def __post_init__(self) -> None:
        if self.allocator not in ALLOCATORS:
            raise ValueError(f"setting {self.label!r}: no allocator {self.allocator!r}; "
                             f"allocators: {', '.join(ALLOCATORS)}")
        if self.allocator != GLIBC and (self.arena_max is not None or self.trim):
            raise ValueError(f"setting {self.label!r}: MALLOC_ARENA_MAX and malloc_trim are glibc's, "
                             f"not {self.allocator}'s")

    def env(self) -> dict[str, str]:
        """What the process's environment adds. A preload whose library is not installed adds
        nothing: the process then refuses with the install command, and no loader error is printed
        by every program it starts."""
        found: dict[str, str] = {}
        if self.allocator in PRELOADABLE and (library := preload_library(self.allocator)):
            found[PRELOAD_VARIABLE] = library
        if self.arena_max is not None:
            found[ARENA_MAX_VARIABLE] = str(self.arena_max)
        return found

    def refusal(self, in_use: str, environ: Mapping[str, str]) -> str | None:
        """Why a process whose ``malloc`` comes from ``in_use``, with ``environ``, does not run this
        setting; None where it does. A process that inherited another setting (an LD_PRELOAD or
        MALLOC_ARENA_MAX of the shell) is refused too: its figures would be another setting's."""
        if in_use != self.allocator:
            if self.allocator in PRELOADABLE:
                allocator = PRELOADABLE[self.allocator]
                if environ.get(PRELOAD_VARIABLE):
                    return (f"{PRELOAD_VARIABLE}={environ[PRELOAD_VARIABLE]} did not take effect: malloc comes from "
                            f"{in_use} ({allocator.install})")
                if preload_library(self.allocator) is None:
                    return f"{allocator.soname} is not installed here ({allocator.install})"
                return f"started without {PRELOAD_VARIABLE}={allocator.soname}: malloc comes from {in_use}"
            return (f"malloc comes from {in_use}, not {self.allocator}: run without "
                    f"{PRELOAD_VARIABLE}={environ.get(PRELOAD_VARIABLE, '')}")
        arena_max = environ.get(ARENA_MAX_VARIABLE)
        wanted = None if self.arena_max is None else str(self.arena_max)
        if arena_max != wanted:
            return (f"{ARENA_MAX_VARIABLE} is {arena_max or 'unset'} in this process, not {wanted or 'unset'}"
                    + (f": run without {ARENA_MAX_VARIABLE}" if wanted is None else ""))
        return None

    def metrics(self, in_use: str) -> dict[str, float]:
        """Which allocator the process ran, one flag each (``malloc_from_jemalloc`` 1.0), for a
        results file whose metrics are numbers."""
        return {malloc_from_key(name): float(name == in_use) for name in ALLOCATORS}


def malloc_from_key(allocator: str) -> str:
    """The metric that says a process's ``malloc`` came from ``allocator``."""
    return f"malloc_from_{allocator}"
