"""How long ``flowtorch check`` takes over a synthetic ~10,000-line OneFlow repository.

    python benchmarks/check_speed.py [--lines 10000] [--rounds 5]

Generates the repository in a temporary folder (OneFlow 0.1- and 0.2+-style training and inference
scripts, helper modules and plain Python), then times, each in a fresh subprocess so interpreter start-up
is included (the median of ``--rounds``):

* ``flowtorch_check_s``: ``python -m flowtorch check REPO --json`` — what a user runs;
* ``checker_only_s``: the same check with flowtorch's package ``__init__`` left out, i.e. what the checker
  itself costs, start-up included (``__init__`` loads the runtime, and torch, only on the first use of a
  name, so the two agree unless the package import grows again);
* ``import_flowtorch_s``: ``python -c "import flowtorch"`` alone, for comparison.

Goal: the check of 10,000 lines in under 2 s. Results: ``benchmarks/results/check_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import write_results

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

# Runs the checker without flowtorch/__init__.py: a bare package object stands in for it, so only the
# modules of flowtorch._src.migrate that the checker needs are imported.
CHECKER_ONLY = (
    "import sys, types; pkg = types.ModuleType('flowtorch'); pkg.__path__ = [{pkg!r}]; "
    "sys.modules['flowtorch'] = pkg; from flowtorch._src.migrate.check_cli import main; "
    "code = main(sys.argv[1:]); assert 'torch' not in sys.modules, 'the checker imported torch'; sys.exit(code)")

V01_SCRIPT = '''\
import numpy as np
import oneflow as flow

func_config = flow.FunctionConfig()
func_config.default_data_type(flow.float)
func_config.train.primary_lr(0.1)
func_config.train.model_update_conf(dict(naive_conf={{}}))


def model_{i}(images):
    with flow.scope.namespace("block_{i}"):
        conv = flow.layers.conv2d(images, 8, 3, padding="SAME", name="conv_{i}")
        pool = flow.nn.max_pool2d(conv, 2, 2, "VALID")
        flat = flow.reshape(pool, (pool.shape[0], -1))
        hidden = flow.layers.dense(flat, 64, activation=flow.nn.relu, name="hidden_{i}")
        return flow.layers.dense(hidden, 10, name="out_{i}")


@flow.global_function(func_config)
def train_job_{i}(images=flow.FixedTensorDef((8, 1, 28, 28)), labels=flow.FixedTensorDef((8,), dtype=flow.int32)):
    logits = model_{i}(images)
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="loss_{i}")
    flow.losses.add_loss(loss)
    flow.watch(logits, lambda x: None)
    return loss


class Trainer{i}:
    """Plain Python the checker has to walk through as well."""

    def __init__(self, steps):
        self.steps = steps
        self.history = []

    def run(self, batches):
        check_point = flow.train.CheckPoint()
        check_point.init()
        for step, (images, labels) in enumerate(batches):
            if step >= self.steps:
                break
            loss = train_job_{i}(images, labels).get()
            self.history.append(float(loss.mean()))
        return self.history

    def summary(self):
        values = [v for v in self.history if v == v]
        return {{"steps": len(values), "mean": sum(values) / max(len(values), 1)}}


def batches_{i}(n):
    rng = np.random.default_rng({i})
    for _ in range(n):
        yield rng.random((8, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, (8,), dtype=np.int32)
'''

V02_SCRIPT = '''\
from typing import Tuple

import numpy as np
import oneflow as flow
import oneflow.typing as tp
from oneflow import layers as L


def mlp_{i}(data, units=128):
    initializer = flow.truncated_normal(0.1)
    reshape = flow.reshape(data, [data.shape[0], -1])
    hidden = L.dense(reshape, units, activation=flow.nn.relu, kernel_initializer=initializer, name="h_{i}")
    hidden = flow.nn.dropout(hidden, rate=0.1)
    return L.dense(hidden, 10, kernel_initializer=initializer, name="o_{i}")


@flow.global_function(type="train")
def train_job_{i}(images: tp.Numpy.Placeholder((32, 1, 28, 28), dtype=flow.float),
                  labels: tp.Numpy.Placeholder((32,), dtype=flow.int32)) -> tp.Numpy:
    with flow.scope.placement("cpu", "0:0"):
        logits = mlp_{i}(images)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="loss")
    lr_scheduler = flow.optimizer.PiecewiseConstantScheduler([], [0.1])
    flow.optimizer.Adam(lr_scheduler).minimize(loss)
    flow.watch_diff(logits, lambda g: None)
    return loss


@flow.global_function(type="predict")
def eval_job_{i}(images: tp.Numpy.Placeholder((32, 1, 28, 28), dtype=flow.float),
                 labels: tp.Numpy.Placeholder((32,), dtype=flow.int32)) -> tp.Callback[Tuple[tp.Numpy, tp.Numpy]]:
    with flow.scope.placement("cpu", "0:0"):
        logits = mlp_{i}(images)
    return labels, flow.math.reduce_mean(logits, axis=1)


def accuracy_{i}(results: Tuple[tp.Numpy, tp.Numpy]) -> float:
    labels, logits = results
    return float(np.mean(np.argmax(logits, 1) == labels))


def evaluate_{i}(pairs):
    seen = []
    for images, labels in pairs:
        eval_job_{i}(images, labels)(lambda r: seen.append(accuracy_{i}(r)))
    flow.sync_default_session()
    return sum(seen) / max(len(seen), 1)


def save_{i}(path):
    flow.checkpoint.save(path)
    return flow.checkpoint.get(path)


if __name__ == "__main__":
    flow.config.gpu_device_num(1)
    (train_images, train_labels), (test_images, test_labels) = flow.data.load_mnist(32, 32)
    for epoch in range(2):
        for images, labels in zip(train_images, train_labels):
            print(train_job_{i}(images, labels).mean())
    print(evaluate_{i}(zip(test_images, test_labels)))
'''

HELPERS = '''\
"""Helpers with no OneFlow in them: the checker must walk them fast and report nothing."""
import collections
import math


def moving_average_{i}(values, k=5):
    window = collections.deque(maxlen=k)
    out = []
    for v in values:
        window.append(v)
        out.append(sum(window) / len(window))
    return out


def cosine_{i}(step, total, base=0.1):
    return base * 0.5 * (1 + math.cos(math.pi * step / total))


class Meter{i}:
    def __init__(self):
        self.n = 0
        self.total = 0.0

    def update(self, value, n=1):
        self.n += n
        self.total += value * n

    @property
    def mean(self):
        return self.total / self.n if self.n else float("nan")
'''


def make_repository(folder: Path, lines: int) -> int:
    """Write Python files until they hold about ``lines`` lines; returns the count."""
    templates = (V01_SCRIPT, V02_SCRIPT, HELPERS)
    total = i = 0
    while total < lines:
        text = templates[i % 3].format(i=i)
        package = folder / f"pkg{i // 30}"
        package.mkdir(exist_ok=True)
        (package / f"module_{i}.py").write_text(text)
        total += text.count("\n")
        i += 1
    return total


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "check_speed.json"))
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        lines = make_repository(repo, args.lines)
        commands = {
            "flowtorch_check_s": [sys.executable, "-m", "flowtorch", "check", str(repo), "--json"],
            "checker_only_s": [sys.executable, "-c", CHECKER_ONLY.format(pkg=str(SRC / "flowtorch")), str(repo),
                               "--json"],
            "import_flowtorch_s": [sys.executable, "-c", "import flowtorch"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        reports = {}
        for r in range(args.rounds):  # interleaved, so drift hits every command alike
            for name, cmd in (commands.items() if r % 2 == 0 else reversed(commands.items())):
                seconds, done = _time(cmd, env)
                if done.returncode not in (0, 1):
                    raise SystemExit(f"{name} failed ({done.returncode}):\n{done.stderr}")
                times[name].append(seconds)
                if name != "import_flowtorch_s":
                    reports[name] = json.loads(done.stdout)
    summary = reports["flowtorch_check_s"]["summary"]
    assert reports["checker_only_s"]["summary"] == summary, "the two ways of running the check disagree"
    results = {name: statistics.median(values) for name, values in times.items()}
    results.update({f"{name}_all": values for name, values in times.items()})
    results.update(lines=lines, files=summary["files"], uses=summary["uses"], symbols=summary["symbols"],
                   goal_s=2.0)
    for name in commands:
        print(f"{name}: median {results[name]:.3f} s over {args.rounds} runs")
    print(f"{lines} lines in {summary['files']} files, {summary['uses']} uses of {summary['symbols']} symbols")
    write_results(args.out, results, rounds=args.rounds)


if __name__ == "__main__":
    main()
