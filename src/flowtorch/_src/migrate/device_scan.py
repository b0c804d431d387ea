"""How many devices a OneFlow script asks for, read from its source without running it.

``python -m flowtorch script.py`` starts the program in N processes up front when the script's
``flow.config.gpu_device_num(n)`` / ``cpu_device_num(n)`` calls say N > 1 (``__main__``). OneFlow placed a
job on ``gpu_device_num`` devices when that was above 0, else on ``cpu_device_num`` CPU devices
(``placement_util.GetDefaultMachineDeviceIds``; ``gpu_device_num`` defaults to 1 in its CUDA build), so the
count is the GPU count, or the CPU count after ``gpu_device_num(0)``.

The calls are found as ``flowtorch check`` finds them (imports and aliases followed: :func:`check.check_source`).
An argument is known when it is an int literal or a module-level name bound once, to an int literal. Anything
else (a variable, a conflicting second call, a call through another name) leaves the count unknown, and the
runner finds out when the program makes the call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from flowtorch._src.migrate.check import Use, check_source

_SYMBOLS = {"config.gpu_device_num": "gpu_device_num", "config.cpu_device_num": "cpu_device_num"}


@dataclass(frozen=True)
class DeviceAsk:
    """What a script asks for: ``count`` devices per machine (None: the source cannot tell), and ``where``,
    the calls that said so (``gpu_device_num(2) at line 43``), for the runner's log."""

    count: int | None
    where: str = ""


def _name_position(func: ast.expr) -> tuple[int, int] | None:
    # where check_source records a use: the attribute's name (1-based column), or the bare name
    if isinstance(func, ast.Attribute) and func.end_lineno is not None and func.end_col_offset is not None:
        return func.end_lineno, func.end_col_offset - len(func.attr) + 1
    if isinstance(func, ast.Name):
        return func.lineno, func.col_offset + 1
    return None


def _bindings(tree: ast.Module) -> dict[str, int]:
    """How many times each name is bound anywhere in the module (any scope)."""
    counts: dict[str, int] = {}

    def bind(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bind(node.id)
        elif isinstance(node, ast.arg):
            bind(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bind(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bind(name)
    return counts


def _int_literal(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _constants(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound exactly once in the whole module, to an int literal (``GPU_NUM = 2``)."""
    once = {name for name, n in _bindings(tree).items() if n == 1}
    found: dict[str, int] = {}
    for statement in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        literal = _int_literal(value)
        if literal is not None and targets and isinstance(targets[0], ast.Name) and targets[0].id in once:
            found[targets[0].id] = literal
    return found


def _argument(call: ast.Call) -> ast.expr | None:
    if len(call.args) == 1 and not call.keywords:
        return call.args[0]
    if not call.args and len(call.keywords) == 1 and call.keywords[0].arg == "val":
        return call.keywords[0].value
    return None


def scan_source(source: str | bytes, filename: str) -> DeviceAsk:
    """The devices per machine ``source`` asks for (``DeviceAsk(None)`` when it cannot be told statically,
    or the source does not parse)."""
    try:
        tree = ast.parse(source, filename=filename)
        uses = check_source(source, filename)
    except (SyntaxError, ValueError):  # ValueError: null bytes in the source
        return DeviceAsk(None)
    return scan_parsed(tree, uses)


def scan_parsed(tree: ast.Module, uses: list[Use]) -> DeviceAsk:
    """:func:`scan_source` of a module already parsed, with its :func:`check.check_source` uses."""
    wanted = {(u.line, u.column): _SYMBOLS[u.symbol] for u in uses if u.symbol in _SYMBOLS}
    if not wanted:
        return DeviceAsk(1)
    constants = _constants(tree)
    values: dict[str, set[int]] = {"gpu_device_num": set(), "cpu_device_num": set()}
    where: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or (position := _name_position(node.func)) not in wanted:
            continue
        kind = wanted.pop(position)
        argument = _argument(node)
        value = _int_literal(argument)
        if value is None and isinstance(argument, ast.Name):
            value = constants.get(argument.id)
        if value is None:
            return DeviceAsk(None, f"{kind}({ast.unparse(argument) if argument else '…'}) at line {node.lineno}")
        values[kind].add(value)
        where.append(f"{kind}({value}) at line {node.lineno}")
    if wanted or any(len(v) > 1 for v in values.values()):
        return DeviceAsk(None, ", ".join(where))  # used other than in a call, or asked for two counts
    gpus = next(iter(values["gpu_device_num"]), 1)
    count = gpus if gpus > 0 else next(iter(values["cpu_device_num"]), 1)
    return DeviceAsk(count, ", ".join(where))


def scan_file(path: str) -> DeviceAsk:
    """:func:`scan_source` of the file at ``path`` (``DeviceAsk(None)`` when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError:
        return DeviceAsk(None)
    return scan_source(source, path)
