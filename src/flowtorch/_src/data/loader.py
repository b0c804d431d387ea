"""The engine under a job's data pipeline: ``torch.utils.data`` worker processes, prefetch, and pinned
memory on CUDA, so the next batches are read and decoded while the current step computes.

A job whose body called data ops gets one :class:`DataFeed`. Its sampler runs in the job's process and
plans each batch (the step number and, per reader, which records); the map-style dataset runs the frozen
pipeline (:class:`flowtorch._src.data.pipeline.BatchRunner`) for that plan in a worker. Workers start at
the job's first call and end with the session (``flow.clear_default_session()``) or at interpreter exit.
A worker's exception is raised from the job call, with the worker's traceback.

Knobs: ``FLOWTORCH_DATA_WORKERS`` (worker processes per job; default ``min(4, cpus // 2)``, at least 1;
``0`` runs the pipeline in the job's process) and ``FLOWTORCH_DATA_PREFETCH`` (batches each worker
prepares ahead, default 2).
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils.data

from flowtorch._src.data.blobs import Opaque
from flowtorch._src.data.pipeline import BatchRunner
from flowtorch._src.envvars import env_number
from flowtorch._src.errors import add_note

log = logging.getLogger("flowtorch")


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


class _Plan(torch.utils.data.Sampler):
    """Step numbers with each reader's records for that step, forever (runs in the job's process)."""

    def __init__(self, runner: BatchRunner) -> None:
        self.sources = runner.sources

    def __iter__(self) -> Iterator[tuple[int, tuple[Any, ...]]]:
        plans = [source.batches() for source in self.sources]
        for step in itertools.count():
            yield step, tuple(next(p) for p in plans)


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
        self._iter: Iterator[list[torch.Tensor]] | None = None
        self.closed = False

    def _start(self) -> None:
        cuda = self.device.type == "cuda"
        loader = torch.utils.data.DataLoader(
            _Batches(self.runner), sampler=_Plan(self.runner), batch_size=None, num_workers=self.workers,
            prefetch_factor=self.prefetch if self.workers else None, pin_memory=cuda)
        self._iter = iter(loader)
        log.info("flowtorch: job %r reads its data with %d loader worker(s), %d batch(es) ahead each",
                 self.job_name, self.workers, self.prefetch)

    def next(self) -> list[Any]:
        if self.closed:
            raise RuntimeError(f"job {self.job_name!r}: its data loader was closed with the session")
        if self._iter is None:
            self._start()
        if self._iter is None:  # _start always sets it
            raise RuntimeError(f"job {self.job_name!r}: its data loader did not start")
        try:
            batch = next(self._iter)
        except Exception as exc:
            add_note(exc, f"while job {self.job_name!r} loaded batch {self.batches_served} of its data pipeline")
            raise
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

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        self.closed = True
        it, self._iter = self._iter, None
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
