"""Run OneFlow's own lazy-job operator tests on flowtorch and report the pass rate.

Usage: ``python scripts/oneflow_suite.py ONEFLOW_CHECKOUT [--jobs N] [--out DIR] [-- PYTEST_ARGS...]``

ONEFLOW_CHECKOUT is a checkout of github.com/Oneflow-Inc/oneflow at tag v0.3.4 (or its
``oneflow/python/test/ops`` folder). The selection is the issue's: every ``test_*.py`` that builds a
``global_function`` job and does not import TensorFlow. The files run from where they are, unedited,
under ``pytest --oneflow-alias`` with ``ONEFLOW_TEST_DEVICE_NUM=1``; run it with a Python whose numpy
is older than 1.24 (the files use ``np.float``). Results go to ``OUT/junit-*.xml``, ``OUT/log-*.txt`` and ``OUT/summary.txt``;
the known failures and their reasons are kept in ``docs/oneflow-suite.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def select(ops_dir: Path) -> list[Path]:
    """The lazy-job files that compare with numpy only."""
    chosen = []
    for path in sorted(ops_dir.glob("test_*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "global_function" in text and "tensorflow" not in text.lower():
            chosen.append(path)
    return chosen


def summarize(junit: Path) -> tuple[dict[str, int], list[str]]:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed: list[str] = []
    if not junit.exists():
        return counts, [f"{junit.name}: pytest wrote no report"]
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
            failed.append(name)
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts, failed


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test")
    parser.add_argument("--out", type=Path, default=Path("oneflow-suite-results"))
    args = parser.parse_args(argv)

    ops_dir = args.checkout.resolve()
    if (ops_dir / "oneflow/python/test/ops").is_dir():
        ops_dir = ops_dir / "oneflow/python/test/ops"
    files = select(ops_dir)
    if not files:
        parser.error(f"no lazy-job test files under {ops_dir}")
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, ONEFLOW_TEST_DEVICE_NUM="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    # One pytest per share of the files (not xdist): a crashing file takes down only its share.
    jobs = max(1, min(args.jobs, len(files)))
    with contextlib.ExitStack() as stack:
        procs = []
        for i in range(jobs):
            junit = (args.out / f"junit-{i}.xml").resolve()
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "flowtorch.pytest_plugin",
                   "--oneflow-alias", "--continue-on-collection-errors", f"--timeout={args.timeout}",
                   f"--junitxml={junit}", *extra, *map(str, files[i::jobs])]
            log = stack.enter_context(open(args.out / f"log-{i}.txt", "w", encoding="utf-8"))
            procs.append(subprocess.Popen(cmd, cwd=ops_dir, env=env, stdout=log, stderr=subprocess.STDOUT))
        for proc in procs:
            proc.wait()

    counts, failed = {"passed": 0, "failed": 0, "skipped": 0}, []
    for i in range(jobs):
        part_counts, part_failed = summarize(args.out / f"junit-{i}.xml")
        for key, value in part_counts.items():
            counts[key] += value
        failed += part_failed
    failed.sort()
    ran = counts["passed"] + counts["failed"]
    rate = 100.0 * counts["passed"] / ran if ran else 0.0
    lines = [f"files: {len(files)}", *(f"{k}: {v}" for k, v in counts.items()),
             f"pass rate: {rate:.1f}% of {ran} run", "", "failed:", *failed]
    (args.out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:6]))
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
