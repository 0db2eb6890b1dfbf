"""TensorFlow's CPU defaults, left as it chose them for this machine."""
import os

# The change: no TF_ENABLE_ONEDNN_OPTS and no thread settings. oneDNN stays
# as TensorFlow chose it for this CPU (its start-up line says so; no log
# level hides that line), and the thread pools keep their defaults (0:
# sized from the usable cores).
import tensorflow as tf

a = tf.random.normal([512, 512])
print(float(tf.reduce_sum(tf.matmul(a, a))))
threads = tf.config.threading.get_intra_op_parallelism_threads()
print("threads per op:", threads, "(0: the default)")
print("usable cores:", len(os.sched_getaffinity(0)))
