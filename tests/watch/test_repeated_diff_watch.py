"""``watch_diff`` twice on one blob (or on a loss that is the watched blob itself, as ``flow.cast`` to the
blob's own dtype gives): every handler gets the same gradient, lazy and eager, whatever the order of the
watch calls and the loss."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

W0 = 0.5  # the variable's initial value (an initializer: eager jobs make their variables at the first call)


@pytest.fixture(autouse=True)
def lazy_after() -> Iterator[None]:
    """The eager switch outlives sessions: leave the next test in lazy mode."""
    yield
    flow.clear_default_session()
    flow.enable_eager_execution(False)


def _sgd() -> flow.optimizer.SGD:
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0)


@pytest.mark.parametrize("eager", [False, True])
def test_loss_that_is_the_watched_variable(eager: bool) -> None:
    flow.enable_eager_execution(eager)
    grads: dict[str, np.ndarray] = {}

    @flow.global_function(type="train")
    def job() -> tp.Numpy:
        w = flow.get_variable("w", shape=(2, 3), initializer=flow.constant_initializer(W0))
        loss = flow.cast(w, dtype=flow.float)  # the same blob: no cast op for a matching dtype
        _sgd().minimize(loss)
        flow.watch_diff(w, lambda g: grads.__setitem__("w", np.array(g)))
        flow.watch_diff(loss, lambda g: grads.__setitem__("loss", np.array(g)))
        return loss

    out = job()
    np.testing.assert_array_equal(out, np.full((2, 3), W0, np.float32))
    # d sum(loss) / d w with OneFlow's ones seed
    np.testing.assert_array_equal(grads["w"], np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(grads["loss"], np.ones((2, 3), np.float32))


@pytest.mark.parametrize("eager", [False, True])
def test_an_op_output_watched_twice(eager: bool) -> None:
    flow.enable_eager_execution(eager)
    seen: list[tuple[str, np.ndarray]] = []

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((2, 3))) -> None:
        w = flow.get_variable("w", shape=(2, 3), initializer=flow.constant_initializer(W0))
        y = x * w
        flow.watch_diff(y, lambda g: seen.append(("first", np.array(g))))
        loss = flow.math.reduce_sum(y * y, axis=[1])
        flow.watch_diff(y, lambda g: seen.append(("second", np.array(g))))
        flow.watch_diff(w, lambda g: seen.append(("w", np.array(g))))
        flow.watch_diff(w, lambda g: seen.append(("w again", np.array(g))))
        _sgd().minimize(loss)

    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]], np.float32)
    job(x)
    flow.sync_default_session()  # (a job returning nothing: its handlers run on the delivery thread)
    got = dict(seen)
    assert sorted(got) == ["first", "second", "w", "w again"]
    y = x * W0
    np.testing.assert_allclose(got["first"], 2 * y, rtol=1e-6)  # d sum(y²)/dy
    np.testing.assert_allclose(got["second"], 2 * y, rtol=1e-6)
    np.testing.assert_allclose(got["w"], 2 * y * x, rtol=1e-6)
    np.testing.assert_allclose(got["w again"], 2 * y * x, rtol=1e-6)


def test_a_watched_local_blob_says_whether_it_is_dynamic() -> None:
    # OneFlow's own tests pick numpy_list() or numpy() by the local blob's is_dynamic
    seen: list[tuple[bool, int]] = []

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((4,)), y: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        flow.watch(x, lambda b: seen.append((b.is_dynamic, len(b.numpy_list()))))
        flow.watch(y, lambda b: seen.append((b.is_dynamic, len(b.numpy_list()))))
        return y

    job([np.ones(3, np.float32)], np.ones(2, np.float32))
    assert sorted(seen) == [(False, 1), (True, 1)]
