import numpy as np
import tensorflow as tf

# TF1 style: build a graph, then run it. No Keras here, so the Keras 3 trap
# (with eager execution disabled it stops training) does not apply. The
# tf1_session example times code like this, with plain gradient descent.
v1 = tf.compat.v1
v1.disable_eager_execution()
x_in = v1.placeholder(tf.float32, (32, 400, 16))
y_in = v1.placeholder(tf.float32, (32, 1))
init = v1.glorot_uniform_initializer()
kernel = v1.get_variable("conv", (400, 16, 128), initializer=init)
hidden = tf.reshape(tf.nn.conv1d(x_in, kernel, 4, "SAME"), (32, -1))
w1 = v1.get_variable("w1", (100 * 128, 64), initializer=init)
w2 = v1.get_variable("w2", (64, 1), initializer=init)
logits = tf.matmul(tf.nn.relu(tf.matmul(hidden, w1)), w2)
loss = tf.reduce_mean(
    tf.nn.sigmoid_cross_entropy_with_logits(labels=y_in, logits=logits)
)
train = v1.train.AdamOptimizer(1e-4).minimize(loss)

x = np.random.randn(32, 400, 16).astype("float32")
y = np.random.randint(0, 2, (32, 1)).astype("float32")
with v1.Session() as session:
    session.run(v1.global_variables_initializer())
    for step in range(20):  # one session call per training step
        _, value = session.run([train, loss], {x_in: x, y_in: y})
print(f"loss {value:.4f}")
