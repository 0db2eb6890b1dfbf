"""A cache with one owner: the module that computes its values holds it, others only call its methods
(a site build keeps some between builds through ``load``, ``saved`` and ``asked``: ``site.build_cache``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Mapping
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class Memo(Generic[Key, Value]):
    """Values by key, each computed once; and the keys asked for since ``forget_asked``."""

    def __init__(self) -> None:
        self._values: dict[Key, Value] = {}
        self._asked: set[Key] = set()

    def get(self, key: Key, compute: Callable[[], Value], usable: Callable[[Value], bool] | None = None) -> Value:
        """The value kept for ``key``, or ``compute()``'s, kept from now on. A kept value ``usable``
        refuses (one read from a file that someone changed) is computed again and replaced."""
        self._asked.add(key)
        if key not in self._values or (usable is not None and not usable(self._values[key])):
            self._values[key] = compute()
        return self._values[key]

    def __contains__(self, key: object) -> bool:
        """Whether a value is kept for ``key`` (asking does not count as using it)."""
        return key in self._values

    def load(self, kept: Mapping[Key, Value]) -> None:
        """Take values an earlier build saved; one already computed in this process stays."""
        for key, value in kept.items():
            self._values.setdefault(key, value)

    def saved(self) -> dict[Key, Value]:
        """A copy of every value kept, for a build to save."""
        return dict(self._values)

    @property
    def asked(self) -> frozenset[Key]:
        """The keys asked for since ``forget_asked``: what a build used, so it keeps only those."""
        return frozenset(self._asked)

    def forget_asked(self) -> None:
        self._asked.clear()

    def clear(self) -> None:
        """Forget every value and every key asked, as a new process would."""
        self._values.clear()
        self._asked.clear()


def text_key(text: str) -> str:
    """The key a memo keeps a value of ``text`` by: its SHA-256, surrogates written through (a page's
    HTML may hold a lone one, which UTF-8 cannot encode)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
