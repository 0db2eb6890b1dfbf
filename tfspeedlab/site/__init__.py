"""The MkDocs plugin (``plugin``) and what it renders from results: page directives
(``directives``), Markdown tables (``tables``, built by ``markdown``), charts (``charts``), named
figures (``figures``), the speed simulator (``simulator``); prose and HTML live in ``templates/``."""
