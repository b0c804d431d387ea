"""Gradient cases OneFlow's op suite leans on: floordiv's zero gradient (OneFlow's FloordivFunctor), a
product with a non-trainable operand, and a ``watch_diff`` tap placed after its blob was already used."""

from __future__ import annotations

import numpy as np

import flowtorch as flow
import flowtorch.typing as tp


def _sgd() -> flow.optimizer.SGD:
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0]))


def test_floordiv_values_and_zero_gradients() -> None:
    grads: dict[str, np.ndarray] = {}
    x = np.array([7.5, -3.2, 4.0], np.float32)
    y = np.array([2.0, 1.5, -3.0], np.float32)

    @flow.global_function(type="train")
    def job(xi: tp.Numpy.Placeholder((3,)), yi: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        xv = xi + flow.get_variable("xv", shape=(3,), initializer=flow.zeros_initializer())
        yv = yi + flow.get_variable("yv", shape=(3,), initializer=flow.zeros_initializer())
        flow.watch_diff(xv, lambda g: grads.setdefault("x", g.numpy()))
        flow.watch_diff(yv, lambda g: grads.setdefault("y", g.numpy()))
        z = flow.math.floordiv(xv, yv)
        _sgd().minimize(flow.math.reduce_sum(z))
        return z

    np.testing.assert_array_equal(job(x, y), np.floor(x / y))
    np.testing.assert_array_equal(grads["x"], np.zeros(3, np.float32))
    np.testing.assert_array_equal(grads["y"], np.zeros(3, np.float32))


def test_multiply_by_a_non_trainable_operand_and_a_late_tap() -> None:
    grads: dict[str, np.ndarray] = {}
    rng = np.random.default_rng(3)
    x, y = rng.random((2, 3), np.float32), rng.random((2, 3), np.float32)

    @flow.global_function(type="train")
    def job(xi: tp.Numpy.Placeholder((2, 3)), yi: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        xv = xi + flow.get_variable("xv", shape=(2, 3), initializer=flow.zeros_initializer())
        frozen = flow.get_variable("frozen", shape=(2, 3), initializer=flow.ones_initializer(), trainable=False)
        out = flow.math.multiply(xv, yi * frozen)
        flow.watch_diff(xv, lambda g: grads.setdefault("x", g.numpy()))  # after xv was used
        flow.watch_diff(out, lambda g: grads.setdefault("out", g.numpy()))
        _sgd().minimize(flow.math.reduce_sum(out * 2.0))
        return out

    np.testing.assert_allclose(job(x, y), x * y, rtol=1e-6)
    np.testing.assert_allclose(grads["x"], 2.0 * y, rtol=1e-6)
    np.testing.assert_allclose(grads["out"], np.full((2, 3), 2.0, np.float32))
