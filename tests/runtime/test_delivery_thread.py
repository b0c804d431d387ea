"""Callbacks and watch handlers of async calls run on the delivery thread, as OneFlow's ran on its runtime's
callback thread: one that waits never holds up the caller (within the in-flight bound), and one that raises
never raises into the call that registered it."""

from __future__ import annotations

import queue
import threading
import time

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def _train(ret: object, watch=None):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> ret:  # type: ignore[valid-type]
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.constant_initializer(0.5))
        out = flow.matmul(x, w)
        if watch is not None:
            flow.watch(out, watch)
        loss = flow.math.reduce_mean(flow.math.square(out - 1.0))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0.9).minimize(loss)
        return loss
    return train


def _steps() -> int:
    """The train-step counter, read without a sync (``flow.get_all_variables`` would wait for the callbacks)."""
    return int(default_session().variables["System-Train-TrainStep-train"].tensor[0])


def test_callbacks_and_watch_handlers_of_async_calls_run_off_the_callers_thread() -> None:
    threads: list[str] = []
    train = _train(tp.Callback[tp.Numpy], watch=lambda v: threads.append("handler " + threading.current_thread().name))
    for _ in range(50):
        train(X)(lambda v: threads.append("callback " + threading.current_thread().name))
    flow.sync_default_session()
    assert threads == ["handler flowtorch-delivery", "callback flowtorch-delivery"] * 50  # in call order


def test_a_callback_that_waits_forever_leaves_the_callers_loop_running() -> None:
    gate = threading.Event()  # never set while the loop runs
    delivered: list[int] = []
    train = _train(tp.Callback[tp.Numpy])
    train(X)(lambda v: (gate.wait(), delivered.append(0)))
    start = time.monotonic()
    for i in range(1, 20):  # (within the in-flight bound, 32 on the CPU)
        train(X)(lambda v, i=i: delivered.append(i))
    looped = time.monotonic() - start
    assert delivered == [] and _steps() == 20  # every step ran; no callback could run behind the stuck one
    assert looped < 30
    gate.set()
    flow.sync_default_session()
    assert delivered == list(range(20))


def test_a_callback_handing_off_to_a_bounded_queue_the_loop_drains_later_never_deadlocks() -> None:
    """The hand-off that stalled the loop for good when callbacks ran on the caller: the callback blocks on a
    full queue until the loop drains it, every 5 calls."""
    handoff: queue.Queue[float] = queue.Queue(maxsize=2)
    train = _train(tp.Callback[tp.Numpy])
    drained: list[float] = []
    for i in range(40):
        train(X)(lambda v: handoff.put(float(v.item())))
        if i % 5 == 4:
            while len(drained) < i - 1:  # the callbacks of all but the last two calls have put theirs by now
                drained.append(handoff.get(timeout=30))
    while len(drained) < 40:
        drained.append(handoff.get(timeout=30))
    flow.sync_default_session()
    assert len(drained) == 40 and all(b < a for a, b in zip(drained, drained[1:]))  # 40 steps, in order


def test_an_error_pending_at_clear_default_session_is_raised_there() -> None:
    train = _train(tp.Callback[tp.Numpy])

    def bad(v: tp.Numpy) -> None:
        raise ValueError("callback failed")
    train(X)(bad)
    with pytest.raises(flow.CallbackError, match="call 1 of job 'train'") as info:
        flow.clear_default_session()
    assert isinstance(info.value.__cause__, ValueError)
    train = _train(tp.Numpy)  # the new session is fresh and works
    assert np.isfinite(train(X)).all()
    flow.sync_default_session()


def test_a_blocking_calls_own_handler_error_comes_from_the_next_call_which_it_refuses() -> None:
    seen: list[int] = []

    def handler(v: tp.Numpy) -> None:
        seen.append(len(seen))
        if len(seen) == 2:
            raise AssertionError("handler check failed")
    train = _train(tp.Numpy, watch=handler)
    train(X)
    loss = train(X)  # its handler raises: the call returns its result all the same (its step ran)
    assert np.isfinite(loss).all() and _steps() == 2
    with pytest.raises(flow.CallbackError, match="the watch handler of .* of call 2 of job 'train'"):
        train(X)  # refused: nothing of it happened
    assert _steps() == 2 and seen == [0, 1]
    train(X)
    assert _steps() == 3


def test_a_callback_registered_after_its_value_was_delivered_runs_on_the_delivery_thread_in_order() -> None:
    train = _train(tp.Callback[tp.Numpy])
    order: list[tuple[int, str]] = []
    late = train(X)
    flow.sync_default_session()  # delivered: no callback yet
    late(lambda v: order.append((1, threading.current_thread().name)))
    train(X)(lambda v: order.append((2, threading.current_thread().name)))
    flow.sync_default_session()
    assert order == [(1, "flowtorch-delivery"), (2, "flowtorch-delivery")]


@pytest.fixture
def step_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Async steps off the caller's thread, as ``FLOWTORCH_STEP_THREAD=auto`` picks where torch's threads leave
    a core idle."""
    monkeypatch.setenv("FLOWTORCH_STEP_THREAD", "worker")
    flow.clear_default_session()


@pytest.mark.usefixtures("step_thread")
def test_off_the_caller_a_callback_call_returns_before_its_step_and_keeps_the_arrays_of_its_call() -> None:
    train = _train(tp.Callback[tp.Numpy])
    train(X)(lambda v: None)
    flow.sync_default_session()
    job = default_session().jobs["train"]
    gate = threading.Event()
    real_step = job.step
    ran: list[str] = []

    def held(tensors):
        ran.append(threading.current_thread().name)
        assert gate.wait(30)
        return real_step(tensors)
    job.step = held
    got: list[float] = []
    try:
        x = X.copy()
        train(x)(lambda v: got.append(float(v.item())))  # returns while its step waits at the gate
        x *= 100.0  # the caller prepares its next batch in the same array
        assert got == [] and _steps() == 1
        gate.set()
        train(X)(lambda v: got.append(float(v.item())))
        flow.sync_default_session()
    finally:
        job.step = real_step
    assert ran == ["flowtorch-step"] * 2 and _steps() == 3
    flow.clear_default_session()
    ref = _train(tp.Numpy)
    want = [float(ref(X).item()) for _ in range(3)][1:]
    np.testing.assert_array_equal(got, want)  # each step saw its call's values, in call order


def _interleaved() -> tuple[list[float], list[np.ndarray]]:
    """60 async train steps, a blocking predict call of the same variable after every 10th."""
    train = _train(tp.Callback[tp.Numpy])

    @flow.global_function()
    def weights() -> tp.Numpy:
        return flow.get_variable("w", shape=(3, 2), initializer=flow.constant_initializer(0.5))
    losses: list[float] = []
    seen: list[np.ndarray] = []
    for i in range(60):
        train(X * (1 + i % 5))(lambda v: losses.append(float(v.item())))
        if i % 10 == 9:
            seen.append(weights())  # runs after the 10 steps launched before it
    flow.sync_default_session()
    return losses, seen


def test_off_the_caller_steps_equal_the_callers_and_a_blocking_call_waits_for_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWTORCH_STEP_THREAD", "caller")
    flow.clear_default_session()
    want_losses, want_seen = _interleaved()
    monkeypatch.setenv("FLOWTORCH_STEP_THREAD", "worker")
    flow.clear_default_session()
    losses, seen = _interleaved()
    assert default_session().step_thread == "worker" and _steps() == 60
    np.testing.assert_array_equal(losses, want_losses)
    np.testing.assert_array_equal(np.stack(seen), np.stack(want_seen))


@pytest.mark.usefixtures("step_thread")
def test_off_the_caller_a_failed_step_is_raised_by_the_next_call_which_it_refuses() -> None:
    @flow.global_function()
    def pick(x: tp.Numpy.Placeholder((3,)), i: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Callback[tp.Numpy]:
        return flow.gather(x, i)

    got: list[np.ndarray] = []
    pick(np.arange(3, dtype=np.float32), np.array([7, 0], np.int32))(got.append)  # fails on the step thread
    default_session().executor.wait_idle()
    with pytest.raises(IndexError, match="job 'pick'") as info:
        pick(np.arange(3, dtype=np.float32), np.array([2, 0], np.int32))(got.append)
    assert "call 1 of job 'pick'" in "\n".join(getattr(info.value, "__notes__", []))
    pick(np.arange(3, dtype=np.float32), np.array([2, 0], np.int32))(got.append)
    flow.sync_default_session()
    assert len(got) == 1
    np.testing.assert_array_equal(got[0], [2.0, 0.0])
