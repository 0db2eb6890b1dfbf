"""The page directives: ``{{ name ARGS }}`` in a page's Markdown, each turned into Markdown from the
results when the site is built.

Every directive registers itself, with a one-line summary and typed parameters, in ``registry``; the
modules here hold them by kind: ``figures`` (one number or comparison for a sentence), ``blocks``
(tables and charts in CPU / GPU tabs), ``links`` (sources, scripts, environment, simulator),
``history`` (the release history) and ``diagnosis`` (committed ``tfspeedlab diagnose`` reports).
``CONTRIBUTING.md`` lists them all, generated from the registry.

Inline figures read the ``cpu`` runner unless given ``runner=gpu``; arguments with spaces are
quoted: ``{{ metric tracing "python scalars" traces }}``.
"""

from tfspeedlab.site.directives import backends, blocks, diagnosis, figures, history, links, runtime  # noqa: F401  (they register)
from tfspeedlab.site.directives import interval_checks, per_cpu, xla_costs  # noqa: F401  (they register)
from tfspeedlab.site.directives.context import CHART_DIR, TRACE_URI, Context, chart_uri, trace_files
from tfspeedlab.site.directives.registry import REGISTRY, catalogue, render, usage
from tfspeedlab.site.errors import DirectiveError

__all__ = ["CHART_DIR", "TRACE_URI", "Context", "DirectiveError", "REGISTRY", "catalogue", "chart_uri", "render",
           "trace_files", "usage"]
