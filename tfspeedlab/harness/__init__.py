"""Running examples: finding them (``catalog``), timing their cases (``cases``), one process per
group (``isolation``), the child process per example (``worker``), ``python examples/NAME.py`` and
its terminal table (``standalone``), and the machine and runner (``machine``)."""
