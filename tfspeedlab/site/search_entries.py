"""Material's search entries of each page, kept between builds (``build_cache``) instead of parsed again.

Material's search plugin reads every page's HTML with an ``HTMLParser`` on every build, a fifth of a
warm build. What it makes of a page — its entries in ``search/search_index.json`` — depends only on
the page's rendered content, its table of contents, URL and title, the page's ``title``, ``tags`` and
``search`` settings, the plugin's own configuration and Material's code. Keyed by all of these, a
page's entries are kept (as the JSON the index writes them in) and replayed on the next build: the
index is byte for byte the one Material's own path writes.

Material offers no hook for this, so ``install`` wraps the ``add_entry_from_context`` method of the
search plugin's index, on that one instance. Where Material's internals are not as this module
expects (another version's plugin, a missing attribute, Chinese segmentation by ``jieba``, whose
dictionaries the key could not cover), nothing is wrapped: Material indexes every page itself.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from tfspeedlab.core.memo import Memo

# A page's entries (the JSON text of the list Material made of it) by ``page_key``. One owner: a site
# build keeps them between builds (``tfspeedlab.site.build_cache``).
SEARCH_ENTRIES: Memo[str, str] = Memo()
# What marks an index method as already wrapped (MkDocs keeps plugin instances between rebuilds).
_WRAPPED = "_tfspeedlab_kept_entries"
# An entry's fields (``create_entry_for_section``), and the markup its title and text may hold: the tags
# Material's parser keeps (``Parser.keep``), bare; it escapes every other ``<``, ``>`` and ``&``.
_REQUIRED = frozenset({"location", "title", "text"})
_FIELDS = _REQUIRED | {"tags", "boost"}
_KEPT_TAGS = frozenset(f"<{end}{tag}>" for tag in ("p", "code", "pre", "li", "ol", "ul", "sub", "sup")
                       for end in ("", "/"))
_MARKUP = re.compile(r"<[^<>]*>|[<>]")  # a tag, or a bracket that starts or ends none
# The page settings Material's index reads (``create_entry_for_section``, ``add_entry_from_context``).
_META_READ = ("title", "tags", "search")


def install(plugins: Iterable[Any]) -> bool:
    """Keep the entries of Material's search plugin among ``plugins`` by page, if it is as expected;
    whether it is (False: Material indexes each page as it always does)."""
    try:
        from material.plugins.search import plugin as search_plugin
    except ImportError:
        return False
    for plugin in plugins:
        if not isinstance(plugin, search_plugin.SearchPlugin):
            continue
        index = getattr(plugin, "search_index", None)  # made by the plugin's on_config, when enabled
        expected = (plugin.config.get("enabled", False) and isinstance(index, search_plugin.SearchIndex)
                    and isinstance(getattr(index, "entries", None), list)
                    and isinstance(getattr(index, "config", None), dict)
                    and callable(getattr(index, "add_entry_from_context", None))
                    and getattr(search_plugin, "jieba", None) is None)
        if not expected:
            return False
        original = index.add_entry_from_context
        if getattr(original, _WRAPPED, False):
            return True
        wrapped = functools.partial(_add_entries, index, original, _material_version(search_plugin.__file__))
        setattr(wrapped, _WRAPPED, True)
        index.add_entry_from_context = wrapped
        return True
    return False


@functools.cache
def _material_version(plugin_source: str) -> str:
    """Material's version and the search plugin's source (its parser and index): what an entry is made by."""
    try:
        version = metadata.version("mkdocs-material")
    except metadata.PackageNotFoundError:  # installed without its metadata: its source still says
        version = ""
    digest = hashlib.sha256(version.encode())
    digest.update(Path(plugin_source).read_bytes())
    return digest.hexdigest()


def _add_entries(index, original: Callable[[Any], None], material: str, page) -> None:
    """Material's ``index.add_entry_from_context(page)``: the entries kept for the same page, or Material's own."""
    first = len(index.entries)
    made = False

    def make() -> str:
        nonlocal made
        original(page)
        made = True
        # As the index writes them (``generate_search_index``): what is replayed dumps to the same text.
        return json.dumps(index.entries[first:], separators=(",", ":"), default=str)

    checked: list[dict] | None = None

    def usable(kept: str) -> bool:
        nonlocal checked
        checked = replayable(kept, page.url)
        return checked is not None

    SEARCH_ENTRIES.get(page_key(page, index.config, material), make, usable=usable)
    if not made and checked is not None:
        index.entries.extend(checked)


def replayable(kept: str, url: str) -> list[dict] | None:
    """Kept entries of the page at ``url`` as Material makes them, or None for anything else (a kept
    file someone changed): each a location on the page, text and title with no markup but the tags
    Material's parser keeps (every other ``<`` it escapes), tags as text, a numeric boost."""
    try:
        entries = json.loads(kept)
    except ValueError:
        return None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not (isinstance(entry, dict) and entry.keys() <= _FIELDS and _REQUIRED <= entry.keys()
                and isinstance(entry["location"], str) and _on_page(entry["location"], url)
                and all(_plain(entry[name]) for name in ("title", "text"))
                and (isinstance(entry.get("tags", []), list) and all(_plain(tag) for tag in entry.get("tags", [])))
                and ("boost" not in entry or _number(entry["boost"]))):
            return None
    return entries


def _on_page(location: str, url: str) -> bool:
    return location == url or (location.startswith(url + "#") and _plain(location))


def _plain(text: Any) -> bool:
    return isinstance(text, str) and all(tag in _KEPT_TAGS for tag in _MARKUP.findall(text))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def page_key(page, index_config: dict, material: str) -> str:
    """What a page's entries are made from: its HTML, TOC anchors, URL, title and settings, the index's
    configuration and Material's code."""
    meta = {name: page.meta[name] for name in _META_READ if name in page.meta}
    parts = (material, sorted(index_config.items()), page.url, str(page.title), meta, _anchors(page.toc or ()))
    digest = hashlib.sha256(repr(parts).encode())
    digest.update(b"\0" + (page.content or "").encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _anchors(toc) -> tuple:
    """The TOC's anchors (id and link, nested), which an entry's location is looked up in."""
    return tuple((item.id, item.url, _anchors(item.children)) for item in toc)
