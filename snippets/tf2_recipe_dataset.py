# The TF2 recipe of docs/tf1-vs-tf2.md, fed from tf.data (TensorFlow only).
# Run: python snippets/tf2_recipe_dataset.py

import numpy as np
import tensorflow as tf

steps_per_call = 10
features = np.random.randn(640, 400, 16).astype("float32")
labels = np.random.randint(0, 2, (640, 1)).astype("float32")
dataset = (
    tf.data.Dataset.from_tensor_slices((features, labels))
    .shuffle(640)
    .batch(32, drop_remainder=True)
    .repeat()
    .prefetch(tf.data.AUTOTUNE)
)

ipt = tf.keras.Input((400, 16))
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


@tf.function  # one graph call reads and trains on steps_per_call batches
def train_steps(iterator):
    loss = tf.constant(0.0)
    for _ in tf.range(steps_per_call):
        X, y = next(iterator)
        loss = train_step(X, y)
    return loss


# Made once and passed in: a new iterator per call would restart the pipeline.
iterator = iter(dataset)
for call in range(2):
    loss = train_steps(iterator)
    steps_done = (call + 1) * steps_per_call
    print(f"after {steps_done} steps: loss {float(loss):.4f}")
