"""The execution pipeline: steps run in call order; their callbacks and watch handlers run on one delivery
thread, in the same order, each exactly once.

    async call (tp.Callback, old future, no result)
        └─ the caller's thread: wait for room, launch = the step (on CUDA: enqueued on the stream) + the copies
           of its results to the host, Executor.enqueue(delivery), return
    delivery thread: wait for the copies, run the watch handlers, set the result, run the callback
    blocking call (tp.Numpy, ...)
        └─ the caller's thread: the step, wait for every earlier delivery, then its own handlers and result

This is OneFlow's split: a lazy call returned once its step was queued and its callbacks ran on the runtime's
callback thread (``python/framework/session_util.py``: ``LaunchJob``, ``AsyncPull``); a callback that waits
(for a writer thread, for a queue the caller drains) never holds up the caller, beyond the in-flight bound.

The delivery thread is not woken per call: a step's delivery waits in the queue until :data:`LINGER_S`
passed since the oldest queued one, or until half the in-flight bound is queued, or until somebody waits
(``sync_default_session()``, a blocking call, a call waiting for room), then the thread delivers all that is
queued in one go. So a training loop pays one thread switch per batch of calls, and the thread never runs
torch work of its own (the values it hands over are converted before or copied by the stream), so it never
starts a second OpenMP team next to the caller's. At most ``max_inflight`` async calls are launched and not
yet delivered: a call waits for room while the bound is full, which bounds memory and a callback's lag.

Errors: a step's error is raised by its own call (it runs there), which then changed nothing. An exception
raised by a watch handler or a callback is kept as a :class:`~flowtorch._src.errors.CallbackError` naming
its job and call, and raised by the next job call before that call does anything, by
``sync_default_session()`` or by ``clear_default_session()``: never by the call that registered it.

A job called from a callback or handler runs inline at once (``in_pipeline``: it must not wait for the
pipeline it is part of).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from flowtorch._src.errors import CallbackError, add_note

log = logging.getLogger("flowtorch")

T = TypeVar("T")

DEFAULT_MAX_INFLIGHT = 4
"""The in-flight bound on CUDA: the ring of pinned result buffers and events (``FLOWTORCH_MAX_INFLIGHT``)."""
DEFAULT_MAX_INFLIGHT_CPU = 32
"""The in-flight bound on the CPU, where a delivery holds only host arrays: large enough that the delivery
thread takes its calls in batches (half the bound wakes it), small enough to bound a callback's lag."""
LINGER_S = 0.01
"""How long a queued delivery may wait for company before the delivery thread runs it."""


def default_max_inflight(device: str) -> int:
    return DEFAULT_MAX_INFLIGHT if device.startswith("cuda") else DEFAULT_MAX_INFLIGHT_CPU


@dataclass
class Delivery:
    """One launched call's delivery: ``run()`` waits for its copies and delivers. ``job`` and ``call`` (1-based,
    per job) name it in errors and in the message of an exit that leaves it undelivered."""

    run: Callable[[], None]
    job: str
    call: int
    since: float = field(default_factory=time.monotonic)

    @property
    def what(self) -> str:
        return f"call {self.call} of job {self.job!r}"


class _ThreadState(threading.local):
    pipeline = False  # this thread is the delivery thread, delivering (a class default: no AttributeError)


class Executor:
    """Orders one session's steps and delivers their results in call order, on the delivery thread."""

    def __init__(self, max_inflight: int = DEFAULT_MAX_INFLIGHT, linger: float = LINGER_S) -> None:
        if max_inflight < 1:
            raise ValueError(f"max_inflight must be >= 1; received {max_inflight}")
        self.max_inflight = max_inflight
        self.linger = linger
        self._batch = max(1, max_inflight // 2)  # this many queued: the thread delivers without lingering
        self.step_lock = threading.RLock()
        # Guards the queue, the count and the errors. Taken as a plain lock (C-level enter and exit) where
        # nothing waits: an exception raised by a signal handler can land at the start of any Python-level
        # call, such as Condition.__exit__, and would leave the lock held.
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # callers wait here for room or for the queue to empty
        self._wake = threading.Condition(self._lock)  # the delivery thread waits here
        self._queue: collections.deque[Delivery] = collections.deque()
        self._busy = 0  # enqueued, not yet delivered (the one being delivered included)
        self._current: Delivery | None = None  # being delivered
        # CallbackErrors, and the errors of steps run off the caller (read without the lock: a list's truth)
        self.errors: list[BaseException] = []
        self._thread: threading.Thread | None = None
        self._idle = True  # the delivery thread waits without a timeout (a new delivery must wake it)
        self._hurry = False  # somebody waits: deliver what is queued now
        self._room_waiters = 0
        self._closed = False
        self._local = _ThreadState()

    # --- calls -----------------------------------------------------------------------------------
    def in_pipeline(self) -> bool:
        """True on the delivery thread, while it delivers (a job called from a callback or handler)."""
        return self._local.pipeline

    def check_open(self, job: str) -> None:
        if self._closed:
            raise AssertionError(f"job {job!r} was called after its session was closed")

    def wait_for_room(self, job: str) -> None:
        """Before a launch: wait while ``max_inflight`` calls are undelivered (interruptible: nothing of this
        call has happened yet)."""
        self.check_open(job)
        if self._busy < self.max_inflight:  # (an int read: the common case takes no lock)
            return
        self._hurry_thread()
        self._wait_while(lambda: self._busy >= self.max_inflight, None)

    def reserve(self) -> None:
        """A call whose step runs off the caller's thread counts from its launch: its delivery is enqueued
        with ``reserved=True`` (or :meth:`release` d, if its step failed)."""
        with self._lock:
            self._busy += 1

    def release(self) -> None:
        with self._lock:
            self._busy -= 1
            if self._room_waiters:
                self._room.notify_all()

    def enqueue(self, delivery: Delivery, reserved: bool = False) -> None:
        """A launched call's delivery, after every earlier one. The thread is woken only when it was idle or
        enough is queued; otherwise its linger timer takes the delivery."""
        with self._lock:
            if not reserved:
                self._busy += 1
            self._queue.append(delivery)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="flowtorch-delivery", daemon=True)
                # Daemon: interpreter exit never waits on a stuck callback (the atexit drain is bounded).
                self._thread.start()
            elif self._idle or len(self._queue) >= self._batch:
                self._wake.notify()

    def run_inline(self, fn: Callable[[], T]) -> T:
        """Run a step on this thread (no other step runs meanwhile)."""
        with self.step_lock:
            return fn()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until every enqueued call is delivered; False if ``timeout`` ran out first. On the delivery
        thread it returns at once (it cannot wait for itself)."""
        if self.in_pipeline() or not self._busy:  # (an int read; blocking-only programs never wait)
            return True
        self._hurry_thread()
        deadline = None if timeout is None else time.monotonic() + timeout
        return self._wait_while(lambda: self._busy > 0, deadline)

    def busy(self) -> bool:
        """Some enqueued call is not delivered yet."""
        return bool(self._busy)

    def wait_steps(self) -> None:
        """Wait until a step running on another thread is done (no step waits for anything while it holds
        the lock, so this never deadlocks)."""
        with self.step_lock:
            pass

    def _hurry_thread(self) -> None:
        with self._lock:
            self._hurry = True
            self._wake.notify()

    def _wait_while(self, pending: Callable[[], bool], deadline: float | None) -> bool:
        """Wait (interruptibly) while ``pending()``; False if ``deadline`` passed first."""
        with self._lock:
            self._room_waiters += 1
            try:
                while pending():
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._room.wait(left)
            finally:
                self._room_waiters -= 1
        return True

    # --- errors ----------------------------------------------------------------------------------
    def record_error(self, exc: BaseException, job: str, call: int, what: str) -> None:
        """A callback's or handler's exception, raised later as a :class:`CallbackError`."""
        error = CallbackError.of(job, call, what, exc)
        with self._lock:
            self.errors.append(error)

    def record_step_error(self, exc: BaseException, job: str, call: int) -> None:
        """The error of a step that ran off the caller's thread after its call returned: raised as it is by the
        next call (which it refuses) or sync; that step changed nothing."""
        add_note(exc, f"raised by the step of call {call} of job {job!r}, which ran on the step thread after that "
                      "call returned; that step changed nothing, and a job call raising this was not made")
        with self._lock:
            self.errors.append(exc)

    def forget_error(self, exc: BaseException) -> None:
        """An error already raised to the caller (a future's ``get()``) is not raised again."""
        with self._lock:
            self.errors = [e for e in self.errors if e is not exc and e.__cause__ is not exc]

    def raise_pending(self) -> None:
        if not self.errors:  # (a list read: the common case takes no lock)
            return
        with self._lock:
            if not self.errors:
                return
            first, rest, self.errors = self.errors[0], self.errors[1:], []
        if rest:
            add_note(first, f"({len(rest)} later error(s) of the same session were dropped: "
                     + "; ".join(str(e) for e in rest[:3]) + ")")
        raise first

    # --- shutdown --------------------------------------------------------------------------------
    def close(self, timeout: float | None = None) -> bool:
        """Deliver what is pending (up to ``timeout`` seconds), then refuse new calls; False: something was
        left (:meth:`undelivered` says what)."""
        done = self.wait_idle(timeout)
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        thread = self._thread
        if done and thread is not None and not self.in_pipeline():
            # An idle thread ends now, not during interpreter finalization (where torch's thread-local
            # teardown racing the exit aborts the process).
            thread.join(1.0)
        return done

    def undelivered(self) -> str:
        """What is left undelivered, in words (for the message of a drain that timed out)."""
        with self._lock:
            current, queued = self._current, [d.what for d in self._queue]
        parts = []
        if current is not None:
            parts.append(f"the delivery of {current.what} was still running (a callback or watch handler that "
                         f"did not return for {time.monotonic() - current.since:.1f} s since its call)")
        if queued:
            shown = ", ".join(queued[:5]) + (f" and {len(queued) - 5} more" if len(queued) > 5 else "")
            parts.append(f"{len(queued)} more waited behind it: {shown}")
        return "; ".join(parts) or "nothing"

    # --- the delivery thread ---------------------------------------------------------------------
    def _serve(self) -> None:
        """Deliver what is queued, in order. The first call after a quiet spell is delivered at once, as
        OneFlow's callback thread ran a callback when its step was done; while calls keep coming, deliveries
        wait until ``linger`` seconds passed, or half the bound is queued, or somebody waits (a wake of this
        thread per call would cost the caller the GIL on every call). With nothing queued for a whole
        ``linger`` the thread sleeps without a timeout until the next call."""
        self._local.pipeline = True
        prompt = True  # the next delivery goes at once (the calls so far are all delivered, for a while)
        while True:
            with self._lock:
                if not self._queue:
                    if self._closed:
                        return
                    if not prompt:  # calls were coming: one linger for the next before the thread sleeps
                        self._wake.wait(self.linger)
                        prompt = not self._queue
                        continue
                    self._idle = True
                    self._wake.wait()
                    self._idle = False
                    continue
                age = time.monotonic() - self._queue[0].since
                if not prompt and age < self.linger and len(self._queue) < self._batch \
                        and not (self._hurry or self._closed):
                    self._wake.wait(self.linger - age)
                    continue
                prompt = False
                self._hurry = False
                batch = list(self._queue)
                self._queue.clear()
            for delivery in batch:
                self._deliver(delivery)

    def _deliver(self, delivery: Delivery) -> None:
        self._current = delivery
        try:
            delivery.run()  # (every error of a handler or callback is recorded by the run itself)
        except BaseException as exc:  # a delivery that broke (copying or converting): kept for the caller
            log.debug("flowtorch: the delivery of %s failed", delivery.what, exc_info=True)
            with self._lock:
                self.errors.append(CallbackError.of(delivery.job, delivery.call, "the delivery", exc))
        finally:
            self._current = None
            with self._lock:
                self._busy -= 1
                if self._room_waiters:
                    self._room.notify_all()

