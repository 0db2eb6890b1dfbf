"""Quiet TensorFlow's start-up lines without changing what it computes with."""
import os

# The change: hide INFO lines (the oneDNN one among them); oneDNN stays as
# TensorFlow chose it for this CPU, and the thread pools keep their defaults
# (one thread per usable core).
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "1"
import tensorflow as tf  # noqa: E402  (the variable must be set first)

a = tf.random.normal([512, 512])
print(float(tf.reduce_sum(tf.matmul(a, a))))
threads = tf.config.threading.get_intra_op_parallelism_threads()
print("threads per op:", threads, "(0: the default)")
print("usable cores:", len(os.sched_getaffinity(0)))
