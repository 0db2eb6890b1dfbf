"""What a results file records of the machine beyond its CPU and software: the load as the run began
and ended, the CPU clock's governor, the memory, and the CPU's real name on macOS; and how the
Runners page shows them, for new files and for files measured before they were recorded."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.core.results.schema import ResultsFileError, from_dict, to_dict
from tfspeedlab.core.units import UNIT_SPACE
from tfspeedlab.harness import machine
from tfspeedlab.site import tables
from tfspeedlab.site.tables import machine_state

NEW_FIELDS = ("load_average_start", "load_average_end", "cpu_governor", "memory_bytes")


def test_the_governor_is_read_where_linux_exposes_it_and_none_elsewhere(tmp_path):
    governor = tmp_path / "scaling_governor"
    governor.write_text("performance\n")
    assert machine.cpu_governor(governor) == "performance"
    assert machine.cpu_governor(tmp_path / "missing") is None
    governor.write_text("perf\x1b[31mormance\n")  # a control character is no governor's name
    assert machine.cpu_governor(governor) is None


def test_the_memory_is_read_from_meminfo_in_bytes(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:        8131072 kB\nMemFree:         1000 kB\n")
    assert machine.memory_bytes(meminfo) == 8131072 * 1024
    meminfo.write_text("MemFree: 1000 kB\n")
    if sys.platform.startswith("linux"):
        assert machine.memory_bytes(meminfo) is None


def test_the_load_as_a_run_began_travels_to_its_processes_and_into_the_record(monkeypatch):
    monkeypatch.delenv(machine.LOAD_AT_START_VARIABLE, raising=False)
    assert machine.load_at_start() is None  # no run marked one: not recorded, not made up
    monkeypatch.setattr(machine, "load_average", lambda: 1.25)
    machine.mark_run_start()
    assert os.environ[machine.LOAD_AT_START_VARIABLE] == "1.25"  # inherited by every process the run starts
    monkeypatch.setattr(machine, "load_average", lambda: 0.5)
    record = machine.capture("cpu")
    assert record["load_average_start"] == 1.25 and record["load_average_end"] == 0.5
    assert set(NEW_FIELDS) <= set(record)


def test_a_fresh_process_of_a_run_records_this_machine_in_plain_short_fields():
    code = ("import json; from tfspeedlab.harness import machine; machine.mark_run_start(); "
            "print(json.dumps(machine.capture('cpu')))")
    completed = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr[-2000:]
    record = json.loads(completed.stdout.strip().splitlines()[-1])
    if sys.platform.startswith("linux"):
        assert isinstance(record["load_average_start"], float) and isinstance(record["load_average_end"], float)
        assert isinstance(record["memory_bytes"], int) and record["memory_bytes"] > 2**20
    governor = record["cpu_governor"]
    assert governor is None or (governor.isprintable() and len(governor) <= 32)
    assert record["cpu_model"].isprintable() and len(record["cpu_model"]) <= machine.MAX_NAME


def test_on_macos_the_cpu_is_named_by_its_brand_string_not_arm(monkeypatch, tmp_path):
    monkeypatch.setattr(machine.sys, "platform", "darwin")
    asked = []

    def sysctl(command, **kwargs):
        asked.append(command)
        return subprocess.CompletedProcess(command, 0, stdout="Apple M2 Pro\n", stderr="")

    monkeypatch.setattr(machine.subprocess, "run", sysctl)
    monkeypatch.setattr(machine.platform, "processor", lambda: "arm")
    assert machine.cpu_model(tmp_path / "no-cpuinfo") == "Apple M2 Pro"
    assert asked == [["sysctl", "-n", "machdep.cpu.brand_string"]]


def test_older_files_without_the_new_fields_still_load_and_read_not_recorded():
    old = synthetic_results()
    assert not set(NEW_FIELDS) & set(old.environment)
    loaded = from_dict(to_dict(old), "old.json")
    assert machine_state(loaded.environment) == "not recorded"
    row = tables.environment_table([loaded])
    assert "Load, memory, governor" in row and "not recorded" in row


def test_the_runners_table_shows_load_memory_and_governor_where_recorded():
    results = synthetic_results()
    recorded = dataclasses.replace(results, environment={
        **results.environment, "load_average_start": 0.52, "load_average_end": 1.1, "cpu_governor": "performance",
        "memory_bytes": 8 * 2**30})
    assert machine_state(recorded.environment) == f"load 0.52 → 1.10; 8.00{UNIT_SPACE}GiB; governor performance"
    unreadable = {**results.environment, "load_average_start": None, "load_average_end": 0.3, "cpu_governor": None,
                  "memory_bytes": None}
    assert machine_state(unreadable) == "load ? → 0.30; memory not readable; no governor readable"
    assert "load 0.52 → 1.10" in tables.environment_table([recorded])


@pytest.mark.parametrize("field, value", [("load_average_end", "high"), ("memory_bytes", 1.5),
                                          ("cpu_governor", 3), ("load_average_start", [1, 2])])
def test_a_new_field_of_the_wrong_type_is_refused_naming_it(field, value):
    data = to_dict(synthetic_results())
    data["environment"][field] = value
    with pytest.raises(ResultsFileError, match=f"environment.{field}"):
        from_dict(json.loads(json.dumps(data)), "demo.json")

