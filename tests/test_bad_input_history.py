"""Bad input to the release history: a release folder that is a link, an environment record that does not
describe its folder, and `tfspeedlab history` leaving kept results under the record of another
environment. Each is refused in one line naming the file or folder and the field, or never written.
No test here imports TensorFlow in a child: a stand-in Python plays the release's environment."""

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO, synthetic_results
from tfspeedlab.core.results.history import ENVIRONMENT_FAILURE, ENVIRONMENT_RECORD, load_history, release_folder
from tfspeedlab.core.results.merge import MergeError, merge_results
from tfspeedlab.core.results.pool import pool_trees
from tfspeedlab.core.results.schema import FAILURE_SCHEMA, ResultsFile, ResultsFileError, to_dict
from tfspeedlab.core.results.store import write_json_atomic
from tfspeedlab.core.spec.releases import Release
from tfspeedlab.history.command import HistoryOptions, run_history
from tfspeedlab.site import site_data

RELEASE = Release(2, 16)
MEASURED = "2026-01-01T00:00:00+00:00"


def _results(example: str = "releases", keras: str = "3.15.1", utc_time: str = MEASURED) -> ResultsFile:
    """A results file of ``example`` measured on TensorFlow 2.16.2 with ``keras``."""
    base = synthetic_results(example=example)
    return ResultsFile(**{**base.__dict__, "source": None,
                          "environment": {**base.environment, "tensorflow": "2.16.2", "keras": keras,
                                          "utc_time": utc_time}})


def _record(keras: str = "3.15.1", **changes) -> dict:
    return {"release": RELEASE.name, "requirements": RELEASE.requirements("cpu"), "tensorflow": "2.16.2",
            "keras": keras, "resolved_at": "2024-06-29T18:53:46+00:00", "packages": [], **changes}


def _release_tree(root: Path, keras: str = "3.15.1") -> Path:
    """A history of one release whose ``releases`` results and record agree on ``keras``."""
    folder = release_folder(root, "cpu", RELEASE)
    write_json_atomic(folder / "releases.json", to_dict(_results(keras=keras)))
    write_json_atomic(folder / ENVIRONMENT_RECORD, _record(keras))
    return folder


def _one_line(error: Exception) -> str:
    assert "\n" not in str(error)
    return str(error)


# ---------------------------------------------------------------- linked folders


def test_a_linked_release_folder_is_refused_by_every_reader(tmp_path):
    # Before, the link was followed: the releases page charted figures from outside the tree.
    outside = _release_tree(tmp_path / "elsewhere")
    tree = tmp_path / "tree"
    linked = release_folder(tree, "cpu", RELEASE)
    linked.parent.mkdir(parents=True)
    linked.symlink_to(outside, target_is_directory=True)

    with pytest.raises(ResultsFileError) as raised:
        load_history(tree, "cpu")
    assert _one_line(raised.value).startswith(f"{linked}: field '<folder>' is a symbolic link")
    with pytest.raises(MergeError, match="symbolic link"):
        merge_results([tree], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()
    with pytest.raises(ResultsFileError, match="symbolic link"):
        pool_trees(tree, tmp_path / "elsewhere", tmp_path / "pooled")
    assert not (tmp_path / "pooled").exists()


def test_a_linked_history_folder_is_refused(tmp_path):
    _release_tree(tmp_path / "elsewhere")
    (tmp_path / "tree" / "cpu").mkdir(parents=True)
    (tmp_path / "tree" / "cpu" / "history").symlink_to(tmp_path / "elsewhere" / "cpu" / "history")
    with pytest.raises(ResultsFileError, match="history: field '<folder>' is a symbolic link"):
        load_history(tmp_path / "tree", "cpu")


def test_the_build_stops_on_a_linked_release_folder_naming_it(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    folder = root / "cpu" / "history" / "tf-2.21"
    shutil.move(folder, tmp_path / "tf-2.21")
    folder.symlink_to(tmp_path / "tf-2.21", target_is_directory=True)
    with pytest.raises(site_data.SiteDataError) as raised:
        site_data.load(root)
    assert f"{folder}: field '<folder>' is a symbolic link" in _one_line(raised.value)


# ---------------------------------------------------------------- the record against its folder


@pytest.mark.parametrize("changes, field", [
    ({"release": "2.12"}, "release"),
    ({"tensorflow": "2.12.0"}, "tensorflow"),
    ({"keras": "9.9.9"}, "keras"),
    ({"tensorflow": "2.16.9"}, "tensorflow"),  # the right release, but not what the results ran on
])
def test_a_record_that_does_not_describe_its_folder_is_refused(tmp_path, changes, field):
    folder = _release_tree(tmp_path)
    write_json_atomic(folder / ENVIRONMENT_RECORD, _record(**changes))
    with pytest.raises(ResultsFileError) as raised:
        load_history(tmp_path, "cpu")
    assert raised.value.field == field and raised.value.path == folder / ENVIRONMENT_RECORD
    _one_line(raised.value)


def test_an_environment_failure_record_of_another_release_is_refused(tmp_path):
    folder = _release_tree(tmp_path)
    write_json_atomic(folder / ENVIRONMENT_FAILURE, {"release": "2.12", "error": "no wheel", "utc_time": MEASURED})
    with pytest.raises(ResultsFileError) as raised:
        load_history(tmp_path, "cpu")
    assert raised.value.field == "release" and raised.value.path == folder / ENVIRONMENT_FAILURE


def test_the_build_stops_on_a_2_21_record_showing_tf_2_12_and_keras_9_9_9(tmp_path):
    root = tmp_path / "results"
    shutil.copytree(REPO / "results", root)
    path = root / "cpu" / "history" / "tf-2.21" / ENVIRONMENT_RECORD
    record = json.loads(path.read_text())
    for changes, field in (({"tensorflow": "2.12.0"}, "tensorflow"), ({"keras": "9.9.9"}, "keras")):
        path.write_text(json.dumps({**record, **changes}))
        with pytest.raises(site_data.SiteDataError) as raised:
            site_data.load(root)
        assert f"{path}: field '{field}' is " in _one_line(raised.value)


def test_merge_refuses_to_put_two_environments_results_under_one_record(tmp_path):
    # Each file travels with its own record; the folder keeps one: the last written would describe both.
    _release_tree(tmp_path / "a", keras="3.15.1")
    other = release_folder(tmp_path / "b", "cpu", RELEASE)
    write_json_atomic(other / "memory.json", to_dict(_results("memory", keras="3.14.0")))
    write_json_atomic(other / ENVIRONMENT_RECORD, _record("3.14.0"))
    with pytest.raises(MergeError) as raised:
        merge_results([tmp_path / "a", tmp_path / "b"], tmp_path / "into")
    assert "field 'keras'" in str(raised.value) and "memory.json was measured with '3.14.0'" in str(raised.value)
    assert not (tmp_path / "into").exists()


# ---------------------------------------------------------------- `history` writes the record with its results


def _environment(envs: Path, record: dict, files: Path, code: int) -> None:
    """A kept environment of ``RELEASE`` whose record is ``record`` and whose Python, run as
    ``python -m tfspeedlab run … --out DIR``, copies every file in ``files`` into DIR/cpu/ and exits
    with ``code`` (answering the probe of its TensorFlow version with the record's)."""
    folder = envs / f"cpu-{RELEASE.folder}"
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(f"""#!/bin/sh
if [ "$1" = "-c" ]; then echo {record['tensorflow']}; exit 0; fi
while [ $# -gt 0 ]; do if [ "$1" = "--out" ]; then out="$2"; fi; shift; done
mkdir -p "$out/cpu" && cp "{files}"/* "$out/cpu/"
exit {code}
""")
    python.chmod(0o755)
    write_json_atomic(folder / ENVIRONMENT_RECORD, record)


def _history(tmp_path: Path, examples: list[str], keras: str, written: dict[str, dict], code: int):
    """``tfspeedlab history EXAMPLES --tf 2.16`` in an environment rebuilt with ``keras``, whose run
    writes ``written`` (file name → JSON) and exits with ``code``: its outcomes and log."""
    files = tmp_path / "written"
    files.mkdir()
    for name, data in written.items():
        write_json_atomic(files / name, data)
    _environment(tmp_path / "envs", _record(keras), files, code)
    lines = []
    outcomes = run_history([RELEASE], HistoryOptions(examples, "cpu", tmp_path / "results", tmp_path / "envs"),
                           lines.append)
    return outcomes, lines


def test_a_failed_run_after_a_rebuild_leaves_the_kept_results_under_their_own_record(tmp_path):
    # Before, `history` rewrote environment.json whenever it published anything: after the environment
    # was rebuilt with Keras 3.14.0 and the run failed, the kept results of Keras 3.15.1 sat under a
    # record saying 3.14.0, and the page's Keras column said so.
    folder = _release_tree(tmp_path / "results", keras="3.15.1")
    failure = {"schema": FAILURE_SCHEMA, "example": "releases", "runner": "cpu", "error": "RuntimeError: boom",
               "traceback": "", "utc_time": "2026-02-01T00:00:00+00:00"}
    [outcome], _ = _history(tmp_path, ["releases"], "3.14.0", {"releases.failed.json": failure}, code=1)

    assert outcome.status.startswith("failed (exit 1")
    assert json.loads((folder / ENVIRONMENT_RECORD).read_text())["keras"] == "3.15.1"
    [item] = load_history(tmp_path / "results", "cpu")
    assert item.environment["keras"] == item.results["releases"].environment["keras"] == "3.15.1"
    assert item.failures == {"releases": "RuntimeError: boom"}


def test_results_of_a_rebuilt_environment_beside_kept_results_of_the_old_one_are_kept_aside(tmp_path):
    folder = _release_tree(tmp_path / "results", keras="3.15.1")
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    new = to_dict(_results("memory", keras="3.14.0", utc_time="2026-02-01T00:00:00+00:00"))
    [outcome], lines = _history(tmp_path, ["memory"], "3.14.0", {"memory.json": new}, code=0)

    assert not outcome.ok and "releases.json was measured with '3.15.1'" in outcome.status
    assert "\n" not in outcome.status
    # The folder is as it was, and the run's file is kept where the refusal says.
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before
    [aside] = folder.parent.glob(".unpublished-tf-2.16-*")
    assert str(aside) in outcome.status and json.loads((aside / "memory.json").read_text()) == new
    assert any("not published" in line for line in lines)
    [item] = load_history(tmp_path / "results", "cpu")  # hidden: no reader takes it for a release
    assert sorted(item.results) == ["releases"]


def test_results_replacing_every_kept_file_are_published_with_their_record(tmp_path):
    folder = _release_tree(tmp_path / "results", keras="3.15.1")
    new = to_dict(_results(keras="3.14.0", utc_time="2026-02-01T00:00:00+00:00"))
    [outcome], _ = _history(tmp_path, ["releases"], "3.14.0", {"releases.json": new}, code=0)

    assert outcome.ok, outcome.status
    [item] = load_history(tmp_path / "results", "cpu")
    assert item.environment["keras"] == item.results["releases"].environment["keras"] == "3.14.0"
    assert not list(folder.parent.glob(".unpublished-*"))
