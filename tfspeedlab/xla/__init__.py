"""XLA against the plain graph: the pairs a results file measures, compile cost and payback, and
their directives."""
