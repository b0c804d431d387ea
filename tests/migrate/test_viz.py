"""flow.watch.to_tensorboard: what lands in the event files, the background writer, its errors (issue 13)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate.viz import TensorBoardHandler

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
SummaryWriter = pytest.importorskip("torch.utils.tensorboard").SummaryWriter

STEPS = 3


@pytest.fixture
def closing() -> Iterator[list[TensorBoardHandler]]:
    """Handlers appended here are closed after the test (their writer threads are process-wide)."""
    handlers: list[TensorBoardHandler] = []
    yield handlers
    for handler in handlers:
        try:
            handler.close(timeout=10)
        except RuntimeError:  # an error a test provoked on purpose
            pass


def _dense_train_job(act_handler, grad_handler, seen: dict[str, list[np.ndarray]]):
    """A train job with one dense layer; its activation and gradient go to the handlers and to ``seen``."""
    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        h = flow.layers.dense(x, 5, activation=flow.nn.relu, name="d1",
                              kernel_initializer=flow.random_normal_initializer(stddev=1.0, seed=1))
        flow.watch(h, act_handler)
        flow.watch(h, lambda v: seen["h"].append(np.array(v)))
        flow.watch_diff(h, grad_handler)
        flow.watch_diff(h, lambda g: seen["h_grad"].append(np.array(g)))
        loss = flow.math.reduce_mean(h * h + 0.5 * h)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss
    return job


def _inputs(step: int) -> np.ndarray:
    return np.random.default_rng(step).normal(size=(4, 3)).astype(np.float32)


def _read(logdir: Path):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    return acc


def _numpy_stats(a: np.ndarray) -> dict[str, float]:
    a = a.astype(np.float64)
    return {"norm": np.sqrt(np.sum(a * a)), "mean": a.mean(), "min": a.min(), "max": a.max(),
            "zeros": np.mean(a == 0)}


def test_events_parse_back_with_numpy_statistics(tmp_path: Path, closing: list[TensorBoardHandler]) -> None:
    writer = SummaryWriter(str(tmp_path))
    act, grad = flow.watch.to_tensorboard(writer, "h"), flow.watch.to_tensorboard(writer, "h_grad")
    closing += [act, grad]
    seen: dict[str, list[np.ndarray]] = {"h": [], "h_grad": []}
    job = _dense_train_job(act, grad, seen)
    for step in range(STEPS):
        job(_inputs(step))
    flow.sync_default_session()  # flushes the writer's queue and the writer
    acc = _read(tmp_path)
    tags = acc.Tags()
    assert sorted(tags["histograms"]) == ["h", "h_grad"]
    assert sorted(tags["scalars"]) == sorted(f"{t}/{s}" for t in ("h", "h_grad")
                                             for s in ("norm", "mean", "min", "max", "zeros"))
    for tag in ("h", "h_grad"):
        assert len(seen[tag]) == STEPS
        assert any(np.any(a != 0) for a in seen[tag])  # the job is not trivial
        for stat in ("norm", "mean", "min", "max", "zeros"):
            events = acc.Scalars(f"{tag}/{stat}")
            assert [e.step for e in events] == list(range(STEPS))
            expected = [_numpy_stats(a)[stat] for a in seen[tag]]
            np.testing.assert_allclose([e.value for e in events], expected, rtol=1e-6, atol=1e-7)
        histograms = acc.Histograms(tag)
        assert [e.step for e in histograms] == list(range(STEPS))
        for event, array in zip(histograms, seen[tag]):
            h = event.histogram_value
            assert h.num == array.size == sum(h.bucket)
            assert (h.min, h.max) == (pytest.approx(array.min()), pytest.approx(array.max()))
            assert h.sum == pytest.approx(float(array.astype(np.float64).sum()), abs=1e-5)


def test_a_single_element_is_a_plain_scalar_and_nan_stays_out_of_the_histogram(
        tmp_path: Path, closing: list[TensorBoardHandler]) -> None:
    loss = flow.watch.to_tensorboard(str(tmp_path), "loss")  # a log directory: the writer is made here
    values = flow.watch.to_tensorboard(str(tmp_path), "v")
    closing += [loss, values]
    assert values.writer is loss.writer  # one writer per directory
    for x in (2.5, np.float32(1.25), np.array([[0.75]])):
        loss(x)
    values(np.array([1.0, np.nan, 0.0, 3.0], np.float32))
    flags = flow.watch.to_tensorboard(str(tmp_path), "flags")
    flags(np.array([True, False, True, True]))
    loss.flush()
    acc = _read(tmp_path)
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(0, 2.5), (1, 1.25), (2, 0.75)]
    assert "loss" not in acc.Tags()["histograms"]
    assert np.isnan(acc.Scalars("v/mean")[0].value)
    assert acc.Scalars("v/zeros")[0].value == 0.25
    h = acc.Histograms("v")[0].histogram_value
    assert (h.num, h.min, h.max, h.sum) == (3, 0.0, 3.0, 4.0)
    flags = [acc.Scalars(f"flags/{s}")[0].value for s in ("norm", "mean", "zeros")]
    assert flags == [np.float32(np.sqrt(3)), 0.75, 0.25]
    assert acc.Histograms("flags")[0].histogram_value.sum == 3


def test_step_callable_numbers_the_values(tmp_path: Path, closing: list[TensorBoardHandler]) -> None:
    steps = iter([10, 20, 35])
    handler = flow.watch.to_tensorboard(str(tmp_path), "x", step=lambda: next(steps))
    closing.append(handler)
    for v in (1.0, 2.0, 3.0):
        handler(np.float64(v))
    handler.flush()
    assert [(e.step, e.value) for e in _read(tmp_path).Scalars("x")] == [(10, 1.0), (20, 2.0), (35, 3.0)]


class BlockingWriter:
    """A writer whose add_scalar waits for ``release`` (and says when it was first entered)."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.scalars: list[tuple[str, float, int]] = []
        self.histograms: list[tuple[str, int]] = []
        self.flushes = 0

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        self.entered.set()
        assert self.release.wait(30)
        self.scalars.append((tag, value, step))

    def add_histogram(self, tag: str, values: np.ndarray, step: int, bins: str) -> None:
        self.histograms.append((tag, step))

    def flush(self) -> None:
        self.flushes += 1


def test_the_handler_returns_before_the_write(closing: list[TensorBoardHandler]) -> None:
    writer = BlockingWriter()
    act, grad = flow.watch.to_tensorboard(writer, "h"), flow.watch.to_tensorboard(writer, "h_grad")
    closing += [act, grad]
    seen: dict[str, list[np.ndarray]] = {"h": [], "h_grad": []}
    job = _dense_train_job(act, grad, seen)
    try:
        job(_inputs(0))  # a blocking call: its handlers have run when it returns, the writes have not
        assert writer.entered.wait(10) and writer.scalars == [] and len(seen["h"]) == 1
        flusher = threading.Thread(target=act.flush)
        flusher.start()
        flusher.join(0.5)
        assert flusher.is_alive()  # flush waits for the blocked writes
    finally:
        writer.release.set()
    flusher.join(10)
    assert not flusher.is_alive()
    assert writer.flushes == 1
    assert [(t, s) for t, _, s in writer.scalars] == [(f"{tag}/{stat}", 0) for tag in ("h", "h_grad")
                                                       for stat in ("norm", "mean", "min", "max", "zeros")]
    assert writer.histograms == [("h", 0), ("h_grad", 0)]
    assert writer.scalars[1][1] == pytest.approx(seen["h"][0].mean())
    job(_inputs(1))
    flow.sync_default_session()  # the session's sync flushes every writer
    assert writer.flushes == 2 and len(writer.scalars) == 20


class FailingWriter(BlockingWriter):
    """Step 0's histogram waits for ``gate``, then fails; step 1's first scalar blocks until released."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def add_scalar(self, tag: str, value: float, step: int) -> None:
        if step == 1:
            super().add_scalar(tag, value, step)
        else:
            self.scalars.append((tag, value, step))

    def add_histogram(self, tag: str, values: np.ndarray, step: int, bins: str) -> None:
        if step == 0:
            assert self.gate.wait(30)
            raise OSError("disk full")
        super().add_histogram(tag, values, step, bins)


def test_a_background_error_is_raised_at_the_next_call_and_at_flush(closing: list[TensorBoardHandler]) -> None:
    writer = FailingWriter()
    handler = flow.watch.to_tensorboard(writer, "h")
    closing.append(handler)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        flow.watch(x, handler)
        return x

    try:
        job(np.ones((2, 3), np.float32))  # step 0: its histogram will fail in the background
        job(np.ones((2, 3), np.float32))  # step 1: queued while step 0 is still being written
        writer.gate.set()
        assert writer.entered.wait(10)  # the writer blocks in step 1, so step 0's error is kept by now
        job(np.ones((2, 3), np.float32))  # its handler raises step 0's error: the next call comes out with it
        with pytest.raises(flow.CallbackError,
                           match=r"writing 'h' step 0 .* failed in the background: OSError: disk full") as info:
            job(np.ones((2, 3), np.float32))  # (refused: nothing of it happens)
        assert isinstance(info.value.__cause__, RuntimeError)
    finally:
        writer.gate.set()
        writer.release.set()
    handler.flush()  # the error was raised once; steps 1 and 2 were written
    assert writer.histograms == [("h", 1), ("h", 2)]

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError("gone")
    writer.add_histogram = fail  # every write fails from now on
    handler(np.ones(3))
    with pytest.raises(RuntimeError, match="OSError: gone"):
        handler.flush()
    handler(np.ones(3))
    with pytest.raises(RuntimeError, match="OSError: gone"):
        flow.sync_default_session()


def test_close_ends_the_writer_and_later_calls_say_so(tmp_path: Path) -> None:
    handler = flow.watch.to_tensorboard(tmp_path, "x")
    handler(1.0)
    handler.close()
    assert [e.value for e in _read(tmp_path).Scalars("x")] == [1.0]
    with pytest.raises(RuntimeError, match="was closed"):
        handler(2.0)
    again = flow.watch.to_tensorboard(tmp_path, "x")  # a new writer for the directory
    assert again.writer is not handler.writer
    again.close()


def test_bad_arguments_are_named(tmp_path: Path, closing: list[TensorBoardHandler]) -> None:
    with pytest.raises(TypeError, match="writer must be a torch.utils.tensorboard.SummaryWriter.*lacks add_scalar"):
        flow.watch.to_tensorboard(object(), "h")
    with pytest.raises(TypeError, match="tag must be a non-empty str; received ''"):
        flow.watch.to_tensorboard(tmp_path, "")
    with pytest.raises(TypeError, match="step must be None or a callable"):
        flow.watch.to_tensorboard(tmp_path, "h", step=3)
    handler = flow.watch.to_tensorboard(tmp_path, "h", step=lambda: "one")
    closing.append(handler)
    with pytest.raises(TypeError, match=r"step\(\) must return an int; it returned 'one'"):
        handler(1.0)
    with pytest.raises(TypeError, match="expected a real numeric array or number; received ndarray of dtype <U1"):
        flow.watch.to_tensorboard(tmp_path, "s")(np.array(["a"]))


def test_without_tensorboard_the_error_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "torch.utils.tensorboard", None)
    with pytest.raises(ImportError, match=r"^flow\.watch\.to_tensorboard with a log directory needs 'tensorboard', "
                                          r'which is not installed: pip install "flowtorch-oneflow\[viz\]"'):
        flow.watch.to_tensorboard(tmp_path / "run", "h")


def test_watch_is_unchanged_and_importing_stays_light(run_py) -> None:
    from flowtorch._src.watch import api
    assert flow.watch is api.watch and flow.watch.__name__ == "watch"
    code = ("import sys, flowtorch as flow; flow.watch.to_tensorboard; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tensorboard', 'matplotlib')))")
    proc = run_py("-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_interpreter_exit_flushes_values_of_async_calls(tmp_path: Path, run_py) -> None:
    # A job returning nothing runs async: its handlers run on the pipeline's thread, after the call returns;
    # the exit drains the pipeline, then flushes the writers.
    script = f"""
import numpy as np
import flowtorch as flow
import flowtorch.typing as tp

@flow.global_function()
def job(x: tp.Numpy.Placeholder((3,))) -> None:
    flow.watch(x, flow.watch.to_tensorboard({str(tmp_path)!r}, "x"))

for i in range(3):
    job(np.full((3,), i, np.float32))
"""
    proc = run_py("-c", script)
    assert proc.returncode == 0, proc.stderr
    assert [(e.step, e.value) for e in _read(tmp_path).Scalars("x/mean")] == [(0, 0.0), (1, 1.0), (2, 2.0)]


def test_only_rank_0_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    handler = flow.watch.to_tensorboard(tmp_path / "run", "x")
    handler(np.ones(3))
    handler.flush()
    handler.close()
    assert handler.writer is None and not (tmp_path / "run").exists()
