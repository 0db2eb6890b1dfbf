"""The site: what turns a results tree into the guide's pages. The MkDocs plugin (``plugin``), the
Markdown extension that expands directives (``markdown_ext``) with its tooltips (``tooltips``), the
build's data (``site_data``) and cache (``build_cache``), the table and chart each layout calls for
(``views``: ``tables`` and the ``*_charts`` modules), named quantities for sentences
(``quantities``), the speed simulator (``simulator``), notebook pages (``notebook_pages``) and the
generic directives (``directives``). A feature's own tables, charts and directives live in its
package; Markdown, templating and the chart helpers in ``tfspeedlab.render``."""
