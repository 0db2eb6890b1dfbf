"""nbconvert's templates compiled once per build, not twice per notebook page.

mkdocs-jupyter makes two new nbconvert exporters for every notebook page it renders (the page, and
its table of contents), and each compiles its Jinja templates anew: on a cold build of this site,
460 compilations of the same few templates. A Jinja bytecode cache shared by every exporter of the
process compiles each template once. Jinja keys it by the template's name and a digest of its source,
so a changed template is compiled again; nothing is kept between builds.

It hooks nbconvert's ``TemplateExporter._create_environment``, which nbconvert 7 has. Where a
release lacks it, nothing is hooked, and the pages build as before, only slower.
"""

from __future__ import annotations

import functools

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket


class SharedBytecode(BytecodeCache):
    """Compiled templates kept in memory for the life of the process."""

    def __init__(self) -> None:
        self.compiled: dict[str, object] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.code = self.compiled[bucket.key]

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.code


SHARED = SharedBytecode()


def share_compiled_templates() -> bool:
    """Give every nbconvert exporter made from now on the shared bytecode cache; whether it could."""
    try:
        from nbconvert.exporters.templateexporter import TemplateExporter
    except ImportError:
        return False
    create = getattr(TemplateExporter, "_create_environment", None)
    if create is None:
        return False
    if getattr(create, "shares_bytecode", False):
        return True

    @functools.wraps(create)
    def create_sharing(exporter):
        environment = create(exporter)
        environment.bytecode_cache = SHARED
        return environment

    create_sharing.shares_bytecode = True
    TemplateExporter._create_environment = create_sharing
    return True
