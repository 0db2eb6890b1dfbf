"""A run's progress: the time spent and an estimate from what each example declares (its budget × its
cases × their processes, plus a start-up allowance per process); on a pipe one line per example and
nothing redrawn, on a terminal a status row redrawn in place."""

import fcntl
import io
import os
import re
import select
import struct
import termios
import textwrap

import pytest

from conftest import PASSING_EXAMPLE, run_cli
from tfspeedlab.core.spec.workload import Case, Workload
from tfspeedlab.harness.estimate import (STARTUP_FORKED_S, STARTUP_FRESH_S, ExampleEstimate, estimate,
                                         format_duration, read_estimate, write_estimate)
from tfspeedlab.harness.progress import RunProgress
from tfspeedlab.history.command import history_progress

# Two cases in processes of their own, one of them timed in two: 3 case-runs in 1 + 3 processes.
GROUPED_EXAMPLE = '''
# # Grouped
import time
import tfspeedlab

def workload(quick=False):
    return tfspeedlab.Workload(name="grouped", title="Grouped", budget_s=0.05, cases=[
        tfspeedlab.Case("a", time.sleep, (0.001,), process="x", rounds=2),
        tfspeedlab.Case("b", time.sleep, (0.001,), process="y"),
    ])
'''


def nothing():
    pass


def test_an_estimate_is_the_budget_times_the_case_runs_plus_a_start_up_per_process():
    together = Workload("demo", "Demo", [Case("a", nothing), Case("b", nothing), Case("c", nothing)], budget_s=2.0)
    # A full run: three processes of all three cases, started by the worker (which builds the workload too).
    full = estimate(together, quick=False)
    assert (full.case_runs, full.processes, full.startup_s) == (9, 4, STARTUP_FRESH_S)
    assert full.seconds == 2.0 * 9 + 4 * STARTUP_FRESH_S
    # A quick run in one process, forked: the worker times the cases itself.
    quick = estimate(together, quick=True, forked=True)
    assert (quick.case_runs, quick.processes, quick.seconds) == (3, 1, 3 * 2.0 + STARTUP_FORKED_S)
    assert estimate(together, quick=True, processes=2).processes == 1 + 2
    grouped = Workload("demo", "Demo", [Case("a", nothing, process="x", rounds=2), Case("b", nothing, process="y")],
                       budget_s=0.5)
    found = estimate(grouped, quick=True)
    assert (found.case_runs, found.processes) == (3, 1 + 2 + 1)  # round 1: x and y; round 2: x alone
    assert found.explained() == (f"about {format_duration(found.seconds)} (0.5 s budget × 3 case-runs, 2 cases over "
                                 f"their processes, + 4 processes × {STARTUP_FRESH_S:g} s start-up)")
    assert full.explained().split(" (")[1].startswith("2 s budget × 9 case-runs, 3 cases in 3 processes each, + 4")


@pytest.mark.parametrize("seconds, text", [(0.4, "0 s"), (59.6, "1 min"), (61, "1 min 1 s"), (125, "2 min 5 s"),
                                           (600, "10 min"), (3599, "1 h"), (3900, "1 h 5 min"), (-3, "0 s")])
def test_durations_read_as_people_say_them(seconds, text):
    assert format_duration(seconds) == text


def test_an_unreadable_or_missing_estimate_is_no_estimate(tmp_path):
    assert read_estimate(tmp_path / "missing.json") is None
    for text in ("{", "[]", '{"seconds": "soon"}', '{"seconds": -1}', '{"seconds": NaN}'):
        (tmp_path / "bad.json").write_text(text)
        assert read_estimate(tmp_path / "bad.json") is None, text
    write_estimate(tmp_path / "good.json", ExampleEstimate(1.0, 2, 6, 4, 8.0))
    assert read_estimate(tmp_path / "good.json") == 1.0 * 6 + 4 * 8.0


def test_a_quick_run_on_a_pipe_prints_one_line_per_example_its_estimate_and_its_time_beside_it(tmp_path):
    examples = tmp_path / "examples"
    examples.mkdir()
    for name, text in (("passing", PASSING_EXAMPLE), ("grouped", GROUPED_EXAMPLE)):
        (examples / f"{name}.py").write_text(textwrap.dedent(text))
    completed = run_cli("--examples", str(examples), "run", "passing", "grouped", "--quick", "--jobs", "1",
                        "--runner", "cpu", "--out", str(tmp_path / "out"), timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    printed = completed.stderr
    assert "\r" not in printed and "\x1b" not in printed  # nothing redrawn in a log
    starts = [line for line in printed.splitlines() if re.match(r"\[\d/2\] ", line)]
    assert len(starts) == 2, printed
    assert re.fullmatch(r"\[1/2\] passing: A passing example \(\d+ s into the run\)", starts[0]), starts
    assert re.fullmatch(r"\[2/2\] grouped: Grouped \(\d+ s into the run\)", starts[1]), starts
    # The worker's estimate, as worked out from what the example declares (forked processes: a quick run).
    grouped = 0.05 * 3 + 4 * STARTUP_FORKED_S
    assert (f"  grouped: estimate about {format_duration(grouped)} (0.05 s budget × 3 case-runs, 2 cases over "
            f"their processes, + 4 processes × {STARTUP_FORKED_S:g} s start-up)") in printed
    passing = 0.05 + STARTUP_FORKED_S
    assert (f"  passing: estimate about {format_duration(passing)} (0.05 s budget × 1 case-run, 1 case in 1 process, "
            f"+ 1 process × {STARTUP_FORKED_S:g} s start-up)") in printed
    summary = printed.split("summary (")[1]
    assert re.search(rf"  passing: ok in \d+ s \(estimate {format_duration(passing)}\)", summary), summary
    assert re.search(rf"  grouped: ok in \d+ s \(estimate {format_duration(grouped)}\)", summary), summary


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_on_a_pipe_the_progress_is_lines_and_the_estimate_comes_from_the_workers_file(tmp_path):
    stream, clock = io.StringIO(), Clock()
    progress = RunProgress(2, stream=stream, clock=clock, estimates_dir=tmp_path)
    clock.now += 65
    progress.started("demo", 1, "Demo")
    write_estimate(progress.estimate_file("demo"), ExampleEstimate(2.0, 3, 9, 4, 8.0))
    clock.now += 30
    assert progress.finished("demo", "ok", 30.0) == "ok in 30 s (estimate 50 s)"
    progress.close()
    assert stream.getvalue() == "[1/2] demo: Demo (1 min 5 s into the run)\n"


def test_on_a_terminal_a_status_row_is_redrawn_in_place_below_the_scrolling_lines(tmp_path, monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    clock = Clock()
    with os.fdopen(terminal, "w", encoding="utf-8") as stream:
        progress = RunProgress(3, stream=stream, clock=clock, estimates_dir=tmp_path)
        progress.started("demo", 2, "Demo")
        write_estimate(progress.estimate_file("demo"), ExampleEstimate(2.0, 3, 9, 4, 8.0))
        clock.now += 0.5
        progress.tick()  # within a second of the last drawing: not redrawn yet
        clock.now += 41
        progress.tick()
        progress.close()
        written = b""
        while select.select([controller], [], [], 0.5)[0]:
            chunk = os.read(controller, 65536)
            if not chunk:
                break
            written += chunk
    os.close(controller)
    text = written.decode()
    assert "[2/3] demo: Demo (0 s into the run)" in text
    assert "\x1b[1;23r" in text  # everything else scrolls above the last row
    rows = re.findall(r"\x1b7\x1b\[24;1H\x1b\[2K(.*?)\x1b8", text)
    assert rows == ["[2/3] demo 0 s · run 0 s", "[2/3] demo 42 s of about 50 s · run 42 s"], text
    assert text.endswith("\x1b7\x1b[r\x1b8\x1b[J")  # the terminal given back


def test_a_history_says_how_long_the_releases_still_to_run_should_take(tmp_path):
    assert history_progress(75, 3, tmp_path) == "1 min 15 s into the history"
    write_estimate(tmp_path / "releases.json", ExampleEstimate(1.0, 10, 30, 4, 8.0))  # 62 s
    write_estimate(tmp_path / "memory.json", ExampleEstimate(1.0, 5, 5, 1, 8.0))  # 13 s
    (tmp_path / "broken.json").write_text("{")
    assert history_progress(75, 3, tmp_path) == (
        "1 min 15 s into the history; about 3 min 45 s to go: 3 release runs × 1 min 15 s, the examples' estimate "
        "on the last one, building environments not included")
