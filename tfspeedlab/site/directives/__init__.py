"""The page directives: ``{{ name ARGS }}`` in a page's Markdown, each turned into Markdown from the
results when the site is built.

Every directive registers itself, with a one-line summary and typed parameters, in
``render.registry``. A feature's directives live in its package (``history.directives``,
``diagnosis.directives``, ``memory.directives`` …); the generic ones here are ``figures`` (one
number or comparison for a sentence), ``blocks`` (tables and charts in CPU / GPU tabs) and
``links`` (sources, scripts, the environment and CPU a figure was measured on, the simulator).
``CONTRIBUTING.md`` lists them all by package, generated from the registry.

Inline figures read the ``cpu`` runner unless given ``runner=gpu``; arguments with spaces are
quoted: ``{{ metric tracing "python scalars" traces }}``.
"""

# Every feature's directives register themselves when imported.
from tfspeedlab.backends import directives as backends_directives  # noqa: F401
from tfspeedlab.costmodel import directives as costmodel_directives  # noqa: F401
from tfspeedlab.diagnosis import directives as diagnosis_directives  # noqa: F401
from tfspeedlab.fairness import directives as fairness_directives  # noqa: F401
from tfspeedlab.history import directives as history_directives  # noqa: F401
from tfspeedlab.memory import directives as memory_directives  # noqa: F401
from tfspeedlab.render.context import TRACE_URI, Context, chart_uri, trace_files
from tfspeedlab.render.errors import DirectiveError
from tfspeedlab.render.registry import catalogue, render
from tfspeedlab.settings import directives as settings_directives  # noqa: F401
from tfspeedlab.site.directives import blocks, figures, links  # noqa: F401
from tfspeedlab.xla import directives as xla_directives  # noqa: F401

__all__ = ["TRACE_URI", "Context", "DirectiveError", "catalogue", "chart_uri", "render", "trace_files"]
