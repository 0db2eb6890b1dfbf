"""bfloat16 where the CPU has instructions for it, float32 elsewhere."""
import keras
import numpy as np

cpu_flags = open("/proc/cpuinfo").read()
if "avx512_bf16" in cpu_flags or "amx_bf16" in cpu_flags:
    # The change, before the model is built: its layers compute in bfloat16.
    keras.mixed_precision.set_global_policy("mixed_bfloat16")

model = keras.Sequential(
    [
        keras.Input((400, 16)),
        keras.layers.Conv1D(128, 40, strides=4, activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(1, dtype="float32"),  # the output stays float32
    ]
)
model.compile("adam", "mse")
x = np.random.rand(256, 400, 16).astype("float32")
y = x.mean(axis=(1, 2))[:, None]
losses = model.fit(x, y, batch_size=32, epochs=3, verbose=0).history["loss"]
# Compare this loss with float32's after the same steps before you keep it.
policy = keras.mixed_precision.global_policy().name
print(f"{policy}: loss {losses[0]:.3g} -> {losses[-1]:.3g}")
