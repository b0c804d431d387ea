"""The seed documents' watch programs, reproduced (fresh processes where the global counter matters)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

PROGRAMS = Path(__file__).parent / "programs"
SCOPE_LBNS = ["Dense_6-bias/out", "Dense_6-weight/out", "Dense_6_bias_add/out_0", "Dense_6_matmul/out_0"]


def test_seed_002_watch_scope_program_records_exactly_oneflows_names(run_py) -> None:
    proc = run_py("-m", "flowtorch", str(PROGRAMS / "seed_watch_scope.py"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    checks = json.loads(next(line for line in lines if line.startswith("CHECKS "))[len("CHECKS "):])
    assert checks["value_keys"] == SCOPE_LBNS
    assert checks["grad_keys"] == SCOPE_LBNS
    assert checks["shapes"] == {"Dense_6-bias/out": [10], "Dense_6-weight/out": [10, 512],
                                "Dense_6_bias_add/out_0": [8, 10], "Dense_6_matmul/out_0": [8, 10]}
    assert checks["dtypes"] == ["float32"]
    for key in ("weight", "bias", "matmul", "bias_add", "grad_bias_add", "grad_matmul", "grad_bias", "grad_weight"):
        assert checks[key] is True, key
    assert "seed_watch_scope.py" in checks["location"] and "train_job" in checks["location"]
    assert checks["blob_def"] == ["Dense_6_matmul", "out_0", [8, 10]]
    # The program prints what the seed document shows (dict order is build order here).
    printed = lines[lines.index("view watched tensors") + 1: lines.index("view watched grad tensors")]
    assert sorted(printed) == SCOPE_LBNS
    # Its labels are randint(-10, 10): out-of-range rows are reported once, not fatal (spec §10).
    assert proc.stderr.count("out of range") + proc.stderr.count("outside") >= 1


def test_relu_relu_watch_scope_names(run_py) -> None:
    proc = run_py("-m", "flowtorch", str(PROGRAMS / "relu_relu_scope.py"))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["keys"] == ["Relu_2/out_0", "Relu_4/out_0"]
    assert out["y"] is True
    assert "relu_relu_scope.py" in out["location"]


def test_relu_relu_values_in_process() -> None:
    seen: dict = {}

    @flow.global_function()
    def job(x=flow.FixedTensorDef((4,))):
        with flow.watch_scope(seen):
            a = flow.nn.relu(x)
            b = flow.nn.relu(a * -1.0)
        return b

    x = np.array([-2.0, -1.0, 1.0, 2.0], np.float32)
    job(x).get()
    values = [d["blob"].numpy() for d in seen.values()]
    np.testing.assert_array_equal(values[0], np.maximum(x, 0))
    np.testing.assert_array_equal(values[1], -np.maximum(x, 0))
    np.testing.assert_array_equal(values[2], np.maximum(-np.maximum(x, 0), 0))
    assert len(seen) == 3 and all(d["blob_def"].logical_blob_name == k for k, d in seen.items())


def test_watch_scope_callable_form_and_it_skips_blobs_made_outside() -> None:
    calls: list[tuple[str, tuple]] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        y = flow.nn.relu(x)
        with flow.watch_scope(lambda blob, blob_def: calls.append((blob_def.logical_blob_name,
                                                                   tuple(blob.numpy().shape)))):
            z = y * 2.0
        return z

    job(np.ones(3, np.float32))
    job(np.ones(3, np.float32))
    assert [c[1] for c in calls] == [(3,), (3,)]
    assert all(name.startswith("ScalarMul_") for name, _ in calls)


def test_watch_scope_rejects_bad_watchers() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        with flow.watch_scope(blob_watcher=[1, 2]):
            return x

    with pytest.raises(TypeError, match="blob_watcher must be a dict, a callable"):
        job(np.ones(3, np.float32))


def test_mlp_watch_diff_of_logits_is_softmax_minus_onehot() -> None:
    grads: list[np.ndarray] = []
    logits_seen: list[np.ndarray] = []

    def watch_diff_handler(blob: tp.Numpy) -> None:
        grads.append(blob)

    @flow.global_function(type="train")
    def train_job(images: tp.Numpy.Placeholder((20, 1, 28, 28), dtype=flow.float),
                  labels: tp.Numpy.Placeholder((20,), dtype=flow.int32)) -> tp.Numpy:
        initializer = flow.truncated_normal(0.1)
        reshape = flow.reshape(images, [images.shape[0], -1])
        hidden = flow.layers.dense(reshape, 512, activation=flow.nn.relu, kernel_initializer=initializer,
                                   name="hidden")
        logits = flow.layers.dense(hidden, 10, kernel_initializer=initializer, name="output")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="softmax_loss")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        flow.watch(logits, lambda v: logits_seen.append(v.numpy()))
        flow.watch_diff(logits, watch_diff_handler)
        return loss

    rng = np.random.default_rng(0)
    images = rng.random((20, 1, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, 20).astype(np.int32)
    for _ in range(2):
        train_job(images, labels)
    for logits, grad in zip(logits_seen, grads):
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        onehot = np.eye(10, dtype=np.float32)[labels]
        assert grad.shape == (20, 10) and grad.dtype == np.float32
        np.testing.assert_allclose(grad, p - onehot, atol=1e-6)  # unscaled: not divided by the batch
