"""The async pipeline: Callback calls run their step on the caller's thread and return before their delivery,
which runs on the delivery thread exactly once in call order; errors are kept for the caller, memory stays
flat, and interpreter exit never hangs."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def _train(ret: object, lr: float = 0.01):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> ret:  # type: ignore[valid-type]
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.constant_initializer(0.5))
        loss = flow.math.reduce_mean(flow.math.square(flow.matmul(x, w) - 1.0))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0.9).minimize(loss)
        return loss
    return train


def _data(i: int) -> np.ndarray:
    return X * (1.0 + (i % 7) / 7.0)


def test_ten_thousand_callback_steps_arrive_once_in_order_equal_to_sync() -> None:
    n = 10_000
    train = _train(tp.Numpy, lr=1e-4)
    want = [float(train(_data(i))[0]) for i in range(n)]
    want_w = flow.get_all_variables()["w"].numpy()

    flow.clear_default_session()
    train = _train(tp.Callback[tp.Numpy], lr=1e-4)
    got: list[tuple[int, float]] = []
    threads: set[str] = set()
    for i in range(n):
        def cb(loss: tp.Numpy, i: int = i) -> None:
            threads.add(threading.current_thread().name)
            got.append((i, float(loss[0])))
        train(_data(i))(cb)
    flow.sync_default_session()
    assert [i for i, _ in got] == list(range(n))  # each call's callback once, in call order
    np.testing.assert_array_equal([v for _, v in got], want)  # the same numbers as the blocking calls
    np.testing.assert_array_equal(flow.get_all_variables()["w"].numpy(), want_w)
    assert threads == {"flowtorch-delivery"}  # never the caller's


def test_a_callback_call_runs_its_step_on_the_callers_thread_and_returns_before_its_delivery() -> None:
    train = _train(tp.Callback[tp.Numpy])
    job = default_session().jobs["train"]
    gate = threading.Event()
    seen: list[float] = []
    train(X)(lambda v: (gate.wait(10), seen.append(float(v[0]))))  # the delivery thread waits at the gate
    real_step = job.step
    ran: list[str] = []

    def spied(tensors):
        ran.append(threading.current_thread().name)
        return real_step(tensors)
    job.step = spied
    try:
        x = X.copy()
        train(x)(lambda v: seen.append(float(v[0])))
        assert ran == [threading.current_thread().name]  # the step ran here, no hand-off to a worker
        assert seen == []  # the call returned while the first callback is still waiting
        x *= 100.0  # the caller prepares its next data meanwhile, in the same array
        gate.set()
        flow.sync_default_session()
    finally:
        job.step = real_step
    train(X)  # a third step from the original data continues the series
    flow.sync_default_session()
    flow.clear_default_session()
    ref = _train(tp.Numpy)
    want = [float(ref(X)[0]) for _ in range(2)]
    np.testing.assert_allclose(seen, want, rtol=1e-6)  # in call order; the second used x as at its call


def test_in_flight_calls_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWTORCH_MAX_INFLIGHT", "2")
    flow.clear_default_session()
    train = _train(tp.Callback[tp.Numpy])
    release = threading.Event()
    delivered: list[int] = []

    def slow(i: int):
        def cb(_: tp.Numpy) -> None:
            assert release.wait(10)
            delivered.append(i)
        return cb

    train(X)(slow(0))
    train(X)(slow(1))
    third_returned = threading.Event()

    def third() -> None:
        train(X)(slow(2))
        third_returned.set()
    t = threading.Thread(target=third)
    t.start()
    assert not third_returned.wait(0.3)  # two calls in flight: the third call waits for room
    release.set()
    t.join(10)
    assert third_returned.is_set()
    flow.sync_default_session()
    assert delivered == [0, 1, 2]


@pytest.mark.usefixtures("cpu_device")  # an index error on CUDA is a device-side assert
def test_a_step_error_in_an_async_call_is_raised_by_that_call() -> None:
    @flow.global_function()
    def pick(x: tp.Numpy.Placeholder((3,)), i: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Callback[tp.Numpy]:
        return flow.gather(x, i)

    got: list[np.ndarray] = []
    with pytest.raises(IndexError) as info:
        pick(np.arange(3, dtype=np.float32), np.array([7, 0], np.int32))  # index out of range: the step runs here
    assert "job 'pick'" in str(info.value)
    flow.sync_default_session()  # nothing pending: raised once
    pick(np.arange(3, dtype=np.float32), np.array([2, 0], np.int32))(got.append)
    flow.sync_default_session()
    np.testing.assert_array_equal(got[0], [2.0, 0.0])  # the job goes on

    @flow.global_function()
    def old(x=flow.FixedTensorDef((3,)), i=flow.FixedTensorDef((2,), dtype=flow.int32)):
        return flow.gather(x, i)

    with pytest.raises(IndexError):
        old(np.arange(3, dtype=np.float32), np.array([9, 0], np.int32))
    flow.sync_default_session()  # ... and not again
    np.testing.assert_array_equal(old(np.arange(3, dtype=np.float32), np.array([1, 1], np.int32)).get(), [1, 1])


def test_resident_memory_is_flat_after_warm_up() -> None:
    statm = Path("/proc/self/statm")
    if not statm.exists():
        pytest.skip("reads resident memory from /proc")
    page = os.sysconf("SC_PAGE_SIZE")

    def rss() -> int:
        return int(statm.read_text().split()[1]) * page
    train = _train(tp.Callback[tp.Numpy])
    losses: list[float] = []

    for i in range(500):  # warm-up
        train(_data(i))(lambda v: losses.append(float(v[0])))
    flow.sync_default_session()
    before = rss()
    for i in range(4000):
        train(_data(i))(lambda v: losses.append(float(v[0])))
    flow.sync_default_session()
    grown = rss() - before
    assert len(losses) == 4500
    assert grown < 8 * 2**20, f"resident memory grew {grown / 2**20:.1f} MiB over 4000 async steps"


_EXIT_SCRIPT = """
import time, numpy as np, flowtorch as flow, flowtorch.typing as tp

@flow.global_function()
def job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
    return x * 2.0

def stuck(v):
    time.sleep(3600)

for i in range(20):
    job(np.full(2, i, np.float32))(lambda v: print("delivered", int(v[0]) // 2, flush=True))
job(np.zeros(2, np.float32))({stuck})
"""


@pytest.mark.parametrize("stuck", [False, True])
def test_exit_with_work_pending_delivers_it_and_never_hangs(run_py, tmp_path: Path, stuck: bool) -> None:
    """A stuck callback never stops the program where it was registered; at exit, what it left undelivered
    is named after FLOWTORCH_EXIT_TIMEOUT."""
    script = tmp_path / "exit_pending.py"
    script.write_text(_EXIT_SCRIPT.replace("{stuck}", "stuck" if stuck else "lambda v: None"))
    start = time.monotonic()
    proc = run_py(str(script), env={"FLOWTORCH_EXIT_TIMEOUT": "2"}, timeout=120)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [ln for ln in lines if ln.startswith("delivered")] == [f"delivered {i}" for i in range(20)]
    if stuck:
        assert "still pending" in proc.stderr
        assert "the delivery of call 21 of job 'job' was still running" in proc.stderr
        assert elapsed < 60  # the 2 s bound plus start-up, never the callback's hour
    else:
        assert "still pending" not in proc.stderr


def test_a_job_called_from_a_callback_runs_inline_without_deadlock() -> None:
    @flow.global_function()
    def double(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x * 2.0

    @flow.global_function()
    def outer(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x + 1.0

    got: list[np.ndarray] = []
    for i in range(5):
        outer(np.full(2, i, np.float32))(lambda v: got.append(double(v)))
    flow.sync_default_session()
    np.testing.assert_array_equal(np.stack(got), [np.full(2, 2.0 * (i + 1)) for i in range(5)])


def test_a_callback_result_that_is_its_argument_keeps_the_value_at_the_call() -> None:
    @flow.global_function()
    def echo(x: tp.Numpy.Placeholder((4, 3))) -> tp.Callback[tp.Numpy]:
        return flow.reshape(x, (12,))

    gate = threading.Event()
    got: list[np.ndarray] = []
    echo(X)(lambda v: gate.wait(10))  # holds the delivery thread
    x = X.copy()
    echo(x)(got.append)
    x[:] = -7.0  # the caller reuses its array before the result is delivered
    gate.set()
    flow.sync_default_session()
    np.testing.assert_array_equal(got[0], X.reshape(12))
