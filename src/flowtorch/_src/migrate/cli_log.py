"""The migration commands' progress lines: INFO records of the "flowtorch" logger, shown on stderr.

``flowtorch export`` and ``flowtorch check`` say what they are doing (running the program, exporting a job,
how many files are checked) through :mod:`logging`, so a verbosity setting of the "flowtorch" logger (the
command line's, or the program's own ``logging`` configuration) decides what shows. Stdlib only.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator

log = logging.getLogger("flowtorch")

PROGRESS_SECONDS = 2.0  # how often a long loop says how far it got


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record comes (as ``logging.lastResort`` does)."""

    @property  # type: ignore[override]
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass

    def emit(self, record: logging.LogRecord) -> None:
        if not logging.getLogger().handlers:  # a program that configured logging as it ran shows the record itself
            super().emit(record)


@contextlib.contextmanager
def progress_lines() -> Iterator[None]:
    """For the block, INFO records of the "flowtorch" logger reach stderr: its level becomes INFO unless one
    is set already, and a handler writing the bare message is added unless a handler is configured (on it
    or the root logger). Both are undone after the block."""
    logger = logging.getLogger("flowtorch")
    level = logger.level
    handler = None
    if level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    if not logger.hasHandlers():
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    try:
        yield
    finally:
        logger.setLevel(level)
        if handler is not None:
            logger.removeHandler(handler)


class Progress:
    """Logs ``"<prefix> N of M <what>"`` at most every :data:`PROGRESS_SECONDS` while a loop runs."""

    def __init__(self, prefix: str, total: int, what: str) -> None:
        self.prefix, self.total, self.what = prefix, total, what
        self.last = time.monotonic()

    def done(self, count: int) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_SECONDS and 0 < count < self.total:
            self.last = now
            log.info("%s %d of %d %s", self.prefix, count, self.total, self.what)
