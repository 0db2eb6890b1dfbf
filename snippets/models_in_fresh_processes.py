"""Train each model of a search in a process of its own: the memory a
model took goes back to the system when its process ends."""
import multiprocessing
import os


def train_one(units):
    import numpy as np
    import tensorflow as tf  # imported in the child: each starts clean

    x = np.random.rand(64, 28, 28, 1).astype("float32")
    y = np.random.randint(0, 10, 64)
    layers = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((28, 28, 1)),
            layers.Conv2D(16, 3, activation="relu"),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(units, activation="relu"),
            layers.Dense(10),
        ]
    )
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile("adam", loss)
    history = model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    return units, history.history["loss"][-1], os.getpid()


if __name__ == "__main__":
    configs = [8, 16, 32, 64, 128]  # one model each
    spawn = multiprocessing.get_context("spawn")
    # The change: one fresh process per model. maxtasksperchild counts
    # chunks, and map's default chunk holds several models (20 configs
    # would share 4 processes): chunksize=1 makes each chunk one model.
    with spawn.Pool(1, maxtasksperchild=1) as pool:
        for units, loss, pid in pool.map(train_one, configs, chunksize=1):
            print(f"{units} units: loss {loss:.3f}, process {pid}")
