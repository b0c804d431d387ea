"""The engine under a job's data pipeline: ``torch.utils.data`` worker processes, prefetch, and pinned
memory on CUDA, so the next batches are read and decoded while the current step computes.

A job whose body called data ops gets one :class:`DataFeed`. Its sampler runs in the job's process and
plans each batch (the step number and, per reader, which records); the map-style dataset runs the frozen
pipeline (:class:`flowtorch._src.data.pipeline.BatchRunner`) for that plan in a worker. Workers start at
the job's first call and end with the session (``flow.clear_default_session()``) or at interpreter exit.
A worker's exception is raised from the job call, with the worker's traceback.

A worker that dies (the OOM killer's SIGKILL, a crash) ends its loader: torch's error ("DataLoader worker …
exited unexpectedly" or "… is killed by signal") is raised once, and the job's next call starts a new loader
with new workers (torch's iterator would wait forever for the dead worker's batch). The sampler keeps the
batches it planned that the job has not taken, so the new loader begins with the first of them: no batch
is skipped or served twice.

Knobs: ``FLOWTORCH_DATA_WORKERS`` (worker processes per job; default ``min(4, cpus // 2)``, at least 1;
``0`` runs the pipeline in the job's process) and ``FLOWTORCH_DATA_PREFETCH`` (batches each worker
prepares ahead, default 2).
"""

from __future__ import annotations

import gc
import itertools
import logging
import os
import signal
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils.data

from flowtorch._src.data.blobs import Opaque
from flowtorch._src.data.pipeline import BatchRunner
from flowtorch._src.envvars import env_number
from flowtorch._src.errors import add_note

log = logging.getLogger("flowtorch")


_DEATH_WAIT_S = 1.0  # how long a broken pipe waits for its worker's death to show


def num_workers() -> int:
    return int(env_number("FLOWTORCH_DATA_WORKERS", max(1, min(4, (os.cpu_count() or 2) // 2)), 0))


def prefetch_depth() -> int:
    return int(env_number("FLOWTORCH_DATA_PREFETCH", 2, 1))


class _Batches(torch.utils.data.Dataset):
    """Batch ``(step, locations)`` → the pipeline's fed tensors."""

    def __init__(self, runner: BatchRunner) -> None:
        self.runner = runner

    def __getitem__(self, key: tuple[int, tuple[Any, ...]]) -> list[torch.Tensor]:
        step, locations = key
        return self.runner.run(step, locations)


_Key = tuple[int, tuple[Any, ...]]  # a batch: its step number and each reader's records


class _Plan(torch.utils.data.Sampler):
    """Step numbers with each reader's records for that step, forever (runs in the job's process).

    A loader draws keys ahead of the job (prefetch). The keys drawn but not yet served stay ``pending``: a
    loader started again after its worker died draws them first, then goes on with the plan."""

    def __init__(self, runner: BatchRunner) -> None:
        self.sources = runner.sources
        self.pending: deque[_Key] = deque()
        self._keys: Iterator[_Key] | None = None
        self._drawn = 0

    def _plan(self) -> Iterator[_Key]:
        plans = [source.batches() for source in self.sources]
        for step in itertools.count():
            yield step, tuple(next(p) for p in plans)

    def __iter__(self) -> Iterator[_Key]:
        if self._keys is None:
            self._keys = self._plan()
        yield from list(self.pending)  # drawn by a loader that died before serving them
        for key in self._keys:
            self._drawn += 1
            self.pending.append(key)
            yield key

    def served(self) -> None:
        """The job took the oldest pending batch (or torch dropped it after raising its error)."""
        if self.pending:
            self.pending.popleft()

    @property
    def next_step(self) -> int:
        """The step number of the batch the job takes next."""
        return self.pending[0][0] if self.pending else self._drawn


class DataFeed:
    """One job's loader: :meth:`next` gives the fed tensors of its next batch, on the session's device."""

    def __init__(self, runner: BatchRunner, device: str) -> None:
        self.runner = runner
        self.job_name = runner.job_name
        self.device = torch.device(device)
        self.workers = num_workers() if runner.reads_files else 0
        self.prefetch = prefetch_depth()
        self.batches_served = 0
        # sources that track what the job consumed (the GPT loader's saved progress)
        self._on_served = [s.batch_served for s in runner.sources if hasattr(s, "batch_served")]
        self._plan = _Plan(runner)
        self._iter: Iterator[list[torch.Tensor]] | None = None
        self._broken = False  # a worker died: the next call starts a new loader
        self.closed = False

    def _start(self) -> None:
        cuda = self.device.type == "cuda"
        if self.workers and torch.cuda.is_initialized():
            # Workers are forked (a spawned one would re-run the user's script, which imports the alias): a
            # child must never free a CUDA tensor (it aborts), so the cyclic garbage holding any (an earlier
            # session's steps) goes here, before the fork, not in a worker's first collection.
            gc.collect()
        loader = torch.utils.data.DataLoader(
            _Batches(self.runner), sampler=self._plan, batch_size=None, num_workers=self.workers,
            prefetch_factor=self.prefetch if self.workers else None, pin_memory=cuda)
        self._iter = iter(loader)
        log.info("flowtorch: job %r reads its data with %d loader worker(s), %d batch(es) ahead each",
                 self.job_name, self.workers, self.prefetch)

    def next(self) -> list[Any]:
        if self.closed:
            raise RuntimeError(f"job {self.job_name!r}: its data loader was closed with the session")
        dead = self._dead_workers()
        if dead or self._broken:  # torch's iterator is broken for good (it may wait forever for a dead worker)
            log.warning("flowtorch: job %r: its data loader's worker(s) %s; the loader starts again with new "
                        "workers, at batch %d", self.job_name, _deaths(dead) if dead else "broke",
                        self._plan.next_step)
            self._stop()
        if self._iter is None:
            self._start()
        if self._iter is None:  # _start always sets it
            raise RuntimeError(f"job {self.job_name!r}: its data loader did not start")
        try:
            batch = next(self._iter)
        except Exception as exc:
            add_note(exc, f"while job {self.job_name!r} loaded batch {self.batches_served} of its data pipeline")
            error = self._failed(exc)
            if error is exc:
                raise
            raise error from exc
        self._plan.served()
        self.batches_served += 1
        for served in self._on_served:
            served()
        if self.device.type == "cpu":
            return batch
        # tensors and tensor lists move; a buffer fed to a data op in the graph (pl.Opaque) stays on the host
        return [t if isinstance(t, Opaque) else t.to(self.device, non_blocking=True) for t in batch]

    @property
    def worker_pids(self) -> list[int]:
        workers = getattr(self._iter, "_workers", None) or []
        return [w.pid for w in workers if w.pid is not None]

    def _failed(self, exc: Exception) -> Exception:
        """What the job call raises for ``exc``, raised by torch's iterator. A worker's own exception: torch
        goes on with the next batch. A dead worker: the loader is marked broken, for the next call to start
        again; a pipe that broke as the worker died (``ConnectionResetError``, ``EOFError``) becomes a
        ``RuntimeError`` that says so."""
        pipe = isinstance(exc, (EOFError, ConnectionError)) and "in DataLoader worker process" not in str(exc)
        dead = self._dead_workers()
        deadline = time.monotonic() + _DEATH_WAIT_S
        while pipe and not dead and time.monotonic() < deadline:  # the pipe may close before the process ends
            time.sleep(0.01)
            dead = self._dead_workers()
        if not dead and not pipe:
            self._plan.served()  # torch raised that batch's error and goes on with the next one
            return exc
        self._broken = True
        told = (f"worker(s) {_deaths(dead)}" if dead else
                f"connection to a worker broke ({type(exc).__name__}: {exc})")
        message = (f"job {self.job_name!r}: its data loader's {told}; the job's next call starts the loader again "
                   f"with new workers, at batch {self._plan.next_step}")
        if not pipe:
            add_note(exc, message)
            return exc
        return RuntimeError(message)

    def _dead_workers(self) -> list[Any]:
        """The loader's worker processes that have ended (``is_alive`` also reaps them)."""
        return [w for w in getattr(self._iter, "_workers", None) or [] if not w.is_alive()]

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        self.closed = True
        self._stop()

    def _stop(self) -> None:
        it, self._iter = self._iter, None
        self._broken = False
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()


def _deaths(workers: list[Any]) -> str:
    """``pid 12 was killed by SIGKILL, pid 13 exited with code 1``."""
    told = []
    for w in workers:
        code = w.exitcode
        if code is not None and code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
            if code == -signal.SIGKILL:
                how += " (as the OOM killer kills when memory runs out)"
        else:
            how = f"exited with code {code}"
        told.append(f"pid {w.pid} {how}")
    return ", ".join(told)
