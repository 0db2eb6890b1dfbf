"""The results tree: the file format (``schema``, a case's metrics read through ``metrics``), reading
and atomic writing (``store``), the traces kept beside results (``artifacts``), merging runs
(``merge``), freshness against the code (``provenance``) and the repository they live in (``repo``)."""
