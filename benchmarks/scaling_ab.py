"""A model of scaling.py with both contenders inside the same processes: the flowtorch job and the same model
under hand-written DistributedDataParallel take turns step by step (the order swapped every pair), so that any
slow stretch of the machine, however short, weighs on both. A closer look than scaling.py's separate launches,
with each rank's CPU time per step.

``python -m flowtorch --nproc N benchmarks/scaling_ab.py [--model mlp|resnet] [--pairs P] [--chunk C] [--output F]``
writes ``benchmarks/results/scaling_ab.json`` (rank 0): milliseconds per step of each contender (mean of rank 0's step
times), the ratio flowtorch / DDP in images per second (DDP's mean step time over flowtorch's) with its standard
error over the pairs and a 95 % interval, the same ratio over each chunk of C pairs (its spread shows how steady
the machine was) and over the steps that follow a step of the same contender (no cache traffic of the other
between them), and rank 0's main-thread CPU milliseconds per step (median). ``FLOWTORCH_DIST_FEED=trust`` in the
environment measures flowtorch without its per-step input check (DDP makes none); the results name the feed mode.
DDP runs on the device of flowtorch's process group: the CPU over gloo (``FLOWTORCH_DEVICE=cpu`` on a machine with
GPUs), a GPU per process over nccl.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scaling_worker  # noqa: E402 - the two contenders, as scaling.py runs them (beside this file)
from _timing import write_results  # noqa: E402

WARMUP = 30


def _timed(step: Callable[[], float], wall: list[float], cpu: list[float]) -> None:
    start, thread = time.perf_counter(), time.thread_time()
    step()
    wall.append(time.perf_counter() - start)
    cpu.append(time.thread_time() - thread)


def _ratio(subject: list[float], reference: list[float]) -> dict[str, float]:
    """mean(reference) / mean(subject) over paired steps, with its standard error (the delta method:
    std(reference - ratio * subject) / (sqrt(n) * mean(subject))) and the 95 % interval."""
    n = len(subject)
    mean = statistics.fmean(subject)
    ratio = statistics.fmean(reference) / mean
    error = statistics.stdev([r - ratio * s for s, r in zip(subject, reference)]) / (n ** 0.5 * mean)
    return {"ratio": ratio, "ratio_stderr": error, "ratio_low": ratio - 1.96 * error,
            "ratio_high": ratio + 1.96 * error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=sorted(scaling_worker.GLOBAL_BATCH), default="mlp")
    parser.add_argument("--pairs", type=int, default=6000, help="timed steps of each contender")
    parser.add_argument("--chunk", type=int, default=100, help="pairs per chunk of the spread")
    parser.add_argument("--output", type=Path, default=HERE / "results" / "scaling_ab.json")
    args = parser.parse_args()
    flowtorch = scaling_worker._oneflow_job(args.model)
    flowtorch()  # the first call starts the session and joins the process group
    ddp = scaling_worker._ddp_step(args.model)
    for _ in range(WARMUP):
        flowtorch()
        ddp()
    torch.distributed.barrier()
    wall: dict[str, list[float]] = {"flowtorch": [], "ddp": []}
    cpu: dict[str, list[float]] = {"flowtorch": [], "ddp": []}
    for i in range(args.pairs):
        order = ("flowtorch", "ddp") if i % 2 == 0 else ("ddp", "flowtorch")
        for name in order:
            _timed(flowtorch if name == "flowtorch" else ddp, wall[name], cpu[name])
    if int(os.environ.get("RANK", "0")) != 0:
        return
    chunks = [sum(wall["ddp"][k:k + args.chunk]) / sum(wall["flowtorch"][k:k + args.chunk])
              for k in range(0, args.pairs, args.chunk)]
    results: dict[str, object] = {
        name: {"ms_per_step": statistics.fmean(wall[name]) * 1e3,
               "median_ms_per_step": statistics.median(wall[name]) * 1e3,
               "main_thread_cpu_ms_per_step": statistics.median(cpu[name]) * 1e3}
        for name in wall}
    results.update(_ratio(wall["flowtorch"], wall["ddp"]))
    results["ratio_per_chunk"] = chunks
    # The order alternates (ft, DDP), (DDP, ft), ...: in even pairs flowtorch follows its own step, in odd ones DDP
    results["ratio_after_same"] = statistics.fmean(wall["ddp"][1::2]) / statistics.fmean(wall["flowtorch"][0::2])
    feed = os.environ.get("FLOWTORCH_DIST_FEED") or "check"
    print(f"{args.model} x{torch.distributed.get_world_size()} (feed {feed}): "
          f"flowtorch {results['flowtorch']['ms_per_step']:.2f} "
          f"ms, DDP {results['ddp']['ms_per_step']:.2f} ms per step; ratio {results['ratio']:.3f} "
          f"(95 % interval {results['ratio_low']:.3f}-{results['ratio_high']:.3f}; chunks of {args.chunk} pairs: "
          f"{min(chunks):.3f}-{max(chunks):.3f}; after the same contender {results['ratio_after_same']:.3f})")
    device = scaling_worker.ddp_device()
    write_results(args.output, results, device=torch.cuda.get_device_name(device) + " (nccl processes)"
                  if device.type == "cuda" else "cpu (gloo processes)",
                  model=args.model, feed=feed, processes=torch.distributed.get_world_size(), pairs=args.pairs,
                  chunk=args.chunk)


if __name__ == "__main__":
    main()
