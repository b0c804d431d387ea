"""The step thread: where the steps of async calls run when the machine has a core to spare.

OneFlow returned from a lazy call once its step was queued (``session_util.py``, ``LaunchJob``): the program
prepared its next batch while the runtime ran the step. flowtorch runs a step on the caller's thread by
default, because on a machine whose cores torch's intra-op team already uses a second thread running steps
only takes cores from the step (its own OpenMP team spins beside the caller's). Where torch's team leaves
cores idle, an async call (``tp.Callback``, an old future, a job without result) checks and copies its
arguments on the caller's thread, hands the step to this thread and returns at once, so the caller's host
work overlaps the step. ``FLOWTORCH_STEP_THREAD=auto|caller|worker`` chooses; ``auto`` picks ``worker``
when the CPU session's process may use more cores than torch's intra-op threads, else ``caller``. A CUDA
session always launches on the caller's thread: the stream is its queue.

The steps run one at a time, in call order, and no signal interrupts them (Python runs signal handlers on
the main thread only).
"""

from __future__ import annotations

import collections
import os
import threading
from collections.abc import Callable

import torch

from flowtorch._src.envvars import env_choice

MODES = ("auto", "caller", "worker")


def step_thread_mode(device: str) -> str:
    """``caller`` or ``worker`` for a session on ``device`` (``FLOWTORCH_STEP_THREAD``, default ``auto``)."""
    mode = env_choice("FLOWTORCH_STEP_THREAD", MODES)
    if device.startswith("cuda"):
        return "caller"
    if mode == "auto":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return "worker" if cores > torch.get_num_threads() else "caller"
    return mode


class StepThread:
    """One thread running submitted steps in order; :meth:`wait_empty` waits until all have run."""

    def __init__(self) -> None:
        self._queue: collections.deque[Callable[[], None]] = collections.deque()
        self._lock = threading.Lock()  # (a plain lock: see executor.py)
        self._ready = threading.Condition(self._lock)
        self._done = threading.Condition(self._lock)
        self._pending = 0
        self._closed = False
        self._thread: threading.Thread | None = None

    def submit(self, step: Callable[[], None]) -> None:
        """Run ``step`` after every step submitted before it (``step`` handles its own errors)."""
        with self._lock:
            self._queue.append(step)
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="flowtorch-step", daemon=True)
                self._thread.start()
            self._ready.notify()

    def wait_empty(self) -> None:
        """Wait until every submitted step has run."""
        if not self._pending:  # (an int read: the common case takes no lock)
            return
        with self._lock:
            while self._pending:
                self._done.wait()

    def close(self) -> None:
        """Let the thread end once the queue is empty."""
        with self._lock:
            self._closed = True
            self._ready.notify()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    if self._closed:
                        return
                    self._ready.wait()
                step = self._queue.popleft()
            try:
                step()
            finally:
                with self._lock:
                    self._pending -= 1
                    if not self._pending:
                        self._done.notify_all()
