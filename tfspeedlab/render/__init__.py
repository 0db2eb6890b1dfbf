"""What features render with: Markdown and templating, the directive registry and the
``Context`` a directive reads, runner tabs, and the shared chart and table helpers."""
