#!/usr/bin/env bash
# On a CUDA machine, in one command: the engine's CUDA tests and the GPU benchmarks first (so a run cut short still
# has them), then the whole test suite (CPU and CUDA tests), then the scaling benchmark on as many processes as there
# are GPUs, up to 4. async_delivery writes the engine's table (ms per
# step of flowtorch sync and Callback, torch eager, the hand-written whole-step graph and its pipelined form, the
# device named) to benchmarks/results/engine_table_cuda.md.
#   bash scripts/gpu_check.sh [--quick]
# Writes benchmarks/results/gpu_check.txt (what ran, what it printed and its seconds) and the benchmarks' JSON
# files.
# Exits 2 without a CUDA device, 1 if a test or benchmark failed.
set -u
cd "$(dirname "$0")/.."
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"
results=benchmarks/results
mkdir -p "$results"
log="$results/gpu_check.txt"
export PY="${PYTHON:-python3}"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
if ! "$PY" -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"; then
    echo "gpu_check: no CUDA device" >&2
    exit 2
fi
status=0
run() {  # run <title> <command...>: output to the log, the exit status kept
    echo "== $1" | tee -a "$log"
    shift
    local out start=$SECONDS
    out=$(mktemp)
    "$@" >"$out" 2>&1
    local rc=$?
    tail -n "${TAIL:-200}" "$out" | tee -a "$log"
    echo "(exit $rc, $((SECONDS - start)) s)" | tee -a "$log"
    rm -f "$out"
    [ $rc -eq 0 ] || status=1
}
: >"$log"
run "device" "$PY" -c "import torch; print(torch.__version__, 'CUDA', torch.version.cuda, torch.cuda.get_device_name())"
suite() {  # every test file in its own process, JOBS at once (a CUDA error is sticky: one file can't spoil the next)
    local logs
    logs=$(mktemp -d)
    find tests -name 'test_*.py' | sort | xargs -P "${JOBS:-8}" -I{} sh -c \
        'f={}; log='"$logs"'/$(echo $f | tr / _).txt; "$PY" -m pytest -q -p no:cacheprovider -rfEs \
         -o faulthandler_timeout=300 $f >$log 2>&1; echo "$? $f: $(tail -n 1 $log)" >>'"$logs"'/summary'
    sort -k2 "$logs/summary"
    local bad
    bad=$(awk '$1 != 0 && $1 != 5 {print $2}' "$logs/summary" | tr -d :)
    for f in $bad; do cat "$logs/$(echo $f | tr / _).txt"; done
    rm -rf "$logs"
    [ -z "$bad" ]
}
run "cuda tests (graphs, the whole-step update, the ring, exactly-once delivery)" "$PY" -m pytest -q \
    -p no:cacheprovider -rs tests/step/test_cuda_graph.py tests/watch/test_compiled.py tests/runtime tests/step/test_amp.py
run "benchmark cuda_graph_mlp" "$PY" benchmarks/cuda_graph_mlp.py $quick
run "benchmark async_delivery (the engine's table: whole-step graph, ring, Callback)" "$PY" benchmarks/async_delivery.py \
    $quick --output "$results/async_delivery_cuda.json" --table "$results/engine_table_cuda.md"
run "benchmark programs_vs_torch" "$PY" benchmarks/programs_vs_torch.py $quick --output "$results/programs_vs_torch_cuda.json"
run "suite (each file in its own process)" suite
gpus=$("$PY" -c "import torch; print(','.join(str(n) for n in (1, 2, 4) if n <= torch.cuda.device_count()))")
run "benchmark scaling (GPUs: $gpus)" "$PY" benchmarks/scaling.py --device cuda --nprocs "$gpus" \
    --rounds "$( [ -n "$quick" ] && echo 1 || echo 3 )"
echo "gpu_check: $( [ $status -eq 0 ] && echo all green || echo FAILURES ) (log: $log)"
exit $status
