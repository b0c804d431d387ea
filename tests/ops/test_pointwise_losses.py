"""flow.nn.KLDivLoss and flow.smooth_l1_loss: values and gradients against numpy, OneFlow's masking of
KLDivLoss (by rint(target + 0.5)), the label of smooth_l1_loss taking no gradient, names and errors."""

import re

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, forward_and_grad, lbns, make_job, next_id, numeric_grad, run

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(17)


# --- KLDivLoss ------------------------------------------------------------------------------------------------
def np_kl(x, t, log_target, reduction):
    if log_target:
        loss = np.exp(t) * (t - x)
    else:
        counted = np.rint(t + 0.5).astype(np.int8) != 0
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = np.where(counted, t * (np.log(t) - x), 0.0)
    return {"none": loss, "mean": np.array([loss.mean()]), "sum": np.array([loss.sum()])}[reduction]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kldivloss_values_and_grad(log_target, reduction):
    x = rng.standard_normal((3, 5)).astype(np.float32)
    t = rng.uniform(0.05, 1.0, (3, 5)).astype(np.float32) if not log_target else \
        rng.standard_normal((3, 5)).astype(np.float32)
    check_op(lambda a, b: flow.nn.KLDivLoss(a, b, log_target=log_target, reduction=reduction),
             lambda a, b: np_kl(a, b, log_target, reduction), x, t, rtol=1e-5, atol=1e-5)


def test_kldivloss_counts_only_positive_targets():
    x = rng.standard_normal((1, 6)).astype(np.float32)
    t = np.array([[0.7, 0.0, -0.2, -0.9, 1e-4, 2.0]], np.float32)
    y, g, w = forward_and_grad(lambda a, b: flow.nn.KLDivLoss(a, b, reduction="none"), x, t)
    expected = np.array([[0.7 * (np.log(0.7) - x[0, 0]), 0, 0, 0, 1e-4 * (np.log(1e-4) - x[0, 4]),
                          2.0 * (np.log(2.0) - x[0, 5])]])
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g, -t * (t > 0) * w, rtol=1e-6)  # d/dx of t·(log t − x) is −t where counted


def test_kldivloss_op_names():
    from flowtorch._src.capture.context import current_builder
    x = np.ones((2, 2), np.float32)
    names = set()

    def body(a, b):
        flow.nn.KLDivLoss(a, b, name="kl")
        out = flow.nn.KLDivLoss(a, b, reduction="none")
        names.update(blob.op_name for blob in current_builder("test").all_blobs)
        names.add(out.op_name)
        return out
    make_job(body, [x, x])(x, x)
    assert {"kllog", "klzeros", "klrint", "klcast2int", "klwhere", "kl_reduce_mean"} <= names
    assert any(re.fullmatch(r"KLDivLoss_\d+where", n) for n in names)


def test_kldivloss_errors():
    x = np.ones((2, 3), np.float32)
    with expect_error(ValueError, match=r"flow.nn.KLDivLoss: argument 'reduction' must be one of"):
        run(lambda a, b: flow.nn.KLDivLoss(a, b, reduction="batchmean"), x, x)
    with expect_error(ValueError, match=r"flow.nn.KLDivLoss: argument 'target' must be the shape of input"):
        run(lambda a, b: flow.nn.KLDivLoss(a, b), x, np.ones((3, 2), np.float32))
    with expect_error(ValueError, match=r"flow.nn.KLDivLoss: argument 'log_target' must be a bool"):
        run(lambda a, b: flow.nn.KLDivLoss(a, b, log_target="yes"), x, x)


# --- smooth_l1_loss -------------------------------------------------------------------------------------------
def np_smooth_l1(p, label, beta):
    d = np.abs(p - label)
    return np.where(d < beta, 0.5 * d * d / beta if beta > 0 else 0.0, d - 0.5 * beta)


def np_smooth_l1_grad(p, label, beta):
    d = p - label
    return np.where(np.abs(d) < beta, d / beta if beta > 0 else 0.0, np.sign(d))


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_smooth_l1_loss_values_and_grad(beta, dtype):
    p = rng.standard_normal((4, 6)).astype(dtype)
    label = rng.standard_normal((4, 6)).astype(dtype)
    y, g, w = forward_and_grad(lambda a, b: flow.smooth_l1_loss(a, b, beta), p, label)
    assert y.dtype == dtype and g.dtype == dtype
    np.testing.assert_allclose(y, np_smooth_l1(p, label, beta), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, np_smooth_l1_grad(p, label, beta) * w, rtol=1e-6, atol=1e-7)
    if beta > 0:  # smooth: central differences agree too
        np.testing.assert_allclose(g, numeric_grad(lambda a, b: np_smooth_l1(a, b, beta), p, w, label),
                                   rtol=1e-3, atol=1e-4)


def test_smooth_l1_loss_label_gets_no_gradient():
    p = rng.standard_normal((5,)).astype(np.float32)
    label = rng.standard_normal((5,)).astype(np.float32)
    grads = {}

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((5,)), b: tp.Numpy.Placeholder((5,))) -> tp.Numpy:
        vp = flow.get_variable("vp", shape=(5,), initializer=flow.zeros_initializer())
        vl = flow.get_variable("vl", shape=(5,), initializer=flow.zeros_initializer())
        flow.watch_diff(vp, lambda g: grads.setdefault("p", np.array(g)))
        loss = flow.smooth_l1_loss(a + vp, b + vl)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1.0]), momentum=0).minimize(loss)
        return loss
    job(p, label)
    np.testing.assert_allclose(grads["p"], np_smooth_l1_grad(p, label, 1.0), rtol=1e-6)
    np.testing.assert_array_equal(flow.get_all_variables()["vl"].numpy(), np.zeros(5, np.float32))


def test_smooth_l1_loss_name_and_errors():
    p = np.ones((3,), np.float32)
    seen = []

    def body(a, b):
        seen.append(flow.smooth_l1_loss(a, b))
        return seen[0]
    n = next_id() + 2
    make_job(body, [p, p])(p, p)
    assert lbns(seen) == [f"SmoothL1Loss_{n}/loss_0"]
    with expect_error(ValueError, match=r"flow.smooth_l1_loss: argument 'beta' must be a number >= 0"):
        run(lambda a, b: flow.smooth_l1_loss(a, b, -1.0), p, p)
    with expect_error(ValueError, match=r"flow.smooth_l1_loss: argument 'label' must be the shape and dtype"):
        run(lambda a, b: flow.smooth_l1_loss(a, b), p, np.ones((3,), np.float64))
    with expect_error(TypeError, match=r"flow.smooth_l1_loss: argument 'prediction' must be a floating-point"):
        run(lambda a, b: flow.smooth_l1_loss(a, b), p.astype(np.int32), p.astype(np.int32))
