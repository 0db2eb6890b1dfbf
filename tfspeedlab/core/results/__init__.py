"""The results tree: the file format (``schema``), reading and atomic writing (``store``), the traces
kept beside results (``artifacts``), merging runs (``merge``), freshness against the code
(``provenance``) and the repository they live in (``repo``)."""
