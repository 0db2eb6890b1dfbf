import importlib.util
import subprocess
import sys

import pytest

from conftest import REPO
from tfspeedlab.core import profiling
from tfspeedlab.core.results.store import load_results
from tfspeedlab.harness import catalog

EXAMPLES = sorted(catalog.discover())
# Examples that need an optional extra, and whether it is installed here.
COMPARE_INSTALLED = all(importlib.util.find_spec(module) for module in ("torch", "jax"))
NEEDS_COMPARE = pytest.mark.skipif(not COMPARE_INSTALLED, reason='needs pip install -e ".[compare]"')


def test_there_are_examples():
    assert "small_ops" in EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_quick_run_writes_a_valid_results_file(quick_results, name):
    if name == "frameworks" and not COMPARE_INSTALLED:
        assert not (quick_results / "cpu" / "frameworks.json").exists()  # skipped, not half-written
        pytest.skip('frameworks needs pip install -e ".[compare]"')
    results = load_results(quick_results / "cpu" / f"{name}.json")
    assert results.example == name and results.runner == "cpu" and results.quick
    assert results.environment["tensorflow"]
    # A start-up case times whole fresh processes, seconds each: its quick run takes two.
    fewest_blocks = 2 if name == "startup" else 5
    for case in results.cases:
        assert case.measurement.blocks >= fewest_blocks, case.label


def test_small_ops_measures_every_mode(quick_results):
    results = load_results(quick_results / "cpu" / "small_ops.json")
    assert [case.label for case in results.cases] == ["eager", "graph", "xla"]
    assert results.params["ops_per_call"] == 150
    assert all(run.tracing_count == 1 for run in results.case("graph").runs)
    assert results.baseline == "eager"
    # Tracing (and for XLA compiling) is paid by the first call only, and costs far more than a call:
    # a first call timed like any other, or a trace leaking into the timed blocks, would fail this.
    for mode in ("graph", "xla"):
        m = results.case(mode).measurement
        assert m.first_call_s > 5 * m.median_s, (mode, m.first_call_s, m.median_s)


def test_small_ops_modes_compute_the_same_thing():
    module = catalog.discover()["small_ops"].load()
    workload = module.workload(quick=True)
    outputs = [case.fn(*case.args).numpy() for case in workload.cases]
    for output in outputs[1:]:
        assert abs(output - outputs[0]).max() < 1e-5


def test_the_input_pipelines_batched_map_computes_what_the_per_example_map_does():
    """The standard remedy (batch, then one vectorised map) must feed the same batches as the
    per-example map it replaces, or its speed-up would compare different work."""
    import numpy as np
    import tensorflow as tf

    module = catalog.discover()["input_pipeline"].load()
    X, y = module.make_data(2)
    per_example = list(module.make_feed(tf, "map, TF ops", X, y)())
    for feed in ("batch, then map (vectorised)", "batch, then map (vectorised) + cache + prefetch"):
        batched = list(module.make_feed(tf, feed, X, y)())
        assert len(batched) == len(per_example)
        for (xa, ya), (xb, yb) in zip(per_example, batched):
            np.testing.assert_allclose(xa.numpy(), xb.numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(ya.numpy(), yb.numpy())


def test_example_runs_as_a_plain_script_and_prints_its_table():
    completed = subprocess.run(
        [sys.executable, "examples/small_ops.py", "--quick"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "Per call" in completed.stdout
    for mode in ("eager", "graph", "xla"):
        assert f"\n{mode} " in completed.stdout


def test_every_training_mode_trains(quick_results):
    results = load_results(quick_results / "cpu" / "train_step.json")
    assert [c.label for c in results.cases] == ["eager", "graph", "xla", "train_on_batch", "fit"]
    for case in results.cases:
        # A mode that is fast because it does nothing would leave the loss where it started.
        assert case.metrics["loss_end"] < 0.9 * case.metrics["loss_start"], case.label
    assert len({case.metrics["loss_start"] for case in results.cases}) == 1  # same starting weights
    assert results.case("fit").params["steps_per_call"] == 100


def test_tracing_pitfalls_retrace_and_their_fixes_do_not(quick_results):
    results = load_results(quick_results / "cpu" / "tracing.json")
    traces = {case.label: case.metrics["traces"] for case in results.cases}
    assert traces["python scalars"] == traces["changing shapes"] == traces["new tf.function per call"] == 10
    assert traces["fix: tensor scalars"] == traces["fix: input_signature"] == 1
    assert traces["fix: reduce_retracing"] <= 3
    assert traces["eager, no tf.function"] == 0
    assert results.case("python side effect").metrics["python_side_effects"] == 1


def test_time_breakdown_splits_each_call_into_layers(quick_results):
    results = load_results(quick_results / "cpu" / "time_breakdown.json")
    for case in results.cases:
        shares = {layer: case.metrics[f"{layer}_fraction"] for layer in profiling.HOST_LAYERS}
        assert all(0 <= share < 1 for share in shares.values()), case.label
        assert shares["python"] > 0 and shares["dispatch"] > 0 and shares["kernels"] > 0, case.label
        assert sum(shares.values()) == pytest.approx(1.0)
    # An eager op runs its kernel inline: there is no graph executor to pay.
    assert results.case("eager").metrics["executor_fraction"] == 0
    assert results.case("graph").metrics["executor_fraction"] > 0


def test_disabling_eager_execution_stops_keras_3_training_and_gives_keras_2_a_tf1_graph(quick_results):
    results = load_results(quick_results / "cpu" / "eager_off.json")
    off = results.case("Keras 3, eager disabled").metrics
    # Keras 3 builds graph ops on every call and runs none of them; its fit cannot start.
    assert off["weight_change"] == 0 and off["returns_number"] == 0 and off["fit_runs"] == 0
    assert off["graph_ops_added_per_call"] > 0
    for mode in ("Keras 3, eager (default)", "tf_keras, eager disabled"):
        trains = results.case(mode).metrics
        assert trains["weight_change"] > 0 and trains["returns_number"] == 1 and trains["fit_runs"] == 1, mode
        assert trains["graph_ops_added_per_call"] == 0, mode


def test_call_cost_finds_the_function_runtime_in_a_graph_call_and_not_in_an_xla_call(quick_results):
    results = load_results(quick_results / "cpu" / "call_cost.json")
    graph, xla, eager = (results.case(mode).metrics for mode in ("graph", "xla", "eager"))
    # A graph call runs its nodes through the function runtime, inside the eager runtime's kernel execution.
    assert 0 < graph["node_processing_s"] < graph["function_call_s"] <= graph["eager_kernel_execute_s"]
    assert graph["compiled_program_s"] == 0
    # A jit-compiled call launches XLA's program without the function runtime.
    assert xla["function_call_s"] == 0 and 0 < xla["compiled_program_s"] < xla["eager_kernel_execute_s"]
    # (An eager op runs as a one-op function since TF 2.9, so it may show the function call, but no executor.)
    assert eager["node_processing_s"] == eager["compiled_program_s"] == 0 and eager["executor_fraction"] == 0


@pytest.mark.parametrize("example", ["time_breakdown", "step_profile", "call_cost"])
def test_layer_shares_are_what_the_kept_trace_says(quick_results, example):
    """The published numbers come from the published trace file, through XProf's converter."""
    for case in load_results(quick_results / "cpu" / f"{example}.json").cases:
        trace = quick_results / "cpu" / "traces" / example / f"{case.label}.xplane.pb"
        calls = int(case.metrics["profiled_calls"])
        again = profiling.trace.breakdown(profiling.trace.trace_events(trace), case.metrics["profiled_call_s"], calls)
        for layer, share in again.fractions().items():
            assert share == pytest.approx(case.metrics[f"{layer}_fraction"], abs=1e-9), (case.label, layer)


def test_step_profile_records_layers_and_peak_memory_per_mode(quick_results):
    results = load_results(quick_results / "cpu" / "step_profile.json")
    assert [case.label for case in results.cases] == ["eager", "graph", "xla"]
    for case in results.cases:
        m = case.metrics
        assert sum(m[f"{layer}_fraction"] for layer in profiling.HOST_LAYERS) == pytest.approx(1.0)
        assert m["kernels_fraction"] > 0 and m["python_fraction"] > 0, case.label
        assert 0 <= m["peak_rss_growth_bytes"] < m["peak_rss_bytes"], case.label
        assert "gpu_peak_bytes" not in m  # a CPU run has no device allocator to read
    assert results.case("eager").metrics["executor_fraction"] == 0
    assert results.case("graph").metrics["executor_fraction"] > 0


def test_op_layers_times_every_entry_point_at_every_size(quick_results):
    from tfspeedlab.core.stats import op_layers

    results = load_results(quick_results / "cpu" / "op_layers.json")
    sizes = op_layers.sizes(results)
    assert sizes == results.params["sizes"] and results.params["grappler_arithmetic_optimization"] is False
    for size in sizes:
        entries = op_layers.entries(results, size)
        assert [e.entry for e in entries][:3] == list(op_layers.stack(results).top_entries)
        assert op_layers.kernel_s(results, size) > 0
        # Each entry's layers add up to its own median.
        for entry in entries:
            assert sum(getattr(part, "value", part) for part in entry.layers_s.values()) == pytest.approx(
                entry.total_s, rel=1e-9), entry.entry


def test_grappler_folds_a_chain_of_adds_unless_told_not_to():
    """Why op_layers switches the arithmetic optimizer off: with it on, the graph runs one AddN."""
    script = """
import collections, pathlib, sys, tempfile
import tensorflow as tf
from tfspeedlab.core import profiling

def kernels(arithmetic):
    tf.config.optimizer.set_experimental_options({"arithmetic_optimization": arithmetic})
    @tf.function
    def chain(x, y):
        for _ in range(20):
            x = x + y
        return x
    x, y = tf.constant(1.0), tf.constant(2.0)
    keep = pathlib.Path(tempfile.mkdtemp()) / "trace.xplane.pb"
    profiling.profile(chain, (x, y), calls=2, keep_trace_as=keep)
    names = collections.Counter(e.name for e in profiling.trace.trace_events(keep))
    return names["AddN"], names["AddV2"]

print(*kernels(True), *kernels(False))
"""
    completed = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                               timeout=300)
    assert completed.returncode == 0, completed.stderr[-3000:]
    folded_addn, folded_addv2, kept_addn, kept_addv2 = map(int, completed.stdout.split("\n")[-2].split())
    # Optimizer on: the 20 adds collapse into AddN; fewer AddV2 kernels run than one call's chain holds.
    assert folded_addn >= 1 and folded_addv2 < 20
    # Optimizer off: the adds run one by one (20 per profiled call), and nothing is folded.
    assert kept_addn == 0 and kept_addv2 >= 20


@NEEDS_COMPARE
def test_frameworks_time_every_mode_on_every_workload_and_every_step_trains(quick_results):
    results = load_results(quick_results / "cpu" / "frameworks.json")
    cells = {(case.params["mode"], case.params["workload"]) for case in results.cases}
    modes = {mode for mode, _ in cells}
    assert modes == {"TensorFlow eager", "TensorFlow graph", "TensorFlow XLA", "PyTorch eager",
                     "PyTorch torch.compile", "JAX op by op", "JAX jit", "NumPy"}
    assert cells == {(mode, w) for mode in modes for w in ("150 small ops", "matmul", "training step")}
    for case in results.cases:
        if case.params["workload"] == "training step":
            assert case.metrics["loss_end"] < case.metrics["loss_start"], case.label
    assert {case.params["framework"] for case in results.cases} == {"TensorFlow", "PyTorch", "JAX", "NumPy"}
    assert {case.params["mode"] for case in results.cases if case.params["op_by_op"]} == {
        "TensorFlow eager", "PyTorch eager", "JAX op by op", "NumPy"}
    assert set(results.params["versions"]) == {"tensorflow", "torch", "jax", "jaxlib", "numpy"}
    assert all(case.metrics["torch_threads"] >= 1 for case in results.cases if case.params["framework"] == "PyTorch")


def test_frameworks_skips_with_the_install_command_when_an_extra_is_missing(monkeypatch):
    from tfspeedlab import SkipExample

    module = catalog.discover()["frameworks"].load()
    # Only PyTorch missing, whatever this machine has installed.
    monkeypatch.setattr(module.importlib.util, "find_spec", lambda name, *a: None if name == "torch" else object())
    with pytest.raises(SkipExample, match=r'needs PyTorch, not installed here: pip install -e "\.\[compare\]"'):
        module.workload(quick=True)


def test_sweeps_cover_every_mode_at_every_point(quick_results):
    for name, parameter in (("matmul", "size"), ("op_chain", "n_ops")):
        results = load_results(quick_results / "cpu" / f"{name}.json")
        points = {(case.params["mode"], case.params[parameter]) for case in results.cases}
        values = {value for _, value in points}
        assert points == {(mode, value) for mode in ("eager", "graph", "xla") for value in values}


def test_fair_timing_records_how_each_case_completed(quick_results):
    results = load_results(quick_results / "cpu" / "fair_timing.json")
    assert "none" in results.case("no sync").runs[0].completion
    assert ".numpy()" in results.case("right way").runs[0].completion
    single = results.case("one call at a time").measurement
    assert (single.calls_per_block, single.blocks) == (1, 30)


def test_notebooks_match_their_example_scripts():
    spec = importlib.util.spec_from_file_location("notebooks", REPO / "scripts" / "notebooks.py")
    notebooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(notebooks)
    assert notebooks.stale_notebooks() == [], "run `python scripts/notebooks.py` and commit notebooks/"


def test_tf1_vs_tf2_every_mode_trains(quick_results):
    results = load_results(quick_results / "cpu" / "tf1_vs_tf2.json")
    modes = {case.params["mode"] for case in results.cases}
    assert {"TF1-style graph", "Keras 3 train_on_batch", "tf.function step", "Keras 3 fit"} <= modes
    for case in results.cases:
        # Fast because it does nothing? Then the weights would not move and the loss would not fall.
        assert case.metrics["weight_change"] > 0, case.label
        assert case.metrics["loss_end"] < case.metrics["loss_start"], case.label
        legacy = case.params["mode"].startswith(("TF1", "tf_keras"))
        assert case.params.get("env") == ({"TF_USE_LEGACY_KERAS": "1"} if legacy else None), case.label
    assert results.case("tiny · Keras 3 fit").params["steps_per_call"] == 200


def test_tf1_session_every_mode_trains_from_the_same_weights(quick_results):
    results = load_results(quick_results / "cpu" / "tf1_session.json")
    assert {case.params["mode"] for case in results.cases} == {
        "TF1 Session.run, feed_dict", "tf.function, NumPy arguments", "tf.function, tensor arguments",
        "tf.function, 10 steps per call"}
    starts = {}
    for case in results.cases:
        assert case.metrics["weight_change"] > 0, case.label
        assert case.metrics["loss_end"] < case.metrics["loss_start"], case.label
        starts.setdefault(case.params["model"], []).append(case.metrics["loss_start"])
    # The Session and the tf.functions start from the same weights and data: the same first loss.
    for model, losses in starts.items():
        assert max(losses) - min(losses) < 1e-4, (model, losses)
    assert results.case("tiny · tf.function, 10 steps per call").params["steps_per_call"] == 10


def test_every_predict_rung_predicts_the_same_numbers_and_batch_1_follows_memory(quick_results):
    results = load_results(quick_results / "cpu" / "predict_ladder.json")
    assert {case.params["keras"] for case in results.cases} == {"Keras 3", "tf_keras"}
    sums = {}
    for case in results.cases:
        m = case.metrics
        assert m["max_error_vs_model_call"] < 1e-4, case.label
        sums.setdefault((case.params["model"], case.params["batch"]), []).append(m["output_sum"])
        if case.params["batch"] == 1 and case.params["rung"] != "predict, whole array":
            assert m["memory_calls"] == results.params["memory_calls"] and "rss_growth_bytes" in m, case.label
    # Keras 3 and Keras 2 got the same weights from NumPy: every rung of both gives the same outputs.
    for key, found in sums.items():
        assert max(found) - min(found) < 1e-3 * max(1.0, abs(found[0])), (key, found)
    whole = next(case for case in results.cases if case.params["rung"] == "predict, whole array")
    assert whole.params["steps_per_call"] * whole.params["batch"] == max(
        results.params["whole_array_samples"], 4 * whole.params["batch"])


def test_every_serving_call_computes_the_same_function_from_numpy_to_numpy(quick_results):
    results = load_results(quick_results / "cpu" / "serving_backends.json")
    installed = {case.params["keras_backend"] for case in results.cases}
    assert "TensorFlow" in installed
    # A backend that is not installed is named with its install command, never silently missing.
    assert installed | set(results.params["skipped_backends"]) == {"TensorFlow", "JAX", "PyTorch"}
    assert {case.params["call"] for case in results.cases if case.params["keras_backend"] == "TensorFlow"} == {
        "TensorFlow · tf.function", "TensorFlow · tf.function + XLA", "TensorFlow · predict"}
    by_model = {}
    for case in results.cases:
        by_model.setdefault(case.params["model"], []).append(
            [case.metrics[f"prediction_{i}"] for i in range(4)])
    for model, found in by_model.items():
        for predictions in found[1:]:  # the same weights from NumPy: every call predicts the same numbers
            assert max(abs(a - b) for a, b in zip(predictions, found[0])) < 1e-4, (model, found)


def test_every_training_api_trains_and_the_retracing_traps_retrace(quick_results):
    results = load_results(quick_results / "cpu" / "train_apis.json")
    for case in results.cases:
        assert case.metrics["loss_end"] < case.metrics["loss_start"], case.label
    runs = {case.label: case.metrics for case in results.cases}
    # Traced once and never again; eager and a Python-number argument run the step's code every step.
    for label in ("fit", "fit, steps_per_execution=10", "train_on_batch", "custom loop, tf.function step",
                  "custom loop, tensor argument"):
        assert runs[label]["step_runs_first_call"] == 1 and runs[label]["step_runs_per_later_step"] == 0, label
    for label in ("fit, run_eagerly=True", "custom loop, Python float argument"):
        assert runs[label]["step_runs_per_later_step"] == 1, label
    # The last, smaller batch of an epoch is a second input shape: one more trace, then none.
    assert runs["train_on_batch, last batch partial"]["step_runs_first_call"] == 2
    assert runs["fit"]["jit_compile_resolved"] in (0.0, 1.0)


def test_every_feed_trains_once_traced_and_measures_its_wait(quick_results):
    results = load_results(quick_results / "cpu" / "input_pipeline.json")
    for case in results.cases:
        m = case.metrics
        assert m["loss_end"] < m["loss_start"] and m["traces"] == 1, case.label
        assert 0 <= m["data_wait_share"] < 1, case.label
    shares = {case.label: case.metrics["data_wait_share"] for case in results.cases}
    # Tensors already in memory leave nothing to wait for; a Python generator makes the loop wait.
    assert shares["from_generator"] > shares["tensors in memory"]


def test_every_memory_loop_is_followed_in_parts_with_the_heap_apart(quick_results):
    from tfspeedlab.core.stats.memory_growth import growth

    results = load_results(quick_results / "cpu" / "memory.json")
    assert {case.params["call"] for case in results.cases} == {"predict", "new model"}
    for case in results.cases:
        m = case.metrics
        assert m["follow_parts"] == 5 and m["follow_calls"] == case.params["calls"], case.label
        assert m["heap_calls"] >= 1 and m["calls_before_follow"] >= 5, case.label  # timed, then followed
        assert m["rss_before_model_bytes"] < m["rss_start_bytes"], case.label  # the model and its calls took some
        found = growth(case)
        assert found.calls == case.params["calls"] and found.per_call.low <= found.per_call.high


def test_every_malloc_setting_ran_as_set_or_says_how_to_install_it(quick_results):
    from tfspeedlab.core.allocators import ALLOCATORS, PRELOADABLE, malloc_from_key
    from tfspeedlab.core.stats.memory_growth import growth

    results = load_results(quick_results / "cpu" / "memory_allocators.json")
    settings = {"glibc", "jemalloc", "tcmalloc", "MALLOC_ARENA_MAX=2", "malloc_trim(0)"}
    measured = {case.params["malloc"] for case in results.cases}
    assert {"glibc", "MALLOC_ARENA_MAX=2", "malloc_trim(0)"} <= measured  # glibc's own: always here
    # A preloaded allocator that is not installed is recorded with its install command, never dropped.
    assert measured | {label.split(" · ")[1] for label in results.unavailable} == settings
    for label, reason in results.unavailable.items():
        assert PRELOADABLE[label.split(" · ")[1]].install in reason, (label, reason)
    for case in results.cases:
        p, m = case.params, case.metrics
        # Whose malloc the process ran, as it found it: the one its setting names, and only that one.
        assert {name for name in ALLOCATORS if m[malloc_from_key(name)] == 1.0} == {p["allocator"]}, case.label
        if p["allocator"] in PRELOADABLE:
            assert p["env"]["LD_PRELOAD"].startswith(f"lib{p['allocator']}"), case.label
            assert "glibc_arenas" not in m, case.label
        else:
            assert m["glibc_arenas"] >= 1, case.label
        assert growth(case).calls == p["calls"] == m["follow_calls"], case.label
    arena_limited = results.case("predict · MALLOC_ARENA_MAX=2")
    assert arena_limited.params["env"] == {"MALLOC_ARENA_MAX": "2"} and arena_limited.metrics["glibc_arenas"] <= 2
    trimmed = results.case("predict · malloc_trim(0)").metrics
    assert trimmed["trims"] >= trimmed["follow_calls"] and 0 <= trimmed["trims_released"] <= trimmed["trims"]


def test_the_allocators_full_run_follows_200_new_models_under_every_setting():
    module = catalog.discover()["memory_allocators"].load()
    full = module.workload(quick=False)
    loops = {}
    for case in full.cases:
        loops.setdefault(case.params["call"], set()).add(case.params["malloc"])
        assert case.process == case.label  # a process of its own, started with its setting
    assert loops == {call: {"glibc", "jemalloc", "tcmalloc", "MALLOC_ARENA_MAX=2", "malloc_trim(0)"}
                     for call in ("new model", "predict")}
    new_model = full.cases[0]
    assert new_model.params["call"] == "new model" and new_model.params["calls"] >= 200
    assert full.cases[-1].params["cleanup"] == "malloc_trim(0)"
    assert new_model.params["cleanup"] == "clear_session()"
    assert [case.params["cleanup"] for case in full.cases if case.label == "new model · malloc_trim(0)"] == [
        "clear_session(), malloc_trim(0)"]


def test_an_allocators_case_whose_setting_is_not_in_force_is_refused_before_it_builds_anything(monkeypatch):
    from tfspeedlab import CaseUnavailable
    from tfspeedlab.core.allocators import MallocSetting

    module = catalog.discover()["memory_allocators"].load()
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    # This process runs glibc's malloc, with no preload and no arena limit.
    with pytest.raises(CaseUnavailable, match=r"^(started without LD_PRELOAD=libjemalloc\.so\.2: malloc comes "
                                              r"from glibc|libjemalloc\.so\.2 is not installed here \(apt-get)"):
        module.prepare("predict", MallocSetting("jemalloc", allocator="jemalloc"), 10, 5)
    with pytest.raises(CaseUnavailable, match="^MALLOC_ARENA_MAX is unset in this process, not 2$"):
        module.prepare("predict", MallocSetting("MALLOC_ARENA_MAX=2", arena_max=2), 10, 5)


def test_the_allocators_trim_runs_after_each_call_and_counts_what_it_released():
    module = catalog.discover()["memory_allocators"].load()
    calls, counts = [], {"trims": 0.0, "trims_released": 0.0}
    trimmed = module.with_trim(lambda: calls.append(1), counts)
    for _ in range(3):
        trimmed()
    assert len(calls) == 3 and counts["trims"] == 3 and 0 <= counts["trims_released"] <= 3


def test_start_up_cold_starts_are_whole_processes_and_split_into_their_parts(quick_results):
    results = load_results(quick_results / "cpu" / "startup.json")
    interpreter, tensorflow = results.case("python alone"), results.case("import tensorflow")
    # Importing TensorFlow takes seconds; an interpreter that does nothing, a fraction of one.
    assert tensorflow.measurement.per_call_s > 5 * interpreter.measurement.per_call_s
    assert tensorflow.metrics["importtime_total_s"] > 0
    assert any(name.startswith("package tensorflow") for name in tensorflow.metrics)
    first = results.case("first prediction · small CNN · .keras").metrics
    assert all(first[part] > 0 for part in ("import_s", "load_s", "first_call_s"))
    # The child's own parts fit inside the whole cold start the parent timed.
    whole = results.case("first prediction · small CNN · .keras").measurement.median_s
    assert first["import_s"] + first["load_s"] + first["first_call_s"] < 1.5 * whole
    assert {case.params["kind"] for case in results.cases} == {"import", "first prediction", "build", "save", "load"}


# The CPU features for which TensorFlow turns oneDNN on by default on Linux (DefaultOneDnnPolicy).
ONEDNN_BY_DEFAULT = {"avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"}


def test_cpu_settings_are_in_force_in_each_process(quick_results):
    results = load_results(quick_results / "cpu" / "cpu_settings.json")
    settings = results.params["settings"]
    for case in results.cases:
        setting, m = settings[case.params["setting"]], case.metrics
        assert m["inter_op_threads"] == setting["inter_op"] and m["intra_op_threads"] == setting["intra_op"], case.label
        forced = setting["env"].get("TF_ENABLE_ONEDNN_OPTS")
        # TensorFlow's own decision: as forced, or else its default for this CPU (on Linux, on only
        # with the instruction sets DefaultOneDnnPolicy in tensorflow/core/util/port.cc names).
        by_default = bool(ONEDNN_BY_DEFAULT & set(results.environment["cpu_flags"]))
        expected = {"0": False, "1": True}.get(forced, by_default)
        assert m["onednn_opts"] == float(expected), case.label
        assert case.params.get("env") == (setting["env"] or None), case.label


def test_mixed_precision_trains_as_far_under_every_policy_and_computes_in_16_bits(quick_results):
    results = load_results(quick_results / "cpu" / "mixed_precision.json")
    steps = results.params["train_steps"]
    for case in results.cases:
        m = case.metrics
        if "train_on_batch" in case.label:
            assert m[f"loss_after_{steps}_steps"] < m["loss_start"], case.label
            assert m["compute_is_16_bit"] == (case.params["policy"] != "float32"), case.label
        else:  # the matmul: a 16-bit product close to float32's, float32's exactly it
            assert m["relative_error_vs_float32"] < (0.05 if case.params["policy"] != "float32" else 1e-6), case.label
