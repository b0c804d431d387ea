"""Data-parallel scaling: a OneFlow job on 1, 2 and 4 processes (``python -m flowtorch --nproc N``) against
the same model under hand-written DistributedDataParallel (torchrun), interleaved in one run.

``python benchmarks/scaling.py [--rounds R] [--steps mlp=S,resnet=S] [--models mlp,resnet] [--nprocs 1,2,4]
[--device cpu|cuda] [--output PATH]`` writes ``benchmarks/results/scaling.json`` (``scaling_cuda.json`` on
``cuda``): images per second of each contender (median over rounds) and the ratio flowtorch / DDP (the goal:
≥ 0.95): the median over rounds of each round's ratio, the two contenders of a round running back to back, so
that a slow stretch of the machine weighs on both. ``--device cpu`` (the default) runs both as CPU processes over
gloo, also on a machine with GPUs; ``--device cuda`` gives each process a GPU of its own (DDP over nccl,
flowtorch on its default CUDA capture), so ``--nprocs`` goes up to the GPU count. Each launch pays its start-up
outside the timed steps. ``FLOWTORCH_DIST_FEED`` passes to the flowtorch launches (``trust``: without the
per-step input check); the results name it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import write_results  # noqa: E402 - the benchmarks' shared helpers live beside this file

log = logging.getLogger("benchmarks.scaling")
WORKER = HERE / "scaling_worker.py"


def _launch(mode: str, model: str, nproc: int, steps: int, out: Path, device: str) -> float:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    if device == "cpu":
        env["FLOWTORCH_DEVICE"] = "cpu"
    program = [str(WORKER), mode, model, str(out), str(steps), device]
    if mode == "flowtorch":
        cmd = [sys.executable, "-m", "flowtorch", *(["--nproc", str(nproc)] if nproc > 1 else []), *program]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
               *program]
    out.unlink(missing_ok=True)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200, check=False)
    if not out.exists():
        raise RuntimeError(f"{mode} {model} x{nproc} failed:\n{done.stderr[-4000:]}")
    if done.returncode != 0:  # rank 0 wrote its figures; a teardown crash after the timed steps is logged
        log.warning("%s %s x%d exited %d after writing its figures: %s", mode, model, nproc, done.returncode,
                    done.stderr.strip().splitlines()[-1:] or "")
    return json.loads(out.read_text())["images_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", default="mlp=200,resnet=50",
                        help="timed steps per launch, per model (the MLP's step is the shorter)")
    parser.add_argument("--models", default="mlp,resnet")
    parser.add_argument("--nprocs", default="1,2,4")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--output", type=Path, help="results file (default: results/scaling[_cuda].json)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    models, nprocs = args.models.split(","), [int(n) for n in args.nprocs.split(",")]
    device_name = "cpu (gloo processes)"
    if args.device == "cuda":
        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if max(nprocs) > gpus:
            parser.error(f"--device cuda --nprocs {args.nprocs}: one GPU per process, and torch sees {gpus}")
        device_name = f"{gpus} x {torch.cuda.get_device_name()} (nccl processes)"
    output = args.output or HERE / "results" / ("scaling.json" if args.device == "cpu" else "scaling_cuda.json")
    steps = {name: int(n) for name, _, n in (item.partition("=") for item in args.steps.split(","))}
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for model in models:
                for nproc in nprocs:
                    order = ("flowtorch", "ddp") if r % 2 == 0 else ("ddp", "flowtorch")
                    for mode in order:
                        rate = _launch(mode, model, nproc, steps[model], Path(tmp) / "out.json", args.device)
                        samples.setdefault(f"{model}/{nproc}/{mode}", []).append(rate)
                        log.info("round %d %s x%d %s: %.0f images/s", r, model, nproc, mode, rate)
    results = {}
    for model in models:
        for nproc in nprocs:
            flowtorch, ddp = samples[f"{model}/{nproc}/flowtorch"], samples[f"{model}/{nproc}/ddp"]
            per_round = [a / b for a, b in zip(flowtorch, ddp)]
            ratio = statistics.median(per_round)
            results[f"{model}/{nproc}"] = {
                "flowtorch_images_per_s": statistics.median(flowtorch), "ddp_images_per_s": statistics.median(ddp),
                "ratio": ratio, "ratio_per_round": per_round, "samples": {"flowtorch": flowtorch, "ddp": ddp}}
            log.info("%s x%d: flowtorch %.0f, DDP %.0f images/s (medians); ratio %.3f (median of rounds %s)",
                     model, nproc, statistics.median(flowtorch), statistics.median(ddp), ratio,
                     ", ".join(f"{r:.3f}" for r in per_round))
    write_results(output, results, device=device_name,
                  rounds=args.rounds, steps=steps, feed=os.environ.get("FLOWTORCH_DIST_FEED") or "check")


if __name__ == "__main__":
    main()
