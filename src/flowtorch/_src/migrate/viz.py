"""``flow.watch.to_tensorboard(writer, tag)``: a watch handler that logs each watched value to TensorBoard.

The handler runs on the training side: it copies the value and queues it. One background thread per
writer takes the queue and writes, for step = the handler's call count for ``tag`` (or ``step()``):

* a value with more than one element: the histogram ``{tag}`` and the scalars ``{tag}/norm`` (L2 norm),
  ``{tag}/mean``, ``{tag}/min``, ``{tag}/max`` and ``{tag}/zeros`` (the fraction of elements equal to 0);
* a single-element value (a loss's mean): the scalar ``{tag}``.

A write that fails in the background is re-raised by the next handler call for that writer, by
``flush()``/``close()``, or by ``flow.sync_default_session()``, which (like interpreter exit) flushes every
writer's queue. tensorboard is only imported when a writer is made from a log directory.
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from flowtorch._src import session
from flowtorch._src.capture.typing_defs import Numpy
from flowtorch._src.dist import group
from flowtorch._src.package import extra_hint

log = logging.getLogger("flowtorch")

STATS = ("norm", "mean", "min", "max", "zeros")
"""The scalar statistics written under ``{tag}/<stat>`` for every value with more than one element."""

MAX_PENDING = 256
"""Values queued per writer before a handler call waits for the background thread (bounded memory)."""

VIZ_EXTRA = extra_hint("viz")


def require(module: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import an optional dependency of the ``viz`` extra, or raise an ImportError that names the package that
    is missing (``package``, e.g. tensorboard for ``torch.utils.tensorboard``; else ``module``'s top level) and
    the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{purpose} needs {package or module.split('.')[0]!r}, which is not installed: "
                          f"{VIZ_EXTRA} (tensorboard and matplotlib)") from exc


def value_stats(array: np.ndarray) -> dict[str, float]:
    """The ``STATS`` of a non-empty array, computed in float64."""
    flat = np.asarray(array, dtype=np.float64).ravel()
    return {"norm": float(np.linalg.norm(flat)), "mean": float(flat.mean()), "min": float(flat.min()),
            "max": float(flat.max()), "zeros": float(np.count_nonzero(flat == 0)) / flat.size}


@dataclass
class _Record:
    tag: str
    step: int
    array: np.ndarray


@dataclass
class _Barrier:
    """Flush the writer once everything queued before it is written; ``close`` also ends the thread."""
    close: bool
    done: threading.Event = field(default_factory=threading.Event)


class _Worker:
    """One writer's queue, its background thread, its per-tag step counters and its first error."""

    def __init__(self, writer: Any, owned: bool, key: object) -> None:
        self.writer = writer
        self.owned = owned  # made here from a log directory: closed with the worker
        self.key = key
        self.closed = False
        self._queue: queue.Queue[_Record | _Barrier] = queue.Queue(MAX_PENDING)
        self._lock = threading.Lock()
        self._steps: dict[str, int] = {}
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def next_step(self, tag: str) -> int:
        with self._lock:
            step = self._steps.get(tag, 0)
            self._steps[tag] = step + 1
            return step

    def put(self, item: _Record | _Barrier, timeout: float | None = None) -> None:
        with self._lock:
            if self.closed:
                raise RuntimeError(f"flow.watch.to_tensorboard: the writer {self.writer!r} was closed "
                                   "(handler.close()); make a new handler to log again")
            if isinstance(item, _Barrier) and item.close:
                self.closed = True
            if self._thread is None:
                # A daemon: exit never waits on a stuck writer (the exit flush is bounded instead).
                self._thread = threading.Thread(target=self._run, name="flowtorch-tensorboard", daemon=True)
                self._thread.start()
        try:
            self._queue.put(item, timeout=timeout)
        except queue.Full:
            raise TimeoutError(f"flow.watch.to_tensorboard: the writer {self.writer!r} has had {MAX_PENDING} values "
                               f"queued for {timeout} s") from None

    def take_error(self) -> BaseException | None:
        with self._lock:
            error, self._error = self._error, None
        return error

    def raise_pending(self) -> None:
        error = self.take_error()
        if error is not None:
            raise error

    def wait(self, barrier: _Barrier, timeout: float | None) -> None:
        if not barrier.done.wait(timeout):
            raise TimeoutError(f"flow.watch.to_tensorboard: the writer {self.writer!r} did not finish its queued "
                               f"writes within {timeout} s")
        self.raise_pending()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if isinstance(item, _Record):
                    self._write(item)
                else:
                    self.writer.flush()
                    if item.close and self.owned:
                        self.writer.close()
            except BaseException as exc:  # kept and re-raised on the training side
                self._keep(item, exc)
            if isinstance(item, _Barrier):
                item.done.set()
                if item.close:
                    return

    def _write(self, record: _Record) -> None:
        tag, step, array = record.tag, record.step, record.array
        if array.size == 1:
            self.writer.add_scalar(tag, float(array.reshape(())), step)
            return
        for name, value in value_stats(array).items():
            self.writer.add_scalar(f"{tag}/{name}", value, step)
        values = array.astype(np.float64, copy=False)  # also bool and int arrays
        finite = values[np.isfinite(values)]
        if finite.size:  # a histogram's range must be finite; the scalars above already show inf/nan
            self.writer.add_histogram(tag, finite, step, bins="tensorflow")

    def _keep(self, item: _Record | _Barrier, exc: BaseException) -> None:
        what = f"writing {item.tag!r} step {item.step}" if isinstance(item, _Record) else "flushing"
        error = RuntimeError(f"flow.watch.to_tensorboard: {what} to {self.writer!r} failed in the background: "
                             f"{type(exc).__name__}: {exc}")
        error.__cause__ = exc
        with self._lock:
            if self._error is None:
                self._error = error
                return
        log.error("%s (an earlier error is still pending)", error)


_WORKERS: dict[object, _Worker] = {}
_REGISTRY_LOCK = threading.Lock()


def _writer_key(writer: Any) -> object:
    """What identifies a writer object or a log directory; a TypeError for anything else."""
    if isinstance(writer, (str, os.PathLike)):
        return ("logdir", os.path.abspath(os.fspath(writer)))
    missing = [m for m in ("add_scalar", "add_histogram", "flush") if not callable(getattr(writer, m, None))]
    if missing:
        raise TypeError("flow.watch.to_tensorboard: writer must be a torch.utils.tensorboard.SummaryWriter "
                        f"(or an object with add_scalar, add_histogram and flush) or a log directory path; "
                        f"received {type(writer).__name__} {writer!r}, which lacks {', '.join(missing)}")
    return ("writer", id(writer))  # the worker keeps the writer alive, so its id stays unique


def _worker_for(writer: Any, key: object) -> _Worker:
    """The worker of a writer object or log directory (one per writer, shared by all its handlers)."""
    with _REGISTRY_LOCK:
        worker = _WORKERS.get(key)
        if worker is None or worker.closed:
            if isinstance(writer, (str, os.PathLike)):
                tb = require("torch.utils.tensorboard", "flow.watch.to_tensorboard with a log directory",
                             package="tensorboard")
                worker = _Worker(tb.SummaryWriter(log_dir=os.fspath(writer)), owned=True, key=key)
            else:
                worker = _Worker(writer, owned=False, key=key)
            session.on_sync(flush_all)  # once: on_sync ignores a hook it has
            _WORKERS[key] = worker
        return worker


def flush_all(timeout: float | None = None) -> None:
    """Flush every writer's queue (``flow.sync_default_session()`` and interpreter exit call this); then
    raise the first background error. With a ``timeout``, a writer still busy after it raises TimeoutError."""
    with _REGISTRY_LOCK:
        workers = [w for w in _WORKERS.values() if not w.closed]
    barriers = []
    for worker in workers:
        barrier = _Barrier(close=False)
        barriers.append(barrier)
        try:
            worker.put(barrier, timeout)
        except (RuntimeError, TimeoutError) as exc:  # closed meanwhile, or stuck
            barrier.done.set()
            log.error("%s", exc)
    first: BaseException | None = None
    for worker, barrier in zip(workers, barriers):
        try:
            worker.wait(barrier, timeout)
        except (RuntimeError, TimeoutError) as exc:
            if first is None:
                first = exc
            else:
                log.error("%s", exc)
    if first is not None:
        raise first


class TensorBoardHandler:
    """The watch handler :func:`to_tensorboard` returns: ``handler(value)`` copies the value and queues it.
    Without a worker (ranks other than 0 of a ``--nproc`` run) it writes nothing."""

    def __init__(self, worker: _Worker | None, tag: str, step: Callable[[], int] | None) -> None:
        self._worker = worker
        self.tag = tag
        self._step = step

    @property
    def writer(self) -> Any:
        return None if self._worker is None else self._worker.writer

    def __call__(self, value: Numpy) -> None:
        if self._worker is None:
            return
        # An error of an earlier write is raised after this value is queued, so the value is not lost.
        pending = self._worker.take_error()
        try:
            array = _copied_array(value, self.tag)
            step = self._worker.next_step(self.tag) if self._step is None else _checked_step(self._step(), self.tag)
            if array.size:
                self._worker.put(_Record(self.tag, step, array))
            else:
                log.debug("flow.watch.to_tensorboard(%r): the empty value of step %d is not logged", self.tag, step)
        finally:
            if pending is not None:
                raise pending

    def flush(self, timeout: float | None = None) -> None:
        """Wait until everything queued for this handler's writer is written and flushed; raise its error."""
        if self._worker is None:
            return
        barrier = _Barrier(close=False)
        self._worker.put(barrier)
        self._worker.wait(barrier, timeout)

    def close(self, timeout: float | None = None) -> None:
        """Flush, stop the writer's thread and close the writer if it was made from a log directory. Every
        handler of that writer is closed with it."""
        if self._worker is None:
            return
        if self._worker.closed:
            self._worker.raise_pending()
            return
        barrier = _Barrier(close=True)
        self._worker.put(barrier)
        with _REGISTRY_LOCK:
            if _WORKERS.get(self._worker.key) is self._worker:
                del _WORKERS[self._worker.key]
        self._worker.wait(barrier, timeout)

    def __repr__(self) -> str:
        return f"to_tensorboard({self.writer!r}, {self.tag!r})"


def _copied_array(value: Any, tag: str) -> np.ndarray:
    # A copy: a watched array may live in a pooled transfer buffer that the next step overwrites.
    if not isinstance(value, np.ndarray) and callable(getattr(value, "numpy", None)):
        value = value.numpy()  # a LocalBlob, or a CPU torch tensor called by hand
    array = np.array(value, copy=True)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"flow.watch.to_tensorboard({tag!r}): expected a real numeric array or number; received "
                        f"{type(value).__name__} of dtype {array.dtype}")
    return array


def _checked_step(step: Any, tag: str) -> int:
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
        raise TypeError(f"flow.watch.to_tensorboard({tag!r}): step() must return an int; it returned {step!r}")
    return int(step)


def to_tensorboard(writer: Any, tag: str, *, step: Callable[[], int] | None = None) -> TensorBoardHandler:
    """A watch handler logging each value it gets to TensorBoard, off the training thread.

    ``writer``: a ``torch.utils.tensorboard.SummaryWriter`` (or a log directory: a writer is made there and
    shared by every handler given the same directory). ``tag``: the name of the histogram and the prefix of
    the ``{tag}/norm|mean|min|max|zeros`` scalars. ``step``: called at each value for its step number;
    by default the number of values this writer has had for ``tag`` before (0, 1, 2, …).

    Under ``python -m flowtorch --nproc N`` only rank 0 writes (every rank's handler sees the same values).

    ``flow.watch(h, flow.watch.to_tensorboard(writer, "h"))`` logs activations, ``flow.watch_diff(h, …)``
    their gradients; ``handler(loss.mean())`` logs a loss returned by a job.
    """
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"flow.watch.to_tensorboard: tag must be a non-empty str; received {tag!r}")
    if step is not None and not callable(step):
        raise TypeError(f"flow.watch.to_tensorboard({tag!r}): step must be None or a callable returning the step "
                        f"number; received {step!r}")
    key = _writer_key(writer)
    if group.env_world()[0] != 0:  # every rank sees the same whole values: rank 0 records them once
        return TensorBoardHandler(None, tag, step)
    return TensorBoardHandler(_worker_for(writer, key), tag, step)
