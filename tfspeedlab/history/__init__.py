"""``tfspeedlab history``: the guide's examples run on every release, their trends, tables,
charts and directives."""
