"""Write the names OneFlow's lazy releases exported (``@oneflow_export("...")``), read from a OneFlow git clone.

    python scripts/oneflow_names.py ONEFLOW_GIT_DIR [--tags v0.1.0 ... v0.3.4] [--lazy-tags v0.4.0]
                                    [--output PATH] [--modules-output PATH]
                                    [--master-dates 2020-01-15 ...] [--master-output PATH]

Every ``oneflow/python`` file of each tag is parsed (``ast``, so decorators over several lines count) and
each string argument of an ``oneflow_export(...)`` decorator is one name. Of a ``--lazy-tags`` release (v0.4.0,
which shipped its eager API beside the lazy one) only the lazy names count: not those marked
``@experimental_api``, nor those of its eager-only files (:data:`EAGER_ONLY`). The default tags are every
release from v0.1.0 to v0.3.4 (:data:`DEFAULT_TAGS`; not ``v0.3.0``, whose tag in OneFlow's repository points
at a September 2021 commit that has no ``oneflow/python``). Three files are written:

* ``src/flowtorch/_src/migrate/oneflow_exports.json``: each exported name and the tags that exported it;
  ``tests/api/test_oneflow_exports.py`` checks it against flowtorch.
* ``src/flowtorch/_src/migrate/oneflow_modules.json``: each module of ``oneflow/python`` (its import path,
  ``oneflow.python.ops.nn_ops``) and the public top-level names it defined: an exported one maps to its
  public name (``"conv2d": "nn.conv2d"``; a list when it had several, newest tag first), any other to
  ``null``. The ``oneflow`` import alias builds these modules from it (``_src/oneflow_modules.py``).
* ``src/flowtorch/_src/migrate/oneflow_exports_master.json``: the names OneFlow's master exported between
  November 2019 and June 2020, before v0.1.0 (the last commit of the master branch on or before each of
  ``--master-dates``), that no release exported, each with the dates that had it; and the paths of
  ``@oneflow_function_config`` (``function_config.train.primary_lr``) those commits set, under
  ``"function_config"``. ``tests/api/test_oneflow_exports.py`` checks that every one resolves.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path

DEFAULT_TAGS = ("v0.1.0", "v0.1.1", "v0.1.2", "v0.1.3", "v0.1.4", "v0.1.5", "v0.1.6", "v0.1.7", "v0.1.8", "v0.1.9",
                "v0.1.10", "v0.1.11b1", "v0.2b0", "v0.2b1", "v0.2.0", "v0.3.1", "v0.3.2", "v0.3.3", "v0.3.4")
# Master before v0.1.0 (2020-07-02): one commit a month from late 2019 (whose API OneFlow-Benchmark's programs
# used until mid 2020), and the last one before the release.
DEFAULT_MASTER_DATES = ("2019-11-15", "2019-12-15", "2020-01-15", "2020-02-15", "2020-03-15", "2020-04-15",
                        "2020-05-15", "2020-06-15", "2020-06-30")
DEFAULT_LAZY_TAGS = ("v0.4.0",)
# v0.4.0's eager API that carries no ``@experimental_api`` mark: the ``flow.experimental`` Tensor, nn.Module
# layers, init functions and autograd, the eager builtin-op builder and the eager session's start.
EAGER_ONLY = ("oneflow/python/nn/", "oneflow/python/autograd/", "oneflow/python/framework/tensor.py",
              "oneflow/python/ops/builtin_ops.py")
EAGER_ONLY_NAMES = ("InitEagerGlobalSession",)
MIGRATE = Path(__file__).resolve().parent.parent / "src" / "flowtorch" / "_src" / "migrate"
OUTPUT = MIGRATE / "oneflow_exports.json"
MODULES_OUTPUT = MIGRATE / "oneflow_modules.json"
MASTER_OUTPUT = MIGRATE / "oneflow_exports_master.json"
# Directories of oneflow/python that hold no importable library modules (tests, benchmark scripts).
SKIPPED_DIRS = ("/test/", "/benchmarks/")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def _decorator_names(node: ast.AST) -> list[str]:
    return [getattr(d.func if isinstance(d, ast.Call) else d, "id", getattr(d.func if isinstance(d, ast.Call) else d,
                                                                           "attr", ""))
            for d in getattr(node, "decorator_list", [])]


def _export_args(node: ast.AST) -> list[str]:
    """The names a def/class's ``@oneflow_export(...)`` decorators give it (stacked decorators add up)."""
    names: list[str] = []
    for dec in getattr(node, "decorator_list", []):
        if isinstance(dec, ast.Call) and getattr(dec.func, "id", getattr(dec.func, "attr", "")) == "oneflow_export":
            names += [a.value for a in dec.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return names


def _function_config_args(node: ast.AST) -> list[str]:
    """The paths a def's ``@oneflow_function_config(...)`` decorators give it (``train.primary_lr``)."""
    return [a.value for dec in getattr(node, "decorator_list", []) if isinstance(dec, ast.Call)
            and getattr(dec.func, "id", getattr(dec.func, "attr", "")) == "oneflow_function_config"
            for a in dec.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def function_config_paths(source: str) -> list[str]:
    """Every ``@oneflow_function_config(...)`` path in ``source``."""
    tree = _parse(source)
    if tree is None:
        return []
    return [p for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for p in _function_config_args(node)]


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def exported_names(source: str, lazy_only: bool = False) -> list[str]:
    """The names of every ``@oneflow_export(...)`` decorator in ``source`` (a Python file); with ``lazy_only``,
    not those of a def/class marked ``@experimental_api`` (v0.4.0's eager API)."""
    tree = _parse(source)
    if tree is None:
        return []
    return [name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            if not (lazy_only and "experimental_api" in _decorator_names(node))
            for name in _export_args(node) if not (lazy_only and name in EAGER_ONLY_NAMES)]


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements, those inside top-level ``if``/``try`` blocks included."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _top_level(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            out += _top_level(stmt.body + [s for h in stmt.handlers for s in h.body] + stmt.orelse)
        else:
            out.append(stmt)
    return out


def module_names(source: str) -> dict[str, list[str]]:
    """The public top-level names ``source`` defines (defs, classes, plain assignments), each with the public
    names it was exported as (``[]``: not exported). ``float = float32`` shares ``float32``'s names."""
    tree = _parse(source)
    if tree is None:
        return {}
    names: dict[str, list[str]] = {}
    for stmt in _top_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[stmt.name] = _export_args(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            value = stmt.value
            same = names.get(value.id, []) if isinstance(value, ast.Name) else []
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = list(same)
    return {k: v for k, v in names.items() if not k.startswith("_")}


def module_path(file: str) -> str:
    """``oneflow/python/ops/nn_ops.py`` → ``oneflow.python.ops.nn_ops`` (a package's ``__init__.py``: the
    package)."""
    parts = file[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_tag(repo: str, tag: str, lazy_only: bool = False) -> tuple[set[str], dict[str, dict[str, list[str]]]]:
    """The exported names of ``tag`` (with ``lazy_only``, its lazy API's) and its modules' public names
    (:func:`module_names`)."""
    files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", tag, "--", "oneflow/python").splitlines()
             if f.endswith(".py") and "/test/" not in f and not (lazy_only and f.startswith(EAGER_ONLY))]
    names: set[str] = set()
    modules: dict[str, dict[str, list[str]]] = {}
    for f in files:
        source = _git(repo, "show", f"{tag}:{f}")
        names.update(exported_names(source, lazy_only))
        if not any(d in f for d in SKIPPED_DIRS):
            modules[module_path(f)] = module_names(source)
    return names, modules


def tag_names(repo: str, tag: str) -> set[str]:
    return read_tag(repo, tag)[0]


def master_commit(repo: str, date: str) -> str:
    """The newest commit of OneFlow's master on or before ``date`` (by commit date)."""
    return _git(repo, "log", f"--until={date} 23:59:59", "-1", "--format=%H", "master").strip()


def read_master(repo: str, dates: list[str], released: set[str]) -> dict[str, dict[str, list[str]]]:
    """The names and function-config paths of master at each of ``dates`` that no release exported."""
    names: dict[str, list[str]] = {}
    paths: dict[str, list[str]] = {}
    for date in dates:
        commit = master_commit(repo, date)
        files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", commit, "--", "oneflow/python").splitlines()
                 if f.endswith(".py") and not any(d in f for d in SKIPPED_DIRS)]
        found: set[str] = set()
        found_paths: set[str] = set()
        for f in files:
            source = _git(repo, "show", f"{commit}:{f}")
            found.update(exported_names(source))
            found_paths.update(function_config_paths(source))
        for name in sorted(found - released):
            names.setdefault(name, []).append(date)
        for path in sorted(found_paths):
            paths.setdefault(path, []).append(date)
    return {"exports": dict(sorted(names.items())), "function_config": dict(sorted(paths.items()))}


def merge_modules(by_tag: list[dict[str, dict[str, list[str]]]]) -> dict[str, dict[str, str | list[str] | None]]:
    """One table over the tags (oldest first): every module and name any tag had; a name's public names,
    newest tag's first (a name a later tag stopped exporting keeps its older ones)."""
    merged: dict[str, dict[str, list[str]]] = {}
    for modules in by_tag:
        for module, names in modules.items():
            into = merged.setdefault(module, {})
            for name, public in names.items():
                into[name] = public + [p for p in into.get(name, []) if p not in public]

    def value(public: list[str]) -> str | list[str] | None:
        return None if not public else public[0] if len(public) == 1 else public

    return {m: {n: value(p) for n, p in sorted(names.items())} for m, names in sorted(merged.items())}


def write_names(names: dict[str, list[str]], path: Path) -> None:
    """One name a line, with the tags that exported it."""
    lines = [f" {json.dumps(n)}: {json.dumps(tags)}" for n, tags in names.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def write_modules(table: dict[str, dict[str, str | list[str] | None]], path: Path) -> None:
    """One module a line: small, and a new tag's changes diff line by line."""
    lines = [f" {json.dumps(m)}: {json.dumps(names, separators=(',', ':'))}" for m, names in table.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a git clone of Oneflow-Inc/oneflow (its tags are read, not its work tree)")
    parser.add_argument("--tags", nargs="+", default=list(DEFAULT_TAGS))
    parser.add_argument("--lazy-tags", nargs="*", default=list(DEFAULT_LAZY_TAGS),
                        help="releases whose lazy names only count (their modules are not tabled)")
    parser.add_argument("--output", default=str(OUTPUT))
    parser.add_argument("--modules-output", default=str(MODULES_OUTPUT))
    parser.add_argument("--master-dates", nargs="*", default=list(DEFAULT_MASTER_DATES),
                        help="dates of OneFlow's master before v0.1.0 to read (none: skip the master list)")
    parser.add_argument("--master-output", default=str(MASTER_OUTPUT))
    args = parser.parse_args()
    by_name: dict[str, list[str]] = {}
    by_tag = []
    for tag in args.tags:
        names, modules = read_tag(args.repo, tag)
        for name in sorted(names):
            by_name.setdefault(name, []).append(tag)
        by_tag.append(modules)
    for tag in args.lazy_tags:
        for name in sorted(read_tag(args.repo, tag, lazy_only=True)[0]):
            by_name.setdefault(name, []).append(tag)
    write_names(dict(sorted(by_name.items())), Path(args.output))
    print(f"{len(by_name)} names from {', '.join(args.tags + args.lazy_tags)} written to {args.output}")
    table = merge_modules(by_tag)
    write_modules(table, Path(args.modules_output))
    print(f"{len(table)} modules of oneflow/python written to {args.modules_output}")
    if args.master_dates:
        released = {n for n, tags in by_name.items() if set(tags) & set(args.tags)}
        master = read_master(args.repo, args.master_dates, released)
        sections = [f" {json.dumps(k)}: {{\n" + ",\n".join(f"  {json.dumps(n)}: {json.dumps(d)}" for n, d in v.items())
                    + "\n }" for k, v in master.items()]
        Path(args.master_output).write_text("{\n" + ",\n".join(sections) + "\n}\n")
        print(f"{len(master['exports'])} names and {len(master['function_config'])} function-config paths of "
              f"master ({', '.join(args.master_dates)}) written to {args.master_output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
