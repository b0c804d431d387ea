"""A model of scaling.py with both contenders inside the same processes: the flowtorch job and the same model
under hand-written DistributedDataParallel take turns step by step (the order swapped every pair), so that any
slow stretch of the machine, however short, weighs on both. A closer look than scaling.py's separate launches,
with each rank's CPU time per step.

``python -m flowtorch --nproc N benchmarks/scaling_ab.py [--model mlp|resnet] [--pairs P] [--chunk C]`` writes
``benchmarks/results/scaling_ab.json`` (rank 0): milliseconds per step of each contender (mean of rank 0's step
times), the ratio flowtorch / DDP in images per second (DDP's mean step time over flowtorch's) and the same
ratio over each chunk of C pairs (its spread shows how steady the machine was), and rank 0's main-thread CPU
milliseconds per step (median). ``FLOWTORCH_DIST_FEED=trust`` in the environment measures flowtorch without its
per-step input check (DDP makes none); the results name the feed mode.
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
import scaling_worker  # the two contenders, as scaling.py runs them
from _timing import write_results

WARMUP = 30


def _timed(step: Callable[[], float], wall: list[float], cpu: list[float]) -> None:
    start, thread = time.perf_counter(), time.thread_time()
    step()
    wall.append(time.perf_counter() - start)
    cpu.append(time.thread_time() - thread)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=sorted(scaling_worker.GLOBAL_BATCH), default="mlp")
    parser.add_argument("--pairs", type=int, default=1500, help="timed steps of each contender")
    parser.add_argument("--chunk", type=int, default=100, help="pairs per chunk of the spread")
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
    results["ratio"] = sum(wall["ddp"]) / sum(wall["flowtorch"])
    results["ratio_per_chunk"] = chunks
    feed = os.environ.get("FLOWTORCH_DIST_FEED") or "check"
    print(f"{args.model} x{torch.distributed.get_world_size()} (feed {feed}): flowtorch {results['flowtorch']['ms_per_step']:.2f} "
          f"ms, DDP {results['ddp']['ms_per_step']:.2f} ms per step; ratio {results['ratio']:.3f} "
          f"(chunks of {args.chunk} pairs: {min(chunks):.3f}-{max(chunks):.3f})")
    write_results(HERE / "results" / "scaling_ab.json", results, device="cpu (gloo processes)",
                  model=args.model, feed=feed, processes=torch.distributed.get_world_size(), pairs=args.pairs,
                  chunk=args.chunk)


if __name__ == "__main__":
    main()
