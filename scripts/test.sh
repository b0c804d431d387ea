#!/usr/bin/env bash
# The README's test command: a fresh virtual environment, flowtorch installed from this checkout, then ruff,
# mypy and pytest (the first that fails fails the script).
# The venv sees the system site-packages so an already-installed torch (2.13.0 CPU) is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${FLOWTORCH_VENV:-.venv}"
python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q "torch>=2.1,<3" ".[test]"
cd tests/..
# (as modules of the venv's python: with the system site-packages, pip may have found them there)
"$VENV/bin/python" -m ruff check src tests benchmarks scripts
"$VENV/bin/python" -m mypy src/flowtorch
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
