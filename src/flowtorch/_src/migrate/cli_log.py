"""The migration commands' progress lines: INFO records of the "flowtorch" logger, shown on stderr.

``flowtorch export`` and ``flowtorch check`` say what they are doing (running the program, exporting a job,
how many files are checked) through :mod:`logging`, so a verbosity setting of the "flowtorch" logger (the
command line's, or the program's own ``logging`` configuration) decides what shows. Stdlib only.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator

from flowtorch._src import cli_logging

log = logging.getLogger("flowtorch")

PROGRESS_SECONDS = 2.0  # how often a long loop says how far it got


@contextlib.contextmanager
def progress_lines() -> Iterator[None]:
    """For the block, the command's INFO records reach stderr through :func:`cli_logging.configured`, unless a
    caller set the "flowtorch" logger's level already (``__main__``'s ``-v``/``-q``, or the program's own
    logging configuration), which then decides."""
    if logging.getLogger("flowtorch").level != logging.NOTSET:
        yield
        return
    with cli_logging.configured():
        yield


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
