"""Interleaved timing: every contender runs in each round, in alternating order, so machine noise and
drift hit all of them alike; a ratio is the median of the per-round ratios."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch


def measure(contenders: dict[str, Callable[[], object]], *, steps: int, rounds: int,
            warmup: int = 5, finish: dict[str, Callable[[], object]] | None = None) -> dict[str, list[float]]:
    """Seconds per call of each contender, one mean per round. ``finish[name]``, if given, runs at the end of
    each of that contender's rounds, inside the timing (an async contender waits for its last results)."""
    finish = finish or {}
    for name, fn in contenders.items():
        for _ in range(warmup):
            fn()
        if name in finish:
            finish[name]()
    per_round: dict[str, list[float]] = {name: [] for name in contenders}
    order = list(contenders.items())
    for r in range(rounds):
        for name, fn in (order if r % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            if name in finish:
                finish[name]()
            per_round[name].append((time.perf_counter() - start) / steps)
    return per_round


def summarize(per_round: dict[str, list[float]], subject: str, reference: str) -> dict[str, float]:
    """Median seconds per call of both, and the median of the per-round ratios subject/reference."""
    ratios = [a / b for a, b in zip(per_round[subject], per_round[reference])]
    return {"subject_ms": statistics.median(per_round[subject]) * 1e3,
            "reference_ms": statistics.median(per_round[reference]) * 1e3,
            "ratio": statistics.median(ratios)}


def write_results(path: str | Path, results: dict[str, object], **meta: object) -> None:
    """Write ``{"meta": ..., "results": ...}`` as JSON; meta names this machine and torch, plus ``meta``."""
    meta = {"torch": torch.__version__, "python": platform.python_version(), "machine": platform.machine(),
            "threads": torch.get_num_threads(), "cpus": os.cpu_count(), **meta}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(f"written: {path}")
