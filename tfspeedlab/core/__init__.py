"""The core every feature shares: units, workload specs, timing, results files and their statistics,
and the verdicts in words (``wording``). Nothing here imports a feature, the renderer or the site."""
