"""A training loop that prepares each batch in numpy: blocking calls against ``tp.Callback`` calls.

    python benchmarks/overlap_prep.py [--quick] [--threads N]

The caller's per-step host work is a numpy pipeline of about a step's cost (random crops of larger uint8
images, random flips, block averaging to 28×28, scaling and per-image normalisation), then the MLP 784-512-10
train step at batch 100. With ``tp.Numpy`` the two alternate; with ``tp.Callback`` the call may return before
its step ran, so the next batch's preparation can overlap the step where the step runs off the caller's thread
(``FLOWTORCH_STEP_THREAD``; see docs/architecture.md). ``--threads N`` sets torch's intra-op threads, so a
machine can be measured with and without a core the step leaves spare. Results (ms per step and the Callback /
blocking time ratio, the median of interleaved rounds) go to stdout and
``benchmarks/results/overlap_prep.json``, with the core count, torch's threads and the step thread's mode.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import measure, summarize, write_results
from programs_vs_torch import B, mlp, sgd

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

RESULTS = Path(__file__).resolve().parent / "results" / "overlap_prep.json"


def prepare(raw: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The caller's host work per batch (numpy only): a random crop of ``28 * k`` pixels from the raw images,
    a random flip, ``k × k`` block averaging down to 28 × 28, scaling and per-image normalisation."""
    k = (raw.shape[-1] - 4) // 28
    i, j = rng.integers(0, 5, 2)
    x = raw[:, :, i:i + 28 * k, j:j + 28 * k].astype(np.float32) * np.float32(1 / 255)
    flip = rng.random(len(x)) < 0.5
    x[flip] = x[flip, :, :, ::-1]
    x = x.reshape(len(x), 1, 28, k, 28, k).mean(axis=(3, 5))
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + np.float32(1e-5)
    return np.ascontiguousarray((x - mean) / std)


def _jobs() -> tuple[Any, Any]:
    def define(ret: Any, name: str) -> Any:
        def body(images: tp.Numpy.Placeholder((B, 1, 28, 28)),
                 labels: tp.Numpy.Placeholder((B,), dtype=flow.int32)) -> ret:  # type: ignore[valid-type]
            loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, mlp(images))
            sgd(loss)
            return loss
        body.__name__ = name
        return flow.global_function(type="train")(body)
    return define(tp.Numpy, "blocking"), define(tp.Callback[tp.Numpy], "callback")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few steps (a smoke run)")
    parser.add_argument("--threads", type=int, help="torch's intra-op threads (default: torch's own choice)")
    parser.add_argument("--scale", type=int, default=3, help="raw images of 28*SCALE+4 pixels a side (default 3: "
                        "the preparation costs about a step on a 2-core machine)")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    steps, rounds = (5, 3) if args.quick else (40, 15)
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, (B, 1, 28 * args.scale + 4, 28 * args.scale + 4), dtype=np.uint8)
    labels = rng.integers(0, 10, B).astype(np.int32)
    blocking, callback = _jobs()
    blocking(prepare(raw, rng), labels)  # builds both jobs
    sink: list[np.ndarray] = []
    per_round = measure({
        "prepare_only": lambda: prepare(raw, rng),
        "blocking": lambda: blocking(prepare(raw, rng), labels),
        "callback": lambda: callback(prepare(raw, rng), labels)(sink.append),
    }, steps=steps, rounds=rounds, finish={"callback": lambda: (flow.sync_default_session(), sink.clear())})
    s = summarize(per_round, "callback", "blocking")
    prep = summarize(per_round, "prepare_only", "blocking")["subject_ms"]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    mode = default_session().step_thread
    print(f"cores {cpus}, torch threads {torch.get_num_threads()}, step thread: {mode}")
    print(f"prepare {prep:.3f} ms, blocking {s['reference_ms']:.3f} ms, Callback {s['subject_ms']:.3f} ms per step; "
          f"Callback / blocking (time) {s['ratio']:.3f}, throughput {1 / s['ratio']:.3f}x")
    figures = {"prepare_ms": prep, "blocking_ms": s["reference_ms"], "callback_ms": s["subject_ms"],
               "callback/blocking": s["ratio"]}
    write_results(args.output, figures, steps=steps, rounds=rounds, cores=cpus, scale=args.scale,
                  torch_threads=torch.get_num_threads(), step_thread=mode, device=default_session().device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
