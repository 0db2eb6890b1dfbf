"""Page prose and HTML live in ``templates/``; Python hands them data.

Markdown templates (``*.md.j2``) escape what they are given with the ``md``
and ``code`` filters; HTML templates (``*.html.j2``) escape everything.
"""

from __future__ import annotations

import functools

import jinja2

from tfspeedlab.render import markdown


@functools.cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("tfspeedlab.site", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,  # a misspelt variable fails the build, not the page
    )
    environment.filters["md"] = markdown.text
    environment.filters["code"] = markdown.code
    return environment


def render(name: str, **data: object) -> str:
    return _environment().get_template(name).render(**data)
