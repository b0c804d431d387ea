"""Run OneFlow's own operator test suites on flowtorch and report the pass rate: the project's yardstick.

Usage: ``python scripts/oneflow_suite.py CHECKOUT... [--suite S] [--jobs N] [--out DIR] [-- PYTEST_ARGS...]``

CHECKOUT is a tree of github.com/Oneflow-Inc/oneflow (``git archive TAG oneflow/python``, or its
``oneflow/python/test/ops`` folder) at v0.3.4 or at v0.1.2; its layout says which (v0.1.2's folder holds
``1node_test.py``). The files run from where they are, unedited, with ``import oneflow`` resolved to flowtorch.
Run it with a Python whose numpy is older than 1.24 (the files use ``np.float``). The suites (``--suite``):

* ``1n1d`` (a v0.3.4 tree's default): every ``test_*.py`` that builds a ``global_function`` job and compares
  with numpy only, plus the files that compare with TensorFlow (they import it, themselves or through a helper
  module of the folder), under ``pytest --oneflow-alias`` at ``ONEFLOW_TEST_DEVICE_NUM=1``, in ``--jobs`` shares.
* ``1n2d`` (``--only-1n2d``; ``--nproc N`` for 1nNd): the files with ``skip_unless_1n2d`` tests, each on two
  processes (``python -m flowtorch --nproc 2``, gloo); a test passes when it passed on every rank, and only
  those tests count (the others skip there and are tallied apart).
* ``0.1.2`` (a v0.1.2 tree's default): first v0.1.2's own runner, ``python -m flowtorch 1node_test.py`` (every
  file in one process under absltest, as OneFlow ran them; its exit status is reported), then each
  ``test_*.py`` alone under pytest, ``--jobs`` files at a time.
* ``all``: each CHECKOUT's suites in turn (``1n1d`` and ``1n2d`` for a v0.3.4 tree, ``0.1.2`` for a v0.1.2 one),
  under ``OUT/MODE``.

TensorFlow's CPU build lacks kernels some references need (channels-first pooling, dilated
``Conv2DBackpropInput``): ``suite_site/sitecustomize.py``, put on every suite process's ``PYTHONPATH``, computes
them with TensorFlow's own CPU kernels in an equivalent form (``FLOWTORCH_SUITE_TF_SHIMS=0``: off).

``--tensorflow`` picks the TensorFlow-comparison files: ``auto`` (the default) runs them when ``tensorflow``
imports and reports them as not run otherwise, ``yes`` requires it, ``no`` leaves them out, ``only`` runs only
them. Counts are given apart for the numpy-only and the TensorFlow files.

pytest runs in ``scripts/oneflow_suite_worker.py`` (``scripts/oneflow_suite_runs.py`` launches it and reads its
reports: ``OUT/launch-UNIT.txt`` and ``OUT/ranks/UNIT-rankR.*``); a launch still running after its time
(``--file-timeout`` per file) is killed, and a crash or a kill loses one test, not the rest.

Each failure is compared with the known failures (``--known``, default ``docs/oneflow-suite-known-failures.txt``:
``MODES TEST_ID REASON`` a line). ``OUT/summary.txt`` gives per suite the counts and pass rate, known and new
failures, and the failures grouped by cause (the flowtorch function that raised, and the error). The exit
status is 1 only when a test failed that is not known, or nothing ran. ``--report-only`` re-reads ``OUT``
without running anything (give the same ``--jobs``); ``--src`` tests another flowtorch source tree (e.g. a
``git archive`` of one commit, while the checkout changes).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import re
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from oneflow_suite_runs import (
    Outcome,
    UnitRun,
    junit_outcomes,
    launch_status,
    run_killable,
    run_unit,
    tests_in,
    unit_outcomes,
)

HERE = Path(__file__).resolve().parent  # the worker is beside this script
ROOT = HERE.parent
KNOWN = ROOT / "docs" / "oneflow-suite-known-failures.txt"
NUMPY, TENSORFLOW = "numpy-only", "tensorflow"


# --- which files ---------------------------------------------------------------------------------------
def layout(ops_dir: Path) -> str:
    """``0.1.2`` when the folder holds v0.1.2's runner, else ``0.3.4``."""
    return "0.1.2" if (ops_dir / "1node_test.py").is_file() else "0.3.4"


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """The top-level names a file imports anywhere, and those it imports at module level."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return set(), set()

    def names(nodes: list[ast.AST]) -> set[str]:
        found = set()
        for node in nodes:
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
        return found

    return names(list(ast.walk(tree))), names(tree.body)


def tensorflow_files(ops_dir: Path) -> set[str]:
    """Stems of the files that need TensorFlow: they mention it, or import at module level a module of the folder
    that imports it at module level (v0.1.2's ``test_util``; v0.3.4's imports it inside a function)."""
    texts = {p.stem: p.read_text(encoding="utf-8", errors="replace") for p in ops_dir.glob("*.py")}
    imports = {stem: _imports(ops_dir / f"{stem}.py") for stem in texts}
    needs = {stem for stem, text in texts.items() if "tensorflow" in text.lower()}
    at_top = {stem for stem, (_, top) in imports.items() if "tensorflow" in top}
    while more := {s for s, (_, top) in imports.items() if s not in at_top and top & at_top}:
        at_top |= more
    return needs | at_top


def tensorflow_importable() -> bool:
    return subprocess.run([sys.executable, "-c", "import tensorflow"], capture_output=True).returncode == 0


# --- the suites ----------------------------------------------------------------------------------------
@dataclass
class SuiteResult:
    mode: str
    outcomes: dict[str, Outcome]
    groups: dict[str, str]  # file stem -> NUMPY or TENSORFLOW
    head: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _env(args: argparse.Namespace, **extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra, PYTHONPATH=os.pathsep.join(
        filter(None, [str(args.src.resolve()), str(HERE), str(HERE / "suite_site"), os.environ.get("PYTHONPATH")])))
    return env


def _not_run(files: list[Path], why: str) -> dict[str, Outcome]:
    return {name: Outcome("not run", why) for path in files for name in tests_in(path) or [f"{path.stem}::<file>"]}


def _select_tf(args: argparse.Namespace, files: list[Path], tf_stems: set[str]) -> tuple[list[Path], list[Path]]:
    """``(to run, not run as TensorFlow is missing)`` after ``--tensorflow``."""
    tf = [p for p in files if p.stem in tf_stems]
    if args.tensorflow == "no":
        return [p for p in files if p.stem not in tf_stems], []
    keep = tf if args.tensorflow == "only" else files
    if tf and not args.tf_ok:
        return [p for p in keep if p.stem not in tf_stems], tf
    return keep, []


def _file_line(path: Path, outcomes: dict[str, Outcome], run: UnitRun | None) -> str:
    tally = Counter(o.outcome for name, o in outcomes.items() if name.split("::")[0].split(".")[0] == path.stem)
    text = f"{path.name}: " + ", ".join(f"{tally[k]} {k}" for k in ("passed", "failed", "skipped", "not run")
                                         if tally[k] or k != "not run")
    if run is not None and run.launches:
        text += f" ({len(run.launches)} launch(es): " + "; ".join(f"{s}, {t} s" for s, t, _ in run.launches) + ")"
    return text


def suite_one_device(args: argparse.Namespace, ops_dir: Path, tag: str) -> SuiteResult:
    """v0.3.4's lazy jobs at one device: the numpy-only files and the TensorFlow-comparison ones."""
    tf_stems = tensorflow_files(ops_dir)
    numpy_files = [p for p in sorted(ops_dir.glob("test_*.py")) if p.stem not in tf_stems
                   and "global_function" in p.read_text(encoding="utf-8", errors="replace")]
    files, missing = _select_tf(args, numpy_files + [p for p in sorted(ops_dir.glob("test_*.py"))
                                                     if p.stem in tf_stems], tf_stems)
    files.sort()
    eager = os.environ.get("ONEFLOW_TEST_ENABLE_EAGER", "") not in ("", "0")
    result = SuiteResult(f"{tag}-1n1d" + ("-eager" if eager else ""), _not_run(missing, "tensorflow does not import"),
                         {p.stem: TENSORFLOW if p.stem in tf_stems else NUMPY for p in files + missing})
    env = _env(args, ONEFLOW_TEST_DEVICE_NUM="1")
    jobs = max(1, min(args.jobs, len(files)))
    shares = [files[i::jobs] for i in range(jobs)]
    with ThreadPoolExecutor(jobs) as pool:  # a share per process (not xdist): a crash costs one test
        runs = list(pool.map(lambda i: run_unit(args, ops_dir, f"share{i}", shares[i], 1, env,
                                                args.file_timeout * len(shares[i])), range(jobs)))
    for run, share in zip(runs, shares):
        result.outcomes.update(unit_outcomes(run, share, None)[0])
    result.head = [f"ONEFLOW_TEST_DEVICE_NUM=1{', eager' if eager else ''}; {len(files)} files in {jobs} pytest "
                   f"process(es); launches: " + "; ".join(f"{s}, {t} s" for r in runs for s, t, _ in r.launches)]
    result.files = [_file_line(p, result.outcomes, None) for p in sorted(files + missing)]
    return result


def suite_nproc(args: argparse.Namespace, ops_dir: Path, tag: str, nproc: int) -> SuiteResult:
    """v0.3.4's ``skip_unless_1nNd`` tests, each file on ``nproc`` processes, one file at a time."""
    marker = f"skip_unless_1n{nproc}d"
    tf_stems = tensorflow_files(ops_dir)
    chosen = [p for p in sorted(ops_dir.glob("test_*.py")) if marker in p.read_text(encoding="utf-8", errors="replace")]
    files, missing = _select_tf(args, chosen, tf_stems)
    result = SuiteResult(f"{tag}-1n{nproc}d", {n: Outcome("not run", "tensorflow does not import")
                                                for p in missing for n in tests_in(p, marker)},
                         {p.stem: TENSORFLOW if p.stem in tf_stems else NUMPY for p in chosen})
    # OneFlow's one controlling process fed every device; its tests feed arrays each process makes on its own
    # (np.ndarray(shape), uninitialised memory, in the reduce tests), so rank 0's feed stands for them all
    env = _env(args, FLOWTORCH_DIST_FEED="rank0")
    env.pop("ONEFLOW_TEST_DEVICE_NUM", None)  # device_num() is then the launcher's processes per node
    others: Counter[str] = Counter()
    killed = crashed = 0
    for k, path in enumerate(files, 1):
        run = run_unit(args, ops_dir, path.stem, [path], nproc, env, args.file_timeout)
        killed += sum(kill for _, _, kill in run.launches)
        crashed += sum(not kill and status != "exit 0" for status, _, kill in run.launches)
        outcomes, other = unit_outcomes(run, [path], marker)
        result.outcomes.update(outcomes)
        others += other
        result.files.append(_file_line(path, outcomes, run))
        print(f"[{k}/{len(files)}] {result.files[-1]}", flush=True)
    result.files += [_file_line(p, result.outcomes, None) + " (tensorflow does not import)" for p in missing]
    result.head = [f"each file in `python -m flowtorch --nproc {nproc}`, one at a time; {len(chosen)} files with "
                   f"{marker} tests; {crashed} launch(es) crashed, {killed} killed after {args.file_timeout} s",
                   f"passed = passed on all {nproc} ranks; other tests (not {marker}): "
                   + ", ".join(f"{others[k]} {k}" for k in ("passed", "failed", "skipped"))]
    return result


def absl_log_outcomes(log: Path) -> dict[str, Outcome]:
    """What v0.1.2's runner printed of each test (``[ RUN      ] test_add.test_x`` ...), for a run that wrote no
    report (killed): a test started and not finished failed."""
    outcomes: dict[str, Outcome] = {}
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    for m in re.finditer(r"^\[ *(RUN|OK|FAILED|SKIPPED) *\] (\w+)\.(\w+)", text, re.MULTILINE):
        key = f"{m[2]}::{m[3]}"
        state = {"RUN": "failed", "OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}[m[1]]
        outcomes[key] = Outcome(state, "interrupted: the runner was killed" if m[1] == "RUN" else "see runner.log")
    return outcomes


def suite_v012(args: argparse.Namespace, ops_dir: Path, tag: str) -> list[SuiteResult]:
    """v0.1.2: its runner ``1node_test.py`` (every file in one process), then each file alone under pytest."""
    tf_stems = tensorflow_files(ops_dir)
    chosen = sorted(ops_dir.glob("test_*.py"))
    groups = {p.stem: TENSORFLOW if p.stem in tf_stems else NUMPY for p in chosen}
    env = _env(args, FLOWTORCH_ONEFLOW_VERSION="0.1")  # v0.1's conventions where a call reads the same later
    args.out.mkdir(parents=True, exist_ok=True)
    runner_log, runner_xml = args.out / "runner.log", args.out / "runner.xml"
    if not args.report_only:
        runner_xml.unlink(missing_ok=True)
        print(f"running {ops_dir / '1node_test.py'} ...", flush=True)
        run_killable([sys.executable, "-m", "flowtorch", "1node_test.py", f"--xml_output_file={runner_xml}"],
                     ops_dir, env, runner_log, args.runner_timeout)
    status, took, _ = launch_status(runner_log)
    try:
        runner_outcomes = junit_outcomes(runner_xml)[0]
    except (OSError, ET.ParseError):
        runner_outcomes = absl_log_outcomes(runner_log)
    runner = SuiteResult(f"{tag}-runner", runner_outcomes, groups,
                         [f"`python -m flowtorch 1node_test.py`: {status} after {took} s "
                          f"({'its JUnit report' if runner_xml.exists() else 'read from its log'})"],
                         [_file_line(p, runner_outcomes, None) for p in chosen])

    files, missing = _select_tf(args, chosen, tf_stems)
    per_file = SuiteResult(f"{tag}-pytest", _not_run(missing, "tensorflow does not import"), groups)
    runs: dict[str, UnitRun] = {}
    lock = threading.Lock()

    def one(path: Path) -> None:
        run = run_unit(args, ops_dir, path.stem, [path], 1, env, args.file_timeout)
        outcomes = unit_outcomes(run, [path], None)[0]
        with lock:
            runs[path.stem] = run
            per_file.outcomes.update(outcomes)
            print(f"[{len(runs)}/{len(files)}] {_file_line(path, outcomes, run)}", flush=True)

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(one, files))
    per_file.head = [f"each file alone under pytest, {args.jobs} at a time"]
    per_file.files = [_file_line(p, per_file.outcomes, runs.get(p.stem)) for p in chosen]
    return [runner, per_file]


# --- known failures and the summary --------------------------------------------------------------------
@dataclass(frozen=True)
class Known:
    modes: tuple[str, ...]
    test: str
    reason: str


def load_known(path: Path) -> list[Known]:
    """``MODES TEST_ID REASON`` a line (modes comma-separated; modes and test id are fnmatch patterns)."""
    entries = []
    if not path.exists():
        return entries
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            raise SystemExit(f"{path}:{n}: expected MODES TEST_ID REASON, got {line!r}")
        entries.append(Known(tuple(parts[0].split(",")), parts[1], parts[2].strip()))
    return entries


def _known_for(known: list[Known], mode: str, test: str) -> Known | None:
    return next((k for k in known if any(fnmatch.fnmatchcase(mode, m) for m in k.modes)
                 and fnmatch.fnmatchcase(test, k.test)), None)


def _cause(o: Outcome) -> str:
    """Failures with one cause: raised in the same place, with the same message less what varies between tests
    (numbers, an assert's values, the names of jobs, of their arguments and of blobs)."""
    message = re.sub(r"\barray\(.*", "array(...) ...", o.message)
    message = re.sub(r"job '[^']*'( \(while [^)]*\))?", "job '…'", message)
    message = re.sub(r"argument '[^']*' \(#", "argument '…' (#", message)  # a job's argument
    message = re.sub(r"\b\w+_\d+/\w+", "BLOB", message)
    return f"{o.where or '?'}: {re.sub(r'[0-9]+', 'N', message)[:200]}"


def _row(label: str, c: Counter[str]) -> str:
    ran = c["passed"] + c["failed"]
    rate = f"{100.0 * c['passed'] / ran:.1f} % of {ran}" if ran else "-"
    return f"| {label} | {c['passed']} | {c['failed']} | {c['skipped']} | {c['not run']} | {rate} |"


@dataclass
class Report:
    lines: list[str]
    totals: Counter[str]
    new: int


def report(result: SuiteResult, known: list[Known]) -> Report:
    """The suite's summary: counts per group, failures by cause, known and new failures."""
    totals: dict[str, Counter[str]] = {NUMPY: Counter(), TENSORFLOW: Counter(), "all": Counter()}
    for name, o in result.outcomes.items():
        totals[result.groups.get(name.split("::")[0].split(".")[0], NUMPY)][o.outcome] += 1
        totals["all"][o.outcome] += 1
    failed = {n: o for n, o in result.outcomes.items() if o.outcome == "failed"}
    reasons = {n: k.reason for n in failed if (k := _known_for(known, result.mode, n)) is not None}
    new = sorted(set(failed) - set(reasons))
    mine = [k for k in known if any(fnmatch.fnmatchcase(result.mode, m) for m in k.modes)]
    passing = sorted(n for n, o in result.outcomes.items()
                     if o.outcome == "passed" and _known_for(mine, result.mode, n))
    unmatched = [k for k in mine if not any(fnmatch.fnmatchcase(n, k.test) for n in result.outcomes)]
    causes = Counter(_cause(o) for o in failed.values())
    example = {_cause(o): n for n, o in sorted(failed.items())}
    lines = [f"== {result.mode} ==", *result.head, "",
             "| group | passed | failed | skipped | not run | pass rate |", "|---|---|---|---|---|---|",
             *(_row(group, c) for group, c in totals.items()), "",
             f"failures: {len(failed)} ({len(failed) - len(new)} known, {len(new)} new)",
             "", "failures by cause (count, where: error, a test):",
             *(f"{c:4d}  {cause}   e.g. {example[cause]}" for cause, c in causes.most_common()),
             "", "new failures:", *(f"{n}  [{failed[n].where}]  {failed[n].message}"
                                    + (f"  [{failed[n].ranks}]" if failed[n].ranks else "") for n in new),
             "", "known failures:",
             *(f"{n}  [{failed[n].where}]  {failed[n].message}  -- known: {reasons[n]}" for n in sorted(reasons)),
             "", "known failures that passed this run:", *passing,
             "", "known-failure entries that name no test of this run:",
             *(f"{','.join(k.modes)} {k.test}" for k in unmatched),
             "", "not run:", *sorted(f"{n}  {o.message}" for n, o in result.outcomes.items() if o.outcome == "not run"),
             "", "per file:", *result.files, ""]
    return Report(lines, totals["all"], len(new))


def _checkout(path: Path) -> Path:
    ops_dir = path.resolve()
    return ops_dir / "oneflow/python/test/ops" if (ops_dir / "oneflow/python/test/ops").is_dir() else ops_dir


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        argv, extra = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", type=Path, nargs="+", metavar="CHECKOUT")
    parser.add_argument("--suite", choices=["1n1d", "1n2d", "0.1.2", "all"], default=None,
                        help="default: 1n1d for a v0.3.4 tree, 0.1.2 for a v0.1.2 tree")
    parser.add_argument("--tensorflow", choices=["auto", "yes", "no", "only"], default="auto",
                        help="the TensorFlow-comparison files: when it imports (auto), required, left out, alone")
    parser.add_argument("--with-tensorflow", dest="tensorflow", action="store_const", const="yes",
                        help="the same as --tensorflow yes")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test (pytest-timeout)")
    parser.add_argument("--file-timeout", type=int, default=600, help="seconds per file before its launch is killed")
    parser.add_argument("--runner-timeout", type=int, default=3600, help="seconds for v0.1.2's 1node_test.py")
    parser.add_argument("--out", type=Path, default=Path("oneflow-suite-results"))
    parser.add_argument("--nproc", type=int, default=None, help="the 1nNd suite: each file on N processes")
    parser.add_argument("--only-1n2d", action="store_true", help="the same as --suite 1n2d")
    parser.add_argument("--known", type=Path, default=KNOWN, help="the known failures (MODES TEST_ID REASON a line)")
    parser.add_argument("--tag", default=None,
                        help="the tag named in the modes (default: the layout's, 0.3.4 or 0.1.2)")
    parser.add_argument("--src", type=Path, default=ROOT / "src",
                        help="the flowtorch source tree to test (default: this checkout's src/)")
    parser.add_argument("--report-only", action="store_true", help="only summarize the reports already under --out")
    args = parser.parse_args(argv)
    args.extra = extra
    if args.only_1n2d or args.nproc is not None:
        if args.suite not in (None, "1n2d") or (args.only_1n2d and args.nproc not in (None, 2)):
            parser.error("--only-1n2d and --nproc N select the 1nNd suite (--only-1n2d with N = 2)")
        args.suite, args.nproc = "1n2d", args.nproc or 2
        if args.nproc < 2:
            parser.error("--nproc expects an int >= 2")
    known = load_known(args.known)
    args.tf_ok = args.report_only or args.tensorflow == "no" or tensorflow_importable()
    if args.tensorflow in ("yes", "only") and not args.tf_ok:
        parser.error(f"--tensorflow {args.tensorflow}: `import tensorflow` fails in {sys.executable}")

    plan: list[tuple[str, Path, str]] = []  # (suite, ops dir, tag)
    for checkout in args.checkouts:
        ops_dir = _checkout(checkout)
        if not any(ops_dir.glob("test_*.py")):
            parser.error(f"no test files under {ops_dir}")
        tag = args.tag or layout(ops_dir)
        default = ["0.1.2"] if layout(ops_dir) == "0.1.2" else ["1n1d"]
        if args.suite == "all":
            default = ["0.1.2"] if layout(ops_dir) == "0.1.2" else ["1n1d", "1n2d"]
        elif args.suite is not None:
            default = [args.suite]
        plan += [(suite, ops_dir, tag) for suite in default]
    top = args.out.resolve()
    summaries: list[str] = []
    table = ["| suite | passed | failed | skipped | not run | pass rate | new failures |",
             "|---|---|---|---|---|---|---|"]
    new_total = ran_total = 0
    for suite, ops_dir, tag in plan:
        args.out = (top / (tag if suite == "0.1.2" else f"{tag}-{suite}")) if len(plan) > 1 else top
        (args.out / "ranks").mkdir(parents=True, exist_ok=True)
        if suite == "1n1d":
            results = [suite_one_device(args, ops_dir, tag)]
        elif suite == "1n2d":
            results = [suite_nproc(args, ops_dir, tag, args.nproc or 2)]
        else:
            results = suite_v012(args, ops_dir, tag)
        lines: list[str] = []
        for result in results:
            rep = report(result, known)
            lines += rep.lines
            new_total += rep.new
            ran_total += rep.totals["passed"] + rep.totals["failed"]
            table.append(_row(result.mode, rep.totals) + f" {rep.new} |")
        (args.out / "summary.txt").write_text("\n".join(lines), encoding="utf-8")
        summaries += lines
    if len(plan) > 1:
        (top / "summary.txt").write_text("\n".join([*table, "", *summaries]), encoding="utf-8")
    print("\n".join(table))
    print(f"summary: {top / 'summary.txt'}")
    return 1 if new_total or not ran_total else 0


if __name__ == "__main__":
    sys.exit(main())
