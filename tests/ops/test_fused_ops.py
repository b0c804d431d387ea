"""Transformer ops (OneFlow v0.4.0): nn.layer_norm, the fused bias/gelu/dropout/tril/softmax/attention ops and
matmul(alpha=) — values and watched gradients against numpy references, blob names, predict-job behaviour."""

import numpy as np
import pytest
from helpers.ops import (
    check_op,
    expect_error,
    forward_and_grad,
    lbns,
    make_job,
    next_id,
    np_softmax,
    numeric_grad,
    randn_from,
    run,
)

import flowtorch as flow
import flowtorch.math
import flowtorch.nn
from flowtorch._src.ops import array_ops

rng = np.random.default_rng(11)


randn = randn_from(rng)


def np_gelu(x):
    from math import erf, sqrt
    return 0.5 * x * (1.0 + np.vectorize(erf)(x / sqrt(2.0)))


def np_layer_norm(x, gamma, beta, begin_norm_axis, eps):
    axes = tuple(range(begin_norm_axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def np_scale_tril(x, diagonal, fill, scale):
    rows, cols = x.shape[-2:]
    keep = np.arange(cols)[None, :] <= np.arange(rows)[:, None] + diagonal
    return np.where(keep, x * scale, fill)


def _blobs(blob, prefix):
    return [b for b in blob.builder.all_blobs if b.op_name.startswith(prefix)]


# --- layer_norm -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("begin_norm_axis", [-1, 1])
def test_layer_norm_value_and_input_grad(begin_norm_axis):
    x, gamma, beta = randn(2, 3, 5), randn(5), randn(5)
    bna = begin_norm_axis % 3
    check_op(lambda a, g, b: flow.nn.layer_norm(a, g, b, begin_norm_axis, -1, 1e-5),
             lambda a, g, b: np_layer_norm(a, g, b, bna, 1e-5), x, gamma, beta, atol=1e-4, grad_atol=5e-4)


def test_layer_norm_gamma_and_beta_grads():
    x, gamma, beta = randn(4, 6), randn(6), randn(6)
    check_op(lambda g, a, b: flow.nn.layer_norm(a, g, b, -1, -1),
             lambda g, a, b: np_layer_norm(a, g, b, 1, 1e-5), gamma, x, beta, atol=1e-4, grad_atol=5e-4)
    check_op(lambda b, a, g: flow.nn.layer_norm(a, g, b, -1, -1),
             lambda b, a, g: np_layer_norm(a, g, b, 1, 1e-5), beta, x, gamma, atol=1e-4, grad_atol=5e-4)


def test_layer_norm_outputs_names_and_defaults():
    x = randn(2, 3, 4)
    seen = []

    def body(a):
        y = flow.nn.layer_norm(a)  # no params, begin_norm_axis=1
        seen.append(y)
        with flow.scope.namespace("blk"):
            seen.append(flow.nn.layer_norm(a, flow.constant(2.0, shape=(4,)), None, 2, -1, 1e-3, "ln"))
        return y
    n = next_id()
    y = make_job(body, [x])(x)
    np.testing.assert_allclose(y, np_layer_norm(x.astype(np.float64), None, None, 1, 1e-5), rtol=1e-4, atol=1e-5)
    blobs = seen[0].builder.all_blobs
    assert lbns(_blobs(seen[0], "LayerNorm_")) == [f"LayerNorm_{n + 1}/y_0", f"LayerNorm_{n + 1}/mean_0",
                                                    f"LayerNorm_{n + 1}/inv_variance_0"]
    ln = [b for b in blobs if b.op_name == "blk-ln"]
    assert lbns(ln) == ["blk-ln/y_0", "blk-ln/mean_0", "blk-ln/inv_variance_0", "blk-ln/normalized_0"]
    assert ln[1].shape == (2, 3) and _blobs(seen[0], "LayerNorm_")[1].shape == (2,)


def test_layer_norm_checks_param_shapes():
    with expect_error(ValueError, match=r"flow.nn.layer_norm: argument 'gamma' must be shape \(4,\)"):
        run(lambda a, g: flow.nn.layer_norm(a, g), randn(2, 4), randn(3))
    with expect_error(ValueError, match=r"argument 'begin_norm_axis' must be an int in \[-2, 2\)"):
        run(lambda a: flow.nn.layer_norm(a, begin_norm_axis=2), randn(2, 4))


# --- fused bias add + gelu ----------------------------------------------------------------------------------------
def test_fused_bias_add_gelu_nhc_and_nchw():
    x, b = randn(2, 3, 4), randn(4)
    check_op(lambda a, bb: flow.nn.fused_bias_add_gelu(a, bb, data_format="NHC"),
             lambda a, bb: np_gelu(a + bb), x, b)
    b3 = randn(3)
    check_op(lambda a, bb: flow.nn.fused_bias_add_gelu(a, bb), lambda a, bb: np_gelu(a + bb.reshape(1, 3, 1)), x, b3)
    seen = []
    make_job(lambda a, bb: seen.append(flow.nn.fused_bias_add_gelu(a, bb, "NHC", name="fc")) or seen[0],
             [x, b])(x, b)
    assert lbns(seen) == ["fc/out_0"]


def test_fused_bias_add_gelu_bias_grad():
    x, b = randn(3, 5), randn(5)
    check_op(lambda bb, a: flow.nn.fused_bias_add_gelu(a, bb, "NC"), lambda bb, a: np_gelu(a + bb), b, x)


# --- fused bias add + dropout ---------------------------------------------------------------------------------------
def test_fused_bias_add_dropout_train_keeps_and_scales():
    x = rng.uniform(1, 2, (40, 50)).astype(np.float32)
    b = rng.uniform(0, 1, (50,)).astype(np.float32)
    seen = []

    def fn(a, bb):
        seen.append(flow.nn.fused_bias_add_dropout(a, bb, data_format="NHC", rate=0.2))
        return seen[-1]
    out, g, w = forward_and_grad(fn, x, b)
    kept = out != 0
    assert 0.74 < kept.mean() < 0.86
    np.testing.assert_allclose(out[kept], ((x + b) / 0.8)[kept], rtol=1e-6)
    np.testing.assert_allclose(g, kept * w / 0.8, rtol=1e-6)
    op = seen[-1].op_name
    assert op.startswith("BiasAddDropout_") and seen[-1].blob_name == "out_0"
    mask = [blob for blob in seen[-1].builder.all_blobs if blob.op_name == f"{op}-dropout_random_mask_like"]
    assert mask and mask[0].dtype == flow.int8
    assert seen[0].op_name.startswith("BiasAdd_")  # the shape probe ran in a predict job


def test_fused_bias_add_dropout_is_bias_add_in_predict_jobs_and_for_rate_zero():
    x, b = randn(3, 4), randn(4)
    seen = []

    def body(a, bb):
        seen.append(flow.nn.fused_bias_add_dropout(a, bb, "NHC", rate=0.5))
        return seen[0]
    np.testing.assert_allclose(make_job(body, [x, b])(x, b), x + b, rtol=1e-6)
    assert seen[0].op_name.startswith("BiasAdd_")
    check_op(lambda a, bb: flow.nn.fused_bias_add_dropout(a, bb, "NHC"), lambda a, bb: a + bb, x, b)
    with expect_error(ValueError, match=r"fused_bias_add_dropout: argument 'rate' must be a float in \[0, 1\)"):
        run(lambda a, bb: flow.nn.fused_bias_add_dropout(a, bb, rate=1.0), x, b)


def test_fused_bias_add_dropout_seed_repeats():
    x, b = np.ones((30, 30), np.float32), np.zeros((30,), np.float32)

    def one():
        flow.clear_default_session()

        def body(a, bb):
            y = flow.nn.fused_bias_add_dropout(a, bb, "NHC", rate=0.5, seed=3)
            flow.losses.add_loss(flow.math.reduce_sum(y))
            return y
        return make_job(body, [x, b], job_type="train")(x, b)
    np.testing.assert_array_equal(one(), one())


# --- fused scale tril (+ softmax + dropout) ------------------------------------------------------------------------
@pytest.mark.parametrize("diagonal", [0, -1, 2])
def test_fused_scale_tril(diagonal):
    x = randn(2, 4, 5)
    check_op(lambda a: flow.math.fused_scale_tril(a, diagonal=diagonal, fill_value=-3.0, scale=1.5),
             lambda a: np_scale_tril(a, diagonal, -3.0, 1.5), x)
    assert flow.nn.fused_scale_tril is flow.math.fused_scale_tril


def test_fused_scale_tril_int_blob_and_name():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    seen = []
    out = make_job(lambda a: seen.append(flow.math.fused_scale_tril(a, fill_value=-1, scale=2)) or seen[0], [x])(x)
    np.testing.assert_array_equal(out, np_scale_tril(x, 0, -1, 2))
    assert out.dtype == np.int32 and seen[0].logical_blob_name.startswith("FusedScaleTril_")


def test_fused_scale_tril_softmax_without_dropout_value_and_grad():
    x = randn(2, 3, 4, 4)
    check_op(lambda a: flow.math.fused_scale_tril_softmax_dropout(a, fill_value=float("-inf"), scale=0.5),
             lambda a: np_softmax(np_scale_tril(a, 0, -np.inf, 0.5)), x)
    check_op(lambda a: flow.nn.fused_scale_tril_softmax_dropout(a, diagonal=1, fill_value=-5.0, scale=2.0),
             lambda a: np_softmax(np_scale_tril(a, 1, -5.0, 2.0)), randn(3, 5))


def test_fused_scale_tril_softmax_dropout_train():
    x = randn(8, 6, 6)
    seen = []

    def fn(a):
        seen.append(flow.math.fused_scale_tril_softmax_dropout(a, fill_value=float("-inf"), scale=2.0, rate=0.3))
        return seen[-1]
    out, g, w = forward_and_grad(fn, x)
    ref = np_softmax(np_scale_tril(x.astype(np.float64), 0, -np.inf, 2.0))
    lower = np.broadcast_to(np.tril(np.ones((6, 6), bool)), x.shape)
    kept = out != 0  # softmax is > 0 on and below the diagonal, 0 above it
    assert not kept[~lower].any() and 0.6 < kept[lower].mean() < 0.8
    np.testing.assert_allclose(out[kept], ref[kept] / 0.7, rtol=1e-5)
    mask = kept.astype(np.float64)
    np.testing.assert_allclose(
        g, numeric_grad(lambda a: np_softmax(np_scale_tril(a, 0, -np.inf, 2.0)) * mask / 0.7, x, w),
        rtol=1e-3, atol=1e-4)
    op = seen[-1].op_name
    assert op.startswith("FusedTrilScaleSoftmaxMaskScale_") and seen[-1].blob_name == "y_0"
    names = {b.logical_blob_name for b in seen[-1].builder.all_blobs}
    assert {f"{op}-dropout_random_mask_like/out_0", f"{op}/softmax_y_0"} <= names


def test_fused_scale_tril_softmax_dropout_is_not_dropped_in_predict_jobs():
    x = randn(2, 4, 4)
    seen = []

    def body(a):
        seen.append(flow.math.fused_scale_tril_softmax_dropout(a, fill_value=float("-inf"), rate=0.5, name="attn"))
        return seen[0]
    out = make_job(body, [x])(x)
    np.testing.assert_allclose(out, np_softmax(np_scale_tril(x, 0, -np.inf, 1)), rtol=1e-5)
    assert lbns([b for b in seen[0].builder.all_blobs if b.op_name.startswith("attn")]) == ["attn/y_0",
                                                                                          "attn/softmax_y_0"]


# --- fused self attention ---------------------------------------------------------------------------------------
def np_qkv(h, head_size):
    s, b, hidden = h.shape
    n = hidden // (3 * head_size)
    h4 = h.reshape(s, b, n, 3 * head_size)
    q, k, v = (h4[..., i * head_size:(i + 1) * head_size].transpose(1, 2, 0, 3) for i in range(3))
    return q, k, v


def test_fused_self_attention_query_mul_key_and_value():
    h = randn(5, 2, 2 * 3 * 3)  # seq 5, batch 2, 2 heads of size 3
    alpha = 0.37

    def ref_qmk(a):
        q, k, _ = np_qkv(a, 3)
        return alpha * q @ k.transpose(0, 1, 3, 2)
    check_op(lambda a: flow.nn.fused_self_attention_query_mul_key_and_value(a, head_size=3, alpha=alpha)[0],
             ref_qmk, h)
    check_op(lambda a: flow.nn.fused_self_attention_query_mul_key_and_value(a, 3, alpha)[1],
             lambda a: np_qkv(a, 3)[2], h)
    seen = []

    def body(a):
        seen.extend(flow.nn.fused_self_attention_query_mul_key_and_value(a, head_size=3))
        return seen[0]
    make_job(body, [h])(h)
    assert [b.blob_name for b in seen] == ["query_mul_key_0", "value_0"]
    assert seen[0].op_name.startswith("FusedSelfAttentionQueryMulKeyAndValue_")
    assert seen[0].shape == (2, 2, 5, 5) and seen[1].shape == (2, 2, 5, 3)
    with expect_error(ValueError, match=r"must be a blob of shape \(seq, batch, heads \* 3 \* 4\)"):
        run(lambda a: flow.nn.fused_self_attention_query_mul_key_and_value(a, head_size=4)[0], h)


# --- matmul(alpha=) --------------------------------------------------------------------------------------------
def test_matmul_alpha_plain_batched_and_broadcast():
    a, b = randn(3, 4), randn(5, 4)
    check_op(lambda x, y: flow.matmul(x, y, transpose_b=True, alpha=0.25), lambda x, y: 0.25 * x @ y.T, a, b)
    a4, b4 = randn(2, 3, 4, 5), randn(2, 3, 5, 2)
    check_op(lambda x, y: flow.linalg.matmul(x, y, alpha=-2.0), lambda x, y: -2.0 * x @ y, a4, b4)
    check_op(lambda y, x: flow.matmul(x, y, alpha=3.0), lambda y, x: 3.0 * x @ y, randn(5, 2), randn(2, 3, 5))
    seen = []
    make_job(lambda x, y: seen.append(flow.matmul(x, y, False, True, 1.0)) or seen[0], [a, b])(a, b)
    assert seen[0].blob_name == "out_0" and seen[0].node.target is array_ops.matmul_kernel  # fusable plain form
    with expect_error(TypeError, match="alpha must be a number"):
        run(lambda x, y: flow.matmul(x, y, alpha="2"), a, b)


# --- sparse CE on one device -----------------------------------------------------------------------------------
def test_distributed_sparse_softmax_ce_matches_the_plain_op():
    logits, labels = randn(6, 5), np.array([0, 4, 2, 2, 1, 3], np.int64)
    seen = []

    def fn(lg, lab):
        seen.append(flow.nn.distributed_sparse_softmax_cross_entropy_with_logits(lab, lg))
        return seen[-1]
    out, g, w = forward_and_grad(fn, logits, labels)
    p = np_softmax(logits.astype(np.float64))
    np.testing.assert_allclose(out, -np.log(p[np.arange(6), labels]), rtol=1e-5)
    np.testing.assert_allclose(g, (p - np.eye(5)[labels]) * w[:, None], rtol=1e-5, atol=1e-6)
    assert seen[-1].op_name.startswith("DistributedSparseSoftmaxCrossEntropy_") and seen[-1].blob_name == "out_0"


# --- compiled steps ----------------------------------------------------------------------------------------------
def _transformer_block_losses(monkeypatch, mode):
    import torch
    monkeypatch.setenv("FLOWTORCH_CAPTURE", mode)
    monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "aot_eager")
    flow.clear_default_session()
    torch._dynamo.reset()
    h = np.random.default_rng(0).standard_normal((4, 2, 24)).astype(np.float32)  # (seq, batch, heads·3·head)

    def body(a):
        g = flow.get_variable("g", shape=(24,), initializer=flow.ones_initializer())
        b = flow.get_variable("b", shape=(24,), initializer=flow.zeros_initializer())
        a = flow.nn.layer_norm(a, g, b, -1, -1, 1e-5, "ln")
        qmk, v = flow.nn.fused_self_attention_query_mul_key_and_value(a, head_size=4, alpha=0.5)
        p = flow.math.fused_scale_tril_softmax_dropout(qmk, fill_value=float("-inf"), scale=2.0, rate=0.2, seed=1)
        o = flow.matmul(p, v, alpha=0.5)
        bias = flow.get_variable("bias", shape=(4,), initializer=flow.constant_initializer(0.1))
        o = flow.nn.fused_bias_add_dropout(flow.nn.fused_bias_add_gelu(o, bias, "NHC"), bias, "NHC", rate=0.3, seed=2)
        loss = flow.math.reduce_mean(flow.amp_white_identity(o))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0).minimize(loss)
        return loss
    job = make_job(body, [h], job_type="train", name="compiled_block")
    return [job(h) for _ in range(3)], job


def test_fused_ops_compile_without_fallback_and_match_eager(monkeypatch):
    eager, _ = _transformer_block_losses(monkeypatch, "eager")
    compiled, job = _transformer_block_losses(monkeypatch, "compile")
    assert job.step.forward is not job.step.module  # compiled, no eager fallback
    np.testing.assert_allclose(np.concatenate(eager), np.concatenate(compiled), rtol=1e-5, atol=1e-7)
