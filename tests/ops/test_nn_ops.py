"""flow.nn: softmax, bias_add, dropout, cross entropies (incl. out-of-range labels), batch_normalization,
losses."""

import warnings
from typing import Any

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, forward_and_grad, lbns, make_job, next_id, np_softmax, randn_from, run

import flowtorch as flow
import flowtorch.nn
import flowtorch.typing as tp
from flowtorch._src.ops.nn_ops import STRICT_LABELS_ENV, LabelRangeWarning

rng = np.random.default_rng(5)


randn = randn_from(rng)


# --- softmax / bias_add ----------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [None, -1, 1, 0])
def test_softmax_any_axis(axis):
    x = randn(3, 4, 2)
    check_op(lambda a: flow.nn.softmax(a, axis=axis), lambda a: np_softmax(a, -1 if axis is None else axis), x)


def test_softmax_inner_axis_names():
    x = randn(2, 3, 4)
    seen = []

    def body(a):
        seen.append(flow.nn.softmax(a, axis=1))
        return seen[0]
    n = next_id() + 1
    make_job(body, [x])(x)
    assert lbns(seen) == [f"Transpose_{n + 2}/output_0"]  # Transpose_n, Softmax_{n+1}, Transpose_{n+2}


def test_bias_add_formats():
    x, b = randn(2, 3, 4, 5), randn(3)
    check_op(lambda a, bb: flow.nn.bias_add(a, bb), lambda a, bb: a + bb.reshape(1, 3, 1, 1), x, b)
    check_op(lambda a, bb: flow.nn.bias_add(a, bb, "NCHW"), lambda a, bb: a + bb.reshape(1, 3, 1, 1), x, b)
    b5 = randn(5)
    check_op(lambda a, bb: flow.nn.bias_add(a, bb, "NHWC"), lambda a, bb: a + bb, x, b5)
    with expect_error(ValueError, match=r"flow.nn.bias_add: argument 'bias' must be shape \(3,\)"):
        run(lambda a, bb: flow.nn.bias_add(a, bb), x, b5)


# --- dropout -------------------------------------------------------------------------------------------------
def test_dropout_is_identity_in_predict_jobs():
    x = randn(4, 6)
    seen = []

    def body(a):
        seen.append(flow.nn.dropout(a, rate=0.5))
        return seen[0]
    np.testing.assert_array_equal(make_job(body, [x])(x), x)
    assert seen[0].op_name.startswith("Input_")  # no op was added


def test_dropout_scales_kept_values_in_train_jobs():
    x = rng.uniform(1, 2, (64, 64)).astype(np.float32)
    seen = []
    out, g, w = forward_and_grad(lambda a: _record(seen, flow.nn.dropout(a, rate=0.25)), x,
                                 weight=np.ones((64, 64), np.float32))
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / 0.75, rtol=1e-6)
    assert 0.65 < kept.mean() < 0.85
    np.testing.assert_allclose(g, kept / 0.75, rtol=1e-6)  # gradient flows through kept units only
    assert seen[0].op_name.startswith("Input_")  # the shape probe ran in a predict job: identity
    assert seen[-1].op_name.startswith("Dropout_")
    n = int(seen[-1].op_name.split("_")[1])
    mask = [b for b in seen[-1].builder.all_blobs if b.op_name == f"RandomMaskLike_{n - 1}"]
    assert mask and mask[0].dtype == flow.int8


def _record(seen, blob):
    seen.append(blob)
    return blob


def test_dropout_rate_checked():
    with expect_error(ValueError, match=r"flow.nn.dropout: argument 'rate' must be a float in \[0, 1\); "
                                        r"received 1.0"):
        run(lambda a: flow.nn.dropout(a, rate=1.0), randn(2))


# --- sparse softmax cross entropy ------------------------------------------------------------------------------
def np_sparse_ce(labels, logits):
    p = np_softmax(logits.astype(np.float64))
    return -np.log(p[np.arange(len(labels)), labels])


def test_sparse_softmax_ce_value_grad_and_both_blobs():
    logits = randn(5, 4)
    labels = np.array([0, 3, 1, 1, 2], np.int32)
    seen = []

    def fn(lg, lab):
        out = flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg)
        seen.append(out)
        return out
    out, g, w = forward_and_grad(fn, logits, labels)
    np.testing.assert_allclose(out, np_sparse_ce(labels, logits), rtol=1e-5)
    onehot = np.eye(4)[labels]
    np.testing.assert_allclose(g, (np_softmax(logits) - onehot) * w[:, None], rtol=1e-5, atol=1e-6)
    op = seen[0].op_name
    assert op.startswith("SparseSoftmaxCrossEntropy_") and seen[0].blob_name == "out_0"
    prob = [b for b in seen[0].builder.all_blobs if b.logical_blob_name == f"{op}/prob_0"]
    assert prob and prob[0].shape == (5, 4)


def test_sparse_softmax_ce_prob_value_and_int64_b1_labels():
    logits = randn(3, 5)
    labels = np.array([[4], [0], [2]], np.int64)
    seen = []

    def body(lg, lab):
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg)
        prob = [b for b in loss.builder.all_blobs if b.blob_name == "prob_0"][0]
        seen.extend([loss, prob])
        return prob, loss
    n = next_id() + 2
    from typing import Tuple
    prob, loss = make_job(body, [logits, labels], ret=Tuple[tp.Numpy, tp.Numpy])(logits, labels)
    np.testing.assert_allclose(prob, np_softmax(logits), rtol=1e-5)
    np.testing.assert_allclose(loss, np_sparse_ce(labels[:, 0], logits), rtol=1e-5)
    assert loss.shape == (3,)
    assert lbns(seen) == [f"SparseSoftmaxCrossEntropy_{n + 1}/out_0", f"SparseSoftmaxCrossEntropy_{n + 1}/prob_0"]
    squeeze = [b for b in seen[0].builder.all_blobs if b.op_name == f"Squeeze_{n}"]
    assert squeeze and squeeze[0].shape == (3,)


def _ce_kernels(job: Any) -> list[Any]:
    return [n.target for n in job.step.module.graph.nodes if "sparse_softmax_cross_entropy" in str(n.target)]


def test_sparse_softmax_ce_skips_prob_only_when_nothing_reads_it():
    logits, labels = randn(4, 3), np.array([0, 2, 1, 1], np.int32)
    lean = make_job(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), [logits, labels])
    np.testing.assert_allclose(lean(logits, labels), np_sparse_ce(labels, logits), rtol=1e-5)
    assert [hasattr(k, "without_prob") for k in _ce_kernels(lean)] == [False]  # the form without prob_0
    watched = []

    def body(lg, lab):
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg)
        prob = next(b for b in loss.builder.all_blobs if b.blob_name == "prob_0")
        flow.watch(prob, lambda p: watched.append(np.array(p)))
        return loss
    full = make_job(body, [logits, labels])
    np.testing.assert_allclose(full(logits, labels), np_sparse_ce(labels, logits), rtol=1e-5)
    np.testing.assert_allclose(watched[0], np_softmax(logits), rtol=1e-5)
    assert [hasattr(k, "without_prob") for k in _ce_kernels(full)] == [True]


def test_sparse_softmax_ce_caps_loss_like_oneflows_safelog():
    logits = np.array([[200.0, 0.0, -200.0]], np.float32)
    out = run(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), logits,
              np.array([2], np.int32))
    np.testing.assert_allclose(out, [-np.log(1e-20)], rtol=1e-6)


def test_out_of_range_labels_give_zero_loss_zero_grad_and_one_warning():
    logits = randn(4, 3)
    labels = np.array([0, -2, 7, 2], np.int32)
    grads = []

    def body(lg, lab, ww):
        v = flow.get_variable("x0", shape=(4, 3), initializer=flow._src.initializers.zeros_initializer())
        x = lg + v
        flow.watch_diff(x, lambda g: grads.append(np.array(g)))
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(lab, x, name="ce")
        flow.losses.add_loss(loss * ww)
        return loss
    w = np.ones(4, np.float32)
    job = make_job(body, [logits, labels, w], job_type="train")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out1 = job(logits, labels, w)
        out2 = job(logits, labels, w)
    ours = [c for c in caught if issubclass(c.category, LabelRangeWarning)]
    assert len(ours) == 1
    msg = str(ours[0].message)
    assert "nn.sparse_softmax_cross_entropy_with_logits" in msg and "'ce'" in msg and "[-2, 7]" in msg
    assert "[0, 3)" in msg
    want = np_sparse_ce(np.array([0, 0, 0, 2]), logits)
    want[[1, 2]] = 0
    np.testing.assert_allclose(out1, want, rtol=1e-5)
    np.testing.assert_allclose(out2, want, rtol=1e-5)
    g = grads[0]
    np.testing.assert_array_equal(g[[1, 2]], 0)
    np.testing.assert_allclose(g[[0, 3]], (np_softmax(logits) - np.eye(3)[[0, 0, 0, 2]])[[0, 3]], rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_torchs_ignore_index_is_an_out_of_range_label_too(dtype):
    # -100 is torch's default ignore_index: OneFlow knows no such value, so it is reported like any other
    logits = randn(3, 4)
    labels = np.array([1, -100, 3], dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = run(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), logits, labels)
    ours = [str(c.message) for c in caught if issubclass(c.category, LabelRangeWarning)]
    assert len(ours) == 1 and "values [-100]" in ours[0]
    want = np_sparse_ce(np.array([1, 0, 3]), logits)
    want[1] = 0
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_in_range_labels_and_build_do_not_warn():
    logits, labels = randn(3, 4), np.array([0, 1, 3], np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelRangeWarning)
        run(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), logits, labels)


def test_strict_labels_mode_raises(monkeypatch):
    monkeypatch.setenv(STRICT_LABELS_ENV, "1")
    logits, labels = randn(3, 4), np.array([0, 4, 1], np.int32)
    with expect_error(ValueError, match=r"op 'SparseSoftmaxCrossEntropy_\d+' .*outside the valid range \[0, 4\): "
                                        r"values \[4\]"):
        run(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), logits, labels)


def test_sparse_ce_argument_errors():
    with expect_error(TypeError, match=r"labels must be an integer blob .*float32"):
        run(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), randn(2, 3), randn(2))
    with expect_error(ValueError, match=r"argument 'labels' must be shape \(2,\) or \(2, 1\) for logits \(2, 3\); "
                                        r"received Input_\d+/out \(3,\)"):
        run(lambda lg, lab: flow.nn.sparse_softmax_cross_entropy_with_logits(lab, lg), randn(2, 3),
            np.zeros(3, np.int32))


def test_sparse_cross_entropy_on_probabilities():
    p = np_softmax(randn(4, 3)).astype(np.float32)
    labels = np.array([2, 0, 1, 5], np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LabelRangeWarning)
        out = run(lambda pr, lab: flow.nn.sparse_cross_entropy(lab, pr), p, labels)
    want = -np.log(p[np.arange(4), np.minimum(labels, 2)])
    want[3] = 0
    np.testing.assert_allclose(out, want, rtol=1e-5)


# --- dense softmax CE and sigmoid CE -----------------------------------------------------------------------------
def test_softmax_ce_value_and_oneflow_gradient():
    logits = randn(3, 4)
    labels = rng.uniform(0, 1, (3, 4)).astype(np.float32)  # rows do not sum to 1
    out, g, w = forward_and_grad(lambda lg, lab: flow.nn.softmax_cross_entropy_with_logits(lab, lg), logits, labels)
    p = np_softmax(logits.astype(np.float64))
    np.testing.assert_allclose(out, -(labels * np.log(p)).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(g, (p - labels) * w[:, None], rtol=1e-5, atol=1e-6)  # OneFlow: dy·(prob − label)


def test_sigmoid_ce_value_grad_and_system_blob_name():
    logits = randn(3, 4) * 3
    labels = rng.integers(0, 2, (3, 4)).astype(np.float32)

    def ref(x, z):
        return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    check_op(lambda lg, lab: flow.nn.sigmoid_cross_entropy_with_logits(lab, lg), ref, logits, labels)
    seen = []

    def body(lg, lab):
        seen.append(flow.nn.sigmoid_cross_entropy_with_logits(lab, lg))
        return seen[0]
    make_job(body, [logits, labels])(logits, labels)
    assert seen[0].blob_name == "loss" and seen[0].op_name.startswith("SigmoidCrossEntropy_")


# --- nn.batch_normalization, losses ------------------------------------------------------------------------------
def test_nn_batch_normalization_with_given_statistics():
    x = randn(4, 3, 2)
    mean, var, off, sc = randn(3), rng.uniform(0.5, 2, 3).astype(np.float32), randn(3), randn(3)
    shape = (1, 3, 1)

    def ref(a, m, v, o, s):
        return (a - m.reshape(shape)) / np.sqrt(v.reshape(shape) + 1e-3) * s.reshape(shape) + o.reshape(shape)
    check_op(lambda a, m, v, o, s: flow.nn.batch_normalization(a, m, v, o, s, variance_epsilon=1e-3, axis=1), ref,
             x, mean, var, off, sc, rtol=1e-4, atol=1e-5)


def test_torch_style_losses():
    x = rng.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
    t = rng.uniform(0, 1, (3, 4)).astype(np.float32)
    check_op(lambda a, b: flow.nn.MSELoss(a, b), lambda a, b: np.reshape(np.mean((b - a) ** 2), (1,)), x, t)
    check_op(lambda a, b: flow.nn.MSELoss(a, b, reduction="none"), lambda a, b: (b - a) ** 2, x, t)
    check_op(lambda a, b: flow.nn.L1Loss(a, b, reduction="sum"), lambda a, b: np.reshape(np.abs(b - a).sum(), (1,)),
             x, t + 1.0)
    check_op(lambda a, b: flow.nn.BCELoss(a, b),
             lambda a, b: np.reshape(np.mean(-(b * np.log(a) + (1 - b) * np.log(1 - a))), (1,)), x, t)
    z = randn(3, 4)
    check_op(lambda a, b: flow.nn.BCEWithLogitsLoss(a, b, reduction="none"),
             lambda a, b: np.maximum(a, 0) - a * b + np.log1p(np.exp(-np.abs(a))), z, t, rtol=1e-5, atol=1e-6)
    with expect_error(ValueError, match=r"flow.nn.MSELoss: argument 'reduction' must be one of 'none', 'mean', "
                                        r"'sum'; received 'avg'"):
        run(lambda a, b: flow.nn.MSELoss(a, b, reduction="avg"), x, t)


def test_mse_loss_names():
    x, t = randn(2, 2), randn(2, 2)
    seen = []

    def body(a, b):
        seen.append(flow.nn.MSELoss(a, b, name="mse"))
        return seen[0]
    make_job(body, [x, t])(x, t)
    ops = [b.op_name for b in seen[0].builder.all_blobs]
    assert "mse_mean_squared_subtract" in ops and "mse_mean_squared_square" in ops and "mse_reduce_mean" in ops
