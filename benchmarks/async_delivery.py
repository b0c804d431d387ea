"""Blocking vs async (``tp.Callback``) job calls against hand-written PyTorch: MLP and LeNet, train and predict.

    python benchmarks/async_delivery.py [--quick]

Every step of every contender does the same work: the caller prepares a batch in numpy (uint8 pixels
scaled to float32, as a training loop does), the step runs on the session's device, and its result
(train: the per-example loss; predict: the logits) reaches the host as numpy. Contenders, interleaved in
one run (``_timing.measure``):

* ``flowtorch_sync``: the job returns ``tp.Numpy``;
* ``flowtorch_callback``: the job returns ``tp.Callback[tp.Numpy]``, a callback takes each result (the
  round ends when every callback ran);
* ``torch_eager``: the step hand-written in eager PyTorch;
* on CUDA, ``torch_graph``: the whole step (forward, backward, SGD) hand-written as one CUDA graph, read
  synchronously; and ``torch_graph_pipelined``: the same graph with pinned staging, non-blocking copies
  and a ring of pinned result buffers with one event each, results read a few steps later.

Results (ms per step and ratios) go to stdout and ``benchmarks/results/async_delivery.json``, with the device.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import measure, summarize, write_results
from programs_vs_torch import B, lenet, mlp, sgd, torch_lenet, torch_mlp

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

RESULTS = Path(__file__).resolve().parent / "results" / "async_delivery.json"
DEPTH = 4  # results read this many steps later by the pipelined hand-written graph
NAMES = {"mlp": ["hidden-weight", "hidden-bias", "output-weight", "output-bias"],
         "lenet": ["conv1-weight", "conv1-bias", "conv2-weight", "conv2-bias", "dense1-weight", "dense1-bias",
                   "dense2-weight", "dense2-bias"]}


def _prepare(raw: np.ndarray) -> np.ndarray:
    """The caller's per-step data preparation."""
    return raw.astype(np.float32) * np.float32(1 / 255)


def _jobs(model: str, train: bool) -> tuple[Any, Any]:
    """The same step as a blocking and as a Callback job; they share the variables (same layer names)."""
    net = lenet if model == "lenet" else mlp

    def define(ret: Any, name: str) -> Any:
        if train:
            def body(images: tp.Numpy.Placeholder((B, 1, 28, 28)),
                     labels: tp.Numpy.Placeholder((B,), dtype=flow.int32)) -> ret:  # type: ignore[valid-type]
                loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, net(images))
                sgd(loss)
                return loss
        else:
            def body(images: tp.Numpy.Placeholder((B, 1, 28, 28)),  # type: ignore[misc]
                     labels: tp.Numpy.Placeholder((B,), dtype=flow.int32)) -> ret:  # type: ignore[valid-type]
                return net(images)
        body.__name__ = name
        return flow.global_function(type="train" if train else "predict")(body)
    return define(tp.Numpy, "blocking"), define(tp.Callback[tp.Numpy], "callback")


def _torch_forward(model: str) -> Callable[[torch.Tensor, list[torch.Tensor]], torch.Tensor]:
    return torch_lenet if model == "lenet" else (lambda x, p: torch_mlp(x, *p))


def _torch_result(forward: Any, params: list[torch.Tensor], opt: Any, x: torch.Tensor, y: torch.Tensor,
                  train: bool) -> torch.Tensor:
    if not train:
        with torch.no_grad():
            return forward(x, params)
    loss = F.cross_entropy(forward(x, params), y.long(), reduction="none")
    opt.zero_grad(set_to_none=False)
    loss.mean().backward()
    opt.step()
    return loss.detach()


def torch_eager(model: str, params: list[torch.Tensor], train: bool, device: str) -> Callable[..., np.ndarray]:
    forward = _torch_forward(model)
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.0, foreach=True) if train else None

    def step(images: np.ndarray, labels: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(images).to(device)
        y = torch.from_numpy(labels).to(device)
        return _torch_result(forward, params, opt, x, y, train).cpu().numpy().copy()
    return step


def torch_graphs(model: str, params: list[torch.Tensor], train: bool) -> tuple[Any, Any, Any]:
    """The whole step as one CUDA graph: a synchronous form, a pipelined form and its drain."""
    forward = _torch_forward(model)
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.0, foreach=True) if train else None  # graph-safe: no step count
    static_x = torch.zeros(B, 1, 28, 28, device="cuda")
    static_y = torch.zeros(B, dtype=torch.int32, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            _torch_result(forward, params, opt, static_x, static_y, train)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = _torch_result(forward, params, opt, static_x, static_y, train)

    def synchronous(images: np.ndarray, labels: np.ndarray) -> np.ndarray:
        static_x.copy_(torch.from_numpy(images), non_blocking=True)
        static_y.copy_(torch.from_numpy(labels), non_blocking=True)
        graph.replay()
        return static_out.cpu().numpy().copy()

    pinned_x = [torch.empty(static_x.shape, pin_memory=True) for _ in range(DEPTH)]
    pinned_y = [torch.empty(static_y.shape, dtype=torch.int32, pin_memory=True) for _ in range(DEPTH)]
    pinned_out = [torch.empty(static_out.shape, pin_memory=True) for _ in range(DEPTH)]
    events = [torch.cuda.Event(blocking=True) for _ in range(DEPTH)]
    pending = [False] * DEPTH  # a slot is pending from its copy until its result is read
    d2h = torch.cuda.Stream()
    state = {"i": 0, "sink": []}

    def consume(k: int) -> None:
        events[k].synchronize()
        state["sink"] = pinned_out[k].numpy().copy()
        pending[k] = False

    def pipelined(images: np.ndarray, labels: np.ndarray) -> None:
        k = state["i"] % DEPTH
        state["i"] += 1
        if pending[k]:
            consume(k)  # the result of DEPTH steps ago; its slot (and its staging) is free after this
        pinned_x[k].numpy()[...] = images
        pinned_y[k].numpy()[...] = labels
        static_x.copy_(pinned_x[k], non_blocking=True)
        static_y.copy_(pinned_y[k], non_blocking=True)
        graph.replay()
        d2h.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(d2h):
            pinned_out[k].copy_(static_out, non_blocking=True)
            events[k].record(d2h)
        pending[k] = True
        torch.cuda.current_stream().wait_stream(d2h)  # the next replay must not overwrite static_out early

    def drain() -> None:
        for k in range(DEPTH):
            if pending[k]:
                consume(k)
    return synchronous, pipelined, drain


def run_case(model: str, train: bool, steps: int, rounds: int, cuda: bool) -> dict[str, list[float]]:
    flow.clear_default_session()
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, (B, 1, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, B).astype(np.int32)
    blocking, callback = _jobs(model, train)
    first = blocking(_prepare(raw), labels)  # builds both jobs and their variables
    by_name = {n: torch.from_numpy(b.numpy()) for n, b in flow.get_all_variables().items()}
    device = default_session().device
    params = [by_name[n].clone().to(device).requires_grad_(train) for n in NAMES[model]]
    if not train:  # the same numbers before timing: blocking, callback and hand-written
        got: list[np.ndarray] = []
        callback(_prepare(raw), labels)(got.append)
        flow.sync_default_session()
        reference = torch_eager(model, [p.detach().clone() for p in params], False, device)(_prepare(raw), labels)
        np.testing.assert_allclose(got[0], first, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(first, reference, rtol=1e-3, atol=1e-4)
    sink: list[np.ndarray] = []
    contenders: dict[str, Callable[[], object]] = {
        "flowtorch_sync": lambda: blocking(_prepare(raw), labels),
        "flowtorch_callback": lambda: callback(_prepare(raw), labels)(sink.append),
        "torch_eager": (lambda step: lambda: step(_prepare(raw), labels))(torch_eager(model, params, train, device)),
    }
    finish: dict[str, Callable[[], object]] = {"flowtorch_callback": lambda: (flow.sync_default_session(),
                                                                              sink.clear())}
    if cuda:
        graph_params = [p.detach().clone().requires_grad_(train) for p in params]
        synchronous, pipelined, drain = torch_graphs(model, graph_params, train)
        contenders["torch_graph"] = lambda: synchronous(_prepare(raw), labels)
        contenders["torch_graph_pipelined"] = lambda: pipelined(_prepare(raw), labels)
        finish["torch_graph_pipelined"] = drain
    return measure(contenders, steps=steps, rounds=rounds, finish=finish)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few steps (a smoke run)")
    parser.add_argument("--output", default=str(RESULTS))
    parser.add_argument("--table", help="also write the ms-per-step table (markdown, the device named) here")
    args = parser.parse_args()
    cuda = default_session().device.startswith("cuda")
    steps, rounds = (5, 3) if args.quick else ((200, 15) if cuda else (60, 21))
    torch.manual_seed(0)
    pairs = [("flowtorch_sync", "torch_eager"), ("flowtorch_callback", "flowtorch_sync"),
             ("flowtorch_callback", "torch_eager")]
    if cuda:
        pairs += [("flowtorch_sync", "torch_graph"), ("flowtorch_callback", "torch_graph_pipelined"),
                  ("torch_graph", "torch_eager"), ("torch_graph_pipelined", "torch_graph")]
    results: dict[str, Any] = {}
    print(f"{'case':14s} {'subject / reference':44s} {'subject ms':>11s} {'reference ms':>13s} {'ratio':>7s}")
    for model in ("mlp", "lenet"):
        for train in (True, False):
            case = f"{'train' if train else 'predict'}_{model}"
            n = steps if model == "mlp" or cuda else max(steps // 12, 3)
            per_round = run_case(model, train, n, rounds, cuda)
            results[case] = {"ms": {k: float(np.median(v)) * 1e3 for k, v in per_round.items()}}
            for subject, reference in pairs:
                s = summarize(per_round, subject, reference)
                results[case][f"{subject}/{reference}"] = s["ratio"]
                print(f"{case:14s} {subject + ' / ' + reference:44s} {s['subject_ms']:11.4f} "
                      f"{s['reference_ms']:13.4f} {s['ratio']:7.3f}")
    device = torch.cuda.get_device_name() if cuda else "cpu"
    write_results(args.output, results, steps=steps, rounds=rounds, device=device)
    table = _table(results, device, cuda)
    print(table)
    if args.table:
        Path(args.table).write_text(table)
    return 0


def _ratio(r: dict[str, Any], a: str, b: str) -> str:
    """a / b: the median of the per-round ratios where it was measured, else of the medians."""
    if f"{a}/{b}" in r:
        return f"{r[f'{a}/{b}']:.3f}"
    if f"{b}/{a}" in r:
        return f"{1 / r[f'{b}/{a}']:.3f}"
    ms = r["ms"]
    return f"{ms[a] / ms[b]:.3f}" if a in ms and b in ms else "–"


COLUMNS = [("flowtorch_sync", "flowtorch sync"), ("flowtorch_callback", "flowtorch `tp.Callback`"),
           ("torch_eager", "torch eager"), ("torch_graph", "hand-written whole-step graph"),
           ("torch_graph_pipelined", "same, pipelined")]


def _table(results: dict[str, Any], device: str, cuda: bool) -> str:
    """ms per step per contender, and the engine's goals as ratios (issue 27)."""
    columns = [(k, title) for k, title in COLUMNS if cuda or not k.startswith("torch_graph")]
    lines = [f"ms per step on {device}, torch {torch.__version__}, batch {B}", "",
             "| case | " + " | ".join(title for _, title in columns) + " | sync / graph | eager / sync | "
             "Callback / pipelined | Callback / sync |",
             "|---" * (len(columns) + 5) + "|"]
    for case, r in results.items():
        ms = r["ms"]
        cells = [_ratio(r, "flowtorch_sync", "torch_graph"), _ratio(r, "torch_eager", "flowtorch_sync"),
                 _ratio(r, "flowtorch_callback", "torch_graph_pipelined"),
                 _ratio(r, "flowtorch_callback", "flowtorch_sync")]
        lines.append(f"| {case.replace('_', ' ')} | " + " | ".join(f"{ms[k]:.3f}" for k, _ in columns) + " | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
