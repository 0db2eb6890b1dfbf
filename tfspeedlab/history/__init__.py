"""The same examples on every TensorFlow release: one environment per release, one results folder each."""
