"""Every ``FLOWTORCH_*`` environment variable that flowtorch reads is documented, in README.md or docs/."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"FLOWTORCH_[A-Z0-9_]+")


def variables_read() -> dict[str, str]:
    """Each string constant of ``src/`` that is exactly a ``FLOWTORCH_*`` name (how a variable is read:
    ``os.environ.get("…")``, ``env_number("…", …)``, ``NAME_ENV = "…"``), with a file that holds it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "src").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # the names a module exports (op_types' FLOWTORCH_PREFIX constant) are no variables
        exported = {id(c) for node in ast.walk(tree) if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                    for c in ast.walk(node.value)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and NAME.fullmatch(node.value)
                    and id(node) not in exported):
                found.setdefault(node.value, str(path.relative_to(ROOT)))
    return found


def test_every_flowtorch_variable_read_is_documented():
    read = variables_read()
    assert {"FLOWTORCH_DEVICE", "FLOWTORCH_MAX_INFLIGHT", "FLOWTORCH_EXIT_TIMEOUT"} <= set(read)  # the scan works
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    documented = {name for doc in docs for name in NAME.findall(doc.read_text(encoding="utf-8"))}
    missing = {name: where for name, where in read.items() if name not in documented}
    assert not missing, f"FLOWTORCH_* variables read but documented nowhere (README.md, docs/): {missing}"


def test_the_readme_s_knob_table_lists_the_session_s_variables():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("FLOWTORCH_MAX_INFLIGHT", "FLOWTORCH_EXIT_TIMEOUT", "FLOWTORCH_LAUNCH_SEED",
                 "FLOWTORCH_ALL_RANKS_OUTPUT"):
        assert re.search(rf"^\| `{name}[=`]", readme, re.MULTILINE), name
