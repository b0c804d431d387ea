"""One rank of ``scripts/oneflow_suite.py --nproc N``: pytest in a process the flowtorch launcher started.

Usage (what the suite runs): ``python -m flowtorch --nproc N --all-ranks-output -m oneflow_suite_worker
OUT_TEMPLATE PYTEST_ARGS...``. ``OUT_TEMPLATE`` is a path with ``{rank}`` in it, without a suffix: this rank
writes ``OUT_TEMPLATE.xml`` (its JUnit report, at the end), ``OUT_TEMPLATE.jsonl`` (each test's start and
each phase's outcome as it happens, so a rank that crashes or is killed still says how far it got),
``OUT_TEMPLATE.log`` (its output) and ``OUT_TEMPLATE.rc`` (pytest's exit status). The worker exits 0 whatever
pytest found, so the launcher never stops a peer that is still running its tests or writing its report.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


class Recorder:
    """A pytest plugin that appends one JSON line per event to a file, flushed at once."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "w", encoding="utf-8", buffering=1)  # for the session's life

    def _write(self, **event: Any) -> None:
        self.file.write(json.dumps(event) + "\n")
        self.file.flush()

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._write(event="start", nodeid=nodeid)

    def pytest_runtest_logreport(self, report: Any) -> None:
        message = ""
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
        elif report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            message = str(report.longrepr[2])
        self._write(event="report", nodeid=report.nodeid, when=report.when, outcome=report.outcome,
                    message=message.strip().splitlines()[0][:300] if message.strip() else "")

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self._write(event="finish", nodeid=nodeid)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or "{rank}" not in args[0]:
        print("usage: python -m flowtorch --nproc N -m oneflow_suite_worker OUT_TEMPLATE PYTEST_ARGS...\n"
              "(OUT_TEMPLATE contains {rank})", file=sys.stderr)
        return 2
    base = args[0].format(rank=os.environ.get("RANK", "0"))
    # Everything this rank prints, Python's and native code's, goes to its own log.
    log = open(base + ".log", "w", encoding="utf-8", buffering=1)  # for the process's life
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    sys.stdout = sys.stderr = log
    import pytest
    rc = int(pytest.main([f"--junitxml={base}.xml", *args[1:]], plugins=[Recorder(base + ".jsonl")]))
    with open(base + ".rc", "w", encoding="utf-8") as f:
        f.write(f"{rc}\n")
    log.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
