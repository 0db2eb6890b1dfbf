"""Is the timing fair: drift between sittings, how often re-measures land inside an interval,
their tables and directives."""
