"""The results tree: the file format (``schema``, a case's metrics read through ``metrics``), what
every string and number in it must be (``checks``, applied once where a file is loaded), reading
and atomic writing (``store``), the traces kept beside results (``artifacts``), merging runs
(``merge``), freshness against the code (``provenance``) and the repository they live in (``repo``)."""
