"""``tfspeedlab run | history | diagnose | list | env | merge | pool | compare``."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from tfspeedlab.core.results import artifacts
from tfspeedlab.core.results.history import release_folder
from tfspeedlab.core.results.merge import MergeError, merge_results
from tfspeedlab.core.results.pool import PoolError, pool_trees
from tfspeedlab.core.results.repo import REPO_ROOT
from tfspeedlab.core.results.schema import MAX_RUNS, RUNNERS, ResultsFileError
from tfspeedlab.core.spec.releases import UnknownReleaseError, parse_selection
from tfspeedlab.diagnosis import command as diagnose_command
from tfspeedlab.diagnosis.codec import pooled_block
from tfspeedlab.harness import catalog, compare_report, install, launch, machine, native_logs, supervisor
from tfspeedlab.harness.compare import CompareError, compare_runs, slowed
from tfspeedlab.harness.exits import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_NO_GPU, EXIT_USAGE, UsageError,
                                      end_past_leftover_threads)
from tfspeedlab.harness.isolation import default_rounds
from tfspeedlab.harness.machine import RUNNER_CHOICES, hide_gpus_for
from tfspeedlab.harness.progress import RunProgress
from tfspeedlab.harness.worker import terminate_as_interrupt
from tfspeedlab.history import environments
from tfspeedlab.history.command import HistoryInterrupted, HistoryOptions, run_history
from tfspeedlab.site import site_data

# What `tfspeedlab history` runs when no example is named: the moving parts, a few minutes a release.
HISTORY_EXAMPLES = ("releases",)
VERBOSE_HELP = "also show TensorFlow's, XLA's and XProf's own log lines (INFO and WARNING), hidden by default"
# The commands that import TensorFlow here or in their workers (`history` builds its own environments).
MEASURING_COMMANDS = frozenset({"run", "diagnose", "env"})


def main(argv: list[str] | None = None) -> int:
    code = _command(argv)
    if argv is None:
        # Run as the program (the console script and ``python -m tfspeedlab`` give no argv): a thread
        # the reader's code started and never stopped (``diagnose`` runs it in this process) must
        # not keep the process alive after its report, as Python's wait for it at exit would.
        end_past_leftover_threads(code)
    return code


def _command(argv: list[str] | None) -> int:
    parser = _parser()
    options = parser.parse_args(argv)
    if options.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if options.command in MEASURING_COMMANDS:
            install.require_tensorflow(options.command)
        code = options.handler(options)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit as a traceback
        return code
    except UsageError as error:  # every command's bad input, said once, in one line
        if error.details:
            print(error.details.rstrip(), file=sys.stderr)
        _say_error(str(error))
        return EXIT_USAGE
    except OSError as error:
        if error.filename is not None:
            raise  # a file of ours: a bug to see whole, not an output that failed
        # The output could not be written: a full disk, or a reader that went away (`| head`).
        _drop_stdout()
        _say_error(f"cannot write the output: {error.strerror or error}")
        return EXIT_FAILED


def _say_error(message: str) -> None:
    """Every command's one line of error, in one form."""
    print(f"tfspeedlab: error: {message}", file=sys.stderr)


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit finds nothing to fail on."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file behind sys.stdout (a test's capture): nothing to drop
        pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tfspeedlab", description="Fair timing of TensorFlow examples.")
    parser.add_argument("--examples", type=Path, default=None,
                        help="folder of example scripts (default: the repository's examples/)")
    commands = parser.add_subparsers(dest="command")

    run = commands.add_parser("run", help="run examples and write results/<runner>/<example>.json")
    _example_options(run, "all", "<runner>/<example>.json",
                     "e.g. batch=1): for re-measuring part of an example, so it needs --out (a narrowed file is no "
                     "page's results)")
    run.add_argument("--runner", choices=RUNNER_CHOICES, default="auto",
                     help="results folder to write: cpu hides any GPU; gpu refuses to run without one")
    run.add_argument("--cold-start", action="store_true",
                     help="start every process from a fresh interpreter in a quick run too (a full run always "
                          "does; a quick one forks them from a process that has imported TensorFlow once)")
    run.add_argument("--jobs", type=_positive, metavar="N",
                     help="a quick run's examples run N at a time (default: one per core, at most two); "
                          "a full run, or a quick one with --cold-start, runs one at a time")
    run.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    run.set_defaults(handler=_run)

    history = commands.add_parser(
        "history", help="run examples on several TensorFlow releases, each in an environment of its own "
                        "(built with uv, kept between runs); results/<runner>/history/tf-<release>/")
    _example_options(history, " ".join(HISTORY_EXAMPLES), "<runner>/history/tf-<release>/",
                     "e.g. in_history=True): on every release, an example's part meant for the history")
    history.add_argument("--tf", metavar="RELEASES",
                         help="minor releases, comma-separated, e.g. 2.15,2.21 (default: 2.12 to 2.21); "
                              "each at its newest patch")
    history.add_argument("--runner", choices=("cpu", "gpu"), default="cpu",
                         help="cpu installs tensorflow-cpu and hides any GPU; gpu installs tensorflow[and-cuda]")
    history.add_argument("--envs", type=Path, default=None, metavar="DIR",
                         help=f"where the environments are kept (default: ${environments.ENVS_VARIABLE} "
                              "or ~/.cache/tfspeedlab/envs)")
    history.add_argument("--passes", type=_positive, default=1, metavar="N",
                         help="measure every release N times, the order reversed each pass, and pool each "
                              "release's processes: a slow stretch of the machine then falls on several "
                              "releases' intervals instead of shifting one release (default: 1)")
    history.set_defaults(handler=_history)

    diagnosis = commands.add_parser(
        "diagnose", help="time your own function (eagerly, as a tf.function, with XLA) or Keras model "
                         "(predict and training calls) and say what to do")
    diagnosis.add_argument("target", metavar="TARGET",
                           help="path/to/file.py:function, package.module:function, or a Keras model file "
                                "(model.keras, model.h5)")
    diagnosis.add_argument("--inputs", metavar="SPEC",
                           help="path.py:make_inputs (or package.module:make_inputs), returning (args, kwargs) "
                                "for the function; without it the function is called with no arguments")
    diagnosis.add_argument("--batch", type=_positive, metavar="N",
                           help="for a Keras model file: the batch size to measure at (default: 32)")
    diagnosis.add_argument("--backends", metavar="LIST",
                           help="for a Keras model file: compare Keras 3 backends on it, e.g. tensorflow,jax,torch "
                                "(each in fresh processes; the first named is the reference)")
    diagnosis.add_argument("--budget", type=float, default=10.0, metavar="SECONDS",
                           help="time the whole diagnosis may take, from the first call of the function to "
                                "the report (importing TensorFlow and your module come before it); a budget "
                                "too small for the least a diagnosis does is refused (default: 10)")
    diagnosis.add_argument("--processes", type=_processes, default=1, metavar="N",
                           help="diagnose a function in N fresh processes, one after another, and pool them: "
                                "the intervals then cover how far a fresh process moves (default: 1)")
    diagnosis.add_argument("--threads", action="store_true",
                           help="for a function: time it under TensorFlow's thread settings (the defaults, one "
                                "thread per op, one thread per pool), each in fresh processes (2, or --processes), "
                                "and name a setting only where its whole interval lies past 1.10× the defaults")
    diagnosis.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    diagnosis.add_argument("--save", type=Path, metavar="FILE",
                           help="also write the report as JSON, with the environment, to FILE")
    diagnosis.add_argument("--markdown", type=Path, metavar="FILE",
                           help="also write the report to FILE as Markdown, to keep or share")
    diagnosis.add_argument("--html", type=Path, metavar="FILE",
                           help="also write the report to FILE as a standalone HTML page")
    diagnosis.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    diagnosis.set_defaults(handler=_diagnose)

    listing = commands.add_parser("list", help="list the examples")
    listing.set_defaults(handler=_list)

    pooling = commands.add_parser(
        "pool", help="pool two sittings of the same examples (same code, same software): each case's "
                     "processes from both in one file, so its interval covers the machine's drift")
    pooling.add_argument("first", type=Path, metavar="FIRST", help="a results root")
    pooling.add_argument("second", type=Path, metavar="SECOND", help="a results root measured later")
    pooling.add_argument("--into", type=Path, required=True, metavar="DIR",
                         help="results root to write the pooled files into (may be FIRST or SECOND)")
    pooling.set_defaults(handler=_pool)

    env = commands.add_parser("env", help="print the environment a run would record")
    env.set_defaults(handler=_env)

    merge = commands.add_parser(
        "merge", help="merge results from other runs into one results folder, newest run per runner/example"
    )
    merge.add_argument("sources", nargs="+", type=Path, metavar="SOURCE",
                       help="a results root (SOURCE/<runner>/<example>.json), one runner's folder, or one file")
    merge.add_argument("--into", type=Path, required=True, metavar="DIR",
                       help="results root to merge into; nothing in it is deleted")
    merge.set_defaults(handler=_merge)

    compare = commands.add_parser(
        "compare", help="how a new run differs from an old one, with 95%% intervals (as benchstat and pyperf "
                        "compare_to): case by case on one machine; across machines, the speed-ups within each example")
    compare.add_argument("old", type=Path, metavar="OLD", help="a results file, a results root or one runner's folder")
    compare.add_argument("new", type=Path, metavar="NEW", help="the same, for the run to compare with OLD")
    compare.add_argument("--times", action="store_true",
                         help="where the machines differ, also show the raw-time changes (they lead on one machine)")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON instead of tables")
    compare.add_argument("--fail-on-slower", nargs="?", const=0.0, type=_percent, metavar="PCT",
                         help="exit 1 where a comparison the report leads with is significantly slower, by PCT%% or "
                              "more (--fail-on-slower=5; alone: by any amount): for CI. A side timed in one "
                              "process gives no verdict, so it fails nothing")
    compare.set_defaults(handler=_compare)
    return parser


def _example_options(command: argparse.ArgumentParser, default: str, out: str, only: str) -> None:
    """The options ``run`` and ``history`` share: which examples, how quick, where the files go, how many
    processes, how long an example may take, which cases (``only`` ends the help of --only)."""
    command.add_argument("names", nargs="*", metavar="NAME", help=f"examples to run (default: {default})")
    command.add_argument("--quick", action="store_true", help="shrunken workloads and budgets, as in CI")
    command.add_argument("--out", type=Path, default=Path("results"),
                         help=f"results root; files go to OUT/{out} (default: results)")
    command.add_argument("--processes", type=_processes, metavar="N",
                         help="fresh processes (runs) per case, where the example does not set its own "
                              "(default: 3 for a full run, 1 with --quick)")
    command.add_argument("--timeout", type=_positive, metavar="SECONDS",
                         help="stop an example that runs longer and record it as failed "
                              f"(default: {supervisor.TIMEOUT_FULL_S} s, {supervisor.TIMEOUT_QUICK_S} s with --quick)")
    command.add_argument("--only", action="append", default=[], metavar="PARAM=VALUE", type=_only,
                         help=f"time only the cases whose parameter PARAM reads VALUE (repeatable; {only}")


def _only(text: str) -> str:
    name, equals, value = text.partition("=")
    if not equals or not name.isidentifier() or not value:
        raise argparse.ArgumentTypeError(f"must be PARAM=VALUE, got {text!r}")
    return text


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _percent(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a percentage of at least 0, got {text}")
    return value


def _processes(text: str) -> int:
    """Fresh processes per case: at most the runs a results file may hold, refused here rather than
    by the write after the whole measurement."""
    value = _positive(text)
    if value > MAX_RUNS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_RUNS} (the runs per case a results file holds), "
                                         f"got {value}")
    return value


def _history(options: argparse.Namespace) -> int:
    try:
        releases = parse_selection(options.tf)
        names = options.names or HISTORY_EXAMPLES
        catalog.select(names, options.examples)
    except (UnknownReleaseError, catalog.UnknownExampleError, catalog.ExamplesFolderError) as error:
        raise UsageError(str(error)) from None
    _check_writable(options.out)
    # Every pass's processes are pooled into one file per release: the file holds all of them.
    per_pass = options.processes or default_rounds(options.quick)
    if options.passes * per_pass > MAX_RUNS:
        raise UsageError(f"--passes {options.passes} of {per_pass} processes each pool {options.passes * per_pass} "
                         f"runs per case into one file, which holds at most {MAX_RUNS}")
    history_options = HistoryOptions(
        examples=list(names), runner=options.runner, out=options.out,
        envs_dir=options.envs or environments.default_envs_dir(), quick=options.quick,
        processes=options.processes, timeout_s=options.timeout, examples_dir=options.examples,
        passes=options.passes, only=tuple(options.only))
    started = time.perf_counter()

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        outcomes = run_history(releases, history_options, log)
    except HistoryInterrupted as interrupt:
        outcomes = interrupt.outcomes
        log("\ninterrupted: every release finished before it keeps its results")
    print(f"\nhistory ({time.perf_counter() - started:.1f} s):", file=sys.stderr)
    for outcome in outcomes:
        folder = release_folder(options.out, options.runner, outcome.release)
        sitting = f" (pass {outcome.pass_number})" if options.passes > 1 else ""
        print(f"  TensorFlow {outcome.release.name}{sitting}: {outcome.status} in {outcome.seconds:.1f} s → {folder}",
              file=sys.stderr)
    if any(outcome.status == "interrupted" for outcome in outcomes):
        return EXIT_INTERRUPTED
    return 0 if all(outcome.ok for outcome in outcomes) else 1


def _list(options: argparse.Namespace) -> int:
    try:
        examples = catalog.discover(options.examples)
    except catalog.ExamplesFolderError as error:
        raise UsageError(str(error)) from None
    width = max((len(name) for name in examples), default=0)
    for name, script in examples.items():
        print(f"{name.ljust(width)}  {script.title}")
    return 0


def _env(options: argparse.Namespace) -> int:
    native_logs.quiet_tensorflow_logs()  # as a run's processes would, before TensorFlow is imported
    machine.hide_gpus_for("auto")
    machine.mark_run_start()  # the load now, as a run starting now would record it
    print(json.dumps(machine.capture(), indent=2))
    return 0


def _merge(options: argparse.Namespace) -> int:
    try:
        report = merge_results(options.sources, options.into)
    except MergeError as error:
        raise UsageError(str(error)) from None
    _list_paths(("wrote", report.written, ""), ("kept", report.unchanged, "already as new as any source"),
                ("skipped", report.superseded, "another source has a run at least as new"),
                ("ignored", report.ignored, "a failure record, not results"))
    print(f"{len(report.written)} written, {len(report.unchanged)} already up to date")
    return 0


def _pool(options: argparse.Namespace) -> int:
    try:
        report = pool_trees(options.first, options.second, options.into, pooled_block)
    except (PoolError, ResultsFileError) as error:
        raise UsageError(f"{error}; nothing was written") from None
    _list_paths(("wrote", report.written, ""), ("skipped", report.only_in_one, "not in both sittings"))
    print(f"{len(report.written)} pooled")
    return 0


def _list_paths(*groups: tuple[str, list[Path], str]) -> None:
    """One line per file: what was done to it and, where it needs saying, why."""
    for verb, paths, why in groups:
        for path in paths:
            print(f"{verb} {path}" + (f" ({why})" if why else ""))


def _compare(options: argparse.Namespace) -> int:
    try:
        comparison = compare_runs(options.old, options.new)
    except (CompareError, ResultsFileError) as error:
        raise UsageError(str(error)) from None
    if options.json:
        print(json.dumps(compare_report.json_report(comparison, options.times, options.fail_on_slower), indent=2))
    else:
        print(compare_report.text_report(comparison, options.times, options.fail_on_slower))
    if options.fail_on_slower is not None and slowed(comparison.leading, options.fail_on_slower):
        return EXIT_FAILED
    return 0


def _diagnose(options: argparse.Namespace) -> int:
    native_logs.show_everything(options.verbose)
    with native_logs.filtered():  # the diagnosis runs here: its own log lines, and its children's
        return diagnose_command.run(options)


def _run(options: argparse.Namespace) -> int:
    native_logs.show_everything(options.verbose)  # the workers inherit it
    native_logs.quiet_tensorflow_logs()  # before this process may import TensorFlow (forking, a GPU check)
    try:
        scripts = catalog.select(options.names, options.examples)
    except (catalog.UnknownExampleError, catalog.ExamplesFolderError) as error:
        raise UsageError(str(error)) from None
    if not scripts:
        raise UsageError("no examples found")
    _check_writable(options.out)
    if options.only and _is_the_pages_results(options.out):
        raise UsageError("--only narrows an example to some of its cases: write it elsewhere with --out, not over "
                         "the results the pages are built from")
    if options.jobs and options.jobs > 1 and not options.quick:
        raise UsageError("--jobs is for quick runs: a full run times one example at a time, "
                         "on cores nothing else is using")
    if options.runner == "gpu":
        # Asked here, before any example is announced: a refusal must not read as a run that started.
        try:
            with native_logs.filtered():  # the import's log lines, as a worker's
                machine.resolve_runner("gpu")
        except machine.NoGPUError as error:
            _say_error(str(error))
            return EXIT_NO_GPU
    artifacts.remove_abandoned_staging(options.out)
    terminate_as_interrupt()
    timeout_s = options.timeout or supervisor.default_timeout(options.quick)
    suite_start = time.perf_counter()  # the summary's time includes the import done for forking
    try:
        fork = options.quick and _prepare_forking(options)
    except KeyboardInterrupt:
        print("\ninterrupted before any example ran; nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED

    jobs = _jobs(options, fork)
    outcomes: dict[str, str] = {}
    numbers = {script.name: index for index, script in enumerate(scripts, start=1)}
    progress = RunProgress(len(scripts), clock=time.perf_counter, began=suite_start)

    def announce(script: catalog.ExampleScript) -> None:
        progress.started(script.name, numbers[script.name], script.title)

    try:
        for script, outcome, seconds in supervisor.run_examples(
                scripts, lambda script: _worker_argv(script, options), options.out, options.runner, timeout_s,
                fork=fork, jobs=jobs, announce=announce, progress=progress):
            if outcome.no_gpu:
                return EXIT_NO_GPU
            outcomes[script.name] = progress.finished(script.name, outcome.status, seconds)
    except supervisor.Interrupted as interrupt:
        outcomes.update(interrupt.outcomes)
        _summary(outcomes, suite_start, [script.name for script in scripts])
        return EXIT_INTERRUPTED
    finally:
        progress.close()
    _summary(outcomes, suite_start, [script.name for script in scripts])
    return 0 if all(outcome.startswith(("ok", "skipped")) for outcome in outcomes.values()) else 1


def _jobs(options: argparse.Namespace, fork: bool) -> int:
    """Examples run at once: one in a full run (the cores are what is measured); in a quick run,
    ``--jobs`` or one per core up to two, when its processes are forked from this one."""
    if not fork:
        return 1
    return options.jobs or min(2, os.cpu_count() or 1)


def _is_the_pages_results(out: Path) -> bool:
    """Whether ``out`` is a results tree the pages are built from, however it is written: the
    working folder's ``results`` (the default), the repository's, or ``$TFSPEEDLAB_RESULTS``; or
    whether a runner's folder under it is theirs. Compared as folders on disk, so that
    ``results/../results`` and a symlink to ``results`` are ``results``."""
    for pages in (Path("results"), REPO_ROOT / "results", site_data.results_root()):
        if any(_same_folder(out / sub, pages / sub) for sub in ("", *RUNNERS)):
            return True
    return False


def _same_folder(first: Path, second: Path) -> bool:
    """Whether two paths name one folder: resolved (``..`` and symlinks followed) or, where both exist,
    the same file on disk (a bind mount, a case-insensitive file system)."""
    try:
        return first.resolve() == second.resolve() or (first.exists() and second.exists()
                                                       and os.path.samefile(first, second))
    except (OSError, RuntimeError):  # a symlink loop: no folder a run could write either
        return False


def _check_writable(out: Path) -> None:
    """Refuse a results folder that cannot be written (checked once, creating nothing, instead of a
    traceback per example)."""
    existing = out.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"cannot write results under {out}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write results under {out}: {existing} is not writable")


def _prepare_forking(options: argparse.Namespace) -> bool:
    """For a quick run: import TensorFlow here once, so that every example's process can be
    forked from this one (``harness/launch.py`` says when that is allowed); False with --cold-start."""
    if options.cold_start:
        launch.request_cold_start()
        return False
    if options.runner == "gpu" or (options.runner == "auto" and not machine.no_gpu_devices()):
        return False  # a GPU run starts fresh processes: CUDA must not meet a fork
    hide_gpus_for(options.runner)  # before the import, as a fresh worker would
    with native_logs.filtered():  # the import's log lines, as a worker's
        return launch.preload_tensorflow()


def _worker_argv(script: catalog.ExampleScript, options: argparse.Namespace) -> list[str]:
    command = [str(script.path), "--runner", options.runner, "--out", str(options.out)]
    if options.quick:
        command.append("--quick")
    if options.processes:
        command += ["--processes", str(options.processes)]
    command += [f"--only={item}" for item in options.only]
    return command


def _summary(outcomes: dict[str, str], suite_start: float, order: list[str]) -> None:
    """Each example that ran (or was running), in the order asked for, whichever finished first."""
    print(f"\nsummary ({time.perf_counter() - suite_start:.1f} s):", file=sys.stderr)
    for name in sorted(outcomes, key=order.index):
        print(f"  {name}: {outcomes[name]}", file=sys.stderr)
