"""``blob % blob`` (flow.math.mod: floor modulo, the result takes the divisor's sign) and integer division
(truncated toward zero, as C++ divides), against numpy."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, run

import flowtorch as flow

rng = np.random.default_rng(3)


@pytest.mark.parametrize("xs,ys", [((4, 3), (4, 3)), ((4, 3), (1, 3)), ((4, 3), (4, 1)), ((2, 5, 3), (5, 1))])
def test_float_mod_operator_broadcasts_like_numpy(xs, ys):
    x = rng.uniform(-20, 20, xs).astype(np.float32)
    y = rng.uniform(0.5, 4, ys).astype(np.float32) * rng.choice([-1, 1], ys).astype(np.float32)
    out = run(lambda a, b: a % b, x, y)
    np.testing.assert_allclose(out, np.mod(x, y), rtol=1e-6, atol=1e-6)
    assert np.all((out == 0) | (np.sign(out) == np.sign(np.broadcast_to(y, out.shape))))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_mod_takes_the_divisor_sign(dtype):
    x = rng.integers(-100, 100, (6, 4)).astype(dtype)
    y = rng.integers(1, 9, (1, 4)).astype(dtype) * rng.choice([-1, 1], (1, 4)).astype(dtype)
    out = run(lambda a, b: flow.math.mod(a, b), x, y)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.mod(x, y))


def test_mod_gradient_is_one_for_x():
    x = rng.uniform(0.2, 9, (3, 4)).astype(np.float32)
    y = np.full((3, 4), 2.5, np.float32)
    # away from the jumps of x mod y, d/dx is 1
    x = np.where(np.abs(np.mod(x, 2.5) - 1.25) > 1.2, x + 0.1, x).astype(np.float32)
    check_op(lambda a, b: a % b, lambda a, b: np.mod(a, b), x, y)


def test_mod_names_and_scalar_refusal():
    seen = []

    def body(a, b):
        out = a % b
        seen.append(out)
        return out
    x = np.ones((2, 2), np.float32)
    make_job(body, (x, x))(x, x)
    assert lbns(seen)[0].startswith("broadcast_floor_mod_") and lbns(seen)[0].endswith("/z_0")
    with expect_error(NotImplementedError, match="flow.math.mod"):
        run(lambda a: a % 2.0, x)
    with expect_error(NotImplementedError, match="flow.math.mod"):
        run(lambda a: 2.0 % a, x)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
@pytest.mark.parametrize("yshape", [(1,), (3, 4)])
def test_integer_divide_truncates_toward_zero(dtype, yshape):
    x = rng.integers(-100, 100, (3, 4)).astype(dtype)
    y = (rng.integers(1, 9, yshape) * rng.choice([-1, 1], yshape)).astype(dtype)
    out = run(lambda a, b: flow.math.divide(a, b), x, y)
    assert out.dtype == dtype
    expected = (np.abs(x.astype(np.int64)) // np.abs(y.astype(np.int64))) * np.sign(x) * np.sign(y)
    np.testing.assert_array_equal(out, expected.astype(dtype))


def test_float_divide_by_one_element_blob_is_true_division():
    x = rng.uniform(-5, 5, (3, 4)).astype(np.float32)
    y = np.array([3.0], np.float32)
    check_op(lambda a, b: a / b, lambda a, b: a / b, x, y)
