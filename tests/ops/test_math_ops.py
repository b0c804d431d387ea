"""flow.math binary ops, comparisons, argmax/top_k, clip: values, gradients and OneFlow names."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, forward_and_grad, lbns, make_job, next_id, randn_from, run

import flowtorch as flow
from flowtorch._src.ops import math_ops

rng = np.random.default_rng(0)


randn = randn_from(rng)


def test_add_n_values_grad_and_names():
    xs = [randn(2, 3) for _ in range(3)]
    check_op(lambda a, b, c: flow.math.add_n([a, b, c]), lambda a, b, c: a + b + c, xs[0], xs[1], xs[2])
    seen = []

    def body(a, b, c):
        out = flow.math.add_n([a, b, c])
        seen.append(out)
        return out
    n = next_id()
    make_job(body, xs)(*xs)
    assert lbns(seen) == [f"AddN_{n + 3}/out_0"]  # three Input_ names first


def test_add_n_more_than_eight_inputs_is_chunked():
    xs = [np.full((2,), i, np.float32) for i in range(11)]
    seen = []

    def body(*blobs):
        out = flow.math.add_n(list(blobs))
        seen.append(out)
        return out
    y = make_job(body, xs)(*xs)
    np.testing.assert_allclose(y, np.full((2,), sum(range(11)), np.float32))
    assert seen[0].op_name.startswith("AddN_")


def test_add_n_rejects_mismatched_shapes():
    with expect_error(ValueError, match=r"flow.math.add_n: argument 'inputs' must be blobs of one shape"):
        run(lambda a, b: flow.math.add_n([a, b]), randn(2), randn(3))


@pytest.mark.parametrize("op,ref", [(flow.math.maximum, np.maximum), (flow.math.minimum, np.minimum)])
def test_maximum_minimum_broadcast_values_and_grad(op, ref):
    x, y = randn(3, 4), randn(4)
    check_op(lambda a, b: op(a, b), lambda a, b: ref(a, b), x, y)


def test_maximum_gradient_of_ties_goes_to_y():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    other = np.array([1.0, 5.0, 0.0], np.float32)
    out, g, w = forward_and_grad(lambda a, b: flow.math.maximum(a, b), x, other, weight=np.ones(3, np.float32))
    np.testing.assert_allclose(out, [1, 5, 3])
    np.testing.assert_allclose(g, [0.0, 0.0, 1.0])  # tie at index 0: OneFlow sends the gradient to y


def test_pow_scalar_and_blob():
    x = rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
    e = rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
    check_op(lambda a: flow.math.pow(a, 2.5), lambda a: a ** 2.5, x)
    check_op(lambda a, b: flow.math.pow(a, b), lambda a, b: a ** b, x, e)


def test_squared_difference():
    check_op(lambda a, b: flow.math.squared_difference(a, b), lambda a, b: (a - b) ** 2, randn(3, 2), randn(3, 2))


def test_binary_extras():
    x = rng.uniform(1, 5, (6,)).astype(np.float32)
    y = rng.uniform(1, 3, (6,)).astype(np.float32)
    np.testing.assert_allclose(run(flow.math.floordiv, x, y), np.floor(x / y), rtol=1e-6)
    np.testing.assert_allclose(run(flow.math.mod, x, y), np.mod(x, y), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(flow.math.atan2, x, y), np.arctan2(x, y), rtol=1e-6)
    xz = x.copy()
    xz[0] = 0
    np.testing.assert_allclose(run(flow.math.xlogy, xz, y), np.where(xz == 0, 0, xz * np.log(y)), rtol=1e-6)
    np.testing.assert_allclose(run(flow.math.xdivy, xz, y), np.where(xz == 0, 0, xz / y), rtol=1e-6)


def test_comparisons_give_int8():
    x, y = randn(5), randn(5)
    for op, ref in [(flow.math.equal, np.equal), (flow.math.greater, np.greater), (flow.math.less, np.less),
                    (flow.math.greater_equal, np.greater_equal), (flow.math.not_equal, np.not_equal),
                    (flow.math.less_equal, np.less_equal)]:
        out = run(op, x, y)
        assert out.dtype == np.int8
        np.testing.assert_array_equal(out, ref(x, y).astype(np.int8))
    out = run(flow.math.logical_and, np.array([0, 1, 2], np.int32), np.array([1, 1, 0], np.int32))
    np.testing.assert_array_equal(out, np.array([0, 1, 0], np.int8))


def test_clip_by_value_values_grad_and_aliases():
    x = np.array([-2.0, -0.5, 0.3, 0.9, 3.0], np.float32)
    check_op(lambda a: flow.math.clip_by_value(a, -1.0, 1.0), lambda a: np.clip(a, -1, 1), x)
    check_op(lambda a: flow.clip(a, min_value=0.0), lambda a: np.maximum(a, 0), x)
    check_op(lambda a: flow.clamp(a, max_value=0.5), lambda a: np.minimum(a, 0.5), x)
    ints = np.array([-3, 0, 7], np.int32)
    np.testing.assert_array_equal(run(lambda a: flow.clip_by_value(a, -1.7, 2.2), ints), [-1, 0, 2])
    with expect_error(ValueError, match="min_value and max_value cannot be None"):
        run(lambda a: flow.clip_by_value(a), x)


def test_argmax_last_and_inner_axis_with_names():
    x = randn(2, 3, 4)
    seen = []

    def body(a):
        r1 = flow.math.argmax(a)
        r2 = flow.math.argmax(a, axis=1, name="am")
        seen.extend([r1, r2])
        return r2
    n = next_id()
    out = make_job(body, [x])(x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.argmax(x, axis=1))
    assert lbns(seen) == [f"ArgMax_{n + 1}/out_0", "am_squeeze/out_0"]
    np.testing.assert_array_equal(run(flow.math.argmax, x), np.argmax(x, axis=-1))


def test_argmax_returns_first_of_ties():
    x = np.array([[1, 3, 3, 0]], np.float32)
    np.testing.assert_array_equal(run(flow.math.argmax, x), [1])


def test_top_k_returns_int32_indices_capped_at_axis_size():
    x = np.array([[0.1, 0.9, 0.5, 0.7], [4.0, 1.0, 3.0, 2.0]], np.float32)
    out = run(lambda a: flow.math.top_k(a, k=2), x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[1, 3], [0, 2]])
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, k=10), x).shape, (2, 4))
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, axis=0, k=1), x), [[1, 1, 1, 1]])


def test_in_top_k():
    pred = np.array([[0.1, 0.9, 0.5], [0.8, 0.1, 0.3]], np.float32)
    t = np.array([2, 0], np.int32)
    np.testing.assert_array_equal(run(lambda a, b: flow.math.in_top_k(a, b, 1), t, pred), [0, 1])
    np.testing.assert_array_equal(run(lambda a, b: flow.math.in_top_k(a, b, 2), t, pred), [1, 1])


def test_arithmetic_names_follow_oneflow():
    x, y, s = randn(2, 3), randn(2, 3), randn(1)
    seen = []

    def body(a, b, c):
        outs = [a + b, a + 1, a + c, a * b, a * 2.0, a - b, a / b, flow.math.maximum(a, b), flow.math.pow(a, b),
                flow.math.pow(a, 2)]
        seen.extend(outs)
        return outs[0]
    n = next_id()
    make_job(body, [x, y, s])(x, y, s)
    k = n + 3
    assert lbns(seen) == [f"AddN_{k}/out_0", f"ScalarAdd_{k + 1}/out_0", f"ScalarAddByTensor_{k + 2}/y_0",
                          f"ElementWiseMul_{k + 3}/out_0", f"ScalarMul_{k + 4}/out_0", f"broadcast_sub_{k + 5}/z_0",
                          f"broadcast_div_{k + 6}/z_0", f"broadcast_maximum_{k + 7}/z_0", f"pow_{k + 8}/z_0",
                          f"Pow_{k + 9}/out_0"]


def test_reduce_sum_empty_axis_returns_input():
    x = randn(2, 3)
    seen = []

    def body(a):
        out = flow.math.reduce_sum(a, axis=[])
        seen.append(out)
        return out
    np.testing.assert_allclose(make_job(body, [x])(x), x)
    assert seen[0].op_name.startswith("Input_")


def test_errors_name_op_argument_and_received():
    x = randn(2, 3)
    with expect_error(ValueError, match=r"flow.math.maximum: shapes of x \(2, 3\).*and y \(4,\)"):
        run(lambda a, b: flow.math.maximum(a, b), x, randn(4))
    with expect_error(ValueError, match=r"flow.math.top_k: argument 'k' must be a positive int; received 0"):
        run(lambda a: flow.math.top_k(a, k=0), x)
    with expect_error(ValueError, match=r"flow.math.argmax: argument 'axis' must be an int in \[-2, 2\); "
                                         r"received 5"):
        run(lambda a: flow.math.argmax(a, axis=5), x)
    with expect_error(TypeError, match=r"flow.math.maximum: argument 'x' must be a blob; received list"):
        run(lambda a: math_ops.maximum([1], a), x)
