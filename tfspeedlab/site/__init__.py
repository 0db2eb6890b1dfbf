"""The MkDocs plugin (``plugin``) and what it renders from results: page directives
(``directives``), the table and chart each layout calls for (``views``), Markdown tables
(``tables``, built and escaped by ``markdown``), charts (``charts``), named quantities
for sentences (``quantities``), the CPU / GPU tabs (``runners``) and the speed simulator (``simulator``).
Prose and HTML live in ``templates/`` (``templating``); Python passes them data."""
