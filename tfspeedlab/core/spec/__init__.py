"""What an example declares: its cases (``Workload``, ``Case``) and how its results are read (``layout``)."""
