import json
import subprocess
import sys
from importlib import metadata

import pytest

from conftest import REPO
from tfspeedlab.harness import machine


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="device nodes are a Linux answer")
@pytest.mark.parametrize("nodes, none", [
    ((), True),
    (("nvidiactl", "null"), True),  # NVIDIA's control node alone is no GPU
    (("nvidia0",), False),
    (("nvidia1", "nvidiactl"), False),
    (("kfd",), False),  # ROCm
    (("dxg",), False),  # WSL2
])
def test_gpu_device_nodes_decide_whether_tensorflow_must_be_asked(tmp_path, nodes, none):
    for node in nodes:
        (tmp_path / node).touch()
    assert machine.no_gpu_devices(tmp_path) is none


def test_unknown_runner_is_refused():
    with pytest.raises(ValueError, match="runner must be one of"):
        machine.resolve_runner("tpu")


def test_a_cpu_process_that_never_used_tensorflow_records_it_without_importing_it():
    code = ("import sys, json; from tfspeedlab.harness import machine; "
            "env = machine.capture('cpu'); "
            "print(json.dumps([env['tensorflow'], env['intra_op_threads'], env['gpus'], 'tensorflow' in sys.modules]))")
    version, threads, gpus, imported = _printed_json(code)
    installed = {d: v for d in ("tensorflow", "tensorflow-cpu") if (v := _version(d))}
    assert version in installed.values() and threads == 0 and gpus == [] and imported is False


def test_a_process_that_used_tensorflow_is_described_by_tensorflow_itself():
    code = ("import sys, json, tensorflow as tf; from tfspeedlab.harness import machine; "
            "tf.config.threading.set_intra_op_parallelism_threads(1); "
            "print(json.dumps([machine.capture('cpu')['intra_op_threads'], tf.__version__]))")
    threads, _ = _printed_json(code)
    assert threads == 1


def _printed_json(code: str):
    """Run ``code`` in a fresh Python (so that what it imports is its own) and read the JSON it printed last."""
    completed = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _version(distribution):
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@pytest.mark.parametrize("setting, expected", [("0", False), ("1", True)])
def test_the_environment_records_whether_onednn_was_on_as_tensorflow_decided(monkeypatch, setting, expected):
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", setting)
    code = ("import json, tensorflow as tf; from tfspeedlab.harness import machine; "
            "print(json.dumps(machine.capture('cpu')['onednn']))")
    assert _printed_json(code) is expected
