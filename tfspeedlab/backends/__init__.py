"""Keras 3 backends: the backend grid's analysis, its tables and directives."""
