"""The import layers of ``src/flowtorch``: imports go only down the layer list, and no module imports itself
back through others.

The list lives once, in ``docs/architecture.md`` (the table between ``<!-- layers:begin -->`` and
``<!-- layers:end -->``); this test reads it. Every import counts, function-local ones included; imports
under ``if TYPE_CHECKING:`` are left out (they never run). Modules outside ``flowtorch._src`` are the
public facades, the top layer.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
DOC = ROOT / "docs" / "architecture.md"
FACADES = "facades"


def read_layers(text: str) -> list[tuple[str, list[str]]]:
    """``[(layer, [pattern, ...]), ...]``, bottom first, from the doc's table rows ``| n | layer | a, b.* |``."""
    block = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", text, re.S)
    if block is None:
        raise AssertionError(f"{DOC} has no <!-- layers:begin --> … <!-- layers:end --> table")
    layers = []
    for line in block.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            layers.append((cells[1], [p.strip(" `") for p in cells[2].split(",") if p.strip(" `")]))
    return layers


def modules(src: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """``(module, line)`` of every flowtorch module that ``name`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child):
                for stmt in child.orelse:  # type: ignore[attr-defined]
                    visit(stmt)
                continue
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in child.names]
            else:
                targets = []
            for target in targets:
                resolved = resolve(target) if target.startswith("flowtorch") else None
                if resolved and resolved != name:
                    found.append((resolved, child.lineno))
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def layer_index(name: str, layers: list[tuple[str, list[str]]]) -> int | None:
    """The layer of module ``name``: the one naming it exactly, else the first pattern that matches; modules
    outside ``flowtorch._src`` that no layer names by their full name (``flowtorch.core.*``) are facades, above
    every listed layer."""
    if not name.startswith("flowtorch._src"):
        # a layer may name a package outside _src by its full name (the generated ``flowtorch.core.*``)
        for i, (_, patterns) in enumerate(layers):
            if any(p.startswith("flowtorch.") and fnmatch.fnmatchcase(name, p) for p in patterns):
                return i
        return len(layers)
    short = name.removeprefix("flowtorch._src").removeprefix(".") or "_src"
    for i, (_, patterns) in enumerate(layers):
        if short in patterns:
            return i
    for i, (_, patterns) in enumerate(layers):
        for pattern in patterns:
            if fnmatch.fnmatchcase(short, pattern) or (pattern.endswith(".*") and short == pattern[:-2]):
                return i
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


@pytest.fixture(scope="module")
def tree() -> tuple[dict[str, Path], dict[str, list[tuple[str, int]]], list[tuple[str, list[str]]]]:
    known = modules(SRC)
    return known, {name: imports(name, path, known) for name, path in known.items()}, read_layers(DOC.read_text())


def test_no_import_circles(tree) -> None:
    _, edges, _ = tree
    graph = {name: {target for target, _ in found} for name, found in edges.items()}
    assert cycles(graph) == []


def test_every_module_has_a_layer(tree) -> None:
    known, _, layers = tree
    assert [name for name in known if layer_index(name, layers) is None] == []


def test_imports_only_go_down_the_layers(tree) -> None:
    _, edges, layers = tree
    names = [n for n, _ in layers] + [FACADES]
    upward = []
    for name, found in sorted(edges.items()):
        own = layer_index(name, layers)
        for target, line in found:
            other = layer_index(target, layers)
            if own is not None and other is not None and other > own:
                upward.append(f"{name}:{line} ({names[own]}) imports {target} ({names[other]})")
    assert upward == []


# --- the checker itself, on small made-up trees -------------------------------------------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, list[tuple[str, int]]]:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    known = modules(tmp_path)
    return {name: imports(name, path, known) for name, path in known.items()}


def test_checker_sees_function_local_and_relative_imports_and_skips_type_checking(tmp_path: Path) -> None:
    edges = _tree(tmp_path, {
        "flowtorch/__init__.py": "",
        "flowtorch/_src/__init__.py": "",
        "flowtorch/_src/a.py": "def f():\n    from flowtorch._src import b\n",
        "flowtorch/_src/b.py": "from . import c\n",
        "flowtorch/_src/c.py": ("from typing import TYPE_CHECKING\n"
                                "if TYPE_CHECKING:\n    from flowtorch._src import a\n"),
    })
    assert edges["flowtorch._src.a"] == [("flowtorch._src.b", 2)]
    assert edges["flowtorch._src.b"] == [("flowtorch._src.c", 1)]
    assert edges["flowtorch._src.c"] == []
    graph = {n: {t for t, _ in f} for n, f in edges.items()}
    assert cycles(graph) == []
    graph["flowtorch._src.c"] = {"flowtorch._src.a"}
    assert cycles(graph) == [["flowtorch._src.a", "flowtorch._src.b", "flowtorch._src.c"]]


def test_layer_table_is_read_and_exact_names_win() -> None:
    layers = read_layers("x\n<!-- layers:begin -->\n| # | layer | modules |\n|---|---|---|\n"
                         "| 1 | low | `errors`, `data.tensor_list` |\n| 2 | mid | `data.*` |\n<!-- layers:end -->\n")
    assert layers == [("low", ["errors", "data.tensor_list"]), ("mid", ["data.*"])]
    assert layer_index("flowtorch._src.data.tensor_list", layers) == 0
    assert layer_index("flowtorch._src.data.pipeline", layers) == 1
    assert layer_index("flowtorch._src.data", layers) == 1
    assert layer_index("flowtorch._src.session", layers) is None
    assert layer_index("flowtorch.nn", layers) == 2
