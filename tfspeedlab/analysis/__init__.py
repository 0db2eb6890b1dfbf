"""Quantities derived from results files, for pages and the simulator: sweeps and break-evens
(``sweeps``), the cost model (``cost_model``), op layers (``op_layers``), grids (``grid``), XLA
against graph (``xla``), per-op dispatch (``dispatch``) and the per-case summary (``summary``).
Nothing here formats Markdown or draws."""
