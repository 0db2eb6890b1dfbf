#!/usr/bin/env bash
# Measure every example on an NVIDIA GPU and write results/gpu/.
#
#   scripts/gpu-run.sh [--venv DIR] [--quick] [NAME...]
#
# Installs the project with TensorFlow's CUDA build (tensorflow[and-cuda],
# which brings CUDA and cuDNN from pip; only the NVIDIA driver must be on the
# machine) into a fresh virtual environment (.venv-gpu unless --venv names an
# existing one, which is then used as it is), checks that TensorFlow sees a
# GPU, and runs `tfspeedlab run --runner gpu` at full size. Without a GPU it
# stops with exit code 3 before writing anything. OUT=DIR writes elsewhere
# than results/.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-gpu
install=1
args=()
while (($#)); do
    case $1 in
        --venv) venv=$2; install=0; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) args+=("$1"); shift ;;
    esac
done

refuse() {
    echo "gpu-run: $1" >&2
    echo "gpu-run: nothing was installed or written." >&2
    exit 3
}

# Cheapest check first: no driver, no GPU run (and no multi-gigabyte install).
if [[ -z ${GPU_RUN_SKIP_DRIVER_CHECK:-} ]]; then
    command -v nvidia-smi >/dev/null || refuse "nvidia-smi not found: this machine has no NVIDIA driver."
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >&2 \
        || refuse "nvidia-smi found no usable GPU."
fi

if ((install)); then
    python3 -m venv "$venv"
    # The compare extra too, with JAX's CUDA build: the frameworks example
    # then runs PyTorch and JAX on the same GPU as TensorFlow.
    "$venv/bin/pip" install -q -e ".[compare]" "tensorflow[and-cuda]" tf-keras "jax[cuda12]"
fi

# TensorFlow must see the GPU too (a CPU-only wheel or a driver too old for
# its CUDA would leave it blind); tfspeedlab refuses as well, this says why early.
"$venv/bin/python" - <<'PY' || refuse "TensorFlow sees no GPU (tf.config.list_physical_devices('GPU') is empty)."
import sys

import tensorflow as tf

gpus = tf.config.list_physical_devices("GPU")
if not gpus:
    sys.exit(1)
names = [tf.config.experimental.get_device_details(gpu).get("device_name", gpu.name) for gpu in gpus]
print(f"gpu-run: TensorFlow {tf.__version__} sees {', '.join(names)}", file=sys.stderr)
PY

exec "$venv/bin/tfspeedlab" run --runner gpu --out "${OUT:-results}" "${args[@]}"
