"""Run a corpus of real, public OneFlow 0.x lazy programs on flowtorch: the third yardstick (after the names and
OneFlow's own suites).

Usage::

    python scripts/real_programs.py prepare --mirrors DIR DEST          # DEST/<tree id> for every manifest tree
    python scripts/real_programs.py CHECKOUT... [--only PATTERN] [--out DIR] [--jobs 1]
    python scripts/real_programs.py --list                               # the manifest, one program a line

The manifest (``--manifest``, default ``docs/real-programs.json``) names *trees* (a repository at one commit:
``{"id", "repo", "commit", "ref", "date"}``) and *programs* (``{"name", "tree", "path", "argv", "timeout",
"root", "cwd", "data", "before", "env", "pytest", "package", "pythonpath", "note"}``: ``root`` is the folder
copied, ``"."`` the whole tree; ``cwd`` where it runs; ``before`` commands run first in the same folder, e.g.
the training program an evaluation needs; ``package`` names the copy so ``from <package>.x import`` works;
``pythonpath`` puts folders of the copy on ``PYTHONPATH``). Only that list is committed: the programs
themselves stay in their public repositories. A CHECKOUT is a directory holding one tree's files
(``git --git-dir=MIRROR worktree add`` or ``git archive COMMIT | tar -x``); its name is the tree's id
(``prepare`` makes them so from bare mirrors laid out as ``DIR/<owner>+<name>/repo``, what the ``fetch`` tool
brings). A checkout that is a git work tree must be at
the tree's commit.

Each program runs unedited, one at a time: its ``root`` folder (default: the program's own folder) is copied to a
throwaway directory, the generated data (``scripts/real_programs_data.py``) is written there, and
``python -m flowtorch -q PATH ARGV...`` runs from it (``pytest: true``: ``python -m flowtorch -q -m pytest -q
PATH``) under the entry's ``timeout``. ``argv`` holds only flags that shrink the work (iterations, batch size)
or point at the generated data. Run it with a Python whose numpy is older than 1.24 (old programs use
``np.float``), e.g. a throwaway venv outside the project with flowtorch installed in it.

Every failure is compared with the known failures (``--known``, default ``docs/real-programs-known-failures.txt``:
``NAME CLASS REASON`` a line). The script prints each program's outcome, the pass rate, the failures grouped by
class, and exits 1 when a program failed that is not known (or a known one is absent from the manifest).
``OUT/logs/<name>.log`` keeps each program's output, ``OUT/results.json`` the outcomes.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MANIFEST = ROOT / "docs" / "real-programs.json"
KNOWN = ROOT / "docs" / "real-programs-known-failures.txt"

# failure classes (the known-failures file's second column)
CLASSES = {
    "missing-name": "a public OneFlow name flowtorch lacks",
    "missing-internal": "OneFlow's insides: job IR, protobuf modules, c_api_util, _oneflow_internal",
    "behaviour": "flowtorch runs it but differs from OneFlow (an error OneFlow did not raise, a wrong shape)",
    "environment": "needs a GPU, a custom .so, the network, a dataset or a package not installed",
    "program-bug": "the program's own bug (it fails on OneFlow too)",
    "timeout": "ran past its time",
}


# --- the manifest --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tree:
    id: str
    repo: str
    commit: str
    ref: str = ""
    date: str = ""


@dataclass(frozen=True)
class Program:
    name: str
    tree: str
    path: str
    argv: tuple[str, ...] = ()
    timeout: int = 300
    root: str = ""  # folder copied as the working directory ("." the whole tree); default: the program's folder
    cwd: str = ""  # where it runs, under root; default: root
    data: tuple[dict[str, Any], ...] = ()
    before: tuple[tuple[str, ...], ...] = ()  # programs (path from cwd, then args) run first in the same folder
    package: str = ""  # the copy's folder name, its parent on PYTHONPATH (``from <package>.model import ...``)
    pythonpath: tuple[str, ...] = ()  # folders of the copy (relative to root) put on PYTHONPATH
    env: tuple[tuple[str, str], ...] = ()
    pytest: bool = False

    @property
    def root_dir(self) -> str:
        return self.root if self.root else os.path.dirname(self.path)

    @property
    def cwd_dir(self) -> str:
        return self.cwd if self.cwd else self.root_dir

    @property
    def rel_path(self) -> str:
        """The program's path from its working directory."""
        return os.path.relpath(self.path, self.cwd_dir or ".")


class ManifestError(ValueError):
    pass


_NAME = re.compile(r"^[A-Za-z0-9._+/@-]+$")
_PROGRAM_KEYS = {"name", "tree", "path", "argv", "timeout", "root", "cwd", "data", "before", "env", "pytest", "package",
                 "pythonpath", "note"}


def _under(path: str, folder: str) -> bool:
    return os.path.commonpath([os.path.normpath(folder), os.path.normpath(path)]) == os.path.normpath(folder)


def parse_manifest(doc: dict[str, Any]) -> tuple[dict[str, Tree], list[Program]]:
    """The trees by id and the programs, checked: unique names, known trees, full commits, relative paths."""
    trees: dict[str, Tree] = {}
    for raw in doc.get("trees", []):
        tree = Tree(**{k: raw[k] for k in ("id", "repo", "commit", "ref", "date") if k in raw})
        if tree.id in trees:
            raise ManifestError(f"tree {tree.id!r} is listed twice")
        if not re.fullmatch(r"[0-9a-f]{40}", tree.commit):
            raise ManifestError(f"tree {tree.id!r}: commit {tree.commit!r} is not a full 40-digit sha")
        if not _NAME.match(tree.id) or "/" in tree.id:
            raise ManifestError(f"tree id {tree.id!r}: letters, digits and ._+@- only")
        trees[tree.id] = tree
    programs: list[Program] = []
    seen: set[str] = set()
    for raw in doc.get("programs", []):
        unknown = set(raw) - _PROGRAM_KEYS
        if unknown:
            raise ManifestError(f"program {raw.get('name')!r}: unknown keys {sorted(unknown)}")
        prog = Program(name=raw["name"], tree=raw["tree"], path=raw["path"], argv=tuple(raw.get("argv", ())),
                       timeout=int(raw.get("timeout", 300)), root=raw.get("root", ""), cwd=raw.get("cwd", ""),
                       data=tuple(raw.get("data", ())), before=tuple(tuple(b) for b in raw.get("before", ())),
                       package=raw.get("package", ""), pythonpath=tuple(raw.get("pythonpath", ())),
                       env=tuple(sorted(raw.get("env", {}).items())),
                       pytest=bool(raw.get("pytest", False)))
        if prog.name in seen:
            raise ManifestError(f"program {prog.name!r} is listed twice")
        if not _NAME.match(prog.name) or any(c.isspace() for c in prog.name):
            raise ManifestError(f"program name {prog.name!r}: no spaces; letters, digits and ._+/@- only")
        if prog.tree not in trees:
            raise ManifestError(f"program {prog.name!r}: unknown tree {prog.tree!r}")
        for p in (prog.path, prog.root, prog.cwd, *prog.pythonpath):
            if p.startswith("/") or ".." in Path(p).parts:
                raise ManifestError(f"program {prog.name!r}: path {p!r} must be relative, inside the tree")
        for inner in (prog.path, prog.cwd):
            if prog.root not in ("", ".") and inner and not _under(inner, prog.root):
                raise ManifestError(f"program {prog.name!r}: {inner!r} is not under its root {prog.root!r}")
        if prog.package and not prog.package.isidentifier():
            raise ManifestError(f"program {prog.name!r}: package {prog.package!r} is not a Python name")
        if any(not b for b in prog.before):
            raise ManifestError(f"program {prog.name!r}: an empty 'before' command")
        for item in prog.data:
            if "kind" not in item or "to" not in item:
                raise ManifestError(f"program {prog.name!r}: a data item needs 'kind' and 'to': {item}")
        seen.add(prog.name)
        programs.append(prog)
    return trees, programs


# --- the known failures ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Known:
    cls: str
    reason: str


def parse_known(text: str) -> dict[str, Known]:
    """``NAME CLASS REASON`` a line; ``#`` starts a comment; a reason is required and the class must be known."""
    known: dict[str, Known] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            raise ValueError(f"known failures, line {number}: expected NAME CLASS REASON, got {line!r}")
        name, cls, reason = parts
        if cls not in CLASSES:
            raise ValueError(f"known failures, line {number}: class {cls!r} is not one of {sorted(CLASSES)}")
        if name in known:
            raise ValueError(f"known failures, line {number}: {name!r} is listed twice")
        known[name] = Known(cls, reason)
    return known


# --- classifying an outcome ------------------------------------------------------------------------------
_INTERNAL = re.compile(r"oneflow\.(core|python|_oneflow_internal|oneflow_internal)|c_api_util|get_job_set|"
                       r"JobBuildAndInferCtx|_oneflow_internal|job_conf_pb2|\bop_conf_pb2|_pb2\b")
_ENVIRONMENT = re.compile(r"CUDA|cuda|NVML|\.so\b|load_library|urlopen|URLError|Connection(Refused)?Error|"
                          r"FileNotFoundError|No such file or directory|gpu", re.I)


def error_line(log: str) -> str:
    """The last exception line of a log (``Type: message`` after a traceback; under pytest, the first ``E``
    line naming an exception), or its last non-empty line."""
    lines = [ln.rstrip() for ln in log.splitlines() if ln.strip()]
    pytest_errors = [ln[1:].strip() for ln in lines if re.match(r"^E\s+[A-Za-z_][\w.]*(Error|Exception)\b", ln)]
    if pytest_errors:  # pytest's report: its first ``E   Type: message`` line
        return pytest_errors[0]
    last_tb = max((i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last)")),
                  default=None)
    if last_tb is not None:
        for ln in lines[last_tb + 1:]:
            if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b(:|$)", ln):
                return ln
    return lines[-1] if lines else ""


def classify(status: str, log: str) -> str:
    """A first guess at a failure's class from its log (the known-failures file gives the verified one)."""
    if status == "timeout":
        return "timeout"
    line = error_line(log)
    module = re.match(r"^ModuleNotFoundError: No module named '([\w.]+)'", line)
    if module:
        name = module.group(1)
        if name.split(".")[0] in ("oneflow", "flowtorch"):
            return "missing-internal" if _INTERNAL.search(name) else "missing-name"
        return "environment"
    if line.startswith("AttributeError") and re.search(r"module '(oneflow|flowtorch)[\w.]*' has no attribute", line):
        return "missing-internal" if _INTERNAL.search(line) else "missing-name"
    if re.match(r"^ImportError: cannot import name .* from '(oneflow|flowtorch)", line):
        return "missing-name"
    if line.startswith("NotImplementedError") and _INTERNAL.search(line):
        return "missing-internal"
    if _ENVIRONMENT.search(line):
        return "environment"
    return "behaviour"


# --- running ---------------------------------------------------------------------------------------------
@dataclass
class Result:
    name: str
    status: str  # passed, failed, timeout, missing-tree
    seconds: float = 0.0
    error: str = ""
    cls: str = ""
    known: Known | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def find_checkouts(paths: list[Path], trees: dict[str, Tree]) -> dict[str, Path]:
    """Tree id -> checkout, by the directory's name; a git work tree must be at the tree's commit."""
    found: dict[str, Path] = {}
    for path in paths:
        tree = trees.get(path.resolve().name)
        if tree is None:
            raise SystemExit(f"{path}: its name is no tree id of the manifest ({', '.join(sorted(trees))})")
        head = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True)
        if head.returncode == 0 and (path / ".git").exists() and head.stdout.strip() != tree.commit:
            raise SystemExit(f"{path}: at {head.stdout.strip()}, the manifest wants {tree.commit}")
        found[tree.id] = path
    return found


def _command(prog: Program, python: str, script: str = "", args: tuple[str, ...] | None = None) -> list[str]:
    script = script or prog.rel_path
    args = prog.argv if args is None else args
    if prog.pytest and not script.endswith(".sh") and args is prog.argv:
        return [python, "-m", "flowtorch", "-q", "-m", "pytest", "-q", "-p", "no:cacheprovider", script, *args]
    return [python, "-m", "flowtorch", "-q", script, *args]


def _run(command: list[str], cwd: Path, env: dict[str, str], log: Any, timeout: float) -> tuple[int, bool]:
    """(exit status, killed): the command in its own process group, killed (that group only) after ``timeout``."""
    log.write(f"$ {' '.join(command[1:])}\n")
    log.flush()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        return proc.wait(timeout=max(1.0, timeout)), False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return -9, True


def run_program(prog: Program, checkout: Path, out: Path, python: str) -> Result:
    """Copy the program's root folder to a throwaway directory, write its data, run its ``before`` commands and
    then the program there; the outcome with its log's error line and a guessed class."""
    from real_programs_data import generate

    log_path = out / "logs" / (prog.name.replace("/", "__") + ".log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    status, rc, stage = "passed", 0, ""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="real-program-") as tmp:
        top = Path(tmp) / (prog.package or "work")
        shutil.copytree(checkout / prog.root_dir, top, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        cwd = top / os.path.relpath(prog.cwd_dir or ".", prog.root_dir or ".")
        for item in prog.data:
            generate(cwd, item, top)
        env = dict(os.environ, **dict(prog.env), MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
        env.pop("FLOWTORCH_ONEFLOW_ALIAS", None)
        paths = [str(top / p) for p in prog.pythonpath] + ([tmp] if prog.package else [])
        if paths:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [*paths, env.get("PYTHONPATH")]))
        steps = [(f"before: {b[0]}", _command(prog, python, b[0], tuple(b[1:]))) for b in prog.before]
        steps.append(("", _command(prog, python)))
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(f"# {prog.name}: in {prog.cwd_dir or '.'}\n")
            for step, command in steps:
                rc, killed = _run(command, cwd, env, log, prog.timeout - (time.monotonic() - start))
                if killed or rc != 0:
                    status, stage = ("timeout" if killed else "failed"), step
                    break
    seconds = time.monotonic() - start
    text = log_path.read_text(encoding="utf-8", errors="replace")
    result = Result(prog.name, status, seconds, extra={"rc": rc})
    if status != "passed":
        result.error = error_line(text) if status == "failed" else f"killed after {prog.timeout} s"
        result.error = f"{stage}: {result.error}" if stage else result.error
        result.cls = classify(status, text)
    return result


# --- reporting -------------------------------------------------------------------------------------------
def load_results(path: Path) -> dict[str, Result]:
    """The outcomes a run wrote to ``results.json`` (empty when there is none)."""
    if not path.exists():
        return {}
    return {r["name"]: Result(r["name"], r["status"], r.get("seconds", 0.0), r.get("error", ""), r.get("class", ""))
            for r in json.loads(path.read_text(encoding="utf-8"))}


def judge(results: list[Result], known: dict[str, Known], names: set[str]) -> tuple[list[Result], list[str], list[str]]:
    """(unexpected failures, known failures that passed, known names absent from the manifest)."""
    for r in results:
        r.known = known.get(r.name)
    unexpected = [r for r in results if not r.passed and r.known is None]
    fixed = [r.name for r in results if r.passed and r.known is not None]
    stale = sorted(set(known) - names)
    return unexpected, fixed, stale


def summary(results: list[Result], trees: dict[str, Tree], programs: list[Program]) -> list[str]:
    by_name = {p.name: p for p in programs}
    ran = [r for r in results if r.status != "missing-tree"]
    passed = sum(r.passed for r in ran)
    repos = {trees[by_name[r.name].tree].repo for r in ran}
    lines = [f"{passed} of {len(ran)} programs passed ({100.0 * passed / max(1, len(ran)):.1f} %), "
             f"from {len(repos)} repositories"]
    missing = [r.name for r in results if r.status == "missing-tree"]
    if missing:
        lines.append(f"not run (no checkout of their tree): {len(missing)}")
    classes = Counter((r.known.cls if r.known else r.cls) for r in ran if not r.passed)
    for cls, count in classes.most_common():
        lines.append(f"  {cls}: {count}  ({CLASSES.get(cls, '')})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkouts", nargs="*", type=Path)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--known", type=Path, default=KNOWN)
    parser.add_argument("--out", type=Path, default=Path("real-programs-out"))
    parser.add_argument("--only", action="append", default=[], help="fnmatch pattern on program names")
    parser.add_argument("--python", default=sys.executable, help="the Python that runs the programs")
    parser.add_argument("--list", action="store_true", help="print the manifest's programs and exit")
    parser.add_argument("--merge", action="store_true",
                        help="keep OUT/results.json's outcomes of the programs not run this time")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing: judge OUT/results.json against the known failures again")
    args = parser.parse_args(argv)

    trees, programs = parse_manifest(json.loads(args.manifest.read_text(encoding="utf-8")))
    if args.list:
        for p in programs:
            t = trees[p.tree]
            print(f"{p.name}\t{t.repo}@{t.commit[:10]}\t{p.path}\t{' '.join(p.argv)}")
        return 0
    known = parse_known(args.known.read_text(encoding="utf-8")) if args.known.exists() else {}
    earlier = load_results(args.out / "results.json") if args.merge or args.report_only else {}
    results: list[Result] = []
    if args.report_only:
        results = [earlier[p.name] for p in programs if p.name in earlier]
    else:
        checkouts = find_checkouts(args.checkouts, trees)
        chosen = [p for p in programs if not args.only or any(fnmatch.fnmatch(p.name, pat) for pat in args.only)]
        if not chosen:
            print("no program matches", file=sys.stderr)
            return 1
        sys.path.insert(0, str(HERE))
        args.out.mkdir(parents=True, exist_ok=True)
        fresh: dict[str, Result] = {}
        for prog in chosen:
            if prog.tree not in checkouts:
                fresh[prog.name] = Result(prog.name, "missing-tree")
                continue
            r = fresh[prog.name] = run_program(prog, checkouts[prog.tree], args.out, args.python)
            print(f"{r.status:8} {r.seconds:6.1f}s {r.name}" + (f"  [{r.cls}] {r.error}" if not r.passed else ""),
                  flush=True)
        results = [fresh.get(p.name) or earlier[p.name] for p in programs if p.name in fresh or p.name in earlier]
    unexpected, fixed, stale = judge(results, known, {p.name for p in programs})
    lines = summary(results, trees, programs)
    lines += [f"unexpected failure: {r.name}: [{r.cls}] {r.error}" for r in unexpected]
    lines += [f"known failure now passes (remove it from {args.known.name}): {n}" for n in fixed]
    lines += [f"known failure names no program of the manifest: {n}" for n in stale]
    (args.out / "results.json").write_text(json.dumps(
        [{"name": r.name, "status": r.status, "seconds": round(r.seconds, 1), "error": r.error, "class": r.cls,
          "known": r.known.cls if r.known else None} for r in results], indent=1), encoding="utf-8")
    (args.out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    ran = [r for r in results if r.status != "missing-tree"]
    return 1 if unexpected or stale or not ran else 0


def _copy_blobs(git_dir: Path, commit: str, target: Path) -> list[str] | None:
    """Write ``commit``'s files one by one; the paths whose content the mirror lacks (None: no such commit)."""
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit], capture_output=True)
    if listing.returncode != 0:
        return None
    skipped = []
    for entry in listing.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind != "blob":
            continue
        blob = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "blob", sha], capture_output=True)
        if blob.returncode != 0:
            skipped.append(path)
            continue
        dest = target / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            dest.symlink_to(blob.stdout.decode("utf-8", "surrogateescape"))
        else:
            dest.write_bytes(blob.stdout)
            if mode == "100755":
                dest.chmod(0o755)
    return skipped


def prepare(argv: list[str]) -> int:
    """``prepare --mirrors DIR DEST``: ``git archive`` every manifest tree from DIR/<owner>+<name>/repo."""
    parser = argparse.ArgumentParser(prog="real_programs.py prepare")
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("dest", type=Path)
    args = parser.parse_args(argv)
    trees, _ = parse_manifest(json.loads(args.manifest.read_text(encoding="utf-8")))
    failed = 0
    for tree in trees.values():
        target = args.dest / tree.id
        if target.exists():
            continue
        git_dir = args.mirrors / tree.repo.replace("/", "+") / "repo"
        target.mkdir(parents=True)
        archive = subprocess.Popen(["git", f"--git-dir={git_dir}", "archive", tree.commit], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
        untar = subprocess.run(["tar", "-x", "-C", str(target)], stdin=archive.stdout)
        if archive.wait() != 0 or untar.returncode != 0:
            skipped = _copy_blobs(git_dir, tree.commit, target)  # a snapshot lacks its largest files
            if skipped is None:
                print(f"{tree.id}: could not read {tree.repo}@{tree.commit} from {git_dir}", file=sys.stderr)
                shutil.rmtree(target)
                failed += 1
                continue
            print(f"{tree.id}: {target} (absent from the snapshot: {', '.join(skipped)})")
        else:
            print(f"{tree.id}: {target}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2:]))
    sys.exit(main())
