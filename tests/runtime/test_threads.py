"""Job calls from several threads run whole, one after another; a result is the value at its call."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.step import graphed


def _define_train(body_runs: list[int], ret: object = tp.Numpy):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> ret:  # type: ignore[valid-type]
        body_runs.append(1)
        w = flow.get_variable("w", shape=(3, 1), initializer=flow.ones_initializer())
        loss = flow.math.reduce_mean(flow.math.square(flow.matmul(x, w)))
        opt = flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.001]), momentum=0.9)
        opt.minimize(loss)
        return loss
    return train


@pytest.mark.parametrize("capture", ["eager", "cuda_graph"])
@pytest.mark.parametrize("ret", ["sync", "callback"])
def test_four_threads_calling_one_train_job_equal_the_same_calls_in_sequence(
        ret: str, capture: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWTORCH_CAPTURE", capture)
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)  # on CPU the graph is emulated
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    sequential_runs: list[int] = []
    train = _define_train(sequential_runs)
    expected = sorted(float(train(x)[0]) for _ in range(40))
    final_w = flow.get_all_variables()["w"].numpy()

    flow.clear_default_session()
    body_runs: list[int] = []
    train = _define_train(body_runs, tp.Numpy if ret == "sync" else tp.Callback[tp.Numpy])
    got: list[float] = []
    start = threading.Barrier(4)

    def worker() -> None:
        start.wait()  # the very first call races too
        for _ in range(10):
            if ret == "sync":
                got.append(float(train(x)[0]))
            else:
                train(x)(lambda v: got.append(float(v[0])))
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    flow.sync_default_session()

    assert len(body_runs) == 1  # one build, whoever won
    variables = flow.get_all_variables()
    assert int(variables["System-Train-TrainStep-train"].numpy()[0]) == 40
    np.testing.assert_allclose(sorted(got), expected, rtol=1e-6)
    np.testing.assert_allclose(variables["w"].numpy(), final_w, rtol=1e-6)


def test_futures_and_callbacks_hold_the_value_at_their_call() -> None:
    @flow.global_function()
    def read() -> tp.Callback[tp.Numpy]:
        return flow.get_variable("v", shape=(2,), initializer=flow.zeros_initializer())

    @flow.global_function()
    def read_old():
        return flow.get_variable("v", shape=(2,), initializer=flow.zeros_initializer())

    @flow.global_function(type="train")
    def bump() -> tp.Numpy:
        v = flow.get_variable("v", shape=(2,), initializer=flow.zeros_initializer())
        loss = flow.math.reduce_sum(v * -1.0)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1.0])).minimize(loss)
        return loss

    pending = read()
    future = read_old()
    bump()  # v becomes [1, 1] after both calls
    seen: list[np.ndarray] = []
    pending(seen.append)  # registered after its value was delivered: it runs on the delivery thread
    flow.sync_default_session()
    np.testing.assert_array_equal(seen[0], [0.0, 0.0])
    np.testing.assert_array_equal(future.get().numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(flow.get_all_variables()["v"].numpy(), [1.0, 1.0])
