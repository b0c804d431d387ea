"""Op kernels are compile-clean: under FLOWTORCH_CAPTURE=compile (fullgraph) a job using the label check,
seeded random ops, dropout, batch norm, conv and pooling compiles without graph breaks and matches eager."""

import warnings

import numpy as np
import pytest
import torch
from helpers.ops import make_job

import flowtorch as flow
import flowtorch.layers
import flowtorch.nn
import flowtorch.random
from flowtorch._src import initializers
from flowtorch._src.ops.nn_ops import LabelRangeWarning

X = np.random.default_rng(0).standard_normal((4, 2, 6, 6)).astype(np.float32)
LABELS = np.array([1, 9, 0, -1], np.int32)  # two rows out of range for 3 classes


def _job():
    def body(a, lab):
        c = flow.layers.conv2d(a, 3, 3, padding="SAME", activation=flow.nn.relu,
                               kernel_initializer=initializers.constant_initializer(0.1), name="c")
        c = flow.layers.batch_normalization(c, axis=1, name="bn")
        p = flow.nn.max_pool2d(c, 3, 2, "SAME")
        h = flow.layers.dense(flow.reshape(p, [4, -1]), 8, activation=flow.nn.relu,
                              kernel_initializer=initializers.constant_initializer(0.05), name="d1")
        h = h * flow.cast(flow.nn.random_mask_like(h, 0.25, seed=5), flow.float32)
        h = h + flow.random.bernoulli(flow.math.sigmoid(h), seed=6)
        logits = flow.layers.dense(h, 3, kernel_initializer=initializers.constant_initializer(0.01), name="d2")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(lab, logits)
        flow.losses.add_loss(loss)
        return loss
    return make_job(body, [X, LABELS], job_type="train", name="compiled_ops_job")


def _losses(monkeypatch, mode):
    monkeypatch.setenv("FLOWTORCH_CAPTURE", mode)
    monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "aot_eager")
    flow.clear_default_session()
    job = _job()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = [job(X, LABELS) for _ in range(2)]
    return out, [c for c in caught if issubclass(c.category, LabelRangeWarning)], job


def test_compiled_job_matches_eager_and_keeps_the_label_warning(monkeypatch):
    eager, eager_warnings, _ = _losses(monkeypatch, "eager")
    compiled, compiled_warnings, job = _losses(monkeypatch, "compile")
    assert job.step.forward is not job.step.module  # compiled, no eager fallback
    assert len(eager_warnings) == len(compiled_warnings) == 1
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert a[1] == 0 and a[3] == 0


def test_no_graph_break(monkeypatch):
    monkeypatch.setenv("FLOWTORCH_CAPTURE", "eager")
    job = _job()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelRangeWarning)
        job(X, LABELS)
    step = job.step
    device = step.var_tensors[0].device  # the session's device: inputs must meet the variables there
    inputs = [torch.from_numpy(X).to(device), torch.from_numpy(LABELS).to(device)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelRangeWarning)
        explanation = torch._dynamo.explain(step.module)(*inputs, *step.var_tensors)
    assert explanation.graph_break_count == 0, [str(b.reason) for b in explanation.break_reasons]


@pytest.fixture(autouse=True)
def _reset_dynamo():
    yield
    torch._dynamo.reset()
