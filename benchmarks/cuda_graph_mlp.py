"""MLP train step on CUDA: flowtorch eager vs ``FLOWTORCH_CAPTURE=cuda_graph`` vs hand-written PyTorch.

    python benchmarks/cuda_graph_mlp.py [--quick]

MLP 784-512-10, batch 100, SGD, numpy in and numpy loss out on every step. Contenders, interleaved in
the same run: the flowtorch job eagerly and replayed from its CUDA graph (the same job, its graph switched
off and on), the same step hand-written in eager PyTorch, and hand-written with the whole step (forward,
backward, SGD) in one CUDA graph, the floor. Ratios go to stdout and
``benchmarks/results/cuda_graph_mlp.json``. Needs a CUDA device; exits 2 without one.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import measure, summarize, write_results
from async_delivery import torch_eager, torch_graphs
from programs_vs_torch import B, _ordered, mlp, sgd

import flowtorch as flow
import flowtorch.typing as tp

RESULTS = Path(__file__).resolve().parent / "results" / "cuda_graph_mlp.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few steps (a smoke run)")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("cuda_graph_mlp: needs a CUDA device", file=sys.stderr)
        return 2
    os.environ["FLOWTORCH_CAPTURE"] = "cuda_graph"
    steps, rounds = (20, 3) if args.quick else (200, 15)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    images = rng.random((B, 1, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, B).astype(np.int32)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((B, 1, 28, 28)), y: tp.Numpy.Placeholder((B,), dtype=flow.int32)) -> tp.Numpy:
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, mlp(x))
        sgd(loss)
        return loss

    for _ in range(5):  # warm-up calls, then the capture
        train(images, labels)
    graphed = train.step.graphed
    if graphed is None or graphed.disabled or not graphed.graphs:
        print("cuda_graph_mlp: the job was not captured (see the log above)", file=sys.stderr)
        return 1
    params = [t.cuda().requires_grad_(True) for t in
              _ordered(["hidden-weight", "hidden-bias", "output-weight", "output-bias"])]
    # the hand-written steps of async_delivery.py, each on its own copy of the weights
    torch_eager_step = torch_eager("mlp", [p.detach().clone().requires_grad_(True) for p in params], True, "cuda")
    torch_graph_step = torch_graphs("mlp", params, True)[0]

    def flowtorch_eager() -> object:
        graphed.disabled = True
        try:
            return train(images, labels)
        finally:
            graphed.disabled = False

    per_round = measure({"flowtorch_graph": lambda: train(images, labels), "flowtorch_eager": flowtorch_eager,
                         "torch_eager": lambda: torch_eager_step(images, labels),
                         "torch_graph": lambda: torch_graph_step(images, labels)}, steps=steps, rounds=rounds)
    pairs = [("flowtorch_graph", "torch_graph"), ("flowtorch_graph", "flowtorch_eager"),
             ("flowtorch_eager", "torch_eager"), ("torch_graph", "torch_eager")]
    results = {}
    print(f"{'subject / reference':36s} {'subject ms':>11s} {'reference ms':>13s} {'ratio':>7s}")
    for subject, reference in pairs:
        s = summarize(per_round, subject, reference)
        results[f"{subject}/{reference}"] = s
        print(f"{subject + ' / ' + reference:36s} {s['subject_ms']:11.4f} {s['reference_ms']:13.4f} {s['ratio']:7.3f}")
    write_results(args.output, results, steps=steps, rounds=rounds, device=torch.cuda.get_device_name())
    return 0


if __name__ == "__main__":
    sys.exit(main())
