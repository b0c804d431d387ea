"""flow.watch / flow.watch_diff: handler forms, timing, OneFlow's skip rules, errors (spec §3)."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def _sgd(loss, lr: float = 0.1, momentum: float = 0.0) -> None:
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=momentum).minimize(loss)


def test_handler_annotation_picks_what_it_receives() -> None:
    got: dict[str, object] = {}

    def as_numpy(v: tp.Numpy) -> None:
        got["numpy"] = v

    def as_list(v: tp.ListNumpy) -> None:
        got["list"] = v

    def as_list_list(v: tp.ListListNumpy) -> None:
        got["list_list"] = v

    def as_blob(v) -> None:
        got["blob"] = v

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2))) -> None:
        y = flow.nn.relu(x)
        for h in (as_numpy, as_list, as_list_list, as_blob):
            flow.watch(y, h)

    x = np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32)
    job(x)
    flow.sync_default_session()
    expected = np.maximum(x, 0)
    assert isinstance(got["numpy"], np.ndarray)
    np.testing.assert_array_equal(got["numpy"], expected)
    np.testing.assert_array_equal(got["list"][0], expected)
    np.testing.assert_array_equal(got["list_list"][0][0], expected)
    np.testing.assert_array_equal(got["blob"].numpy(), expected)
    np.testing.assert_array_equal(got["blob"].numpy_list()[0], expected)


def test_prompt_or_none_prints_the_value(capsys: pytest.CaptureFixture[str]) -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,))) -> None:
        flow.watch(x, "the input:")
        flow.watch(x * 2.0)

    job(np.array([1.0, 2.0, 3.0], np.float32))  # returns nothing: it runs async, as in OneFlow
    flow.sync_default_session()
    out = capsys.readouterr().out.splitlines()
    assert out == ["the input:", "[1. 2. 3.]", "[2. 4. 6.]"]


def test_watch_fires_once_per_call_with_that_steps_value_and_before_the_call_returns() -> None:
    seen: list[float] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        y = x * 3.0
        flow.watch(y, lambda v: seen.append(float(v.numpy()[0])))
        return y

    for i in range(4):
        job(np.array([i], np.float32))
        assert len(seen) == i + 1  # a blocking call returns after its handlers ran
    assert seen == [0.0, 3.0, 6.0, 9.0]


def test_watch_on_a_variable_in_a_train_job_sees_the_pre_update_value() -> None:
    seen: list[np.ndarray] = []

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        w = flow.get_variable("w_watch", shape=(4,), initializer=flow.constant_initializer(1.0))
        flow.watch(w, lambda v: seen.append(v.numpy()))
        loss = x * w
        _sgd(loss, lr=0.5)
        return w

    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    returned = [train(x) for _ in range(3)]
    # d sum(x*w)/dw = x; OneFlow divides by the loss's 4 elements: w -= 0.5 * x / 4 per step.
    expected = [np.ones(4, np.float32) - k * 0.5 * x / 4 for k in range(3)]
    for got, ret, exp in zip(seen, returned, expected):
        np.testing.assert_allclose(got, exp, rtol=1e-6)
        np.testing.assert_allclose(ret, exp, rtol=1e-6)


def test_watch_diff_is_the_raw_gradient_with_a_ones_seed() -> None:
    # OneFlow's test_watch_diff: the loss is a (10,) variable, its diff is ones (not 1/10).
    grads: list[np.ndarray] = []

    @flow.global_function(type="train")
    def train() -> tp.Numpy:
        v = flow.get_variable("v_diff", shape=(10,), initializer=flow.random_uniform_initializer())
        flow.watch_diff(v, lambda g: grads.append(g.numpy()))
        _sgd(v)
        return v

    train()
    np.testing.assert_array_equal(grads[0], np.ones(10, np.float32))


def test_op_test_pattern_input_gradient_through_a_zero_variable() -> None:
    grads: list[np.ndarray] = []

    def handler(g: tp.Numpy) -> None:
        grads.append(g)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        zero = flow.get_variable("zero_x", shape=(3, 4), initializer=flow.zeros_initializer())
        x = x + zero
        flow.watch_diff(x, handler)
        w = flow.constant(2.0, shape=(4, 2))
        loss = flow.math.reduce_sum(flow.nn.relu(flow.matmul(x, w)), axis=1)
        _sgd(loss)
        return loss

    x = np.array([[1, -2, 3, 0.5], [-1, -1, -1, -1], [0, 1, 0, 1]], np.float32)
    train(x)
    active = (x @ np.full((4, 2), 2.0) > 0).astype(np.float32)  # (3, 2)
    np.testing.assert_allclose(grads[0], active @ np.full((2, 4), 2.0), rtol=1e-6)


def test_watch_diff_skip_rules() -> None:
    calls: dict[str, int] = {"input": 0, "frozen": 0, "off_path": 0, "predict": 0, "on_path": 0}

    def count(key: str):
        def handler(_g) -> None:
            calls[key] += 1
        return handler

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        frozen = flow.get_variable("frozen_w", shape=(2,), initializer=flow.ones_initializer(), trainable=False)
        w = flow.get_variable("live_w", shape=(2,), initializer=flow.ones_initializer())
        h = x * w
        off_path = w * 5.0  # downstream of a trainable variable, but the loss does not use it
        flow.watch_diff(x, count("input"))
        flow.watch_diff(frozen, count("frozen"))
        flow.watch_diff(off_path, count("off_path"))
        flow.watch_diff(h, count("on_path"))
        loss = h * frozen
        _sgd(loss)
        return loss

    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        w = flow.get_variable("live_w", shape=(2,), initializer=flow.ones_initializer())
        y = x * w
        flow.watch_diff(y, count("predict"))
        return y

    for _ in range(2):
        train(np.ones(2, np.float32))
        predict(np.ones(2, np.float32))
    assert calls == {"input": 0, "frozen": 0, "off_path": 0, "predict": 0, "on_path": 2}


def test_raising_handler_reaches_the_caller_with_its_traceback() -> None:
    def bad(v: tp.Numpy) -> None:
        raise ZeroDivisionError("handler exploded")

    seen = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.watch(x, bad)
        flow.watch(x, lambda v: seen.append(v.numpy()))

    job(np.ones(1, np.float32))  # returns nothing: it runs async, its handlers on the delivery thread
    with pytest.raises(flow.CallbackError, match="the watch handler of Input_.* of call 1 of job 'job'") as info:
        flow.sync_default_session()
    flow.sync_default_session()  # (once)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert any(tb.name == "bad" for tb in traceback.extract_tb(info.value.__cause__.__traceback__))
    assert len(seen) == 1  # the other handler still got its value


@pytest.mark.parametrize("handler, exc, text", [
    (lambda a, b: None, AssertionError, "watch callback should accept only one parameter"),
    ("x_int", NotImplementedError, "invalid watch callback paremeter annotation"),
    (42, TypeError, "must be a callable, a str or None"),
])
def test_bad_handlers_are_rejected_at_build(handler: object, exc: type[BaseException], text: str) -> None:
    if handler == "x_int":
        def handler(v: int) -> None:
            pass

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.watch(x, handler)

    with pytest.raises(exc, match=text):
        job(np.ones(1, np.float32))


def test_typed_numpy_handler_on_a_dynamic_blob_is_rejected() -> None:
    def h(v: tp.Numpy) -> None:
        pass

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((3,))) -> None:
        flow.watch(x, h)

    with pytest.raises(AssertionError, match="only fixed shaped blob"):
        job([np.ones(2, np.float32)])


def test_watch_outside_a_job_and_on_a_non_blob() -> None:
    with pytest.raises(RuntimeError, match="flow.watch can only be used inside"):
        flow.watch(np.ones(1), print)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.watch(np.ones(1), print)

    with pytest.raises(TypeError, match="first argument must be a blob"):
        job(np.ones(1, np.float32))
