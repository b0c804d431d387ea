"""The execution pipeline: job steps run in call order, their results and watched values are delivered
in call order, and nothing is lost.

    async call (tp.Callback, old future, no result)
        └─ Executor.submit(Ticket) ─► worker thread: ticket.run() = the step + copies to the host
                                      └─► delivery thread: deliver() = watch handlers, result, callback
    blocking call (tp.Numpy, ...)
        └─ Executor.run_inline(fn): waits until the pipeline is empty, runs the step on the caller's thread

One worker and one delivery thread per session, started by the first async call (importing starts no
thread). At most ``max_inflight`` async calls are in the pipeline (a call blocks while it is full), which
bounds memory and the age of a callback's value. Steps never overlap: the worker and inline runs hold
``step_lock``. An exception raised by a step, a watch handler or a callback is kept and re-raised, with
its traceback, by :meth:`raise_pending` (the next job call, ``sync_default_session()``).

A job called from a callback or handler runs inline at once (it is on a pipeline thread, which must not
wait for the pipeline). OneFlow ran lazy jobs the same way: launched in order by the runtime, their
callbacks fired by one callback thread (``python/framework/session_util.py``, ``LaunchJob`` and
``AsyncPush``/``AsyncPull``).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flowtorch._src.errors import add_note

log = logging.getLogger("flowtorch")

T = TypeVar("T")

DEFAULT_MAX_INFLIGHT = 4


@dataclass
class Ticket:
    """One async call: ``run`` does the step on the worker and returns what the delivery thread calls;
    ``fail`` gets the step's exception instead (and returns the delivery of that failure)."""

    job: str
    run: Callable[[], Callable[[], None]]
    fail: Callable[[BaseException], Callable[[], None]]


class Executor:
    """Runs one session's steps in call order and delivers their results in the same order."""

    def __init__(self, max_inflight: int = DEFAULT_MAX_INFLIGHT) -> None:
        if max_inflight < 1:
            raise ValueError(f"max_inflight must be >= 1; received {max_inflight}")
        self.max_inflight = max_inflight
        self.step_lock = threading.RLock()
        # Guards the queues, the counts and the errors. Taken as a plain lock (C-level enter and exit) where
        # nothing waits: a KeyboardInterrupt can land at the start of any Python-level call, such as
        # Condition.__exit__, and would leave the lock held.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)  # callers wait here for room or for the pipeline to empty
        self._work_ready = threading.Condition(self._lock)
        self._delivery_ready = threading.Condition(self._lock)
        self._steps: collections.deque[Ticket] = collections.deque()
        self._deliveries: collections.deque[Callable[[], None]] = collections.deque()
        self._busy = 0  # submitted, not yet delivered
        self._errors: list[BaseException] = []
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._local = threading.local()

    # --- calls -----------------------------------------------------------------------------------
    def in_pipeline(self) -> bool:
        """True on the worker or delivery thread (a job called from a callback or handler)."""
        return getattr(self._local, "pipeline", False)

    def submit(self, ticket: Ticket) -> None:
        """Enqueue an async call; blocks while ``max_inflight`` calls are in the pipeline."""
        with self._lock:
            if self._closed:
                raise AssertionError(f"job {ticket.job!r} was called after its session was closed")
            while self._busy >= self.max_inflight:
                self._cond.wait()
            self._busy += 1
            self._steps.append(ticket)
            if not self._threads:
                self._start()
            self._work_ready.notify()

    def run_inline(self, fn: Callable[[], T]) -> T:
        """Run a blocking call's step on this thread, after every call launched before it."""
        if not self.in_pipeline():
            self.wait_idle()
        with self.step_lock:
            return fn()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every submitted call is delivered; False if ``timeout`` ran out first. From a pipeline
        thread it returns at once (the pipeline cannot wait for itself)."""
        if self.in_pipeline():
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._busy:  # (an int read; blocking-only programs never wait on the condition)
            self._wait_for_empty(deadline)
        with self.step_lock:  # a blocking call running on another thread finishes too
            return not self._busy

    def _wait_for_empty(self, deadline: float | None) -> None:
        with self._lock:
            while self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return
                self._cond.wait(left)

    # --- errors ----------------------------------------------------------------------------------
    def record_error(self, exc: BaseException) -> None:
        with self._lock:
            self._errors.append(exc)

    def forget_error(self, exc: BaseException) -> None:
        """An error already raised to the caller (a future's ``get()``) is not raised again."""
        with self._lock:
            self._errors = [e for e in self._errors if e is not exc]

    def raise_pending(self) -> None:
        with self._lock:
            if not self._errors:
                return
            first, rest, self._errors = self._errors[0], self._errors[1:], []
        if rest:
            add_note(first, f"({len(rest)} later error(s) of the same session were dropped: "
                     + "; ".join(f"{type(e).__name__}: {e}" for e in rest[:3]) + ")")
        raise first

    # --- shutdown --------------------------------------------------------------------------------
    def close(self, timeout: float | None = None) -> bool:
        """Deliver what is pending (up to ``timeout`` seconds), then refuse new calls."""
        done = self.wait_idle(timeout)
        with self._lock:
            self._closed = True
            if done:
                self._work_ready.notify_all()
                self._delivery_ready.notify_all()
        if done and not self.in_pipeline():
            # Idle threads end now, not during interpreter finalization (where torch's thread-local
            # teardown racing the exit aborts the process).
            for thread in self._threads:
                thread.join(1.0)
        return done

    # --- threads ---------------------------------------------------------------------------------
    def _start(self) -> None:
        # Daemon threads: interpreter exit never waits on a stuck callback (the atexit drain is bounded).
        for target, name in ((self._work, "flowtorch-executor"), (self._deliver, "flowtorch-delivery")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _next(self, queue: collections.deque[Any], ready: threading.Condition) -> Any:
        with self._lock:
            while not queue:
                if self._closed:
                    return None
                ready.wait()
            return queue.popleft()

    def _work(self) -> None:
        self._local.pipeline = True
        while (ticket := self._next(self._steps, self._work_ready)) is not None:
            try:
                with self.step_lock:
                    deliver = ticket.run()
            except BaseException as exc:  # kept for the caller, the pipeline goes on
                deliver = ticket.fail(exc)
            with self._lock:
                self._deliveries.append(deliver)
                self._delivery_ready.notify()

    def _deliver(self) -> None:
        self._local.pipeline = True
        while (deliver := self._next(self._deliveries, self._delivery_ready)) is not None:
            try:
                deliver()
            except BaseException as exc:  # re-raised at the next call or sync
                self.record_error(exc)
            finally:
                with self._lock:
                    self._busy -= 1
                    self._cond.notify_all()
