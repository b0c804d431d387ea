#!/usr/bin/env bash
# The README's main-job command: install flowtorch into a fresh virtual environment and train the
# bundled OneFlow-style MLP (an unedited `import oneflow` program) on a generated MNIST-format file.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${FLOWTORCH_VENV:-.venv}"
python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q torch==2.13.0 2>/dev/null || "$VENV/bin/python" -m pip install -q "torch>=2.1,<3"
"$VENV/bin/python" -m pip install -q .
[ -f mnist.npz ] || "$VENV/bin/python" -m flowtorch make-mnist mnist.npz
"$VENV/bin/python" -m flowtorch examples/mlp_mnist.py "$@"
