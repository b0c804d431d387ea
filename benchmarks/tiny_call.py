"""The host work of one job call: a job that doubles two floats against the same function hand-written in torch.

    python benchmarks/tiny_call.py [--quick]

The step itself costs almost nothing, so what is measured is what a call adds around it (argument checks, the
step's bookkeeping, the conversion to numpy, and for ``tp.Callback`` the hand-over to the delivery thread).
Contenders, interleaved in one run (``_timing.measure``):

* ``hand_written``: ``(torch.from_numpy(x) * 2).numpy()``, what a PyTorch engineer writes;
* ``hand_written_callback``: the same, its result handed to a callback at once;
* ``flowtorch_sync``: the job returning ``tp.Numpy``;
* ``flowtorch_callback``: the job returning ``tp.Callback[tp.Numpy]``, a callback taking each result (a round
  ends when every callback ran).

Results (µs per call, and µs above the hand-written function: medians of the per-round differences) go to
stdout and ``benchmarks/results/tiny_call.json``, with the device.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import measure, write_results

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

RESULTS = Path(__file__).resolve().parent / "results" / "tiny_call.json"
GOAL_US = 10.0  # issue 38: at most this much above the hand-written function, blocking and Callback


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and rounds (a smoke run)")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    steps, rounds = (500, 5) if args.quick else (3000, 21)

    flow.clear_default_session()

    @flow.global_function()
    def double(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x * 2

    @flow.global_function()
    def double_cb(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x * 2

    x = np.array([1.5, -2.0], dtype=np.float32)
    sink: list[np.ndarray] = []
    device = default_session().device

    def hand(a: np.ndarray) -> np.ndarray:
        return (torch.from_numpy(a).to(device) * 2).cpu().numpy()

    np.testing.assert_array_equal(double(x), hand(x))  # the same numbers, before timing
    double_cb(x)(sink.append)
    flow.sync_default_session()
    np.testing.assert_array_equal(sink.pop(), hand(x))

    contenders = {"hand_written": lambda: hand(x),
                  "hand_written_callback": lambda: sink.append(hand(x)),
                  "flowtorch_sync": lambda: double(x),
                  "flowtorch_callback": lambda: double_cb(x)(sink.append)}
    finish = {"flowtorch_callback": lambda: (flow.sync_default_session(), sink.clear()),
              "hand_written_callback": sink.clear}
    per_round = measure(contenders, steps=steps, rounds=rounds, finish=finish)
    us = {name: statistics.median(v) * 1e6 for name, v in per_round.items()}
    above = {
        "sync": statistics.median(a - b for a, b in zip(per_round["flowtorch_sync"], per_round["hand_written"])) * 1e6,
        "callback": statistics.median(a - b for a, b in zip(per_round["flowtorch_callback"],
                                                             per_round["hand_written_callback"])) * 1e6}
    for name, value in us.items():
        print(f"{name:24s} {value:8.2f} µs per call")
    for name, value in above.items():
        verdict = "within" if value <= GOAL_US else "over"
        print(f"{name:24s} {value:8.2f} µs above hand-written ({verdict} the {GOAL_US:g} µs goal)")
    write_results(args.out, {"us_per_call": us, "us_above_hand_written": above, "goal_us": GOAL_US},
                  device=device, steps=steps, rounds=rounds)


if __name__ == "__main__":
    main()
