"""Each page's directive expansion, kept in the build cache: a build in a new process expands no page whose
inputs are unchanged and writes the same HTML, a change to anything a directive reads (a results file,
an example script, the page, git) expands the page again, a corrupt kept expansion is ignored, and the
claims of a kept page still meet the build's cross-page check."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import markdown as python_markdown
import pytest

from conftest import REPO
from tfspeedlab.core.results import provenance, repo
from tfspeedlab.site import build_cache, markdown_ext, page_expansions, site_data
from tfspeedlab.site.markdown_ext import DirectiveBuildError

# Two pages that read one results file: one states a time and the Runners page's table (freshness asks
# git), the other the file's table, which claims the same time.
PAGES = {"index.md": "Eager: {{ time small_ops eager }} per call.\n\n{{ environment }}\n",
         "results.md": "# Results\n\n{{ results small_ops }}\n"}
EXTENSIONS = ["tfspeedlab.site.markdown_ext", "tables"]


def results_tree(root):
    """A results tree of one committed file, and a copy of the examples folder, both to change."""
    (root / "results" / "cpu").mkdir(parents=True)
    (root / "results" / "gpu").mkdir()
    shutil.copy(REPO / "results" / "cpu" / "small_ops.json", root / "results" / "cpu")
    shutil.copytree(REPO / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__"))


def as_a_new_process():
    """Forget everything a build keeps in the process: what is left is the cache's file."""
    for kept in build_cache.KEPT_MEMOS:
        kept.memo.clear()
    provenance.forget_commits()
    site_data.forget()


@pytest.fixture
def tree(tmp_path, monkeypatch):
    results_tree(tmp_path)
    monkeypatch.setenv(build_cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setenv(site_data.RESULTS_VARIABLE, str(tmp_path / "results"))
    monkeypatch.setenv("TFSPEEDLAB_EXAMPLES", str(tmp_path / "examples"))
    as_a_new_process()
    yield tmp_path
    build_cache.save()
    as_a_new_process()


@pytest.fixture
def expanded(monkeypatch):
    """The text of every page expanded (not taken from the cache), in order."""
    pages = []
    expand = markdown_ext.expand_apart

    def counted(text, context):
        pages.append(text)
        return expand(text, context)

    monkeypatch.setattr(markdown_ext, "expand_apart", counted)
    return pages


def a_build(root, pages=PAGES) -> dict[str, str]:
    """A build in a new process: each page's HTML."""
    as_a_new_process()
    build_cache.open_cache(root)
    markdown_ext.start_build()
    html = {name: python_markdown.markdown(text, extensions=EXTENSIONS) for name, text in pages.items()}
    build_cache.save()
    return html


def test_the_next_build_expands_no_page_and_writes_the_same_html(tree, expanded):
    first = a_build(tree)
    assert expanded == list(PAGES.values())
    stored = json.loads((tree / "cache" / build_cache.INDEX_FILE).read_text())
    assert len(stored["expansions"]) == 2
    expanded.clear()
    assert a_build(tree) == first
    assert expanded == []


def test_a_kept_page_is_the_page_a_build_without_the_cache_writes(tree, expanded, monkeypatch):
    a_build(tree)
    warm = a_build(tree)
    monkeypatch.setattr(build_cache.BuildCache, "folder", None)
    as_a_new_process()
    markdown_ext.start_build()
    assert {name: python_markdown.markdown(text, extensions=EXTENSIONS) for name, text in PAGES.items()} == warm


def _a_results_file_changed(root, monkeypatch):
    path = root / "results" / "cpu" / "small_ops.json"
    found = json.loads(path.read_text())
    found["title"] += ", measured again"
    path.write_text(json.dumps(found, indent=2))


def _an_example_changed(root, monkeypatch):
    with open(root / "examples" / "small_ops.py", "a") as script:
        script.write("\n# a comment\n")


def _another_commit(root, monkeypatch):
    monkeypatch.setattr(site_data, "git_commit", lambda: "0" * 40)


def _the_working_tree_differs(root, monkeypatch):
    dirty = site_data.git_dirty()
    monkeypatch.setattr(site_data, "git_dirty", lambda: not dirty)


def _the_measured_commit_is_gone(root, monkeypatch):
    monkeypatch.setattr(site_data, "resolved_commits", lambda names: dict.fromkeys(names))


@pytest.mark.parametrize("change", [_a_results_file_changed, _an_example_changed, _another_commit,
                                    _the_working_tree_differs, _the_measured_commit_is_gone])
def test_a_change_to_what_directives_read_expands_every_page_again(tree, expanded, monkeypatch, change):
    a_build(tree)
    change(tree, monkeypatch)
    expanded.clear()
    a_build(tree)
    assert expanded == list(PAGES.values())


def test_a_changed_page_alone_is_expanded_again(tree, expanded):
    a_build(tree)
    expanded.clear()
    changed = {**PAGES, "results.md": PAGES["results.md"] + "\nMore words.\n"}
    html = a_build(tree, changed)
    assert expanded == [changed["results.md"]]
    assert "More words." in html["results.md"]


def test_a_results_file_rewritten_with_its_own_bytes_keeps_every_page(tree, expanded):
    a_build(tree)
    path = tree / "results" / "cpu" / "small_ops.json"
    path.write_bytes(path.read_bytes())  # a new modification time, the same content
    expanded.clear()
    a_build(tree)
    assert expanded == []


# What a kept entry can hold that no build wrote: each is ignored, and the page expanded afresh.
CORRUPT = {
    "not an expansion": lambda entry: "text",
    "one output too many": lambda entry: [entry[0] + ["more"], entry[1]],
    "one output too few": lambda entry: [entry[0][:-1], entry[1]],
    "an output that is not text": lambda entry: [[1] * len(entry[0]), entry[1]],
    "a hidden character": lambda entry: [[output + "\u202e" for output in entry[0]], entry[1]],
    "a claim of another shape": lambda entry: [entry[0], [["time per call", "1 ms"]]],
    "a claim of no parts": lambda entry: [entry[0], [[[], "1 ms"]]],
    "claims that are not a list": lambda entry: [entry[0], {"a": 1}],
}


@pytest.mark.parametrize("corrupt", sorted(CORRUPT))
def test_a_corrupt_kept_expansion_is_ignored_and_the_page_expanded_afresh(tree, expanded, corrupt):
    cold = a_build(tree)
    index_file = tree / "cache" / build_cache.INDEX_FILE
    index = json.loads(index_file.read_text())
    index["expansions"] = {key: [CORRUPT[corrupt](entry), last] for key, (entry, last) in index["expansions"].items()}
    index_file.write_text(json.dumps(index))
    expanded.clear()
    assert a_build(tree) == cold
    assert expanded == list(PAGES.values())


def test_the_claims_of_kept_pages_meet_the_cross_page_check(tree, expanded):
    a_build(tree)
    index_file = tree / "cache" / build_cache.INDEX_FILE
    index = json.loads(index_file.read_text())
    kept_index = page_expansions.key(site_data.load(tree / "results").inputs, *markdown_ext.DEFAULT_PAGE, None,
                                     PAGES["index.md"])
    outputs, claims = index["expansions"][kept_index][0]
    assert claims == [[["time per call", "cpu", "small_ops", "eager"], outputs[0]]]
    # The index page's kept claim, as another build of it might have stated it: the file's table,
    # kept too, states the measured time.
    index["expansions"][kept_index][0] = [["9.99 h", *outputs[1:]], [[claims[0][0], "9.99 h"]]]
    index_file.write_text(json.dumps(index))
    expanded.clear()
    with pytest.raises(DirectiveBuildError, match=r"index\.md: time per call · cpu · small_ops · eager reads "
                                                  r"'.+' here but '9\.99 h' on index\.md"):
        a_build(tree)
    assert expanded == []


def test_resolved_commits_names_what_this_clone_holds():
    head = repo.git_commit()
    found = repo.resolved_commits([head, head[:12], "0" * 40, "not a commit", "two\nlines", ""])
    assert found == {head: head, head[:12]: head, "0" * 40: None, "not a commit": None, "two\nlines": None, "": None}


def test_the_digest_reads_content_not_modification_times(tmp_path):
    results_tree(tmp_path)
    path = tmp_path / "results" / "cpu" / "small_ops.json"
    before = site_data.files_digest(tmp_path / "results").hexdigest()
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 10**9))
    assert site_data.files_digest(tmp_path / "results").hexdigest() == before
    content = path.read_bytes()
    path.write_bytes(content.replace(b'"small_ops"', b'"small_opz"', 1))  # same size
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))  # and the same time
    assert site_data.files_digest(tmp_path / "results").hexdigest() != before


# A build in its own process, counting the pages it expands into a file (its own process or a worker, which
# expands pages ahead of a cold build's main process), and saying last whether it imported matplotlib (a
# build that draws no chart need not).
COUNTING_BUILD = textwrap.dedent("""
    import os
    import sys
    from mkdocs.__main__ import cli
    from tfspeedlab.site import markdown_ext

    expand = markdown_ext.expand_apart

    def counted(text, context):
        with open(sys.argv[1], "a") as log:
            log.write(context.page_uri + "\\n")
        return expand(text, context)

    markdown_ext.expand_apart = counted
    cli(["build", "--strict", "-q", "-d", sys.argv[2]], standalone_mode=False)
    print("matplotlib imported" if "matplotlib" in sys.modules else "no matplotlib")
""")


def test_a_build_in_a_new_process_expands_no_unchanged_page_and_writes_the_same_html(tmp_path):
    results_tree(tmp_path)
    (tmp_path / "docs").mkdir()
    for name, text in PAGES.items():
        (tmp_path / "docs" / name).write_text(text)
    (tmp_path / "mkdocs.yml").write_text("site_name: tiny\nstrict: true\nplugins:\n  - tfspeedlab\n"
                                         "markdown_extensions:\n  - tables\n  - tfspeedlab.site.markdown_ext\n")

    def build(number: int) -> tuple[list[str], dict[str, bytes], str]:
        log, site = tmp_path / f"expanded-{number}", tmp_path / f"site-{number}"
        log.touch()
        completed = subprocess.run(
            [sys.executable, "-c", COUNTING_BUILD, str(log), str(site)], cwd=tmp_path, capture_output=True,
            text=True, timeout=300,
            env={**os.environ, "TFSPEEDLAB_RESULTS": str(tmp_path / "results"), "PYTHONPATH": str(REPO),
                 "TFSPEEDLAB_EXAMPLES": str(tmp_path / "examples"), "TFSPEEDLAB_CACHE": str(tmp_path / "cache"),
                 "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "0"})  # no build date in the pages
        assert completed.returncode == 0, completed.stderr[-3000:]
        return (sorted(log.read_text().split()),
                {str(page.relative_to(site)): page.read_bytes() for page in sorted(site.rglob("*.html"))},
                completed.stdout.strip())

    cold_pages, cold, _ = build(1)
    assert cold_pages == sorted(PAGES)  # each once: by a worker, or by the build where its job had not started
    warm_pages, warm, warm_imports = build(2)
    assert warm_pages == [] and warm == cold
    assert warm_imports == "no matplotlib"  # every chart kept: nothing drawn
    (tmp_path / "docs" / "results.md").write_text(PAGES["results.md"] + "\nMore words.\n")
    edited_pages, edited, _ = build(3)
    assert edited_pages == ["results.md"] and edited["index.html"] == cold["index.html"]
