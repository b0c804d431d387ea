"""The execution pipeline: steps run on the caller's thread in call order; their results, watched values
and callbacks are delivered in the same order, each exactly once.

    async call (tp.Callback, old future, no result)
        └─ the caller's thread: deliver what is ready, wait for room, then launch = the step (on CUDA:
           enqueued on the stream) + the copies of its results to the host; then deliver it at once if
           nothing is undelivered and its copies are done (every CPU step), else Executor.enqueue(delivery)
    blocking call (tp.Numpy, ...)
        └─ the caller's thread: the step, then every earlier delivery, then its own handlers and result
    delivery = wait for the copies, run the watch handlers, set the result, run the callback (a callback
               registered after its result was set runs at registration)

There is no per-step thread hand-off: on CUDA the stream is the queue (a step returns once its kernels and
copies are enqueued) and on the CPU a worker thread would only take the cores from the step. Deliveries
whose copies are done are run by the caller's thread, so a training loop pays no thread switch for them
(on the CPU none is ever queued). The delivery thread (started by the first async call) is woken only when
a call leaves a delivery queued; it takes those that waited longer than :data:`LINGER_S` (a loop that
stopped calling, or one that sleeps between calls), waiting on their CUDA events with the GIL released.
``caller_delivers=False`` (``FLOWTORCH_DELIVERY=thread``) hands every delivery to it at once, as OneFlow's
callback thread. Whoever delivers holds ``_delivering``: one delivery at a time, in call order. At most
``max_inflight`` async calls are launched and not yet delivered (a call delivers, or waits, while it is
full), which bounds pinned memory and the age of a callback's value. Steps never overlap: launches hold
``step_lock``.

Errors: a step's error is raised by its own call (it runs there). An exception raised by a watch handler
or a callback is kept and re-raised, with its traceback, by :meth:`raise_pending`: by
``sync_default_session()``, by a blocking call before it runs, and by an async call only once that call
is launched (and its callback registered), so a pending error never drops another call's callback.

A job called from a callback or handler runs inline at once (``in_pipeline``: it must not wait for the
pipeline it is part of). OneFlow ran lazy jobs the same way: launched in order by the runtime, their
callbacks fired by one callback thread (``python/framework/session_util.py``, ``LaunchJob`` and
``AsyncPush``/``AsyncPull``).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from flowtorch._src.errors import add_note
from flowtorch._src.runtime import interrupts

log = logging.getLogger("flowtorch")

T = TypeVar("T")

DEFAULT_MAX_INFLIGHT = 4
LINGER_S = 0.01
"""How long a delivery may wait before the delivery thread runs it (the caller's next call may run it
first, when the caller delivers)."""


@dataclass
class Delivery:
    """One launched call's delivery: ``ready()`` (never waits) says its copies are done; ``run()`` waits
    for them and delivers."""

    ready: Callable[[], bool]
    run: Callable[[], None]
    since: float = field(default_factory=time.monotonic)


class Executor:
    """Orders one session's steps and delivers their results in call order."""

    def __init__(self, max_inflight: int = DEFAULT_MAX_INFLIGHT, caller_delivers: bool = True,
                 linger: float = LINGER_S) -> None:
        """``caller_delivers=False``: the delivery thread delivers everything, as soon as it can."""
        if max_inflight < 1:
            raise ValueError(f"max_inflight must be >= 1; received {max_inflight}")
        self.max_inflight = max_inflight
        self.caller_delivers = caller_delivers
        self.linger = linger if caller_delivers else 0.0
        self._hurry = False  # a caller waits for room: the delivery thread delivers now
        self.step_lock = threading.RLock()
        # Guards the queue, the count and the errors. Taken as a plain lock (C-level enter and exit) where
        # nothing waits: a KeyboardInterrupt can land at the start of any Python-level call, such as
        # Condition.__exit__, and would leave the lock held.
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)  # callers wait here for room or for the queue to empty
        self._wake = threading.Condition(self._lock)  # the delivery thread sleeps here while nothing is queued
        self._delivering = threading.Lock()
        self._queue: collections.deque[Delivery] = collections.deque()
        self._busy = 0  # launched, not yet delivered
        self._errors: list[BaseException] = []
        self._thread: threading.Thread | None = None
        self._sleeping = False  # the delivery thread waits for a notify (not a timeout)
        self._room_waiters = 0  # callers waiting for room or for the queue to empty
        self._closed = False
        self._local = threading.local()

    # --- calls -----------------------------------------------------------------------------------
    def in_pipeline(self) -> bool:
        """True while this thread delivers (a job called from a callback or handler)."""
        return getattr(self._local, "pipeline", False)

    def wait_for_room(self, job: str) -> None:
        """Before a launch: deliver what is ready, then wait while ``max_inflight`` calls are undelivered
        (interruptible: nothing of this call has happened yet)."""
        if self._closed:
            raise AssertionError(f"job {job!r} was called after its session was closed")
        if self._queue and self.caller_delivers:
            self._deliver_queued(wait=False)
        if self._busy < self.max_inflight:  # (an int read: the common case takes no lock)
            return
        if self.caller_delivers:
            self._deliver_queued(wait=True, limit=self._busy - self.max_inflight + 1)
        self._hurry_thread()
        self._wait_while(lambda: self._busy >= self.max_inflight, None)

    def enqueue(self, delivery: Delivery) -> None:
        """A launched call's delivery, after every earlier one."""
        with self._lock:
            self._busy += 1
            self._queue.append(delivery)
            if self._thread is None:
                self._thread = threading.Thread(target=self._linger, name="flowtorch-delivery", daemon=True)
                # Daemon: interpreter exit never waits on a stuck callback (the atexit drain is bounded).
                self._thread.start()
            elif self._sleeping and not self.caller_delivers:
                self._wake.notify()

    def deliver_now(self, ready: Callable[[], bool], run: Callable[[], None]) -> bool:
        """A just-launched call delivered at once, on this thread, when nothing before it is undelivered and
        its copies are done (always so for a CPU step); False: enqueue it. (The caller holds the session
        lock, so no other call launches meanwhile, and the delivery thread only runs queued calls.)"""
        if self._busy or not self.caller_delivers or not ready():
            return False
        with interrupts.deferred_interrupts():
            self._local.pipeline = True
            try:
                self._call(run)
            finally:
                self._local.pipeline = False
        return True

    def deliver_ready(self) -> None:
        """After a launch, on the caller's thread: deliver the queued calls whose copies are done, in order
        (on the CPU, this call's own: its step ran here; on CUDA, the earlier ones the GPU has finished)."""
        if self._queue and self.caller_delivers:
            self._deliver_queued(wait=False)
            if self._queue and self._sleeping:  # left for later (on CUDA: still running): the thread lingers
                with self._lock:
                    self._wake.notify()

    def run_inline(self, fn: Callable[[], T]) -> T:
        """Run a step on this thread (no other step runs meanwhile)."""
        with self.step_lock:
            return fn()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Deliver every launched call (this thread delivers what the delivery thread has not taken); False
        if ``timeout`` ran out first. While delivering, it returns at once (it cannot wait for itself)."""
        if self.in_pipeline() or not self._busy:  # (an int read; blocking-only programs never wait)
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self.caller_delivers or timeout is not None:
            self._hurry_thread()
        if timeout is None and self.caller_delivers:
            self._deliver_queued(wait=True)
        return self._wait_while(lambda: self._busy > 0, deadline)

    def _hurry_thread(self) -> None:
        """Have the delivery thread deliver what is queued now, lingering or not (somebody waits for it)."""
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

    def busy(self) -> bool:
        """Some launched call is not delivered yet."""
        return bool(self._busy)

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
        """Deliver what is pending (up to ``timeout`` seconds, by the delivery thread), then refuse new calls."""
        self._hurry_thread()  # a lingering delivery goes now
        done = self.wait_idle(timeout)
        with self._lock:
            self._closed = True
            if done:
                self._wake.notify_all()
        thread = self._thread
        if done and thread is not None and not self.in_pipeline():
            # An idle thread ends now, not during interpreter finalization (where torch's thread-local
            # teardown racing the exit aborts the process).
            thread.join(1.0)
        return done

    # --- delivering ------------------------------------------------------------------------------
    def _deliver_queued(self, wait: bool, limit: int | None = None) -> None:
        """Deliver queued calls in order, on this thread: those whose copies are done (``wait=False``) or all
        of them, waiting (``wait=True``); at most ``limit``. Returns at once if another thread delivers.

        Held whole under Ctrl-C (on the main thread a SIGINT waits until the deliveries ran): an interrupt
        between taking a delivery and running it would lose it, one after would deliver it twice."""
        with interrupts.deferred_interrupts():
            if not self._delivering.acquire(blocking=wait):
                return
            self._local.pipeline = True
            try:
                n = 0
                while limit is None or n < limit:
                    with self._lock:
                        if not self._queue or not (wait or self._queue[0].ready()):
                            return
                        delivery = self._queue.popleft()
                    n += 1
                    self._run(delivery)
            finally:
                self._local.pipeline = False
                self._delivering.release()

    def _call(self, run: Callable[[], None]) -> None:
        """Run one delivery; its error is kept and re-raised at the next sync point."""
        try:
            run()
        except Exception as exc:
            self.record_error(exc)

    def _run(self, delivery: Delivery) -> None:
        try:
            self._call(delivery.run)
        finally:
            with self._lock:
                self._busy -= 1
                if self._room_waiters:
                    self._room.notify_all()

    def _linger(self) -> None:
        """The delivery thread: delivers what waited ``linger`` seconds (at once with thread delivery). It
        sleeps while nothing waits and is woken only when a call leaves a delivery queued (on the CPU a call
        delivers its own, so a training loop never wakes it)."""
        while True:
            with self._lock:
                if not self._queue:
                    if self._closed:
                        return
                    self._sleeping = True
                    self._wake.wait()
                    self._sleeping = False
                    continue
                age = time.monotonic() - self._queue[0].since
                if age < self.linger and not (self._closed or self._hurry):
                    self._wake.wait(self.linger - age)  # the caller's next call may take it meanwhile
                    continue
                self._hurry = False
            self._deliver_queued(wait=True)
