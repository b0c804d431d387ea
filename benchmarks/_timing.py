"""Interleaved timing: every contender runs in each round, so machine noise hits all of them alike."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def measure(contenders: dict[str, Callable[[], object]], *, steps: int, rounds: int,
            warmup: int = 5) -> dict[str, float]:
    """Median seconds per call for each contender: the median over ``rounds`` of per-round means."""
    for fn in contenders.values():
        for _ in range(warmup):
            fn()
    per_round: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = time.perf_counter()
            for _ in range(steps):
                fn()
            per_round[name].append((time.perf_counter() - start) / steps)
    return {name: statistics.median(times) for name, times in per_round.items()}
