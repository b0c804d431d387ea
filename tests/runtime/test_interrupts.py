"""An interrupt that lands inside a train step (a Ctrl-C, or the KeyboardInterrupt a program's SIGALRM handler
raises) comes out after the step, so no variable, optimizer slot or counter is left half-updated and grad
mode stays on."""

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
def sigint_raises():
    """SIGINT raises KeyboardInterrupt for the test, even where the process ignores it (a shell starts its
    background jobs with SIGINT ignored); SIGALRM's handler raises KeyboardInterrupt too, as a notebook's
    timer or a kernel's own interrupt handler may."""
    def alarm(signum, frame):
        raise KeyboardInterrupt("from SIGALRM")
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    before_alarm = signal.signal(signal.SIGALRM, alarm)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGINT, before)
    signal.signal(signal.SIGALRM, before_alarm)


def _interrupted(fn, at: int, signum: int = signal.SIGINT) -> bool:
    """Run ``fn`` with ``signum`` raised at its ``at``-th Python call; True if it raised KeyboardInterrupt."""
    left = [at]

    def tracer(frame, event, arg):
        if event == "call":
            left[0] -= 1
            if left[0] == 0:
                signal.raise_signal(signum)
    sys.settrace(tracer)
    try:
        fn()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def _python_calls(fn) -> int:
    """How many Python calls ``fn()`` makes (the range an interrupt point is drawn from)."""
    count = [0]

    def tracer(frame, event, arg):
        if event == "call":
            count[0] += 1
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count[0]


def _optimizer(name: str):
    rate = flow.optimizer.PiecewiseConstantScheduler([], [0.01])
    if name == "adam":
        return flow.optimizer.Adam(rate, do_bias_correction=True)
    return flow.optimizer.SGD(rate, momentum=0.9)


def _define(eager: bool, opt: str = "momentum", ret=tp.Numpy):
    flow.enable_eager_execution(eager)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> ret:
        w1 = flow.get_variable("w1", shape=(3, 3), initializer=flow.ones_initializer())
        w2 = flow.get_variable("w2", shape=(3, 1), initializer=flow.ones_initializer())
        loss = flow.math.reduce_mean(flow.matmul(flow.matmul(x, w1), w2))
        _optimizer(opt).minimize(loss)
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


def test_handlers_installed_before_and_after_the_first_step_are_held() -> None:
    calls: list[int] = []
    before = signal.signal(signal.SIGUSR1, lambda signum, frame: calls.append(signum))
    try:
        with interrupts.deferred_interrupts():  # (the first step installs the trampoline, if none did)
            signal.raise_signal(signal.SIGUSR1)
            signal.signal(signal.SIGUSR2, lambda signum, frame: calls.append(signum))  # installed during a step
            signal.raise_signal(signal.SIGUSR2)
            with interrupts.deferred_interrupts():  # a job called from inside a step's handler chain
                signal.raise_signal(signal.SIGUSR1)
            assert calls == []
        assert calls == [signal.SIGUSR1, signal.SIGUSR2, signal.SIGUSR1]  # when the outermost step ended, in order
        signal.raise_signal(signal.SIGUSR2)  # outside steps: passed straight on
        assert calls[-1] == signal.SIGUSR2 and len(calls) == 4
        assert signal.getsignal(signal.SIGUSR1) is not interrupts._trampoline  # the program sees its own handler
    finally:
        signal.signal(signal.SIGUSR1, before)
        signal.signal(signal.SIGUSR2, signal.SIG_DFL)


def test_a_second_ctrl_c_during_one_step_interrupts_at_once() -> None:
    with pytest.raises(KeyboardInterrupt):
        with interrupts.deferred_interrupts():
            signal.raise_signal(signal.SIGINT)  # held
            try:
                signal.raise_signal(signal.SIGINT)  # the user insists: passed on now
            except KeyboardInterrupt:
                passed_on = True
            else:
                passed_on = False
    assert passed_on  # and the held one came out at the end


def test_a_train_step_sets_its_own_grad_mode_and_autocast() -> None:
    x = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)
    train = _define(False)
    train(x)
    want = train(x)
    flow.clear_default_session()
    train = _define(False)
    train(x)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):  # the caller's modes do not leak in
        got = train(x)
    assert torch.is_autocast_enabled("cpu") is False and torch.is_grad_enabled()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    assert int(flow.get_all_variables()["System-Train-TrainStep-train"].numpy()[0]) == 2


@pytest.mark.parametrize("ret", [tp.Numpy, tp.Callback[tp.Numpy]])
def test_a_predict_step_keeps_the_callers_autocast_region_out(ret) -> None:
    """A plain predict step (no mixed precision of its own) runs in float32 even when called inside the caller's
    autocast region, and leaves the caller's modes as they were."""
    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((4, 3))) -> ret:
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.random_uniform_initializer())
        return flow.matmul(x, w)
    x = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3) / 3
    got: list[np.ndarray] = []
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = predict(x)
        if ret is tp.Numpy:
            got.append(out)
        else:
            out(got.append)
            flow.sync_default_session()
        assert torch.is_autocast_enabled("cpu")
    assert torch.is_grad_enabled()
    w = flow.get_all_variables()["w"].numpy()
    assert got[0].dtype == np.float32
    np.testing.assert_allclose(got[0], x @ w, rtol=1e-6)  # (bfloat16 would miss by ~1e-3)


def _snapshots(train, xs, blocking: bool) -> list[dict[str, np.ndarray]]:
    """The state after each of ``len(xs)`` uninterrupted steps (the reference)."""
    snapshots = [{k: v.numpy() for k, v in flow.get_all_variables().items()}]
    for x in xs:
        if blocking:
            train(x)
        else:
            train(x)(lambda v: None)
            flow.sync_default_session()
        snapshots.append({k: v.numpy() for k, v in flow.get_all_variables().items()})
    return snapshots


@pytest.mark.parametrize(("signum", "opt", "blocking", "capture"), [
    (signal.SIGINT, "momentum", True, "eager"), (signal.SIGALRM, "momentum", True, "eager"),
    (signal.SIGALRM, "adam", True, "eager"), (signal.SIGALRM, "momentum", False, "eager"),
    (signal.SIGALRM, "adam", False, "eager"), (signal.SIGALRM, "adam", False, "cuda_graph"),
    (signal.SIGALRM, "momentum", True, "cuda_graph")])
@pytest.mark.usefixtures("cpu_device")  # cuda_graph: the CUDA path through its CPU emulation
def test_interrupts_at_random_points_of_500_train_steps_never_tear_the_state(
        signum: int, opt: str, blocking: bool, capture: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt (Ctrl-C, or raised by a SIGALRM handler) at a random Python call inside the job call
    (input checks, the fx replay, backward hooks, the optimizer's update, the launch): every interrupted call
    leaves every variable, optimizer slot and the counter as after some whole step, and grad mode on."""
    from flowtorch._src.step import graphed
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    monkeypatch.setenv("FLOWTORCH_CAPTURE", capture)
    steps = 500
    xs = [np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3) * (1 + (i % 5)) for i in range(steps)]
    ret = tp.Numpy if blocking else tp.Callback[tp.Numpy]
    train = _define(False, opt, ret)
    snapshots = _snapshots(train, xs, blocking)
    flow.clear_default_session()
    train = _define(False, opt, ret)
    _snapshots(train, xs[:1], blocking)
    rng = np.random.default_rng(0)
    done, interrupted = 1, 0

    def call(x: np.ndarray) -> None:
        if blocking:
            train(x)
        else:
            train(x)(lambda v: None)
    while done < steps:
        interrupted += _interrupted(lambda x=xs[done]: call(x), int(rng.integers(1, 400)), signum)
        flow.sync_default_session()
        assert torch.is_grad_enabled()
        state = {k: v.numpy() for k, v in flow.get_all_variables().items()}
        done = int(state["System-Train-TrainStep-train"][0])
        want = snapshots[done]
        assert state.keys() == want.keys()
        for name, value in want.items():
            np.testing.assert_array_equal(state[name], value, err_msg=f"{name} after {done} steps")
    assert interrupted > 100  # most calls were hit somewhere


def test_a_timer_interrupting_a_training_loop_never_tears_the_state() -> None:
    """A real interval timer (SIGALRM at random moments, its handler raising KeyboardInterrupt) over a loop of
    blocking Adam steps: after each interrupt the state is that of a whole number of steps."""
    steps = 120
    xs = [np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3) * (1 + (i % 5)) for i in range(steps)]
    train = _define(False, "adam")
    snapshots = _snapshots(train, xs, True)
    flow.clear_default_session()
    train = _define(False, "adam")
    train(xs[0])
    rng = np.random.default_rng(2)
    done, interrupted = 1, 0
    while done < steps:
        try:  # (the timer fires once: inside this block, or never)
            signal.setitimer(signal.ITIMER_REAL, float(rng.uniform(1e-5, 3e-3)))
            while done < steps:
                train(xs[done])
                done += 1
            signal.setitimer(signal.ITIMER_REAL, 0)
        except KeyboardInterrupt:
            interrupted += 1
        assert torch.is_grad_enabled()
        state = {k: v.numpy() for k, v in flow.get_all_variables().items()}
        done = int(state["System-Train-TrainStep-train"][0])
        for name, value in snapshots[done].items():
            np.testing.assert_array_equal(state[name], value, err_msg=f"{name} after {done} steps")
    assert interrupted > 10


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
    span = _python_calls(lambda: job(xs[0])(lambda v: None)) + 5  # (+5: some points land after the call)
    flow.sync_default_session()
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
        interrupted += _interrupted(call, int(rng.integers(1, span)))
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
