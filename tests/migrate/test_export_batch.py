"""flowtorch.export writes code people keep: any batch size, only the code the results need, nothing twice.

The exported module of a job built at one batch size runs batches of 1 and 7 and gives what the same job built
at that batch size (in a fresh session, with the same variables) gives.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

RNG = np.random.default_rng(11)
CLASSES = 10


def _features(images):
    init = flow.random_normal_initializer(stddev=0.2)
    c1 = flow.layers.conv2d(images, 4, 5, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                            name="conv1")
    p1 = flow.nn.max_pool2d(c1, 2, 2, "VALID", "NCHW", name="pool1")
    c2 = flow.layers.conv2d(p1, 8, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init, name="conv2")
    p2 = flow.nn.avg_pool2d(c2, 2, 2, "VALID", "NCHW", name="pool2")
    flat = flow.reshape(p2, (p2.shape[0], -1))  # the batch size, as a number, in OneFlow's graph
    h = flow.layers.dense(flat, 16, activation=flow.nn.relu, kernel_initializer=init, name="fc1")
    return flow.layers.dense(h, CLASSES, kernel_initializer=init, name="fc2")


def predict_job(batch: int):
    @flow.global_function(type="predict")
    def lenet_eval(images: tp.Numpy.Placeholder((batch, 1, 12, 12)),
                   labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32)) -> tp.Numpy:
        logits = _features(images)
        # batch-sized constants and a mean over the batch, all fixed numbers in the graph
        shift = flow.constant(0.25, dtype=flow.float32, shape=(batch, CLASSES))
        centre = flow.broadcast_like(flow.reshape(flow.math.reduce_mean(logits, axis=0), (1, CLASSES)), logits)
        flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="unused_loss")  # dead code
        return flow.nn.softmax(logits + shift - centre)
    return lenet_eval


def train_job(batch: int, returns: str):
    @flow.global_function(type="train")
    def lenet_train(images: tp.Numpy.Placeholder((batch, 1, 12, 12)),
                    labels: tp.Numpy.Placeholder((batch,), dtype=flow.int32)) -> tp.Numpy:
        logits = _features(images)
        if returns == "one_hot":
            xent = flow.nn.softmax_cross_entropy_with_logits(
                flow.one_hot(labels, depth=CLASSES, dtype=flow.float32), logits, name="xent")
        else:
            xent = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="xent")
        loss = flow.math.reduce_mean(xent) if returns in ("mean", "one_hot") else xent
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return {"probs": flow.nn.softmax(logits), "logits": logits}.get(returns, loss)
    return lenet_train


def _data(batch: int) -> tuple[np.ndarray, np.ndarray]:
    return (RNG.standard_normal((batch, 1, 12, 12)).astype(np.float32),
            RNG.integers(0, CLASSES, batch).astype(np.int32))


def _variables(module: torch.nn.Module) -> dict[str, np.ndarray]:
    return {module.oneflow_names[k]: v.detach().cpu().numpy() for k, v in module.state_dict().items()
            if k in module.oneflow_names}


def _tensors(module: torch.nn.Module, *arrays: np.ndarray) -> list[torch.Tensor]:
    device = default_session().device
    return [torch.from_numpy(a).to(device) for a in arrays]


def _methods_text(source: str) -> str:
    return source[source.index("    def forward") if "def _graph" not in source else source.index("    def _graph"):
                  source.index("def read_weights")]


def test_predict_export_runs_any_batch_size_like_the_job_built_at_it():
    x, y = _data(32)
    job = predict_job(32)
    expected = job(x, y)
    module = flow.export(job)
    with torch.no_grad():
        np.testing.assert_allclose(module(*_tensors(module, x)).cpu().numpy(), expected, rtol=1e-5, atol=1e-6)
    variables = _variables(module)
    for batch in (1, 7):
        flow.clear_default_session()
        xb, yb = _data(batch)
        job_b = predict_job(batch)
        job_b(xb, yb)  # built at this batch size; then the exported job's variables
        flow.load_variables(variables)
        with torch.no_grad():
            got = module(*_tensors(module, xb)).cpu().numpy()
        np.testing.assert_allclose(got, job_b(xb, yb), rtol=1e-5, atol=1e-6)
    methods = _methods_text(module.source)
    assert not re.search(r"\b(32|0\.03125)\b", methods)  # no batch size left in the code
    assert "(-1, 32)" in methods or "(-1, 72)" in methods  # the reshape: a -1 for the batch


def test_predict_export_has_no_dead_loss_and_no_labels():
    x, y = _data(4)
    job = predict_job(4)
    job(x, y)
    module = flow.export(job)
    assert list(inspect.signature(module.forward).parameters) == ["images"]
    assert "nll_loss" not in module.source and "log_softmax" not in module.source and "labels" not in \
        _methods_text(module.source)
    assert "    forward(images)" in module.source  # the usage lists what each method takes
    assert not hasattr(module, "loss")


@pytest.mark.parametrize("returns", ["mean", "loss", "one_hot"])
def test_train_export_runs_any_batch_size_and_steps_as_the_job(returns):
    x, y = _data(100)
    job = train_job(100, returns)
    job(x, y)
    module = flow.export(job)
    variables = _variables(module)
    for batch in (1, 7):
        flow.clear_default_session()
        xb, yb = _data(batch)
        job_b = train_job(batch, returns)
        flow.load_variables(variables)  # (builds the job, then sets its variables)
        expected = job_b(xb, yb)  # its loss, then one SGD step
        module.load_state_dict({k: torch.from_numpy(variables[module.oneflow_names[k]]) for k in module.oneflow_names},
                               strict=False)
        module.optimizer.zero_grad()
        loss = module.loss(*_tensors(module, xb, yb))
        np.testing.assert_allclose(loss.detach().cpu().numpy(), expected, rtol=1e-5, atol=1e-6)
        module.objective_from(loss).backward()  # divides by the loss's element count at this batch size
        module.optimizer.step()
        after = flow.get_all_variables()
        for attr, name in module.oneflow_names.items():
            np.testing.assert_allclose(getattr(module, attr).detach().cpu().numpy(), after[name].numpy(),
                                       rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("returns", ["loss", "logits", "probs"])
def test_forward_and_loss_share_one_body(returns):
    x, y = _data(6)
    job = train_job(6, returns)
    module = flow.export(job)
    expected = job(x, y)  # before the update: the exported weights
    with torch.no_grad():
        out = module(*_tensors(module, *((x, y) if returns == "loss" else (x,))))
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-5, atol=1e-6)
    methods = _methods_text(module.source)
    assert methods.count("torch.conv2d(") == 2 and methods.count("nll_loss(") == 1  # each call once
    calls = [line.split(" = ", 1)[1] for line in methods.splitlines() if " = torch." in line]
    assert len(calls) == len(set(calls))
    names = [line.strip().split(" = ", 1)[0] for line in methods.splitlines() if " = " in line]
    assert max(map(len, names)) <= 32
    forward_takes = list(inspect.signature(module.forward).parameters)
    assert forward_takes == (["images", "labels"] if returns == "loss" else ["images"])
    assert list(inspect.signature(module.loss).parameters) == ["images", "labels"]
    assert ("def _graph" in methods) == (returns == "probs")  # loss continues from logits, which forward hides


def test_a_batch_the_export_cannot_follow_stays_fixed_with_a_warning(caplog):
    @flow.global_function(type="predict")
    def folded(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
        return flow.reshape(x, (6, 4))  # the batch moved off the leading axis: not followed

    x = RNG.standard_normal((4, 6)).astype(np.float32)
    expected = folded(x)
    with caplog.at_level("WARNING", logger="flowtorch"):
        module = flow.export(folded)
    assert "is exported for batch size 4 only" in caplog.text
    assert "OneFlow's static shapes" in module.source and "(6, 4)" in _methods_text(module.source)
    with torch.no_grad():
        np.testing.assert_array_equal(module(*_tensors(module, x)).cpu().numpy(), expected)


def shape_ops_job(batch: int):
    @flow.global_function(type="predict")
    def shapes(x: tp.Numpy.Placeholder((batch, 6, 4)), idx: tp.Numpy.Placeholder((batch,), dtype=flow.int32)
               ) -> tp.Numpy:
        t = flow.transpose(x, perm=[0, 2, 1])
        s = flow.slice(t, [None, 0, 1], [None, 3, 4])  # the whole batch: (0, batch, 1) on axis 0
        q = flow.squeeze(flow.expand_dims(flow.concat([s, s], axis=1), 1), axis=[1])
        d = flow.layers.dense(flow.reshape(q, (-1, 4)), 5, name="d")  # (6 * batch, 4)
        d = flow.reshape(d, (batch, 6, 5))
        m = flow.matmul(d, flow.transpose(d, perm=[0, 2, 1]))
        r = flow.math.reduce_sum(m, axis=[1, 2]) + flow.math.reduce_mean(m)  # a mean over batch * 36 elements
        r = r + flow.math.reduce_sum(flow.math.reduce_mean(x, axis=[0, 1]))
        top = flow.math.top_k(flow.reshape(m, (batch, -1)), k=2)
        return flow.cast(top, flow.float32) + flow.reshape(flow.gather(r, idx), (-1, 1))
    return shapes


def test_slices_reshapes_and_means_follow_the_batch():
    x = RNG.standard_normal((5, 6, 4)).astype(np.float32)
    job = shape_ops_job(5)
    job(x, np.zeros(5, np.int32))
    module = flow.export(job)
    methods = _methods_text(module.source)
    assert "slice(0, batch, 1)" in methods and "1.0 / batch_x36" in methods and "(-1, 6, 5)" in methods
    variables = _variables(module)
    for batch in (1, 3):
        flow.clear_default_session()
        xb, ib = RNG.standard_normal((batch, 6, 4)).astype(np.float32), RNG.integers(0, batch, batch).astype(np.int32)
        job_b = shape_ops_job(batch)
        flow.load_variables(variables)
        with torch.no_grad():
            got = module(*_tensors(module, xb, ib)).cpu().numpy()
        np.testing.assert_allclose(got, job_b(xb, ib), rtol=1e-5, atol=1e-5)
