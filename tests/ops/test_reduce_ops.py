"""Reductions: (1,) for full reductions, keepdims, composite variance/std/logsumexp, moments, l2_normalize."""

import numpy as np
import pytest
from helpers.ops import check_op, lbns, make_job, next_id, run

import flowtorch as flow
import flowtorch.nn

rng = np.random.default_rng(2)
X = rng.standard_normal((2, 3, 4)).astype(np.float32)


def _np_reduce(fn, x, axis, keepdims):
    if axis is None:
        out = fn(x, axis=None, keepdims=keepdims)
        return out if keepdims else np.reshape(out, (1,))
    out = fn(x, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keepdims)
    return np.reshape(out, (1,)) if np.ndim(out) == 0 else out


@pytest.mark.parametrize("axis", [None, 1, -1, [0, 2], [0, 1, 2]])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("op,ref", [(flow.math.reduce_sum, np.sum), (flow.math.reduce_mean, np.mean),
                                    (flow.math.reduce_max, np.max), (flow.math.reduce_min, np.min),
                                    (flow.math.reduce_prod, np.prod)])
def test_reductions_values_and_shapes(op, ref, axis, keepdims):
    y = run(lambda a: op(a, axis=axis, keepdims=keepdims), X)
    want = _np_reduce(ref, X.astype(np.float64), axis, keepdims)
    assert y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,ref", [(flow.math.reduce_sum, np.sum), (flow.math.reduce_mean, np.mean),
                                    (flow.math.reduce_prod, np.prod), (flow.math.reduce_max, np.max),
                                    (flow.math.reduce_variance, np.var), (flow.math.reduce_std, np.std)])
def test_reduction_gradients(op, ref):
    check_op(lambda a: op(a, axis=[0, 2]), lambda a: ref(a, axis=(0, 2)), X, rtol=2e-5, atol=2e-5)


def test_reduce_max_gradient_is_split_between_ties():
    from helpers.ops import forward_and_grad
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]], np.float32)
    _, g, _ = forward_and_grad(lambda a: flow.math.reduce_max(a, axis=1), x, weight=np.ones(2, np.float32))
    np.testing.assert_allclose(g, [[0, 0.5, 0.5], [1, 0, 0]])


def test_full_reduction_is_shape_1():
    assert run(flow.math.reduce_sum, X).shape == (1,)
    assert run(flow.math.reduce_variance, X).shape == (1,)
    assert run(lambda a: flow.math.reduce_max(a, keepdims=True), X).shape == (1, 1, 1)


def test_any_all_keep_dtype_and_empty_axis():
    m = np.array([[0, 1, 0], [0, 0, 0]], np.int8)
    np.testing.assert_array_equal(run(lambda a: flow.math.reduce_any(a, axis=1), m), [1, 0])
    np.testing.assert_array_equal(run(lambda a: flow.math.reduce_all(a, axis=0), np.array([[1, 2], [3, 0]],
                                                                                          np.int8)), [1, 0])
    np.testing.assert_allclose(run(lambda a: flow.math.reduce_max(a, axis=[]), X), X)


def test_variance_is_oneflows_composition_and_names():
    seen = []

    def body(a):
        v = flow.math.reduce_variance(a, axis=1)
        seen.append(v)
        return v
    y = make_job(body, [X])(X)
    np.testing.assert_allclose(y, np.var(X.astype(np.float64), axis=1), rtol=1e-4, atol=1e-6)
    assert seen[0].op_name.startswith("ReduceVariance_") and seen[0].op_name.endswith("_subtract")


def test_logsumexp_euclidean_norm_l2_normalize():
    np.testing.assert_allclose(run(lambda a: flow.math.reduce_logsumexp(a, axis=-1), X),
                               np.log(np.exp(X.astype(np.float64)).sum(-1)), rtol=1e-5)
    np.testing.assert_allclose(run(lambda a: flow.math.reduce_euclidean_norm(a, axis=[1, 2]), X),
                               np.sqrt((X.astype(np.float64) ** 2).sum((1, 2))), rtol=1e-5)
    check_op(lambda a: flow.math.l2_normalize(a, axis=1),
             lambda a: a / np.sqrt(np.maximum((a ** 2).sum(1, keepdims=True), 1e-12)), X, rtol=1e-5)


def test_moments_values_and_namespace_names():
    seen = []

    def body(a):
        mean, var = flow.nn.moments(a, [0, 2], keepdims=True)
        seen.extend([mean, var])
        return var
    n = next_id() + 1
    var = make_job(body, [X])(X)
    np.testing.assert_allclose(var, np.var(X.astype(np.float64), axis=(0, 2), keepdims=True), rtol=1e-4, atol=1e-6)
    assert seen[0].shape == (1, 3, 1)
    assert seen[0].op_name.startswith(f"Moments_{n}-ScalarMul_")
    assert all(b.op_name.startswith(f"Moments_{n}-") for b in seen)
    assert lbns(seen)[1].endswith("_subtract/z_0")


def test_integer_reductions_keep_their_dtype():
    m = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    for op, ref in [(flow.math.reduce_sum, np.sum), (flow.math.reduce_prod, np.prod), (flow.math.reduce_max, np.max)]:
        out = run(lambda a, op=op: op(a, axis=1), m)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, ref(m, axis=1))
    assert run(flow.math.reduce_sum, m).dtype == np.int32
