"""Which timing setting lowers the noise on this machine? Each setting timed in fresh processes, taking turns.

    python scripts/noise-experiment.py [--rounds N] [--examples small_ops,train_step] [--settings a,b]

Settings (each applied in the child process that measures, before anything is timed):

* ``default``: the harness as it is (20 blocks over the budget, garbage collection off in blocks);
* ``blocks10`` / ``blocks5``: the same budget in 10 or 5 blocks, each 2× or 4× as long;
* ``pinned``: the process pinned to one core (``os.sched_setaffinity``);
* ``one_thread``: TensorFlow's intra- and inter-op pools at one thread each;
* ``load_checked``: a block during which other processes (or the hypervisor, "steal") used the CPU
  for more than a tenth of the block, read from ``/proc/stat`` against this process's own CPU
  time, is timed again (at most three times).

For every setting it prints, per case, the median over processes of the within-process spread
(IQR ÷ median of the blocks), the share of a setting's cases under 10%, and how far the per-process
speed-ups against the baseline move (max ÷ min). All settings are measured in one run, round
after round, so that the machine's drift falls on every one alike: compare them side by side.
Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SETTINGS = ("default", "blocks10", "blocks5", "pinned", "one_thread", "load_checked")
# A block is disturbed when other work took more than this share of one block's wall time.
DISTURBED_SHARE = 0.1
RETRIES = 3


def _cpu_jiffies() -> tuple[int, int]:
    """(every CPU's busy jiffies, steal jiffies) from /proc/stat's first line."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq + steal, steal


def _own_jiffies() -> int:
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, every thread of this process


def _apply(setting: str) -> dict:
    """Change the harness for this child process; what it did, for the report."""
    from tfspeedlab.core.measure import timer

    if setting == "blocks10":
        timer.TARGET_BLOCKS = 10
    elif setting == "blocks5":
        timer.TARGET_BLOCKS = 5
    elif setting == "pinned":
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    elif setting == "one_thread":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    elif setting == "load_checked":
        return _check_load(timer)
    return {}


def _check_load(timer) -> dict:
    retried = {"blocks": 0, "retimed": 0}
    hz = os.sysconf("SC_CLK_TCK")
    plain = timer._time_block

    def checked(fn, args, calls, finish, sync_every_call):
        for attempt in range(RETRIES + 1):
            busy, steal = _cpu_jiffies()
            own = _own_jiffies()
            elapsed = plain(fn, args, calls, finish, sync_every_call)
            busy_after, steal_after = _cpu_jiffies()
            other_s = ((busy_after - busy) - (_own_jiffies() - own)) / hz
            if other_s <= DISTURBED_SHARE * elapsed or attempt == RETRIES:
                retried["blocks"] += 1
                return elapsed
            retried["retimed"] += 1
        return elapsed

    timer._time_block = checked
    return retried


def child(setting: str, example: str, out: Path) -> None:
    notes = _apply(setting)
    from tfspeedlab.harness import catalog
    from tfspeedlab.harness.cases import run_workload

    workload = catalog.discover(None)[example].load().workload(quick=False)
    results = run_workload(workload, "cpu", quick=False, progress=lambda line: None)
    record = {"setting": setting, "example": example, "notes": notes, "baseline": results.baseline,
              "cases": {case.label: list(case.runs[0].samples_s) for case in results.cases}}
    out.write_text(json.dumps(record))


def _p10(samples: list[float]) -> float:
    ordered = sorted(samples)
    return statistics.quantiles(ordered, n=10, method="inclusive")[0] if len(ordered) > 1 else ordered[0]


def _spread(samples: list[float]) -> float:
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return (q3 - q1) / statistics.median(samples)


def report(records: list[dict]) -> None:
    by = {}
    for record in records:
        by.setdefault((record["example"], record["setting"]), []).append(record)
    for example in dict.fromkeys(record["example"] for record in records):
        print(f"\n{example}: within-process spread (median over processes) · per-process speed-up max÷min")
        settings = [setting for (found, setting) in by if found == example]
        labels = list(by[(example, settings[0])][0]["cases"])
        baseline = by[(example, settings[0])][0]["baseline"]
        print("  " + "setting".ljust(14) + "".join(label[:22].ljust(24) for label in labels) + "share < 10%")
        for setting in settings:
            runs = by[(example, setting)]
            cells, under = [], 0
            for label in labels:
                spreads = [_spread(run["cases"][label]) for run in runs]
                spread = statistics.median(spreads)
                under += sum(value < 0.10 for value in spreads)
                cell = f"{spread:.1%}"
                if baseline and label != baseline:
                    ratios = [_p10(run["cases"][baseline]) / _p10(run["cases"][label]) for run in runs]
                    cell += f" · {max(ratios) / min(ratios):.3f}"
                cells.append(cell.ljust(24))
            retimed = sum(run["notes"].get("retimed", 0) for run in runs)
            extra = f"  ({retimed} blocks retimed)" if setting == "load_checked" else ""
            print("  " + setting.ljust(14) + "".join(cells) + f"{under / (len(labels) * len(runs)):.0%}{extra}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--examples", default="small_ops,train_step")
    parser.add_argument("--settings", default=",".join(SETTINGS))
    parser.add_argument("--child", nargs=3, metavar=("SETTING", "EXAMPLE", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--save", type=Path, help="also keep every process's samples as JSON here")
    options = parser.parse_args()
    if options.child:
        child(options.child[0], options.child[1], Path(options.child[2]))
        return 0
    settings, examples = options.settings.split(","), options.examples.split(",")
    records = []
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(options.rounds):
            for example in examples:
                # The settings take turns, in another order each round.
                order = settings if round_number % 2 == 0 else settings[::-1]
                for setting in order:
                    out = Path(folder) / f"{round_number}-{example}-{setting}.json"
                    started = time.perf_counter()
                    subprocess.run([sys.executable, __file__, "--child", setting, example, str(out)], check=True,
                                   env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "-1"})
                    records.append(json.loads(out.read_text()))
                    print(f"round {round_number + 1}/{options.rounds} {example} {setting}: "
                          f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    if options.save:
        options.save.write_text(json.dumps(records))
    report(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
