"""The execution pipeline: steps run on the caller's thread in call order; their results, watched values
and callbacks are delivered in the same order, each exactly once, by one delivery thread.

    async call (tp.Callback, old future, no result)
        └─ the caller's thread: wait for room, then launch = the step (on CUDA: enqueued on the stream)
           + the copies of its results to the host ─► Executor.enqueue(delivery)
                                                     └─► delivery thread: wait for the copy, run the
                                                         watch handlers, set the result, the callback
    blocking call (tp.Numpy, ...)
        └─ the caller's thread: the step, then Executor.wait_idle() (earlier deliveries first), then its
           own watch handlers and result

There is no per-step thread hand-off: on CUDA the stream is the queue (the step returns once its kernels
and copies are enqueued) and on the CPU the step would take the cores a worker thread would use anyway.
One delivery thread per session, started by the first async call (importing starts no thread). At most
``max_inflight`` async calls are launched and not yet delivered (a call waits while it is full), which
bounds pinned memory and the age of a callback's value. Steps never overlap: launches hold ``step_lock``.

Errors: a step's error is raised by its own call (it runs there). An exception raised by a watch handler
or a callback on the delivery thread is kept and re-raised, with its traceback, by :meth:`raise_pending`:
by ``sync_default_session()``, by a blocking call before it runs, and by an async call only once that
call is launched (and its callback registered), so a pending error never drops another call's callback.

A job called from a callback or handler runs inline at once (it is on the delivery thread, which must not
wait for itself). OneFlow ran lazy jobs the same way: launched in order by the runtime, their callbacks
fired by one callback thread (``python/framework/session_util.py``, ``LaunchJob`` and
``AsyncPush``/``AsyncPull``).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from flowtorch._src.errors import add_note

log = logging.getLogger("flowtorch")

T = TypeVar("T")

DEFAULT_MAX_INFLIGHT = 4


class Executor:
    """Orders one session's steps and delivers their results in call order."""

    def __init__(self, max_inflight: int = DEFAULT_MAX_INFLIGHT) -> None:
        if max_inflight < 1:
            raise ValueError(f"max_inflight must be >= 1; received {max_inflight}")
        self.max_inflight = max_inflight
        self.step_lock = threading.RLock()
        # Guards the queue, the count and the errors. Taken as a plain lock (C-level enter and exit) where
        # nothing waits: a KeyboardInterrupt can land at the start of any Python-level call, such as
        # Condition.__exit__, and would leave the lock held.
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # callers wait here for room or for the queue to empty
        self._ready = threading.Condition(self._lock)
        self._deliveries: collections.deque[Callable[[], None]] = collections.deque()
        self._busy = 0  # launched, not yet delivered
        self._errors: list[BaseException] = []
        self._thread: threading.Thread | None = None
        self._closed = False
        self._local = threading.local()

    # --- calls -----------------------------------------------------------------------------------
    def in_pipeline(self) -> bool:
        """True on the delivery thread (a job called from a callback or handler)."""
        return getattr(self._local, "pipeline", False)

    def wait_for_room(self, job: str) -> None:
        """Before a launch: wait while ``max_inflight`` calls are undelivered (interruptible: nothing has
        happened yet)."""
        if self._closed:
            raise AssertionError(f"job {job!r} was called after its session was closed")
        if self._busy < self.max_inflight:  # (an int read: the common case takes no lock)
            return
        with self._lock:
            while self._busy >= self.max_inflight:
                self._room.wait()

    def enqueue(self, delivery: Callable[[], None]) -> None:
        """A launched call's delivery; runs on the delivery thread after every earlier one."""
        with self._lock:
            self._busy += 1
            self._deliveries.append(delivery)
            if self._thread is None:
                self._thread = threading.Thread(target=self._deliver, name="flowtorch-delivery", daemon=True)
                # Daemon: interpreter exit never waits on a stuck callback (the atexit drain is bounded).
                self._thread.start()
            self._ready.notify()

    def run_inline(self, fn: Callable[[], T]) -> T:
        """Run a step on this thread (no other step runs meanwhile)."""
        with self.step_lock:
            return fn()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every launched call is delivered; False if ``timeout`` ran out first. From the delivery
        thread it returns at once (the pipeline cannot wait for itself)."""
        if self.in_pipeline():
            return True
        if not self._busy:  # (an int read; blocking-only programs never wait on the condition)
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._room.wait(left)
        return True

    def wait_steps(self) -> None:
        """Wait until a step running on another thread is done (no step waits for anything while it holds
        the lock, so this never deadlocks)."""
        with self.step_lock:
            pass

    # --- errors ----------------------------------------------------------------------------------
    def record_error(self, exc: BaseException) -> None:
        with self._lock:
            self._errors.append(exc)

    def forget_error(self, exc: BaseException) -> None:
        """An error already raised to the caller (a future's ``get()``) is not raised again."""
        with self._lock:
            self._errors = [e for e in self._errors if e is not exc]

    def raise_pending(self) -> None:
        if not self._errors:  # (a list read: the common case takes no lock)
            return
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
                self._ready.notify_all()
        thread = self._thread
        if done and thread is not None and not self.in_pipeline():
            # An idle thread ends now, not during interpreter finalization (where torch's thread-local
            # teardown racing the exit aborts the process).
            thread.join(1.0)
        return done

    # --- the delivery thread ---------------------------------------------------------------------
    def _next(self) -> Callable[[], None] | None:
        with self._lock:
            while not self._deliveries:
                if self._closed:
                    return None
                self._ready.wait()
            return self._deliveries.popleft()

    def _deliver(self) -> None:
        self._local.pipeline = True
        while (deliver := self._next()) is not None:
            try:
                deliver()
            except BaseException as exc:  # re-raised at the next sync point
                self.record_error(exc)
            finally:
                with self._lock:
                    self._busy -= 1
                    self._room.notify_all()
