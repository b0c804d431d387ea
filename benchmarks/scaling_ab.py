"""The MLP of scaling.py, both contenders inside the same processes: the flowtorch job and the same model under
hand-written DistributedDataParallel alternate in blocks of steps, so that a slow stretch of the machine weighs
on both. A closer look than scaling.py's separate launches, with each rank's CPU time per step.

``python -m flowtorch --nproc N benchmarks/scaling_ab.py [--blocks B] [--steps S]`` writes
``benchmarks/results/scaling_ab.json`` (rank 0): milliseconds per step of each contender (median over blocks),
the ratio flowtorch / DDP in images per second (the median of each pair of blocks' ratios), and the process and
main-thread CPU milliseconds per step of rank 0.
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


def _block(step: Callable[[], float], steps: int) -> tuple[float, float, float]:
    """Milliseconds per step: wall, process CPU, this thread's CPU."""
    for _ in range(5):
        step()
    torch.distributed.barrier()
    wall, cpu, main = time.perf_counter(), time.process_time(), time.thread_time()
    for _ in range(steps):
        step()
    elapsed = (time.perf_counter() - wall, time.process_time() - cpu, time.thread_time() - main)
    return tuple(seconds / steps * 1e3 for seconds in elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=16, help="blocks of each contender, alternating")
    parser.add_argument("--steps", type=int, default=50, help="timed steps per block")
    args = parser.parse_args()
    flowtorch = scaling_worker._oneflow_job("mlp")
    flowtorch()  # the first call starts the session and joins the process group
    ddp = scaling_worker._ddp_step("mlp")
    times: dict[str, list[tuple[float, float, float]]] = {"flowtorch": [], "ddp": []}
    for b in range(args.blocks):
        order = (("flowtorch", flowtorch), ("ddp", ddp)) if b % 2 == 0 else (("ddp", ddp), ("flowtorch", flowtorch))
        for name, step in order:
            times[name].append(_block(step, args.steps))
    if int(os.environ.get("RANK", "0")) != 0:
        return
    ratios = [d[0] / f[0] for f, d in zip(times["flowtorch"], times["ddp"])]
    results = {name: {"ms_per_step": statistics.median(t[0] for t in runs),
                      "process_cpu_ms_per_step": statistics.median(t[1] for t in runs),
                      "main_thread_cpu_ms_per_step": statistics.median(t[2] for t in runs)}
               for name, runs in times.items()}
    results["ratio"] = statistics.median(ratios)
    results["ratio_per_block_pair"] = ratios
    print(f"mlp x{torch.distributed.get_world_size()}: flowtorch {results['flowtorch']['ms_per_step']:.2f} ms, "
          f"DDP {results['ddp']['ms_per_step']:.2f} ms per step; ratio {results['ratio']:.3f}")
    write_results(HERE / "results" / "scaling_ab.json", results, device="cpu (gloo processes)",
                  processes=torch.distributed.get_world_size(), blocks=args.blocks, steps=args.steps)


if __name__ == "__main__":
    main()
