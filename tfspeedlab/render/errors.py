"""The one error a page's directive may fail with: what is wrong as written, and what is valid."""

from __future__ import annotations


class DirectiveError(Exception):
    """A directive that cannot be rendered as written: an unknown name, a wrong argument, a figure
    the results do not hold. The build reports it in one line, naming the page and the directive;
    any other exception raised while rendering is a bug and fails the build with its traceback."""
