"""The CPU an example was measured on, named as every table names it, for prose away from a table."""

from __future__ import annotations

from tfspeedlab.render import markdown
from tfspeedlab.render.context import Context, Runner
from tfspeedlab.render.registry import directive


@directive("environment_cpu", "The CPU an example was measured on, by the name every table gives it, with the "
                              "instruction sets its kernels depend on: ``AMD EPYC 25/1 with AVX2``.")
def environment_cpu(context: Context, example: str, *, runner: Runner = "cpu") -> str:
    return markdown.text(context.cpu_name.with_sets(context.lookup(example, runner).environment))

