"""Statistics of results files: intervals of times and speed-ups (``intervals``), sweeps and their
line fits, grids, the cost model, op layers, memory growth, and the per-case summary.
Nothing here formats Markdown or draws."""
