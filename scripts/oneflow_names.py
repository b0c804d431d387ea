"""Write the names OneFlow's lazy releases exported (``@oneflow_export("...")``), read from a OneFlow git clone.

    python scripts/oneflow_names.py ONEFLOW_GIT_DIR [--tags v0.1.2 v0.2.0 v0.3.4] [--output PATH]

Every ``oneflow/python`` file of each tag is parsed (``ast``, so decorators over several lines count) and
each string argument of an ``oneflow_export(...)`` decorator is one name. The output
(``src/flowtorch/_src/migrate/oneflow_exports.json`` by default) maps each name to the tags that exported
it; ``tests/api/test_oneflow_exports.py`` checks it against flowtorch.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path

DEFAULT_TAGS = ("v0.1.2", "v0.2.0", "v0.3.4")
OUTPUT = Path(__file__).resolve().parent.parent / "src" / "flowtorch" / "_src" / "migrate" / "oneflow_exports.json"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def exported_names(source: str) -> list[str]:
    """The names of every ``@oneflow_export(...)`` decorator in ``source`` (a Python file)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            if isinstance(dec, ast.Call) and getattr(dec.func, "id", getattr(dec.func, "attr", "")) == "oneflow_export":
                names += [a.value for a in dec.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return names


def tag_names(repo: str, tag: str) -> set[str]:
    files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", tag, "--", "oneflow/python").splitlines()
             if f.endswith(".py") and "/test/" not in f]
    names: set[str] = set()
    for f in files:
        names.update(exported_names(_git(repo, "show", f"{tag}:{f}")))
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a git clone of Oneflow-Inc/oneflow (its tags are read, not its work tree)")
    parser.add_argument("--tags", nargs="+", default=list(DEFAULT_TAGS))
    parser.add_argument("--output", default=str(OUTPUT))
    args = parser.parse_args()
    by_name: dict[str, list[str]] = {}
    for tag in args.tags:
        for name in sorted(tag_names(args.repo, tag)):
            by_name.setdefault(name, []).append(tag)
    Path(args.output).write_text(json.dumps(dict(sorted(by_name.items())), indent=1) + "\n")
    print(f"{len(by_name)} names from {', '.join(args.tags)} written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
