"""Running pytest on OneFlow's test files for ``scripts/oneflow_suite.py``, and reading what came of it.

A *unit* (one file, or a share of the files) runs in ``scripts/oneflow_suite_worker.py`` on one process or
on N (``python -m flowtorch --nproc N``), which writes ``OUT/ranks/UNIT-rankR.{xml,jsonl,log,rc}``; the
launch's own output is ``OUT/launch-UNIT.txt``. A launch still running after its time is killed with every
process under it; after a crash or a kill the unit is launched again without the tests that finished and the
one that was interrupted (recorded as failed, with why), so a hang or an abort loses one test.
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

NO_TF = "No module named 'tensorflow'"


@dataclass(frozen=True)
class Outcome:
    """One test's result: ``passed``, ``failed``, ``skipped`` or ``not run``; for a failure its error line,
    where it was raised (the deepest flowtorch frame, else the deepest frame) and each rank's outcome."""

    outcome: str
    message: str = ""
    where: str = ""
    ranks: str = ""  # with several ranks: each one's outcome


def tests_in(path: Path, marker: str | None = None) -> list[str]:
    """``stem.Class::test`` of each test method (and v0.1.2's ``stem::test`` of each module-level
    ``def test_x(test_case)`` or ``def test_x(_)``), as the JUnit reports name them; with ``marker`` only the
    methods that it decorates (themselves or their class)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return []

    def marked(node: ast.AST) -> bool:
        return any(marker in ast.unparse(d) for d in getattr(node, "decorator_list", []))

    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names += [f"{path.stem}.{node.name}::{fn.name}" for fn in node.body
                      if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test")
                      and (marker is None or marked(node) or marked(fn))]
        elif isinstance(node, ast.FunctionDef) and node.name.startswith("test") and marker is None \
                and len(node.args.args) <= 1:
            names.append(f"{path.stem}::{node.name}")
    return names


# --- reading reports -----------------------------------------------------------------------------------
_FRAME = re.compile(r'^\s*File "(?P<f1>[^"]+)", line \d+, in (?P<fn1>\S+)|^(?P<f2>\S+\.py):\d+: in (?P<fn2>\S+)',
                    re.MULTILINE)


def where_raised(text: str) -> str:
    """``file:function`` of the deepest flowtorch frame of a traceback (pytest's short style or Python's),
    else of its deepest frame."""
    frames = [(m["f1"] or m["f2"], m["fn1"] or m["fn2"]) for m in _FRAME.finditer(text or "")]
    ours = [(f, fn) for f, fn in frames if re.search(r"(^|/)flowtorch/", f)]
    if not (ours or frames):
        return ""
    file, func = (ours or frames)[-1]
    return f"{'flowtorch/' + re.split(r'(?:^|/)flowtorch/', file)[-1] if ours else Path(file).name}:{func}"


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _error_line(bad: ET.Element) -> str:
    """The exception line of a JUnit failure: its message, with the exception's name where absltest left it
    in ``type`` only; else the first ``E`` line (pytest's; the last one for a collection error) or the last line."""
    message = _first_line(bad.get("message"))
    lines = [ln.strip() for ln in (bad.text or "").splitlines() if ln.strip()]
    if not message or message.startswith(("<", "Traceback", "failed on ")) or message == "collection failure":
        errors = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
        if errors and message == "collection failure":  # the import's error is the last one
            errors.reverse()
        phase = re.match(r"failed on (\w+)", message)  # e.g. a fixture not found
        message = (f"{phase[1]}: " if phase else "") + (errors[0] if errors else (lines[-1] if lines else ""))
    kind = re.fullmatch(r"<class '(?:\w+\.)*(\w+)'>", bad.get("type", ""))
    if kind and not message.startswith(kind[1]):
        message = f"{kind[1]}: {message}"
    return message[:300]


def junit_outcomes(junit: Path) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
    """``{test id: Outcome}`` of a pytest or absltest JUnit report, and ``{file stem: Outcome}`` of the files
    that failed to be collected. Raises OSError or ParseError for a missing or broken report."""
    outcomes: dict[str, Outcome] = {}
    file_errors: dict[str, Outcome] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        if classname.startswith("__main__."):  # absltest: v0.1.2's runner names its classes after the files
            classname = classname.split(".", 1)[1]
        test_id = f"{classname}::{name}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            result = Outcome("failed", _error_line(bad), where_raised(bad.text or ""))
            if not classname:  # a collection error: pytest names the module only
                file_errors.setdefault(name.rsplit(".", 1)[-1], result)
            elif outcomes.get(test_id, Outcome("")).outcome == "passed":  # an error in teardown after a pass
                outcomes[test_id] = Outcome("failed", "teardown: " + result.message, result.where)
            else:
                outcomes.setdefault(test_id, result)
        elif case.find("skipped") is not None or case.get("status") == "notrun":
            skip = case.find("skipped")
            outcomes.setdefault(test_id, Outcome("skipped", _first_line(skip.get("message") if skip is not None
                                                                         else case.get("result"))))
        else:
            outcomes.setdefault(test_id, Outcome("passed"))
    return outcomes, file_errors


def _key(nodeid: str) -> str:
    """A pytest node id as the JUnit report names it: ``test_x.py::Cls::name`` -> ``test_x.Cls::name``,
    ``test_x.py::name`` -> ``test_x::name``."""
    file, _, rest = nodeid.partition("::")
    stem = Path(file).stem
    return f"{stem}.{rest}" if "::" in rest else f"{stem}::{rest}"


def _nodeid(key: str) -> str:
    """The inverse of :func:`_key`."""
    head, _, name = key.partition("::")
    stem, dot, cls = head.partition(".")
    return f"{stem}.py::{cls}::{name}" if dot else f"{stem}.py::{name}"


def event_progress(events: Path) -> tuple[dict[str, Outcome], str | None]:
    """What a rank's event file says of each test it finished (for a rank that wrote no report: it crashed or
    was killed), and the test it had started and not finished, if any."""
    outcomes: dict[str, Outcome] = {}
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
            outcome, message, when = event.get("outcome"), event.get("message", ""), event.get("when")
            if outcome == "failed" and outcomes.get(key, Outcome("")).outcome != "failed":  # the first failing phase's
                outcomes[key] = Outcome("failed", message if when == "call" else f"{when}: {message}")
            elif outcome == "skipped" and key not in outcomes:
                outcomes[key] = Outcome("skipped", message)
            elif outcome == "passed" and when == "call":
                outcomes[key] = Outcome("passed")
    return outcomes, None if running in outcomes else running  # a test with a failed phase has its result


# --- launching -----------------------------------------------------------------------------------------
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


def run_killable(cmd: list[str], cwd: Path, env: dict[str, str], log_path: Path, timeout: float) -> str:
    """Run ``cmd`` with its output in ``log_path``; past ``timeout`` seconds stop its process group, then each
    process under it, by pid. Appends and returns a trailer: ``exit RC`` or ``killed after T s``, and the time."""
    start = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            trailer = f"exit {proc.wait(timeout=timeout)}"
        except subprocess.TimeoutExpired:
            pids = _descendants(proc.pid)
            for sig in (signal.SIGTERM, signal.SIGKILL):
                for pid in [proc.pid, *pids]:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(pid, sig) if pid == proc.pid else os.kill(pid, sig)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
                    time.sleep(2 if sig == signal.SIGTERM else 0)  # the workers' own handlers
            trailer = f"killed after {timeout:.0f} s"
        trailer = f"[oneflow_suite] {trailer}; {time.monotonic() - start:.0f} s"
        log.write(f"\n{trailer}\n")
    return trailer


_TRAILER = re.compile(r"^\[oneflow_suite\] (?P<status>exit -?\d+|killed after \d+ s); (?P<took>\d+) s$", re.MULTILINE)


def launch_status(launch_log: Path) -> tuple[str, int, bool]:
    """``(status, seconds, killed)`` from the trailer :func:`run_killable` wrote."""
    text = launch_log.read_text(encoding="utf-8", errors="replace") if launch_log.exists() else ""
    found = list(_TRAILER.finditer(text))
    if not found:
        return "status unknown", 0, False
    return found[-1]["status"], int(found[-1]["took"]), found[-1]["status"].startswith("killed")


@dataclass
class UnitRun:
    """A unit's (one file's, or a share's) results over its launches: each rank's outcomes, the tests a crash
    or a kill interrupted, the files that failed to be collected, and each launch's status and time."""

    ranks: list[dict[str, Outcome]]
    interrupted: dict[str, Outcome] = field(default_factory=dict)
    file_errors: dict[str, Outcome] = field(default_factory=dict)
    launches: list[tuple[str, int, bool]] = field(default_factory=list)


def _crash_reason(nproc: int, launch_log: Path, base: str) -> str:
    """Why a launch ended without every rank's report: a rank's fatal error, or the rank the launcher named."""
    for r in range(nproc):
        log = Path(base.format(rank=r) + ".log")
        fatal = re.search(r"Fatal Python error: .*$", log.read_text(encoding="utf-8", errors="replace")
                          if log.exists() else "", re.MULTILINE)
        if fatal:
            return f"rank {r} crashed: {fatal.group(0)}"
    text = launch_log.read_text(encoding="utf-8", errors="replace") if launch_log.exists() else ""
    failed = re.search(r"^flowtorch: rank \d+ .*failed with .*$", text, re.MULTILINE)
    return failed.group(0) if failed else f"no report (see {Path(base).name.replace('{rank}', '*')}.log)"


def run_unit(args: argparse.Namespace, ops_dir: Path, unit: str, files: list[Path], nproc: int,
             env: dict[str, str], timeout: float) -> UnitRun:
    """Run ``files`` under pytest in ``nproc`` processes (the launcher's, for more than one); after a crash or
    a kill, again without the tests that finished and the one that was running (recorded as failed)."""
    run = UnitRun([{} for _ in range(nproc)])
    deselect: list[str] = []
    for attempt in range(1, 1000):
        tag = unit if attempt == 1 else f"{unit}.a{attempt}"
        launch_log, base = args.out / f"launch-{tag}.txt", str(args.out / "ranks" / f"{tag}-rank{{rank}}")
        if not args.report_only:
            for r in range(nproc):  # a previous run's reports must not be read as this one's
                for suffix in (".xml", ".jsonl", ".log", ".rc"):
                    Path(base.format(rank=r) + suffix).unlink(missing_ok=True)
            launcher = [sys.executable, "-m", "flowtorch", "--nproc", str(nproc), "--all-ranks-output"] \
                if nproc > 1 else [sys.executable]
            cmd = [*launcher, "-m", "oneflow_suite_worker", base, "-v", "--tb=short", "-p", "no:cacheprovider",
                   "-p", "flowtorch.pytest_plugin", "--oneflow-alias", "--continue-on-collection-errors",
                   f"--rootdir={ops_dir}", f"--timeout={args.timeout}", *args.extra,
                   *(f"--deselect={nodeid}" for nodeid in deselect), *map(str, files)]
            run_killable(cmd, ops_dir, env, launch_log, timeout)
        elif not launch_log.exists():
            break
        status = launch_status(launch_log)
        run.launches.append(status)
        complete = True
        for r in range(nproc):
            try:  # the status file is written once pytest returned: the report is whole
                if not Path(base.format(rank=r) + ".rc").exists():
                    raise FileNotFoundError
                outcomes, errors = junit_outcomes(Path(base.format(rank=r) + ".xml"))
                for stem, error in errors.items():
                    run.file_errors.setdefault(stem, error)
            except (OSError, ET.ParseError):  # no report, or one cut short: the rank crashed or was killed
                complete = False
                outcomes, running = event_progress(Path(base.format(rank=r) + ".jsonl"))
                if running is not None and running not in outcomes:
                    why = f"interrupted: the launch was {status[0]}" if status[2] \
                        else _crash_reason(nproc, launch_log, base)
                    run.interrupted.setdefault(running, Outcome("failed", why))
            run.ranks[r].update(outcomes)
        if complete:
            break
        done = set.intersection(*(set(rank) for rank in run.ranks)) | set(run.interrupted)
        more = sorted(_nodeid(key) for key in done)
        if set(more) <= set(deselect):  # no progress: give up on the rest
            break
        deselect = more
    return run


def _combine(results: list[Outcome | None], interrupted: Outcome | None) -> Outcome:
    """One test over the ranks: passed (or skipped) when it did on every rank, else the first failure."""
    if all(x is not None and x.outcome == "passed" for x in results):
        return Outcome("passed")
    if all(x is not None and x.outcome == "skipped" for x in results):
        return results[0] or Outcome("skipped")
    failures = [x for x in results if x is not None and x.outcome == "failed"]
    first = failures[0] if failures else interrupted or Outcome("failed", "no result (see the ranks' logs)")
    if len(results) > 1:
        ranks = ", ".join(f"rank{r}: {x.outcome if x else 'no result'}" for r, x in enumerate(results))
        return Outcome("failed", first.message, first.where, ranks)
    return first


def unit_outcomes(run: UnitRun, files: list[Path], marker: str | None) -> tuple[dict[str, Outcome], Counter[str]]:
    """The unit's counted tests (with ``marker``: only those it decorates; the others tallied apart). A file
    that failed to be collected fails each of its tests with its error (not run when TensorFlow is missing)."""
    expected = {path.stem: tests_in(path, marker) for path in files}
    counted = {name for names in expected.values() for name in names}
    outcomes: dict[str, Outcome] = {}
    others: Counter[str] = Counter()
    for name in sorted(set().union(*run.ranks) | counted | set(run.interrupted)):
        results = [rank.get(name) for rank in run.ranks]
        stem = name.split("::")[0].split(".")[0]
        if marker is not None and name not in counted:  # not a 1nNd test (a 1n1d one skips): reported apart
            others[_combine(results, None).outcome] += 1
        elif all(x is None for x in results) and name not in run.interrupted and stem in run.file_errors:
            error = run.file_errors[stem]
            outcomes[name] = Outcome("not run", error.message) if NO_TF in error.message else error
        else:
            outcomes[name] = _combine(results, run.interrupted.get(name))
    for stem, error in run.file_errors.items():  # a file none of whose tests could be named
        if not expected.get(stem) and stem in expected:
            outcomes[f"{stem}::<collection>"] = Outcome("not run", error.message) if NO_TF in error.message else error
    return outcomes, others


