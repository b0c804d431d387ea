"""Run OneFlow's own lazy-job operator tests on flowtorch and report the pass rate.

Usage: ``python scripts/oneflow_suite.py ONEFLOW_CHECKOUT [--jobs N] [--out DIR] [-- PYTEST_ARGS...]``

ONEFLOW_CHECKOUT is a checkout of github.com/Oneflow-Inc/oneflow at tag v0.3.4 (or its
``oneflow/python/test/ops`` folder). The selection is the issue's: every ``test_*.py`` that builds a
``global_function`` job and does not import TensorFlow. The files run from where they are, unedited,
under ``pytest --oneflow-alias`` with ``ONEFLOW_TEST_DEVICE_NUM=1``; run it with a Python whose numpy
is older than 1.24 (the files use ``np.float``). Results go to ``OUT/junit-*.xml``, ``OUT/log-*.txt`` and
``OUT/summary.txt``; the known failures and their reasons are kept in ``docs/oneflow-suite.md``.

``--nproc N`` runs each file on N processes instead, one file at a time: ``python -m flowtorch --nproc N -m
oneflow_suite_worker`` (``scripts/oneflow_suite_worker.py``: pytest in each rank, which writes its own
``OUT/ranks/FILE-rankR.xml``, ``.jsonl`` (events as they happen), ``.log`` and ``.rc``; the launch's output
is ``OUT/launch-FILE.txt``). A launch still running after ``--file-timeout`` seconds is killed (its process
group and every process under it); after a crash or a kill the file is launched again without the tests
that finished and the one that was interrupted (recorded as failed, with why), so a hang or an abort loses
one test, not the file's rest (``launch-FILE.aK.txt`` and ``ranks/FILE.aK-rankR.*`` for the K-th launch).
``ONEFLOW_TEST_DEVICE_NUM`` is not set, so ``flow.unittest.env.device_num()`` is N and OneFlow's
``skip_unless_1nNd`` tests run; only those are counted (a test passes when it passed on every rank), the
others are tallied apart. ``--only-1n2d`` (implies ``--nproc 2``) selects the files that contain
``skip_unless_1n2d`` (47 at v0.3.4, the 3 that import TensorFlow included: they are reported as not run
when it is missing). ``--report-only`` re-reads ``OUT`` without running anything; ``--src`` tests another
flowtorch source tree (e.g. a ``git archive`` of one commit, while the checkout changes).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
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


# --- --nproc N: each file on N processes ---------------------------------------------------------------
def select_marked(ops_dir: Path, marker: str) -> list[Path]:
    """The test files that mention ``marker`` (e.g. ``skip_unless_1n2d``)."""
    return [p for p in sorted(ops_dir.glob("test_*.py"))
            if marker in p.read_text(encoding="utf-8", errors="replace")]


def _decorated_with(node: ast.AST, marker: str) -> bool:
    return any(marker in ast.unparse(d) for d in getattr(node, "decorator_list", []))


def marked_tests(path: Path, marker: str) -> list[str]:
    """``stem.Class::test`` of each test method the file decorates (itself or its class) with ``marker``,
    as pytest's JUnit report names it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return []
    names = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        whole = _decorated_with(cls, marker)
        for fn in cls.body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test") \
                    and (whole or _decorated_with(fn, marker)):
                names.append(f"{path.stem}.{cls.name}::{fn.name}")
    return names


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _junit_outcomes(junit: Path) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """``{stem.Class::name: (outcome, first line of its error)}`` and the file-level (collection) errors."""
    outcomes: dict[str, tuple[str, str]] = {}
    file_errors: list[str] = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            why = _first_line(bad.get("message")) or _first_line(bad.text)
            if not case.get("classname"):  # a collection error: pytest names the module only
                last = (bad.text or "").strip().splitlines()[-1:]  # e.g. "E   ModuleNotFoundError: ..."
                file_errors.append(f"{case.get('name', '')}: {_first_line(last[0] if last else '') or why}")
                continue
            if name in outcomes and outcomes[name][0] == "passed":  # an error in teardown after a pass
                outcomes[name] = ("failed", "teardown: " + why)
            else:
                outcomes[name] = ("failed", why)
        elif case.find("skipped") is not None:
            outcomes.setdefault(name, ("skipped", _first_line(case.find("skipped").get("message"))))
        else:
            outcomes.setdefault(name, ("passed", ""))
    return outcomes, file_errors


def _key(nodeid: str) -> str:
    """``test_x.py::Cls::name`` as the JUnit report names it: ``test_x.Cls::name``."""
    file, _, rest = nodeid.partition("::")
    return f"{Path(file).stem}.{rest}"


def _event_progress(events: Path) -> tuple[dict[str, tuple[str, str]], str | None]:
    """What a rank's event file (the worker's) says of each test it finished (for a rank that wrote no
    report: it crashed or was killed), and the test it had started and not finished, if any."""
    outcomes: dict[str, tuple[str, str]] = {}
    running = None
    if not events.exists():
        return outcomes, None
    for line in events.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:  # a line cut short by a crash
            continue
        key = _key(event.get("nodeid", ""))
        if event.get("event") == "start":
            running = key
        elif event.get("event") == "finish":
            running = None
        elif event.get("event") == "report":
            outcome, message = event.get("outcome"), event.get("message", "")
            if outcome == "failed" and outcomes.get(key, ("",))[0] != "failed":  # the first failing phase's
                when = event.get("when")
                outcomes[key] = ("failed", message if when == "call" else f"{when}: {message}")
            elif outcome == "skipped" and key not in outcomes:
                outcomes[key] = ("skipped", message)
            elif outcome == "passed" and event.get("when") == "call":
                outcomes[key] = ("passed", "")
    return outcomes, None if running in outcomes else running  # a test with a failed phase has its result


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (torch elastic starts its workers in sessions of their own)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            ppid = int(text[text.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill_launch(proc: subprocess.Popen) -> None:
    """Stop a launch that ran out of time: its process group, then each process under it, by pid."""
    pids = _descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in [proc.pid, *pids]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, sig) if pid == proc.pid else os.kill(pid, sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            time.sleep(2)  # the workers' own handlers


def _attempt_paths(out: Path, stem: str, attempt: int) -> tuple[Path, Path]:
    """The launch log and the ranks' report base (with ``{rank}``) of a file's ``attempt``-th launch."""
    tag = stem if attempt == 1 else f"{stem}.a{attempt}"
    return out / f"launch-{tag}.txt", out / "ranks" / f"{tag}-rank{{rank}}"


def _launch_file(args: argparse.Namespace, ops_dir: Path, path: Path, attempt: int, env: dict[str, str],
                 extra: list[str], deselect: list[str]) -> None:
    """Run one file's tests (less ``deselect``) on ``args.nproc`` processes; the launch's own output, exit
    status and time go to its launch log."""
    launch_log, base = _attempt_paths(args.out, path.stem, attempt)
    for r in range(args.nproc):  # a previous run's reports must not be read as this one's
        for suffix in (".xml", ".jsonl", ".log", ".rc"):
            Path(str(base).format(rank=r) + suffix).unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "flowtorch", "--nproc", str(args.nproc), "--all-ranks-output", "-m",
           "oneflow_suite_worker", str(base), "-v", "-p", "no:cacheprovider", "-p", "flowtorch.pytest_plugin",
           "--oneflow-alias", "--continue-on-collection-errors", f"--timeout={args.timeout}", *extra,
           *(f"--deselect={nodeid}" for nodeid in deselect), str(path)]
    start = time.monotonic()
    with open(launch_log, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, cwd=ops_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=args.file_timeout)
            trailer = f"exit {rc}"
        except subprocess.TimeoutExpired:
            _kill_launch(proc)
            trailer = f"killed after {args.file_timeout} s"
        log.write(f"\n[oneflow_suite] {trailer}; {time.monotonic() - start:.0f} s\n")


_TRAILER = re.compile(r"^\[oneflow_suite\] (?P<status>exit -?\d+|killed after \d+ s); (?P<took>\d+) s$",
                      re.MULTILINE)


def _launch_status(launch_log: Path) -> tuple[str, int, bool]:
    """``(status, seconds, killed)`` from the trailer :func:`_launch_file` wrote."""
    text = launch_log.read_text(encoding="utf-8", errors="replace") if launch_log.exists() else ""
    m = None
    for m in _TRAILER.finditer(text):  # noqa: B007 - the last match is the one wanted
        pass
    if m is None:
        return "status unknown", 0, "[oneflow_suite] killed" in text
    return m["status"], int(m["took"]), m["status"].startswith("killed")


def _crash_reason(nproc: int, launch_log: Path, base: Path) -> str:
    """Why a launch ended without every rank's report: a rank's fatal error, or the rank the launcher named."""
    for r in range(nproc):
        log = Path(str(base).format(rank=r) + ".log")
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        fatal = re.search(r"Fatal Python error: .*$", text, re.MULTILINE)
        if fatal:
            return f"rank {r} crashed: {fatal.group(0)}"
    text = launch_log.read_text(encoding="utf-8", errors="replace") if launch_log.exists() else ""
    failed = re.search(r"^flowtorch: rank \d+ .*failed with .*$", text, re.MULTILINE)
    return failed.group(0) if failed else f"no report (see {base.name.replace('{rank}', '*')}.log)"


def _combine(results: list[tuple[str, str] | None]) -> str:
    if all(x is not None and x[0] == "passed" for x in results):
        return "passed"
    if all(x is not None and x[0] == "skipped" for x in results):
        return "skipped"
    return "failed"


@dataclass
class FileRun:
    """A file's results over its launches: each rank's outcomes, the tests a crash or a kill interrupted
    (with why), the file-level (collection) errors, and each launch's status and time."""

    ranks: list[dict[str, tuple[str, str]]]
    interrupted: dict[str, str] = field(default_factory=dict)
    file_errors: list[str] = field(default_factory=list)
    launches: list[tuple[str, int, bool]] = field(default_factory=list)


def run_file(args: argparse.Namespace, ops_dir: Path, path: Path, env: dict[str, str], extra: list[str]) -> FileRun:
    """Launch ``path``; when a rank crashes or the launch is killed, launch it again without the tests that
    finished and the one that was running (recorded as failed), so one crash does not lose the file's rest."""
    run = FileRun([{} for _ in range(args.nproc)])
    deselect: list[str] = []
    for attempt in range(1, 1000):
        launch_log, base = _attempt_paths(args.out, path.stem, attempt)
        if not args.report_only:
            _launch_file(args, ops_dir, path, attempt, env, extra, deselect)
        elif not launch_log.exists():
            break
        status = _launch_status(launch_log)
        run.launches.append(status)
        complete = True
        for r in range(args.nproc):
            junit = Path(str(base).format(rank=r) + ".xml")
            try:  # the status file is written once pytest returned: the report is whole
                if not Path(str(base).format(rank=r) + ".rc").exists():
                    raise FileNotFoundError
                outcomes, errors = _junit_outcomes(junit)
                run.file_errors += [f"rank {r}: {e}" for e in errors]
            except (OSError, ET.ParseError):  # no report, or one cut short: the rank crashed or was killed
                complete = False
                outcomes, running = _event_progress(Path(str(base).format(rank=r) + ".jsonl"))
                if running is not None and running not in outcomes:
                    run.interrupted.setdefault(running, f"interrupted: the launch was {status[0]}" if status[2]
                                               else _crash_reason(args.nproc, launch_log, base))
            run.ranks[r].update(outcomes)
        if complete:
            break
        # Next launch: without the tests every rank finished and the ones a crash or kill interrupted.
        done = set.intersection(*(set(rank) for rank in run.ranks)) | set(run.interrupted)
        more = sorted(f"{path.name}::{key.split('.', 1)[1]}" for key in done)
        if set(more) <= set(deselect):  # no progress: give up on the rest
            break
        deselect = more
    return run


def run_nproc(args: argparse.Namespace, ops_dir: Path, files: list[Path], extra: list[str]) -> int:
    n = args.nproc
    marker = f"skip_unless_1n{n}d"
    args.out = args.out.resolve()
    (args.out / "ranks").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(args.src.resolve()), str(ROOT / "scripts"), os.environ.get("PYTHONPATH")])))
    env.pop("ONEFLOW_TEST_DEVICE_NUM", None)  # device_num() is then the launcher's processes per node

    counts = {"passed": 0, "failed": 0, "skipped": 0, "not run": 0}
    others = {"passed": 0, "failed": 0, "skipped": 0}
    failed: list[str] = []
    not_run: list[str] = []
    file_lines: list[str] = []
    killed_launches = crashed_launches = 0
    for k, path in enumerate(files, 1):
        run = run_file(args, ops_dir, path, env, extra)
        killed = any(kill for _, _, kill in run.launches)
        killed_launches += sum(kill for _, _, kill in run.launches)
        crashed_launches += sum(not kill and status != "exit 0" for status, _, kill in run.launches)
        expected = marked_tests(path, marker)
        local = {"passed": 0, "failed": 0, "skipped": 0, "not run": 0}
        for name in sorted(set().union(*run.ranks) | set(expected) | set(run.interrupted)):
            results = [rank.get(name) for rank in run.ranks]
            if name not in expected:  # not a 1nNd test (a 1n1d one skips): reported apart
                others[_combine(results)] += 1
                continue
            if all(x is None for x in results) and name not in run.interrupted and run.file_errors and not killed:
                local["not run"] += 1
                not_run.append(f"{name}  [{run.file_errors[0]}]")
                continue
            outcome = _combine(results)
            local[outcome] += 1
            if outcome == "failed":
                where = ", ".join(f"rank{r}: {x[0] if x else 'no result'}" for r, x in enumerate(results))
                whys = [x[1] for x in results if x and x[0] == "failed" and x[1]][:1]
                if any(x is None for x in results):
                    whys.append(run.interrupted.get(name, "no result (see the ranks' logs)"))
                why = " | ".join(whys)
                failed.append(f"{name}  [{where}]  {why}")
        for key, value in local.items():
            counts[key] += value
        tally = ", ".join(f"{v} {key}" for key, v in local.items() if v or key != "not run")
        launches = "; ".join(f"{status}, {took} s" for status, took, _ in run.launches)
        file_lines.append(f"{path.name}: {tally} ({len(run.launches)} launch(es): {launches})"
                          + (f"  {run.file_errors[0]}" if run.file_errors else ""))
        print(f"[{k}/{len(files)}] {file_lines[-1]}", flush=True)

    ran = counts["passed"] + counts["failed"]
    rate = 100.0 * counts["passed"] / ran if ran else 0.0
    lines = [f"mode: --nproc {n}" + (" --only-1n2d" if args.only_1n2d else "")
             + f" (each file in `python -m flowtorch --nproc {n}`, one at a time; relaunched past a crash)",
             f"files: {len(files)} ({crashed_launches} launch(es) crashed, {killed_launches} killed after"
             + f" {args.file_timeout} s)",
             f"{marker} tests: {sum(counts.values())}",
             *(f"{k}: {v}" for k, v in counts.items()),
             f"pass rate: {rate:.1f}% of {ran} run (passed = passed on all {n} ranks)",
             f"other tests (not {marker}): " + ", ".join(f"{v} {k}" for k, v in others.items()),
             "", "per file:", *file_lines, "", "failed:", *sorted(failed)]
    if not_run:
        lines += ["", "not run (the file was not collected):", *sorted(not_run)]
    (args.out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:9]))
    return 0 if ran else 1


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
    parser.add_argument("--nproc", type=int, default=None,
                        help="run each file on N processes (python -m flowtorch --nproc N), one file at a time")
    parser.add_argument("--only-1n2d", action="store_true",
                        help="only the files with skip_unless_1n2d tests (implies --nproc 2)")
    parser.add_argument("--file-timeout", type=int, default=300,
                        help="with --nproc: seconds per file's launch before it is killed")
    parser.add_argument("--src", type=Path, default=ROOT / "src",
                        help="the flowtorch source tree to test (default: this checkout's src/)")
    parser.add_argument("--report-only", action="store_true",
                        help="with --nproc: only summarize the reports already under --out (run nothing)")
    args = parser.parse_args(argv)
    if args.only_1n2d:
        if args.nproc not in (None, 2):
            parser.error("--only-1n2d goes with --nproc 2")
        args.nproc = 2
    if args.nproc is not None and args.nproc < 1:
        parser.error("--nproc expects an int >= 1")

    ops_dir = args.checkout.resolve()
    if (ops_dir / "oneflow/python/test/ops").is_dir():
        ops_dir = ops_dir / "oneflow/python/test/ops"
    if args.nproc is not None:
        files = select_marked(ops_dir, "skip_unless_1n2d") if args.only_1n2d else select(ops_dir)
        if not files:
            parser.error(f"no test files to run under {ops_dir}")
        return run_nproc(args, ops_dir, files, extra)
    files = select(ops_dir)
    if not files:
        parser.error(f"no lazy-job test files under {ops_dir}")
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, ONEFLOW_TEST_DEVICE_NUM="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(args.src.resolve()), os.environ.get("PYTHONPATH")])))
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
