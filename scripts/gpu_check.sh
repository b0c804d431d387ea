#!/usr/bin/env bash
# On a CUDA machine, in one command: the whole test suite (CPU and CUDA tests), then the GPU benchmarks.
#   bash scripts/gpu_check.sh [--quick]
# Writes benchmarks/results/gpu_check.txt (what ran and what it printed) and the benchmarks' JSON files.
# Exits 2 without a CUDA device, 1 if a test or benchmark failed.
set -u
cd "$(dirname "$0")/.."
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"
results=benchmarks/results
mkdir -p "$results"
log="$results/gpu_check.txt"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
if ! python -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"; then
    echo "gpu_check: no CUDA device" >&2
    exit 2
fi
status=0
run() {  # run <title> <command...>: output to the log, the exit status kept
    echo "== $1" | tee -a "$log"
    shift
    local out
    out=$(mktemp)
    "$@" >"$out" 2>&1
    local rc=$?
    tail -n 60 "$out" | tee -a "$log"
    echo "(exit $rc)" | tee -a "$log"
    rm -f "$out"
    [ $rc -eq 0 ] || status=1
}
: >"$log"
run "device" python -c "import torch; print(torch.__version__, 'CUDA', torch.version.cuda, torch.cuda.get_device_name())"
run "suite" python -m pytest -q -p no:cacheprovider -rs -o faulthandler_timeout=300 tests
run "cuda tests" python -m pytest -q -p no:cacheprovider -rs tests/job/test_cuda_graph.py tests/watch/test_compiled.py \
    tests/runtime tests/job/test_amp.py tests/job/test_threads.py
run "benchmark cuda_graph_mlp" python benchmarks/cuda_graph_mlp.py $quick
run "benchmark async_delivery" python benchmarks/async_delivery.py $quick
run "benchmark programs_vs_torch" python benchmarks/programs_vs_torch.py $quick --output "$results/programs_vs_torch_cuda.json"
echo "gpu_check: $( [ $status -eq 0 ] && echo all green || echo FAILURES ) (log: $log)"
exit $status
