"""A Ctrl-C that lands inside a train step is raised after the step, so no variable, optimizer slot or
counter is left half-updated and grad mode stays on."""

from __future__ import annotations

import signal
import sys
import threading

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.optim.sgd import SGD
from flowtorch._src.runtime import interrupts

pytestmark = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                                reason="signals reach the main thread only")


@pytest.fixture(autouse=True)
def sigint_raises(monkeypatch: pytest.MonkeyPatch):
    """SIGINT raises KeyboardInterrupt for the test, even where the process ignores it (a shell starts its
    background jobs with SIGINT ignored); the next step installs flowtorch's handler over it."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(interrupts, "_installed", False)
    monkeypatch.setattr(interrupts, "_previous", None)
    yield
    signal.signal(signal.SIGINT, before)


def _interrupted(fn, at: int) -> bool:
    """Run ``fn`` with a SIGINT raised at its ``at``-th Python call; True if it raised KeyboardInterrupt."""
    left = [at]

    def tracer(frame, event, arg):
        if event == "call":
            left[0] -= 1
            if left[0] == 0:
                signal.raise_signal(signal.SIGINT)
    sys.settrace(tracer)
    try:
        fn()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def _define(eager: bool):
    flow.enable_eager_execution(eager)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w1 = flow.get_variable("w1", shape=(3, 3), initializer=flow.ones_initializer())
        w2 = flow.get_variable("w2", shape=(3, 1), initializer=flow.ones_initializer())
        loss = flow.math.reduce_mean(flow.matmul(flow.matmul(x, w1), w2))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0.9).minimize(loss)
        return loss
    return train


@pytest.mark.parametrize("eager", [False, True])
def test_an_interrupt_inside_the_update_arrives_after_the_whole_step(eager: bool,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)
    try:
        train = _define(eager)
        train(x)
        train(x)  # the reference: the state after two whole steps
        want = {k: v.numpy() for k, v in flow.get_all_variables().items()}
        flow.clear_default_session()
        flow.enable_eager_execution(False)
        train = _define(eager)
        train(x)

        real_update = SGD._update

        def interrupted_update(self, b, lr, step, state):  # Ctrl-C in the middle of the update
            signal.raise_signal(signal.SIGINT)
            real_update(self, b, lr, step, state)
        monkeypatch.setattr(SGD, "_update", interrupted_update)
        with pytest.raises(KeyboardInterrupt):
            train(x)
        monkeypatch.setattr(SGD, "_update", real_update)

        assert torch.is_grad_enabled()
        got = {k: v.numpy() for k, v in flow.get_all_variables().items()}
        assert got.keys() == want.keys()
        for name, value in want.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-6, err_msg=name)
        assert int(got["System-Train-TrainStep-train"][0]) == 2
    finally:
        flow.clear_default_session()
        flow.enable_eager_execution(False)


def test_a_handler_found_at_the_first_step_gets_the_held_signal_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    monkeypatch.setattr(interrupts, "_installed", False)  # as in a fresh process: the next step installs
    monkeypatch.setattr(interrupts, "_previous", None)
    try:
        with interrupts.deferred_interrupts():
            signal.raise_signal(signal.SIGINT)
            with interrupts.deferred_interrupts():  # a job called from inside a step's handler chain
                signal.raise_signal(signal.SIGINT)
            assert calls == []
        assert calls == [signal.SIGINT]  # once, when the outermost step ended
        signal.raise_signal(signal.SIGINT)  # outside steps: passed straight on
        assert calls == [signal.SIGINT, signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, before)


def test_interrupts_at_random_points_of_500_train_steps_never_tear_the_state() -> None:
    """A SIGINT raised at a random Python call inside the job call (input checks, the fx replay, backward
    hooks, the optimizer's update): every interrupted call leaves the state of some whole step."""
    steps = 500
    xs = [np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3) * (1 + (i % 5)) for i in range(steps)]
    train = _define(False)
    snapshots = [{k: v.numpy() for k, v in flow.get_all_variables().items()}]
    for x in xs:
        train(x)
        snapshots.append({k: v.numpy() for k, v in flow.get_all_variables().items()})
    flow.clear_default_session()
    train = _define(False)
    train(xs[0])
    rng = np.random.default_rng(0)
    done, interrupted = 1, 0
    while done < steps:
        interrupted += _interrupted(lambda x=xs[done]: train(x), int(rng.integers(1, 400)))
        assert torch.is_grad_enabled()
        state = {k: v.numpy() for k, v in flow.get_all_variables().items()}
        done = int(state["System-Train-TrainStep-train"][0])
        want = snapshots[done]
        for name, value in want.items():
            np.testing.assert_array_equal(state[name], value, err_msg=f"{name} after {done} steps")
    assert interrupted > 100  # most calls were hit somewhere


def _async_job(kind: str):
    @flow.global_function(type=kind)
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Callback[tp.Numpy]:
        w1 = flow.get_variable("w1", shape=(3, 3), initializer=flow.ones_initializer())
        w2 = flow.get_variable("w2", shape=(3, 1), initializer=flow.ones_initializer())
        out = flow.matmul(flow.matmul(x, w1), w2)
        if kind == "predict":
            return out
        loss = flow.math.reduce_mean(out)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0.9).minimize(loss)
        return loss
    return job


@pytest.mark.parametrize("kind", ["train", "predict"])
@pytest.mark.parametrize("capture", ["eager", "cuda_graph"])  # cuda_graph: the CUDA path through its CPU emulation
@pytest.mark.usefixtures("cpu_device")
def test_interrupts_at_random_points_of_500_async_steps_never_tear_the_state(
        kind: str, capture: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C at a random Python call of ``job(x)(callback)`` (input checks, the launch, the step, the copies,
    the registration): every variable, momentum slot and the counter are those of a whole number of steps,
    grad mode and autocast are as they were, and each registered callback is delivered once."""
    from flowtorch._src.step import graphed
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    monkeypatch.setenv("FLOWTORCH_CAPTURE", capture)
    steps = 500
    xs = [np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3) * (1 + (i % 5)) for i in range(steps)]
    job = _async_job(kind)
    snapshots = [{k: v.numpy() for k, v in flow.get_all_variables().items()}]
    for x in xs:  # the reference: the same job, uninterrupted
        job(x)(lambda v: None)
        flow.sync_default_session()
        snapshots.append({k: v.numpy() for k, v in flow.get_all_variables().items()})
    flow.clear_default_session()
    job = _async_job(kind)
    job(xs[0])(lambda v: None)
    rng = np.random.default_rng(1)
    delivered: list[int] = []
    registered: list[int] = []  # registration returned
    offered: list[int] = []  # registration began (an interrupt may land inside it, before or after it took cb)
    done, interrupted, calls = 1, 0, 0
    while calls < steps and done < steps:
        calls += 1

        def call(i: int = calls, x: np.ndarray = xs[done % steps]) -> None:
            handle = job(x)
            offered.append(i)
            handle(lambda v: delivered.append(i))
            registered.append(i)
        interrupted += _interrupted(call, int(rng.integers(1, 300)))
        flow.sync_default_session()
        assert torch.is_grad_enabled()
        assert not torch.is_autocast_enabled("cpu")
        state = {k: v.numpy() for k, v in flow.get_all_variables().items()}
        if kind == "train":
            done = int(state["System-Train-TrainStep-job"][0])
        want = snapshots[done if kind == "train" else 0]
        for name, value in want.items():
            np.testing.assert_array_equal(state[name], value, err_msg=f"{name} after {done} steps")
    assert interrupted > 100  # most calls were hit somewhere
    assert delivered == sorted(set(delivered))  # once each, in call order
    assert set(registered) <= set(delivered) <= set(offered)
