"""The cost of a call per CPU model: eager and ``tf.function`` call costs, break-evens, and their
directives."""
