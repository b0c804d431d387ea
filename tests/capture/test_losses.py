"""Which losses a train job trains on: OneFlow v0.4's ``minimize`` replaces the job's train conf (loss list
included) and then adds its losses; ``losses.add_loss`` appends. Expected values are numpy SGD steps
(momentum 0, w -= lr * d sum(losses) / dw / loss element count)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)


def sgd(lr: float) -> flow.optimizer.SGD:
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0)


def train_once(body) -> np.ndarray:
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((3, 2))) -> None:
        w = flow.get_variable("w", shape=(2, 1), initializer=flow.constant_initializer(1.0))
        body(flow.matmul(x, w), x, w)

    job(X)
    return flow.get_all_variables()["w"].numpy()


def grad_xw() -> np.ndarray:
    return X.sum(axis=0).reshape(2, 1).astype(np.float64)  # d sum(x @ w) / dw


def test_add_loss_then_minimize_counts_the_loss_once() -> None:
    def body(y, x, w):
        flow.losses.add_loss(y)
        sgd(0.1).minimize(y)

    np.testing.assert_allclose(train_once(body), 1.0 - 0.1 * grad_xw() / 3, rtol=1e-6)


def test_minimize_drops_a_different_loss_added_before_it(caplog) -> None:
    def body(y, x, w):
        flow.losses.add_loss(y * 5.0)
        sgd(0.1).minimize(y)

    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        got = train_once(body)
    assert any("replaces the job's loss list" in r.getMessage() for r in caplog.records)
    np.testing.assert_allclose(got, 1.0 - 0.1 * grad_xw() / 3, rtol=1e-6)


def test_add_loss_after_minimize_adds_to_its_losses() -> None:
    def body(y, x, w):
        sgd(0.1).minimize(y)
        flow.losses.add_loss(y * 2.0)

    np.testing.assert_allclose(train_once(body), 1.0 - 0.1 * 3 * grad_xw() / 3, rtol=1e-6)


def test_a_second_minimize_replaces_the_first(caplog) -> None:
    def body(y, x, w):
        sgd(0.1).minimize(y * 7.0)
        sgd(0.5).minimize(y)

    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        got = train_once(body)
    assert any("minimize() was called again" in r.getMessage() for r in caplog.records)
    np.testing.assert_allclose(got, 1.0 - 0.5 * grad_xw() / 3, rtol=1e-6)


def test_minimize_with_a_list_of_losses() -> None:
    def body(y, x, w):
        sgd(0.1).minimize([y, y * 3.0])

    np.testing.assert_allclose(train_once(body), 1.0 - 0.1 * 4 * grad_xw() / 3, rtol=1e-6)


def test_the_same_loss_twice_is_rejected() -> None:
    def body(y, x, w):
        sgd(0.1).minimize([y, y])

    with pytest.raises(RuntimeError, match="added twice"):
        train_once(body)


def test_v01_add_loss_twice_is_rejected_and_once_trains() -> None:
    cfg = flow.FunctionConfig()
    cfg.train.primary_lr(0.1)
    cfg.train.model_update_conf({"naive_conf": {}})

    @flow.global_function(cfg)
    def job(x: tp.Numpy.Placeholder((3, 2))) -> None:
        w = flow.get_variable("w", shape=(2, 1), initializer=flow.constant_initializer(1.0))
        y = flow.matmul(x, w)
        flow.losses.add_loss(y)

    job(X)
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), 1.0 - 0.1 * grad_xw() / 3, rtol=1e-6)
    flow.clear_default_session()

    @flow.global_function(cfg)
    def twice(x: tp.Numpy.Placeholder((3, 2))) -> None:
        w = flow.get_variable("w", shape=(2, 1), initializer=flow.constant_initializer(1.0))
        y = flow.matmul(x, w)
        flow.losses.add_loss(y)
        flow.losses.add_loss(y)

    with pytest.raises(RuntimeError, match="added twice"):
        twice(X)
