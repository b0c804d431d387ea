"""flowtorch's library code tells the user things through the "flowtorch" logger only: no ``print`` and no
``warnings.warn`` outside the command line and the few places where printing or a warning class is the API."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "flowtorch"

# Where printing is the program's output, or a warning the API: each with its reason.
ALLOWED = {
    "__main__.py": "the command line's usage, errors and output",
    "_src/dist/launch.py": "the launcher's report of a failed launch and a worker's traceback, on stderr",
    "_src/watch/api.py": "flow.watch(blob) without a handler prints the value, as OneFlow documented",
    "_src/ops/nn_ops.py": "LabelRangeWarning: a public warning class that programs filter",
}


def _calls(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "print":
            found.append((node.lineno, "print"))
        elif (isinstance(f, ast.Attribute) and f.attr in ("warn", "warn_explicit") and isinstance(f.value, ast.Name)
              and f.value.id == "warnings"):
            found.append((node.lineno, f"warnings.{f.attr}"))
    return found


def test_library_notices_go_through_logging_only():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in ALLOWED or rel.endswith("_cli.py"):  # the *_cli.py modules are command lines
            continue
        offenders += [f"{rel}:{line}: {what}" for line, what in _calls(ast.parse(path.read_text(encoding="utf-8")))]
    assert not offenders, "use logging.getLogger('flowtorch') for notices:\n" + "\n".join(offenders)


def test_the_allowed_places_still_exist_and_print():
    for rel in ALLOWED:
        assert _calls(ast.parse((SRC / rel).read_text(encoding="utf-8"))), rel
