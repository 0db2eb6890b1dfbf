"""Memory and start-up: the tables and charts of memory growth, imports and first predictions."""
