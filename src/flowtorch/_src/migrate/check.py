"""``flowtorch check``'s analysis: every OneFlow symbol a program uses, and its status in flowtorch.

Static: the files are parsed with :mod:`ast`, never run or imported, and neither is torch (the table and
the index of flowtorch's names are plain data), so a large repository is checked in well under a second.

A symbol is named as :mod:`compat_table` names it: the path after ``flow.`` (``layers.dense``), ``tp.`` for
``oneflow.typing``, ``X().m`` for a method of what ``X(...)`` made (a method chain ``X(…).a(…).b`` gives
``X().a`` and ``X().b``), ``Blob.m`` for a method of a blob an op returned. Names are followed through
imports (``import oneflow as flow``, ``from oneflow import layers as L``, ``import oneflow.typing as tp``,
``from oneflow.compatible import single_client as flow``, ``import flowtorch as flow``, ``from oneflow
import *``) and through assignments of what flowtorch knows the type of (``cfg = flow.FunctionConfig()``,
``opt = flow.optimizer.SGD(...)``); function bodies see the module's names as they are at its end.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from flowtorch._src.errors import UsageError
from flowtorch._src.io.safe_paths import NotRegularFileError, open_regular, stat_kind
from flowtorch._src.migrate import compat_table
from flowtorch._src.migrate.cli_log import Progress

# flowtorch's public names by namespace: package data that scripts/write_names_index.py builds (names_index)
INDEX_FILE = Path(__file__).with_name("public_names.json")
_INDEX = json.loads(INDEX_FILE.read_text(encoding="utf-8"))
ROOTS: dict[str, str] = _INDEX["roots"]
NAMESPACES: dict[str, dict[str, str]] = _INDEX["namespaces"]
_ROOT = "m:" + ROOTS[""]
_COMPAT = "compat"  # ``oneflow.compatible``: its ``single_client`` is the 0.x API
_ABSENT = "absent"
_INTERNAL_MODULES = ("python", "_oneflow_internal")  # ``oneflow.python.*``, ``oneflow._oneflow_internal``
_MODULE_PREFIXES = ("oneflow", "flowtorch")
# Instances of these flowtorch classes are named after the class, as the table does (``Blob.shape``).
_CLASS_SYMBOLS = {"flowtorch._src.capture.blob.Blob": "Blob"}
_RENAMED_BASES = {"FunctionConfig()": "function_config()"}
_SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages"}


@dataclass(frozen=True)
class Use:
    """One use of a OneFlow symbol: where, what, and what flowtorch makes of it."""

    file: str
    line: int
    column: int
    symbol: str
    status: str  # supported | partial | missing
    surveyed: bool  # listed in docs/compat.md (else judged from flowtorch's names)
    notes: str
    torch: str  # the plain-PyTorch equivalent, "" when none is meaningful


@dataclass
class Report:
    files: list[str] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (file, why it could not be checked)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, what it is): not a regular file

    @property
    def missing(self) -> list[Use]:
        return [u for u in self.uses if u.status == compat_table.M]

    def exit_status(self) -> int:
        """0: nothing used is missing and every file was read; 1 otherwise."""
        return 1 if self.missing or self.errors else 0


@dataclass(frozen=True)
class _Value:
    """What an expression names: ``base`` (``"X()"`` once a call was made, or a class name) and the
    attributes after it; ``kind`` is its kind in :data:`NAMESPACES`, or absent (``absent_at``: the first
    name flowtorch lacks)."""

    base: str
    tail: tuple[str, ...]
    kind: str
    absent_at: str = ""

    @property
    def symbol(self) -> str:
        base = _RENAMED_BASES.get(self.base, self.base)
        text = ".".join(((base,) if base else ()) + self.tail)
        return "tp" + text[6:] if text == "typing" or text.startswith("typing.") else text

    @property
    def reportable(self) -> bool:
        if self.kind == _ABSENT:
            return True
        return bool(self.tail) and not self.kind.startswith("m:") and self.kind != _COMPAT


def _namespace(kind: str) -> str | None:
    return kind[2:] if kind[:2] in ("m:", "c:", "o:") else None


def _attr(value: _Value, name: str) -> _Value:
    grown = replace(value, tail=value.tail + (name,))
    if value.kind == _ABSENT:
        return grown
    if value.kind == _ROOT and not value.tail and name == "compatible":
        return replace(grown, kind=_COMPAT)
    if value.kind == _ROOT and not value.tail and name in _INTERNAL_MODULES:
        # OneFlow's own module paths (``_src/oneflow_modules.py``): the table's rows judge them, not the index
        return replace(grown, kind="v")
    if value.kind == _COMPAT:
        return _Value("", (), _ROOT) if name == "single_client" else replace(grown, kind=_ABSENT,
                                                                              absent_at="compatible." + name)
    ns = _namespace(value.kind)
    if ns is None or name.startswith("__") and name.endswith("__"):
        # an attribute of a value the index does not describe, or Python's own (``Module.__init__``)
        return replace(grown, kind="v")
    members = NAMESPACES[ns]
    kind = members.get(name) or members.get("*")
    return replace(grown, kind=kind) if kind else replace(grown, kind=_ABSENT, absent_at=grown.symbol)


def _call(value: _Value) -> _Value | None:
    """What calling ``value`` gives, when flowtorch knows (a class, or a function annotated to return one)."""
    if value.kind[:2] in ("c:", "f:"):
        ns = value.kind[2:]
        base = _CLASS_SYMBOLS.get(ns) or value.base or value.symbol + "()"
        return _Value(base, (), "o:" + ns)
    if value.kind != _ABSENT and not value.base and value.symbol in _TABLE.call_prefixes:
        return _Value(value.symbol + "()", (), "v")
    return None


class _Table:
    """The table's rows by symbol and alias (a duplicate row keeps the one with notes)."""

    def __init__(self) -> None:
        self.rows: dict[str, compat_table.Row] = {}
        for section in compat_table.SECTIONS:
            for row in section.rows:
                if row.qualifier:
                    continue
                for key in (row.symbol, *row.aliases):
                    if key not in self.rows or not self.rows[key].notes:
                        self.rows[key] = row
        self.call_prefixes = {key.split("().")[0] for key in self.rows if "()." in key}


_TABLE = _Table()


def _ancestors(symbol: str) -> Iterator[str]:
    while "." in symbol or symbol.endswith("()"):
        symbol = symbol[:-2] if symbol.endswith("()") else symbol.rsplit(".", 1)[0]
        yield symbol


def classify(value: _Value) -> tuple[str, bool, str, str]:
    """``(status, surveyed, notes, torch)`` of a named symbol: its row, else what flowtorch's names say."""
    symbol = value.symbol
    row = _TABLE.rows.get(symbol)
    if row is not None:  # an alias points at its row rather than repeat the row's notes
        return row.status, True, row.notes if row.symbol == symbol else f"see `{row.symbol}`", row.torch
    ancestor = next((_TABLE.rows[a] for a in _ancestors(symbol) if a in _TABLE.rows), None)
    see = f"; see `{ancestor.symbol}`" if ancestor else ""
    if value.kind == _ABSENT:
        return compat_table.M, False, f"flowtorch has no `{value.absent_at}`{see}", ""
    if ancestor is not None and ancestor.status != compat_table.S:
        return ancestor.status, False, f"as `{ancestor.symbol}`: {ancestor.notes}", ""
    return compat_table.S, False, f"not surveyed in docs/compat.md; flowtorch has it{see}", ""


def canonical(symbol: str) -> str:
    """The table's name for ``symbol`` (an alias's row symbol: ``image_resize`` → ``image.Resize``)."""
    row = _TABLE.rows.get(symbol)
    return row.symbol if row is not None else symbol


def symbol_kind(symbol: str) -> str | None:
    """The index's kind of a symbol named from flowtorch's root (``f:…DataBlob`` for a data op), or None
    when flowtorch lacks it or it names a method of a made value (``X().m``)."""
    if "()" in symbol:
        return None
    value = _Value("", (), _ROOT)
    for name in ("typing" + symbol[2:] if symbol == "tp" or symbol.startswith("tp.") else symbol).split("."):
        value = _attr(value, name)
    return None if value.kind == _ABSENT else value.kind


def use_position(node: ast.AST) -> tuple[int, int]:
    """Where :func:`check_source` records a symbol that ``node`` names: the line and 1-based column of an
    attribute's last name, else of the node itself (a name, an import)."""
    if isinstance(node, ast.Attribute) and node.end_lineno is not None and node.end_col_offset is not None:
        return node.end_lineno, node.end_col_offset - len(node.attr) + 1
    return node.lineno, node.col_offset + 1  # type: ignore[attr-defined]


def _module_value(dotted: str) -> _Value | None:
    """The value of an imported module path, or None for a module that is not OneFlow's."""
    first, *rest = dotted.split(".")
    if first == "oneflow_api":
        value = _Value("", ("oneflow_api",), "m:" + ROOTS["oneflow_api"])
    elif first == "flowtorch" and any(name.startswith("_") for name in rest):
        return None  # flowtorch's internals: not OneFlow's API
    elif first in _MODULE_PREFIXES:
        value = _Value("", (), _ROOT)
    else:
        return None
    for name in rest:
        value = _attr(value, name)
    return value


Scope = dict[str, "_Value | None"]


class _ClassScope(dict):  # type: ignore[type-arg]
    """A class body's names: seen by the body itself, not by the methods defined in it."""


class _Collector(ast.NodeVisitor):
    """Walks one module: bindings in source order, function bodies after their module (or enclosing
    function) is done, as Python runs them; records each maximal chain that names a OneFlow symbol."""

    def __init__(self) -> None:
        self.scopes: list[Scope] = [{}]
        self.stars: list[_Value] = []
        self.deferred: list[tuple[list[Scope], ast.FunctionDef | ast.AsyncFunctionDef]] = []
        self.found: list[tuple[int, int, _Value]] = []

    def run(self, tree: ast.Module) -> list[tuple[int, int, _Value]]:
        self.generic_visit(tree)
        while self.deferred:
            self.scopes, node = self.deferred.pop(0)
            for statement in node.body:
                self.visit(statement)
        return self.found

    # names and values
    def lookup(self, name: str) -> _Value | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        for star in self.stars:
            value = _attr(star, name)
            if value.kind != _ABSENT:
                return value
        return None

    def bind(self, name: str, value: _Value | None) -> None:
        self.scopes[-1][name] = value

    def bind_targets(self, target: ast.AST, value: _Value | None = None) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind_targets(element)
        elif isinstance(target, ast.Starred):
            self.bind_targets(target.value)
        else:
            self.visit(target)

    def evaluate(self, node: ast.AST) -> _Value | None:
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            value = self.evaluate(node.value)
            return None if value is None else _attr(value, node.attr)
        if isinstance(node, ast.Call):
            value = self.evaluate(node.func)
            return None if value is None else _call(value)
        return None

    def record(self, node: ast.AST, value: _Value) -> None:
        self.found.append((*use_position(node), value))

    # imports
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            value = _module_value(alias.name)
            if value is not None and value.reportable:
                self.record(node, value)
            if alias.asname:
                self.bind(alias.asname, value)
            else:
                top = alias.name.split(".")[0]
                self.bind(top, _module_value(top))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = _module_value(node.module or "") if node.level == 0 else None
        for alias in node.names:
            if alias.name == "*":
                if module is not None and module.kind != _ABSENT:
                    self.stars.append(module)
                continue
            value = None if module is None else _attr(module, alias.name)
            if value is not None and value.reportable:
                self.record(node, value)
            self.bind(alias.asname or alias.name, value)

    # statements that bind
    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value = self.evaluate(node.value)
        for target in node.targets:
            self.bind_targets(target, value if isinstance(target, ast.Name) else None)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)
            self.bind_targets(node.target, self.evaluate(node.value))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        self.bind_targets(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target.id, self.evaluate(node.value))

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self.bind_targets(node.target)
        for statement in (*node.body, *node.orelse):
            self.visit(statement)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.bind_targets(item.optional_vars)
        for statement in node.body:
            self.visit(statement)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.bind(node.name, None)
        for statement in node.body:
            self.visit(statement)

    def _arguments(self, args: ast.arguments) -> Scope:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
        for default in (*args.defaults, *filter(None, args.kw_defaults)):
            self.visit(default)
        for arg in every:
            if arg.annotation is not None:
                self.visit(arg.annotation)
        return {arg.arg: None for arg in every}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        local = self._arguments(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self.bind(node.name, None)
        self.deferred.append(([s for s in self.scopes if not isinstance(s, _ClassScope)] + [local], node))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.scopes.append(self._arguments(node.args))
        self.visit(node.body)
        self.scopes.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in (*node.decorator_list, *node.bases, *(k.value for k in node.keywords)):
            self.visit(expr)
        self.scopes.append(_ClassScope())
        for statement in node.body:
            self.visit(statement)
        self.scopes.pop()
        self.bind(node.name, None)

    # expressions that name symbols
    def visit_Attribute(self, node: ast.Attribute) -> None:
        value = self.evaluate(node)
        if value is None:
            self.generic_visit(node)
            return
        if value.reportable:
            self.record(node, value)
        inner: ast.AST = node.value
        while isinstance(inner, ast.Attribute):
            inner = inner.value
        if not isinstance(inner, ast.Name):
            self.visit(inner)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            value = self.lookup(node.id)
            if value is not None and value.reportable:
                self.record(node, value)


def check_source(source: str | bytes, filename: str) -> list[Use]:
    """The OneFlow symbols ``source`` uses, in source order (SyntaxError if it does not parse)."""
    tree = ast.parse(source, filename=filename)
    found = sorted(_Collector().run(tree), key=lambda f: (f[0], f[1]))
    return [Use(filename, line, column, value.symbol, *classify(value)) for line, column, value in found]


def python_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The files named and the ``*.py`` files under the folders named (hidden and cache folders skipped)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
                out += [Path(folder) / f for f in sorted(files) if f.endswith(".py")]
        else:
            kind = stat_kind(str(path))
            what = f"is {kind}, neither a file nor a folder" if kind else "is neither a file nor a folder (missing)"
            raise UsageError(f"SCRIPT_OR_DIR: {str(raw)!r} {what}")
    return out


def check_paths(paths: Iterable[str | os.PathLike[str]]) -> Report:
    """Check every Python file in ``paths`` (files, or folders searched for ``*.py``). Only regular files are
    read: a named pipe, socket or device named ``*.py`` in a folder is skipped, with a note; a file that cannot
    be read (a dangling link, a file without read permission) is listed as not checked.
    A long check logs how far it got every few seconds (``cli_log.Progress``)."""
    report = Report()
    files = python_files(paths)
    progress = Progress("flowtorch check: checked", len(files), "files")
    for done, path in enumerate(files):
        progress.done(done)
        name = str(path)
        try:
            with open_regular(name) as f:  # never blocks on a FIFO
                source = f.read()
        except NotRegularFileError as exc:
            report.skipped.append((name, str(exc)))
            continue
        except OSError as exc:
            report.files.append(name)
            if isinstance(exc, FileNotFoundError) and path.is_symlink():
                report.errors.append((name, f"it is a dangling symbolic link (to {os.readlink(name)!r}, missing)"))
            else:
                report.errors.append((name, f"cannot be read: {exc.strerror or exc}"))
            continue
        report.files.append(name)
        try:
            report.uses += check_source(source, name)
        except SyntaxError as exc:
            report.errors.append((name, f"does not parse: {exc.msg} (line {exc.lineno})"))
        except ValueError as exc:  # bytes ast cannot take (a NUL byte)
            report.errors.append((name, f"cannot be read: {exc}"))
        except RecursionError:
            report.errors.append((name, "nested too deeply to analyse"))
    return report
