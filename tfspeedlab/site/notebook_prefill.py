"""Notebook pages converted by the build's workers before they render, into mkdocs-jupyter's own cache.

mkdocs-jupyter converts a notebook (nbconvert) when its page renders, in the build's main process:
27 pages, 3.5 s of a cold build. Its cache (``.cache/mkdocs-jupyter``, on by default) keeps each
conversion under a key of the notebook's bytes and the options that shape it, and a page whose cache
file exists is read from it instead. So at the start of a build each notebook whose cache file is
missing goes to the build's workers (``build_workers``), which convert it with mkdocs-jupyter's own
code (its ``on_pre_page`` and page ``render``, as the page would) into a folder of their own and
move the file into place whole (``os.replace``): a page never reads half a file. Before a notebook
page renders, ``wait`` waits for its job, and the page takes mkdocs-jupyter's cache-hit path, with the
content the conversion would have given it (``tests/test_notebook_prefill.py`` compares the pages).

A job not started when its page comes is taken back, and the page converts as before; so does a page
whose job failed (its error is the page's own conversion's to report). Nothing is sent when the cache
is off, when notebooks are executed (a kernel in a forked worker) or when mkdocs-jupyter's internals
are not the ones this reads (``_compute_cache_key``, ``_get_cache_path``): the pages convert as before.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace

from tfspeedlab.site import build_workers

JUPYTER_MODULE = "mkdocs_jupyter.plugin"


class Prefill:
    """This build's conversions sent to the workers, by the notebook's absolute path."""

    jobs: dict[str, Future] = {}


def jupyter_plugin(config):
    """mkdocs-jupyter's plugin of this build, if it has one whose internals are the ones read here."""
    for plugin in config.plugins.values():
        module = sys.modules.get(type(plugin).__module__)
        if type(plugin).__module__ == JUPYTER_MODULE and all(
                callable(getattr(module, name, None)) for name in ("_compute_cache_key", "_get_cache_path")) and all(
                callable(getattr(plugin, name, None)) for name in ("should_include", "on_pre_page")):
            return plugin
    return None


def start(config, notebooks: list) -> None:
    """Send the conversion of each of ``notebooks`` (MkDocs files) not in mkdocs-jupyter's cache to the
    build's workers, where it has them."""
    Prefill.jobs = {}
    plugin = jupyter_plugin(config)
    if plugin is None or not build_workers.running():
        return
    options = dict(plugin.config)
    if not options.get("cache") or options.get("execute") or not options.get("cache_dir"):
        return
    module = sys.modules[type(plugin).__module__]
    for file in notebooks:
        if not plugin.should_include(file):
            continue
        key = module._compute_cache_key(file.abs_src_path, options, False)
        cache_path = Path(module._get_cache_path(options["cache_dir"], key))
        if cache_path.exists():
            continue  # an earlier build's: the page reads it
        future = build_workers.submit(convert, file.abs_src_path, file.src_path, options,
                                      str(cache_path))
        if future is not None:
            Prefill.jobs[os.path.normpath(file.abs_src_path)] = future


def wait(page) -> None:
    """Before ``page`` renders: its notebook's conversion written to the cache, or taken back, or failed
    (the page then converts it itself)."""
    future = Prefill.jobs.pop(os.path.normpath(page.file.abs_src_path or ""), None)
    if future is not None:
        # Taken back, or failed: either way no cache file, and the page converts the notebook itself
        # (reporting the error, if it is the notebook's, as without the workers).
        build_workers.take(future)


def convert(notebook: str, src_path: str, options: dict, cache_path: str) -> bool:
    """In a worker: mkdocs-jupyter's conversion of ``notebook`` with ``options``, as its page would make
    it, moved whole to ``cache_path``; whether it was written there."""
    from mkdocs_jupyter import plugin as jupyter

    target = Path(cache_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".prefill-", dir=target.parent))
    try:
        converter = jupyter.Plugin()
        converter.config = {**options, "cache_dir": str(scratch)}
        converter.on_pre_build(None)
        page = SimpleNamespace(file=SimpleNamespace(abs_src_path=notebook, src_path=src_path), abs_url="/")
        converter.on_pre_page(page, None, None)
        page.render(None, None)
        written = scratch / target.name
        if not written.is_file():
            return False  # another key, or no cache file: mkdocs-jupyter is not what this reads
        os.replace(written, target)
        return True
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
