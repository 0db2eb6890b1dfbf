"""Measuring one callable fairly: the timer, its statistics, forced completion, memory peaks, pooling.

Everything that decides a measured number lives here, and nothing here knows
about examples, results files or pages. A change to this package (beyond
imports, docstrings and comments) makes every committed result stale.
"""
