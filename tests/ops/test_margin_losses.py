"""flow.nn.TripletMarginLoss and flow.combined_margin_loss: values and gradients against numpy, the
theta output, out-of-range labels, names and argument errors."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, forward_and_grad, lbns, make_job, next_id, run

import flowtorch as flow
from flowtorch._src.capture.context import current_builder

rng = np.random.default_rng(23)


# --- TripletMarginLoss ----------------------------------------------------------------------------------------
def np_triplet(a, pos, neg, margin, p, eps, reduction):
    def dist(u, v):
        return (np.abs(u - v + eps) ** p).sum(axis=1) ** (1.0 / p)
    loss = np.maximum(margin + dist(a, pos) - dist(a, neg), 0.0)
    return {"none": loss, "mean": np.array([loss.mean()]), "sum": np.array([loss.sum()])}[reduction]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p", [2.0, 1.5, 3.0])
def test_triplet_margin_loss_values_and_grad(p, reduction):
    a, pos, neg = (rng.standard_normal((6, 4)).astype(np.float32) for _ in range(3))
    check_op(lambda x, y, z: flow.nn.TripletMarginLoss(x, y, z, margin=1.5, p=p, reduction=reduction),
             lambda x, y, z: np_triplet(x, y, z, 1.5, p, 1e-6, reduction), a, pos, neg, rtol=1e-4, atol=1e-5,
             grad_rtol=2e-3, grad_atol=1e-3)


def test_triplet_margin_loss_clipped_rows_get_no_gradient():
    a = np.zeros((2, 3), np.float32)
    pos = np.array([[3, 0, 0], [0.1, 0, 0]], np.float32)  # row 0: far positive → loss > 0
    neg = np.array([[0.1, 0, 0], [5, 0, 0]], np.float32)  # row 1: far negative → clipped to 0
    y, g, _ = forward_and_grad(lambda x, p, n: flow.nn.TripletMarginLoss(x, p, n, margin=0.5, reduction="none"),
                               a, pos, neg)
    assert y[0] > 0 and y[1] == 0
    assert np.any(g[0] != 0)
    np.testing.assert_array_equal(g[1], 0)


def test_triplet_margin_loss_names_and_errors():
    x = np.ones((2, 3), np.float32)
    names = set()

    def body(a, b, c):
        out = flow.nn.TripletMarginLoss(a, b, c, p=3.0, name="tl")
        names.update(blob.op_name for blob in current_builder("test").all_blobs)
        return out
    make_job(body, [x, x, x])(x, x, x)
    assert {"tl_distance_1_abs", "tl_distance_1_p_constant", "tl_distance_1_pow1", "tl_distance_2_sum",
            "tl_distance_2_norm_val", "tl_reduce_mean"} <= names
    with expect_error(ValueError, match=r"flow.nn.TripletMarginLoss: argument 'swap' must be False"):
        run(lambda a, b, c: flow.nn.TripletMarginLoss(a, b, c, swap=True), x, x, x)
    with expect_error(ValueError, match=r"flow.nn.TripletMarginLoss: argument 'negative' must be the shape of anchor"):
        run(lambda a, b, c: flow.nn.TripletMarginLoss(a, b, c), x, x, np.ones((2, 4), np.float32))
    with expect_error(ValueError, match=r"flow.nn.TripletMarginLoss: argument 'p' must be a positive number"):
        run(lambda a, b, c: flow.nn.TripletMarginLoss(a, b, c, p=0), x, x, x)


# --- combined_margin_loss -------------------------------------------------------------------------------------
def np_margin(x, labels, m1, m2, m3):
    """Reference: the labelled logit replaced by cos(m1·acos(x) + m2) − m3, and d y / d x there
    (m1·sin(m1·θ + m2) / sin θ; 1 elsewhere). Labels outside [0, classes) leave the row unchanged."""
    y, dydx = x.astype(np.float64).copy(), np.ones(x.shape)
    theta = np.zeros(len(labels))
    for row, label in enumerate(labels):
        if 0 <= label < x.shape[1]:
            t = np.arccos(float(x[row, label]))
            theta[row] = t
            y[row, label] = np.cos(m1 * t + m2) - m3
            dydx[row, label] = m1 * np.sin(m1 * t + m2) / np.sin(t)
    return y, dydx, theta


@pytest.mark.parametrize("m1,m2,m3", [(1.0, 0.5, 0.0), (1.0, 0.0, 0.35), (0.3, 0.5, 0.4), (1.0, 0.0, 0.0)])
def test_combined_margin_loss_values_and_grad(m1, m2, m3):
    x = rng.uniform(-0.95, 0.95, (8, 10)).astype(np.float32)
    labels = rng.integers(0, 10, 8).astype(np.int32)
    y, g, w = forward_and_grad(lambda a, lab: flow.combined_margin_loss(a, lab, m1, m2, m3), x, labels)
    ref, dydx, _ = np_margin(x, labels, m1, m2, m3)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g, dydx * w, rtol=1e-4, atol=1e-5)


def _theta_blob(a, lab):
    """The op's second output, ``theta_0`` (the angle of each row's labelled logit)."""
    flow.combined_margin_loss(a, lab, 1.0, 0.5, 0.0)
    return next(b for b in current_builder("test").all_blobs if b.lbn.endswith("/theta_0"))


def test_combined_margin_loss_out_of_range_labels_and_theta():
    x = rng.uniform(-0.9, 0.9, (4, 5)).astype(np.float64)
    labels = np.array([2, -1, 5, 0], np.int64)
    y, g, w = forward_and_grad(lambda a, lab: flow.combined_margin_loss(a, lab, 1.0, 0.5, 0.0), x, labels)
    ref, dydx, theta = np_margin(x, labels, 1.0, 0.5, 0.0)
    np.testing.assert_allclose(y, ref, rtol=1e-12)
    np.testing.assert_allclose(g, dydx * w, rtol=1e-10)
    np.testing.assert_array_equal(y[1], x[1])  # rows 1 and 2 have no class in range: unchanged
    np.testing.assert_array_equal(y[2], x[2])
    flow.clear_default_session()
    np.testing.assert_allclose(run(_theta_blob, x, labels), theta, rtol=1e-12)  # 0 for those rows


def test_combined_margin_loss_names_and_errors():
    x = np.zeros((3, 4), np.float32)
    labels = np.zeros(3, np.int32)
    seen = []

    def body(a, lab):
        seen.append(flow.combined_margin_loss(a, lab, 1, 0.5, 0))
        return seen[0]
    n = next_id() + 2  # after the two placeholders
    make_job(body, [x, labels])(x, labels)
    assert lbns(seen) == [f"CombinedMarginLoss_{n}/y_0"]
    with expect_error(TypeError, match=r"flow.combined_margin_loss: label must be an int32 or int64 blob"):
        run(lambda a, lab: flow.combined_margin_loss(a, lab), x, labels.astype(np.float32))
    with expect_error(ValueError, match=r"flow.combined_margin_loss: argument 'label' must be shape \(3,\)"):
        run(lambda a, lab: flow.combined_margin_loss(a, lab), x, np.zeros((3, 1), np.int32))
    with expect_error(ValueError, match=r"flow.combined_margin_loss: argument 'm2' must be a number"):
        run(lambda a, lab: flow.combined_margin_loss(a, lab, 1, "0.5"), x, labels)
