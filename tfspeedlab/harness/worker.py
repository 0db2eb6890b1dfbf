"""Child process that runs one example: ``python -m tfspeedlab.harness.worker PATH ...``.

Each example runs in a fresh process so that thread pools (fixed at first use),
XLA caches, memory and even a crash of one example cannot touch another.
Exit codes: 0 written, 1 the example failed (recorded), 3 no GPU for a GPU run,
4 skipped (an optional dependency is missing; nothing written).
"""

from __future__ import annotations

import argparse
import signal
import sys
import traceback
from pathlib import Path

from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.schema import to_dict
from tfspeedlab.core.results.store import write_failure, write_json_atomic, write_results
from tfspeedlab.core.spec.workload import SkipExample, Workload
from tfspeedlab.harness import catalog, launch, machine, native_logs
from tfspeedlab.harness.cases import run_workload
from tfspeedlab.harness.estimate import estimate, write_estimate
from tfspeedlab.harness.exits import EXIT_FAILED, EXIT_NO_GPU, EXIT_SKIPPED
from tfspeedlab.harness.isolation import default_rounds, measure
from tfspeedlab.harness.machine import RUNNER_CHOICES, NoGPUError, hide_gpus_for, resolve_runner


def main(argv: list[str] | None = None) -> int:
    # TensorFlow's, XLA's and XProf's log lines below errors stay out of the run's progress
    # (``tfspeedlab run --verbose`` shows them); the processes this one starts write through it.
    with native_logs.filtered():
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfspeedlab.harness.worker")
    parser.add_argument("path", type=Path)
    parser.add_argument("--runner", choices=RUNNER_CHOICES, default="auto")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--partial", type=Path,
                        help="time one round of one group in this process and write its cases here (set by the harness)")
    parser.add_argument("--process", help="with --partial: the group (default: the cases with no process of their own)")
    parser.add_argument("--round", type=int, default=1, help="with --partial: which round")
    parser.add_argument("--processes", type=int, help="runs per case, for cases that do not set their own")
    parser.add_argument("--only", action="append", default=[], metavar="PARAM=VALUE",
                        help="time only the cases whose parameter PARAM reads VALUE (repeatable)")
    parser.add_argument("--estimate-to", type=Path, metavar="FILE",
                        help="write the run's estimate (its budget × cases × processes, plus start-up) here once the "
                             "workload is built, for the progress display (set by the harness)")
    options = parser.parse_args(argv)
    wanted = dict(item.split("=", 1) for item in options.only)
    if (options.partial is None) == (options.out is None) or (options.process is not None and options.partial is None):
        parser.error("give --out, or --partial (with --process for a named group)")

    script = catalog.ExampleScript(options.path.stem, options.path)
    native_logs.quiet_tensorflow_logs()
    hide_gpus_for(options.runner)
    try:
        runner = resolve_runner(options.runner)
    except NoGPUError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_NO_GPU
    terminate_as_interrupt()
    if options.partial:
        try:
            workload = script.load().workload(quick=options.quick).only(wanted)
            partial = run_workload(workload, runner, options.quick, group=options.process,
                                   round_number=options.round,
                                   default_rounds=options.processes or default_rounds(options.quick))
        except SystemExit as exit_:  # the example's own sys.exit(): not a finished run
            print(f"error: {exit_description(exit_)}", file=sys.stderr)
            return EXIT_FAILED
        write_json_atomic(options.partial, to_dict(partial))
        return 0
    machine.mark_run_start()  # the example's run starts here; its processes inherit the mark
    try:
        staging = artifacts.start_staging(options.out)
    except OSError as error:
        print(f"error: cannot write results under {options.out}: {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILED
    try:
        workload = script.load().workload(quick=options.quick).only(wanted)
        if workload.name != script.name:
            raise ValueError(f"{script.path} builds a workload named {workload.name!r}; it must be {script.name!r}")
        announce_estimate(script.name, workload, options)
        results = measure(script.path, workload, runner, options.quick, options.processes)
        path = write_results(results, options.out)
        artifacts.publish(staging, options.out, runner, script.name)
    except SkipExample as reason:
        print(f"  {script.name} skipped: {reason}", file=sys.stderr)
        return EXIT_SKIPPED
    except (Exception, SystemExit) as error:  # any failure of the example is recorded, not raised
        details = traceback.format_exc()
        print(details, file=sys.stderr)
        message = exit_description(error) if isinstance(error, SystemExit) else f"{type(error).__name__}: {error}"
        record = write_failure(options.out, runner, script.name, message, details, machine.utc_now())
        print(f"  {script.name} failed: {message} (recorded in {record})", file=sys.stderr)
        return EXIT_FAILED
    finally:
        artifacts.discard(staging)  # unless published: a skip, a failure or Ctrl-C keeps the old files
    print(f"  {script.name} → {path}", file=sys.stderr)
    return 0


def announce_estimate(name: str, workload: Workload, options: argparse.Namespace) -> None:
    """Say how long the run should take and how that was worked out; hand it to the supervisor."""
    found = estimate(workload, options.quick, options.processes,
                     forked=options.quick and not launch.cold_start_requested())
    print(f"  {name}: estimate {found.explained()}", file=sys.stderr, flush=True)
    if options.estimate_to is not None:
        try:
            write_estimate(options.estimate_to, found)
        except OSError:  # an estimate is never worth failing an example for
            pass


def exit_description(exit_: SystemExit) -> str:
    """An example that calls ``sys.exit()`` has not finished its run, whatever the code."""
    return f"SystemExit: the example called sys.exit({exit_.code!r}) before its results were written"


def terminate_as_interrupt() -> None:
    """SIGTERM (a timeout, a cancelled CI job, ``kill``) unwinds like Ctrl-C: finally blocks run."""
    def handler(number, frame):
        raise KeyboardInterrupt(f"signal {number}")

    if sys.platform != "win32":
        signal.signal(signal.SIGTERM, handler)


if __name__ == "__main__":
    sys.exit(main())
