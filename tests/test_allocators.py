"""Whose malloc a process runs, and the malloc settings a process is started with: found from the
process's own maps, refused where a setting did not take effect, glibc's levers called for real."""

import ctypes
import os
import subprocess
import sys

import pytest

from conftest import REPO
from tfspeedlab.core import allocators
from tfspeedlab.core.allocators import GLIBC, MallocSetting, allocator_of, file_mapped_at, malloc_from_key
from tfspeedlab.core.resident_memory import resident_bytes

MAPS = """\
55d0c0a00000-55d0c0a2b000 r--p 00000000 08:01 1234   /usr/bin/python3.11
7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0
7f1c2b200000-7f1c2b2a5000 r-xp 00009000 08:01 5678   /usr/lib/x86_64-linux-gnu/libjemalloc.so.2
7f1c2c028000-7f1c2c1bd000 r-xp 00028000 08:01 9012   /usr/lib/x86_64-linux-gnu/libc.so.6
7f1c2c400000-7f1c2c401000 r-xp 00000000 08:01 3456   /opt/my lib/libfoo.so
"""

# What a child Python prints: the allocator its malloc comes from, and glibc's arenas. The module is
# loaded from its file (it imports nothing of the package): the child need not import tfspeedlab.
REPORT = f"""\
import importlib.util, sys
spec = importlib.util.spec_from_file_location("allocators", {str(REPO / "tfspeedlab" / "core" / "allocators.py")!r})
module = sys.modules["allocators"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(module.malloc_in_use(), module.glibc_arenas())
"""


def report_of(env):
    """The allocator and arena count a fresh Python started with ``env`` reports on itself."""
    completed = subprocess.run([sys.executable, "-c", REPORT], capture_output=True, text=True, timeout=120,
                               env={**os.environ, **env})
    assert completed.returncode == 0, completed.stderr
    in_use, arenas = completed.stdout.split()
    return in_use, arenas, completed.stderr


def test_the_file_mapped_at_an_address_is_read_from_the_maps_listing():
    assert file_mapped_at(0x7F1C2B200000, MAPS) == "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
    assert file_mapped_at(0x7F1C2C1BCFFF, MAPS) == "/usr/lib/x86_64-linux-gnu/libc.so.6"
    assert file_mapped_at(0x7F1C2C1BD000, MAPS) == ""  # one past the end: no mapping
    assert file_mapped_at(0x7F1C2A000010, MAPS) == ""  # anonymous memory names no file
    assert file_mapped_at(0x7F1C2C400000, MAPS) == "/opt/my lib/libfoo.so"  # a space in a path is kept


@pytest.mark.parametrize("path, allocator", [
    ("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "jemalloc"),
    ("/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.16", "tcmalloc"),
    ("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4", "tcmalloc"),
    ("/usr/lib/x86_64-linux-gnu/libc.so.6", GLIBC),
    ("/lib64/libc-2.17.so", GLIBC),
    ("/usr/lib/libmimalloc.so.2", "libmimalloc.so.2"),
    ("", "unknown"),
])
def test_a_library_file_names_its_allocator(path, allocator):
    assert allocator_of(path) == allocator


def test_this_process_runs_glibcs_malloc_and_has_arenas():
    assert allocators.malloc_in_use() == GLIBC
    assert allocators.glibc_arenas() >= 1


def test_malloc_trim_hands_back_free_pages_inside_the_heap():
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = [libc.malloc(1024) for _ in range(20_000)]  # 20 MB below the mmap threshold: the heap
    pin = libc.malloc(1024)  # a live block above them: free() alone cannot shrink the heap's top
    for block in blocks:
        libc.free(block)
    try:
        before = resident_bytes()
        assert allocators.malloc_trim() is True  # whole free pages in the middle, released
        assert before - resident_bytes() > 15 * 2**20  # most of the 20 MB, back to the system
    finally:
        libc.free(pin)


def test_malloc_arena_max_bounds_the_arenas_a_fresh_process_reports():
    in_use, arenas, _ = report_of({"MALLOC_ARENA_MAX": "1"})
    assert (in_use, arenas) == (GLIBC, "1")


@pytest.mark.parametrize("name", sorted(allocators.PRELOADABLE))
def test_a_preload_that_took_effect_is_its_processs_malloc(name):
    setting = MallocSetting(name, allocator=name)
    env = setting.env()
    if not env:
        pytest.skip(f"{name} is not installed here ({allocators.PRELOADABLE[name].install})")
    in_use, arenas, _ = report_of(env)
    assert in_use == name
    assert setting.refusal(in_use, env) is None
    assert MallocSetting("glibc").refusal(in_use, env).startswith(f"malloc comes from {name}, not glibc")


def test_a_preload_the_loader_cannot_find_leaves_glibcs_malloc_and_is_refused():
    env = {"LD_PRELOAD": "libjemalloc-not-here.so.2"}
    in_use, _, stderr = report_of(env)
    assert in_use == GLIBC and "cannot be preloaded" in stderr
    reason = MallocSetting("jemalloc", allocator="jemalloc").refusal(in_use, env)
    assert reason == ("LD_PRELOAD=libjemalloc-not-here.so.2 did not take effect: malloc comes from glibc "
                      "(apt-get install -y libjemalloc2)")


def test_a_missing_allocator_adds_no_preload_and_is_refused_with_its_install_command(monkeypatch):
    monkeypatch.setattr(allocators.ctypes.util, "find_library", lambda name: None)
    setting = MallocSetting("tcmalloc", allocator="tcmalloc")
    assert setting.env() == {}
    assert setting.refusal(GLIBC, {}) == ("libtcmalloc_minimal.so.4 is not installed here "
                                          "(apt-get install -y libtcmalloc-minimal4)")


def test_an_installed_allocator_is_preloaded_by_the_file_the_loader_finds(monkeypatch):
    monkeypatch.setattr(allocators.ctypes.util, "find_library",
                        lambda name: {"jemalloc": "libjemalloc.so.2"}.get(name))
    assert MallocSetting("jemalloc", allocator="jemalloc").env() == {"LD_PRELOAD": "libjemalloc.so.2"}
    assert MallocSetting("MALLOC_ARENA_MAX=2", arena_max=2).env() == {"MALLOC_ARENA_MAX": "2"}
    assert MallocSetting("malloc_trim(0)", trim=True).env() == {}


def test_an_arena_limit_must_be_the_one_the_setting_asks_for():
    limited, default = MallocSetting("MALLOC_ARENA_MAX=2", arena_max=2), MallocSetting("glibc")
    assert limited.refusal(GLIBC, {"MALLOC_ARENA_MAX": "2"}) is None
    assert limited.refusal(GLIBC, {}) == "MALLOC_ARENA_MAX is unset in this process, not 2"
    # One inherited from the shell would make glibc's default another setting.
    assert default.refusal(GLIBC, {"MALLOC_ARENA_MAX": "4"}) == (
        "MALLOC_ARENA_MAX is 4 in this process, not unset: run without MALLOC_ARENA_MAX")
    assert default.refusal(GLIBC, {}) is None


def test_a_setting_records_whose_malloc_ran_one_flag_each():
    assert MallocSetting("glibc").metrics("jemalloc") == {
        malloc_from_key("glibc"): 0.0, malloc_from_key("jemalloc"): 1.0, malloc_from_key("tcmalloc"): 0.0}


@pytest.mark.parametrize("kwargs, message", [
    ({"allocator": "mimalloc"}, "no allocator 'mimalloc'"),
    ({"allocator": "jemalloc", "trim": True}, "glibc's, not jemalloc's"),
    ({"allocator": "tcmalloc", "arena_max": 2}, "glibc's, not tcmalloc's"),
])
def test_a_setting_that_cannot_exist_is_refused_when_declared(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MallocSetting("odd", **kwargs)


def test_a_process_started_without_the_preload_is_refused_though_the_allocator_is_installed(monkeypatch):
    monkeypatch.setattr(allocators.ctypes.util, "find_library", lambda name: f"lib{name}.so.2")
    assert MallocSetting("jemalloc", allocator="jemalloc").refusal(GLIBC, {}) == (
        "started without LD_PRELOAD=libjemalloc.so.2: malloc comes from glibc")
