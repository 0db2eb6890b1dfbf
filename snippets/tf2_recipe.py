# The TF2 recipe from docs/tf1-vs-tf2.md; needs only TensorFlow.
# Run: python snippets/tf2_recipe.py

import numpy as np
import tensorflow as tf

steps_per_call = 10
batch_shape = (32, 400, 16)
X = tf.constant(np.random.randn(steps_per_call, *batch_shape), tf.float32)
y = tf.constant(np.random.randint(0, 2, (steps_per_call, 32, 1)), tf.float32)

ipt = tf.keras.Input(batch_shape=batch_shape)
x = tf.keras.layers.Conv1D(128, 400, strides=4, padding="same")(ipt)
x = tf.keras.layers.Dropout(0.5)(tf.keras.layers.Flatten()(x))
x = tf.keras.layers.Dense(64, activation="relu")(x)
model = tf.keras.Model(ipt, tf.keras.layers.Dense(1, activation="sigmoid")(x))
optimizer = tf.keras.optimizers.Adam(1e-4)
loss_fn = tf.keras.losses.BinaryCrossentropy()


def train_step(X, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(X, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function  # one graph call runs steps_per_call training steps
def train_steps(X, y):
    loss = tf.constant(0.0)
    for i in tf.range(steps_per_call):
        loss = train_step(X[i], y[i])
    return loss


for call in range(2):
    loss = train_steps(X, y)  # steps_per_call training steps, one graph call
    steps_done = (call + 1) * steps_per_call
    print(f"after {steps_done} steps: loss {float(loss):.4f}")
