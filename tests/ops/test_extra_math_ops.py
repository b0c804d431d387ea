"""math.polyval, math.tril, math.reduced_shape_elem_cnt, count_not_finite / multi_count_not_finite,
sync_dynamic_resize and broadcast_to_compatible_with on dynamic blobs: values and gradients against numpy."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, forward_and_grad, lbns, make_job, run

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(7)


# --- polyval ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("coeffs", [[2.0], [1.5, -2.0], [0.5, 1.0, -3.0, 2.0]])
def test_polyval_values_and_gradient(coeffs):
    x = rng.uniform(-2, 2, (3, 4)).astype(np.float32)
    check_op(lambda a: flow.math.polyval(coeffs, a), lambda a: np.polyval(coeffs, a), x, rtol=1e-5, atol=1e-5)


def test_polyval_builds_oneflow_ops_and_checks_coeffs():
    x = np.ones((2,), np.float32)
    seen = []

    def body(a):
        out = flow.math.polyval([1.0, 2.0], a, name="pv")
        seen.append(out)
        return out
    np.testing.assert_allclose(make_job(body, [x])(x), [3.0, 3.0])
    assert lbns(seen)[0].startswith("ScalarAdd_")
    np.testing.assert_array_equal(run(lambda a: flow.math.polyval([], a), x), [0.0, 0.0])
    with expect_error(ValueError, "polyval: argument 'coeffs' must be a list or tuple"):
        run(lambda a: flow.math.polyval(3.0, a), x)


# --- tril ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 5), (2, 4, 6)])
@pytest.mark.parametrize("diagonal", [-2, 0, 1, 7])
def test_tril_values_and_gradient(shape, diagonal):
    x = rng.standard_normal(shape).astype(np.float32)

    def ref(a):
        keep = np.tril(np.ones(shape[-2:], bool), diagonal)
        return np.where(keep, a, -1.5)
    check_op(lambda a: flow.math.tril(a, diagonal, fill_value=-1.5), ref, x)


def test_tril_on_integers_casts_the_fill_and_names():
    x = rng.integers(-50, 50, (4, 4)).astype(np.int32)
    seen = []

    def body(a):
        out = flow.nn.tril(a, 1, fill_value=7.9)
        seen.append(out)
        return out
    out = make_job(body, [x])(x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.where(np.tril(np.ones((4, 4), bool), 1), x, 7))
    assert lbns(seen)[0].startswith("Tril_") and lbns(seen)[0].endswith("/out_0")
    with expect_error(ValueError, "math.tril: argument 'x' must be a blob of rank >= 2"):
        run(lambda a: flow.math.tril(a), np.zeros(3, np.float32))


# --- element counts -----------------------------------------------------------------------------------------
def test_reduced_shape_elem_cnt_counts_axes_with_dtype():
    x = np.zeros((2, 3, 4), np.float32)
    out = run(lambda a: flow.math.reduced_shape_elem_cnt(a), x)
    assert out.dtype == np.int32 and out.tolist() == [24]
    out = run(lambda a: flow.math.reduced_shape_elem_cnt(a, axis=[0, -1], dtype=flow.int64), x)
    assert out.dtype == np.int64 and out.tolist() == [8]
    with expect_error(ValueError, "reduced_shape_elem_cnt: argument 'axis'"):
        run(lambda a: flow.math.reduced_shape_elem_cnt(a, axis=[3]), x)


def test_reduced_shape_elem_cnt_reads_the_run_time_shape_of_a_dynamic_blob():
    cfg = flow.FunctionConfig()
    cfg.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(function_config=cfg)
    def job(x: tp.ListNumpy.Placeholder((10, 3))) -> tp.ListNumpy:
        return flow.math.reduced_shape_elem_cnt(x)
    assert job([np.zeros((4, 3), np.float32)])[0].tolist() == [12]


def test_count_not_finite_and_multi_count():
    a = rng.standard_normal((5, 6)).astype(np.float64)
    a[0, 1], a[3, 3], a[4, 0] = np.nan, np.inf, -np.inf
    b = rng.standard_normal((7,)).astype(np.float64)
    b[2] = np.nan
    out = run(lambda x: flow.count_not_finite(x), a)
    assert out.dtype == np.int64 and out.tolist() == [3]
    out = run(lambda x, y: flow.multi_count_not_finite([x, y, x]), a, b)
    assert out.tolist() == [7]
    with expect_error(ValueError, "multi_count_not_finite: argument 'x\\[1\\]' must be a blob of x\\[0\\]'s dtype"):
        run(lambda x, y: flow.multi_count_not_finite([x, y]), a, b.astype(np.float32))


# --- sync_dynamic_resize, dynamic broadcast -----------------------------------------------------------------
def test_sync_dynamic_resize_keeps_the_first_rows():
    x = rng.standard_normal((6, 2)).astype(np.float32)
    seen = []

    def body(a, n):
        out = flow.sync_dynamic_resize(a, n)
        seen.append(out)
        return out
    out = make_job(body, (x, np.array([4], np.int64)), ret=tp.ListNumpy)(x, np.array([4], np.int64))
    np.testing.assert_array_equal(out[0], x[:4])
    assert seen[0].is_dynamic and seen[0].shape == (6, 2) and lbns(seen)[0].endswith("/out")
    with expect_error(ValueError, "sync_dynamic_resize: argument 'size' must be an int32/int64 blob of shape"):
        run(lambda a, n: flow.sync_dynamic_resize(a, n), x, np.array([4.0], np.float32))


def test_broadcast_to_compatible_with_uses_run_time_shapes_of_dynamic_blobs():
    cfg = flow.FunctionConfig()
    cfg.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(function_config=cfg)
    def job(x: tp.ListNumpy.Placeholder((6, 1)), a: tp.ListNumpy.Placeholder((2, 1, 5))) -> tp.ListNumpy:
        y = flow.broadcast_to_compatible_with(x, [a])
        assert y.shape == (2, 6, 5) and y.is_dynamic
        return y
    x = rng.standard_normal((4, 1)).astype(np.float32)
    a = np.zeros((2, 1, 3), np.float32)
    np.testing.assert_array_equal(job([x], [a])[0], np.broadcast_to(x, (2, 4, 3)))


def test_broadcast_to_compatible_with_gradient_sums_the_broadcast_axes():
    x = rng.standard_normal((3, 1)).astype(np.float32)
    like = np.zeros((2, 1, 4), np.float32)
    y, g, w = forward_and_grad(lambda a, b: flow.broadcast_to_compatible_with(a, [b]), x, like)
    np.testing.assert_array_equal(y, np.broadcast_to(x, (2, 3, 4)))
    np.testing.assert_allclose(g, w.sum(axis=(0, 2)).reshape(3, 1), rtol=1e-6)
