import numpy as np
import tensorflow as tf

layers = tf.keras.layers
steps = 10  # training steps per graph call
x = tf.constant(np.random.randn(steps, 32, 400, 16), tf.float32)
y = tf.constant(np.random.randint(0, 2, (steps, 32, 1)), tf.float32)
model = tf.keras.Sequential(
    [
        tf.keras.Input((400, 16)),
        layers.Conv1D(128, 400, strides=4, padding="same"),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(64, activation="relu"),
        layers.Dense(1, activation="sigmoid"),
    ]
)
optimizer = tf.keras.optimizers.Adam(learning_rate=1e-4)
loss_fn = tf.keras.losses.BinaryCrossentropy()


@tf.function  # one call runs `steps` training steps
def train_steps(x, y):
    loss = tf.constant(0.0)
    for i in tf.range(steps):
        with tf.GradientTape() as tape:
            loss = loss_fn(y[i], model(x[i], training=True))
        variables = model.trainable_variables
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
    return loss


for call in range(2):  # 20 steps of 32 samples, as in the Before tabs
    loss = train_steps(x, y)
print(f"loss {float(loss):.4f}")
