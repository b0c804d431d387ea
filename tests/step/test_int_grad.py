"""Train jobs with integer losses and integer diff watches (step/int_grad.py): OneFlow's integer gradients,
checked against hand-derived numpy gradients."""

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def sgd(lr=1.0):
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0)


@pytest.mark.parametrize("dtype,np_dtype", [(flow.int32, np.int32), (flow.int64, np.int64), (flow.int8, np.int8)])
def test_integer_loss_gives_integer_gradients_and_trains_the_float_variable(dtype, np_dtype):
    got = {}

    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((3, 4), dtype=dtype)) -> tp.Numpy:
        v = flow.get_variable("v", shape=(1,), initializer=flow.zeros_initializer())
        xi = x + flow.cast(v, dtype)
        out = flow.math.fused_scale_tril(xi, 0, fill_value=5, scale=3)
        flow.watch_diff(xi, lambda g: got.setdefault("dx", g.numpy()))
        flow.watch_diff(out, lambda g: got.setdefault("dout", g.numpy()))
        sgd().minimize(out)
        return out

    x = np.arange(12).reshape(3, 4).astype(np_dtype)
    out = step(x)
    keep = np.tril(np.ones((3, 4), bool))
    assert out.dtype == np_dtype
    np.testing.assert_array_equal(out, np.where(keep, 3 * x, 5))
    assert got["dout"].dtype == np_dtype and got["dx"].dtype == np_dtype
    np.testing.assert_array_equal(got["dout"], np.ones((3, 4)))
    np.testing.assert_array_equal(got["dx"], np.where(keep, 3, 0))
    # v's gradient is the int gradient summed and cast to float; SGD divides by the loss's 12 elements
    np.testing.assert_allclose(flow.get_all_variables()["v"].numpy(), [-3 * keep.sum() / 12])


def test_masked_fill_int8_loss_with_broadcast_mask():
    got = {}

    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((2, 4), dtype=flow.int8),
             mask: tp.Numpy.Placeholder((3, 1, 4), dtype=flow.int8)) -> tp.Numpy:
        v = flow.get_variable("v", shape=(1,), initializer=flow.zeros_initializer())
        xi = x + flow.cast(v, flow.int8)
        out = flow.masked_fill(xi, mask, -5.5)
        flow.watch_diff(xi, lambda g: got.setdefault("dx", g.numpy()))
        sgd().minimize(out)
        return out

    x = np.arange(8, dtype=np.int8).reshape(2, 4)
    mask = np.array([[[1, 0, 0, 1]], [[0, 0, 1, 1]], [[1, 1, 0, 0]]], np.int8)
    out = step(x, mask)
    np.testing.assert_array_equal(out, np.where(mask, np.int8(-5), x))  # the fill value cast to int8
    np.testing.assert_array_equal(got["dx"], (1 - np.broadcast_to(mask, (3, 2, 4))).sum(axis=0))
    assert got["dx"].dtype == np.int8


def test_float_loss_through_an_integer_blob_truncates_its_gradient():
    got = {}

    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((4,), dtype=flow.int32)) -> tp.Numpy:
        v = flow.get_variable("v", shape=(4,), initializer=flow.zeros_initializer())
        xi = x + flow.cast(v, flow.int32)
        flow.watch_diff(xi, lambda g: got.setdefault("dx", g.numpy()))
        loss = flow.cast(xi, flow.float32) * 2.5
        sgd(4.0).minimize(loss)
        return loss

    np.testing.assert_allclose(step(np.arange(4, dtype=np.int32)), 2.5 * np.arange(4))
    # OneFlow holds the int blob's gradient as int32: 2.5 truncates to 2, which is what v receives
    np.testing.assert_array_equal(got["dx"], [2, 2, 2, 2])
    np.testing.assert_allclose(flow.get_all_variables()["v"].numpy(), [-2.0] * 4)


def test_integer_loss_without_a_path_to_variables_keeps_integer_values_returned():
    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((2, 2), dtype=flow.int32)) -> tp.Numpy:
        v = flow.get_variable("v", shape=(2, 2), initializer=flow.zeros_initializer())
        loss = flow.math.tril(x * 7 + flow.cast(v, flow.int32), 0)
        sgd().minimize(loss)
        return loss

    x = np.array([[1, 2], [3, 4]], np.int32)
    out = step(x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[7, 0], [21, 28]])


def test_float_loss_through_a_cast_to_int_trains_without_watches():
    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(3,), initializer=flow.zeros_initializer())
        loss = flow.cast(flow.cast(x + v, flow.int64) * 3, flow.float32)
        sgd(3.0).minimize(loss)
        return loss

    np.testing.assert_allclose(step(np.array([1.7, -2.2, 0.5], np.float32)), [3.0, -6.0, 0.0])
    np.testing.assert_allclose(flow.get_all_variables()["v"].numpy(), [-3.0] * 3)


def test_jobs_without_integer_gradients_keep_the_plain_graph(monkeypatch):
    from flowtorch._src.step import int_grad
    made = []
    real = int_grad.runner
    monkeypatch.setattr(int_grad, "runner", lambda built: made.append(real(built)) or made[-1])

    @flow.global_function(type="train")
    def step(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(3,), initializer=flow.zeros_initializer())
        labels = flow.cast(x, flow.int32)  # an input cast to int: no gradient can flow there
        loss = (x + v) * flow.cast(labels, flow.float32)
        sgd().minimize(loss)
        return loss

    step(np.ones(3, np.float32))
    assert made == [None]
