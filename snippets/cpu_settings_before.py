"""What many scripts do to quiet TensorFlow's start-up and to cut threads.

Run it in a fresh process: both settings must come before TensorFlow
starts, and in a notebook that already ran TensorFlow they fail."""
import os

# Turns oneDNN's operations off (where the CPU had them on) to hide one line.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import tensorflow as tf  # noqa: E402  (the variable must be set first)

tf.config.threading.set_intra_op_parallelism_threads(1)  # one thread per op
a = tf.random.normal([512, 512])
print(float(tf.reduce_sum(tf.matmul(a, a))))
