"""The jobs a OneFlow program defines, and what in their source keeps them from ``flowtorch export``.

Static, as ``flowtorch check`` is: the files are parsed, never run or imported (no torch either), and a
symbol is recognised as :func:`check.check_source` names it, so every spelling of an import counts
(``@flow.global_function(...)``, ``@oneflow.global_function``, ``import oneflow as of``, ``from oneflow
import global_function``). A job is a function decorated with ``global_function`` at a module's top level
(inside top-level ``if``/``try``/``with`` blocks too), in the script or in a module of the program's own
folder that it imports. A ``global_function`` used any other way (called on a function, inside a function:
a factory, a loop), and a module imported at run time (``importlib``, ``exec``), make jobs only the run can
name: :attr:`ProgramJobs.dynamic` says where.

What keeps a job from export is looked for in its signature, its body and the functions of the program's
own modules that the body calls by name (followed call by call), and in the module-level calls on the
``FunctionConfig`` its decorator names. A finding is ``certain`` when it lies on every path of the job's
build: not under an ``if``, a loop, an ``except``, a conditional expression, nor after a statement that
may return early. Each job gets one outcome (:meth:`JobInfo.outcome`, :meth:`JobInfo.report`): it exports
exactly, exports approximately (allowed by ``--approximate-optimizer``), is refused (a certain finding), or
runs and the run decides (a finding on some paths of its build only). ``flowtorch export`` refuses a job with a
certain finding before running the program, and ``flowtorch check`` reports every job's outcome.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from flowtorch._src.io.safe_paths import open_regular
from flowtorch._src.migrate import device_scan
from flowtorch._src.migrate.check import Use, canonical, check_source, symbol_kind, use_position

# The data ops (check's symbols, as the table names them) a job may read its data with and still be exported:
# the one list that ``flowtorch check`` and ``flowtorch export`` consult.
EXPORTABLE_DATA_OPS = frozenset({
    "data.ofrecord_reader", "data.OFRecordRawDecoder", "data.OFRecordBytesDecoder", "data.OFRecordImageDecoder",
    "data.OFRecordImageDecoderRandomCrop", "data.ImageDecoderRandomCropResize", "image.Resize",
    "image.CropMirrorNormalize", "random.CoinFlip", "tensor_buffer_to_tensor",
})
JOB_DECORATORS = frozenset({"global_function"})
YES, NO, MAYBE = "yes", "no", "maybe"
# a job's outcome (JobInfo.outcome)
EXACT, APPROXIMATE, REFUSED, RUNS = "exports exactly", "exports approximately", "refused", "runs"
APPROXIMATE_FLAG = "--approximate-optimizer"

_DATA_BLOB = "f:flowtorch._src.data.blobs.DataBlob"
# data ops whose flowtorch function is not annotated to return a DataBlob
_UNTYPED_DATA_OPS = frozenset({"data.coco_reader", "data.decode_ofrecord", "data.decode_random",
                               "data.ofrecord_image_classification_reader", "image.Resize", "image.target_resize",
                               "tensor_buffer_to_list_of_tensors"})
_LIST_INPUTS = {"tp.ListNumpy.Placeholder": "list_numpy", "tp.ListListNumpy.Placeholder": "list_list_numpy",
                "MirroredTensorDef": "list_numpy", "MirroredTensorListDef": "list_list_numpy"}
_REFUSED_OPTIMIZERS = {  # (every other optimizer is exported with its own rule: export_optim)
    "optimizer.CombinedOptimizer": "it combines several update rules, each with its own schedule; export a job "
                                   "with one optimizer, or split the variables between jobs"}
_RUN_TIME_IMPORTS = {"__import__", "exec", "import_module", "run_path", "run_module"}
_MAX_FILES = 200
_MAX_DEPTH = 24


@dataclass(frozen=True)
class Finding:
    """Something in a job's source that keeps it from export: where, why, whether it is on every path of
    the build (``certain``), and whether ``--approximate-optimizer`` (``exact_optimizer=False``) allows it."""

    file: str
    line: int
    reason: str
    certain: bool
    approximate: bool = False


@dataclass
class JobInfo:
    """One job found in the source: its function's name (what ``flowtorch export`` takes as JOB)."""

    name: str
    file: str
    line: int
    job_type: str  # "train" | "predict" | "" (the source does not say)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what matters for its export but does not keep it from one

    def blocking(self, approximate: bool = False) -> list[Finding]:
        return [f for f in self.findings if not (approximate and f.approximate)]

    def verdict(self, approximate: bool = False) -> str:
        """``yes``: nothing in the source keeps it from export; ``no``: something certainly does;
        ``maybe``: something may (on some paths of its build)."""
        blocking = self.blocking(approximate)
        return NO if any(f.certain for f in blocking) else MAYBE if blocking else YES

    def outcome(self, approximate: bool = False) -> str:
        """What ``flowtorch export`` does with the job, as its source shows: ``REFUSED`` (something certainly
        keeps it from export), ``RUNS`` (something may, on some paths of its build: the run decides),
        ``APPROXIMATE`` (``approximate``, and something is exported approximately) or ``EXACT``."""
        blocking = self.blocking(approximate)
        if any(f.certain for f in blocking):
            return REFUSED
        if blocking:
            return RUNS
        return APPROXIMATE if approximate and any(f.approximate for f in self.findings) else EXACT

    def because(self, approximate: bool = False) -> list[Finding]:
        """The findings that decide :meth:`outcome` (the others lie on some paths of the build only)."""
        now, blocking = self.outcome(approximate), self.blocking(approximate)
        return {REFUSED: [f for f in blocking if f.certain], RUNS: blocking, EXACT: [],
                APPROXIMATE: [f for f in self.findings if f.approximate]}[now]

    def report(self, approximate: bool | None = None) -> str:
        """The outcome as one sentence: ``exports exactly``, ``exports approximately, because …``, ``refused,
        because …`` or ``runs; the run decides its export, because …``, with the flag that changes it.
        ``approximate``: whether ``--approximate-optimizer`` was given (None: not known, as in ``flowtorch
        check``, which tells what the flag would change)."""
        now = self.outcome(bool(approximate))
        because = self.because(bool(approximate))
        text = now if now != RUNS else "runs; the run decides its export"
        if because:
            some = " on some paths of its build" if now == RUNS else ""
            text += f", because{some} " + "; ".join(f"{f.reason} ({f.file}:{f.line})" for f in because)
        if not approximate and now in (REFUSED, RUNS) and self.outcome(True) != now:
            text += f"; with {APPROXIMATE_FLAG} it " + {
                APPROXIMATE: "exports approximately", EXACT: "exports exactly",
                RUNS: "runs and the run decides its export", REFUSED: "is refused"}[self.outcome(True)]
        return text


@dataclass
class ProgramJobs:
    jobs: list[JobInfo] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # a top-level name bound to a job → the job's name
    dynamic: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, how jobs are made at run time)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (a module of the program, why it was not read)

    def find(self, name: str) -> JobInfo | None:
        name = self.aliases.get(name, name)
        return next((job for job in self.jobs if job.name == name), None)

    def names(self) -> list[str]:
        return sorted({job.name for job in self.jobs} | set(self.aliases))


class _Module:
    """One parsed file: its symbol uses by position and its top-level functions and imports."""

    def __init__(self, path: str, source: str | bytes, tree: ast.Module, uses: list[Use], program: _Program) -> None:
        self.path, self.tree = path, tree
        self.uses = {(u.line, u.column): u for u in uses}
        text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
        self.runs_code = any(name in text for name in _RUN_TIME_IMPORTS)  # (a cheap test before the walk)
        self.defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.modules: dict[str, str] = {}  # local name → file of a module of the program
        self.functions: dict[str, tuple[str, str]] = {}  # local name → (file, function) imported from one
        self.import_positions: set[tuple[int, int]] = set()
        for stmt in _top_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs[stmt.name] = stmt
            elif isinstance(stmt, ast.Import):
                self.import_positions.add(use_position(stmt))
                for alias in stmt.names:
                    found = program.resolve(self.path, alias.name, 0)
                    if found is not None:
                        top = alias.name.split(".")[0]
                        self.modules[alias.asname or top] = found if alias.asname else program.resolve(
                            self.path, top, 0) or found
            elif isinstance(stmt, ast.ImportFrom):
                self.import_positions.add(use_position(stmt))
                base = program.resolve(self.path, stmt.module or "", stmt.level)
                for alias in stmt.names:
                    sub = program.resolve(self.path, f"{stmt.module or ''}.{alias.name}".lstrip("."), stmt.level)
                    if sub is not None:
                        self.modules[alias.asname or alias.name] = sub
                    elif base is not None and alias.name != "*":
                        self.functions[alias.asname or alias.name] = (base, alias.name)

    @functools.cached_property
    def calls(self) -> list[tuple[ast.Call, ast.stmt]]:
        """Every call, with the top-level statement it is in (walked once, when first needed)."""
        return [(node, stmt) for stmt in self.tree.body for node in ast.walk(stmt) if isinstance(node, ast.Call)]

    def uses_any(self, symbols: Iterable[str]) -> bool:
        wanted = set(symbols)
        return any(u.symbol in wanted for u in self.uses.values())

    def use(self, node: ast.AST) -> Use | None:
        return self.uses.get(use_position(node)) if hasattr(node, "lineno") else None

    def module_of(self, node: ast.expr) -> str | None:
        """The file of the program's module that ``node`` (``m`` or ``pkg.m``) names, if any."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            parent = self.module_of(node.value)
            if parent is not None and os.path.basename(parent) == "__init__.py":
                sub = os.path.join(os.path.dirname(parent), node.attr)
                return next((p for p in (sub + ".py", os.path.join(sub, "__init__.py")) if os.path.isfile(p)), None)
        return None


class ScanCache:
    """Parsed modules, shared by the scans of several scripts (``flowtorch check`` over a folder): per
    folder a script is run from (which decides what its imports find), path → module or why it was not read."""

    def __init__(self, uses: dict[str, list[Use]] | None = None) -> None:
        self.by_root: dict[str, dict[str, _Module | str]] = {}
        self.uses = uses or {}  # absolute path → its check_source uses, when the caller has them already


class _Program:
    """The script and the modules of its folder it imports, each parsed once."""

    def __init__(self, script: str, cache: ScanCache) -> None:
        self.root = os.path.dirname(os.path.abspath(script))
        self.parsed = cache.by_root.setdefault(self.root, {})
        self.known_uses = cache.uses
        self.errors: list[tuple[str, str]] = []

    def resolve(self, importer: str, dotted: str, level: int) -> str | None:
        """The file of module ``dotted`` when it is one of the program's (under the script's folder)."""
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
        else:
            base = self.root
        if not dotted:
            init = os.path.join(base, "__init__.py")
            return init if level and os.path.isfile(init) else None
        stem = os.path.join(base, *dotted.split("."))
        return next((p for p in (stem + ".py", os.path.join(stem, "__init__.py")) if os.path.isfile(p)), None)

    def load(self, path: str) -> _Module:
        """The parsed module (raises what kept it from being read or parsed)."""
        found = self.parsed.get(path)
        if isinstance(found, _Module):
            return found
        with open_regular(path) as f:
            source = f.read()
        tree = ast.parse(source, filename=path)
        uses = self.known_uses.get(os.path.abspath(path))
        uses = check_source(source, path) if uses is None else uses
        module = self.parsed[path] = _Module(path, source, tree, uses, self)
        return module

    def module(self, path: str) -> _Module | None:
        """The parsed module, or None (the reason in :attr:`errors`) when it cannot be read or parsed."""
        if path not in self.parsed:
            try:
                self.load(path)
            except (OSError, SyntaxError, ValueError, RecursionError) as exc:
                self.parsed[path] = f"{type(exc).__name__}: {exc}"
        found = self.parsed[path]
        if isinstance(found, str):
            self.errors.append((path, found))
            return None
        return found


def scan_program(script: str, imported_jobs: bool = True, cache: ScanCache | None = None) -> ProgramJobs:
    """The jobs of the program ``script``, each with what keeps it from export; with ``imported_jobs``,
    those of the modules of its folder that it imports too (the functions its jobs call are followed
    either way). Raises ``OSError``/``SyntaxError``/``ValueError`` when the script cannot be read or parsed."""
    program = _Program(script, cache or ScanCache())
    first = program.load(script)
    out = ProgramJobs()
    eager = _eager_findings(first)
    ask = device_scan.scan_parsed(first.tree, list(first.uses.values()))
    notes = [] if ask.count is None or ask.count < 2 else [
        f"the program asks for {ask.count} devices ({ask.where}): `python -m flowtorch` runs it in {ask.count} "
        "processes, where flow.export refuses its jobs; `flowtorch export` runs it in one process"]
    queue, seen = [first.path], {first.path}
    while queue and len(seen) <= _MAX_FILES:
        module = program.module(queue.pop(0))
        if module is None:
            continue
        _find_jobs(module, program, out, eager, notes)
        if not imported_jobs:
            break
        for path in [*module.modules.values(), *(p for p, _ in module.functions.values())]:
            if path not in seen:
                seen.add(path)
                queue.append(path)
    names = {job.name for job in out.jobs}
    out.aliases = {alias: name for alias, name in out.aliases.items() if name in names and alias not in names}
    out.errors = program.errors
    return out


def _find_jobs(module: _Module, program: _Program, out: ProgramJobs, eager: list[Finding], notes: list[str]) -> None:
    decorators: set[tuple[int, int]] = set()
    for stmt in _top_level(module.tree.body):
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in stmt.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            use = module.use(target)
            if use is None or use.symbol not in JOB_DECORATORS:
                continue
            decorators.add(use_position(target))
            call = decorator if isinstance(decorator, ast.Call) else None
            job = JobInfo(stmt.name, module.path, stmt.lineno, _job_type(call), list(eager), list(notes))
            job.findings += _signature_findings(module, stmt)
            job.findings += _config_findings(module, call, job.job_type)
            job.findings += _Walker(program).function(module, stmt)
            job.findings = _dedupe(job.findings)
            out.jobs.append(job)
    for stmt in _top_level(module.tree.body):  # `train = train_job`: the program's scope names it `train` too
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
            value = stmt.value.id
            value = module.functions[value][1] if value in module.functions else value
            out.aliases.update({t.id: value for t in stmt.targets if isinstance(t, ast.Name)})
    for (line, column), use in sorted(module.uses.items()):
        if use.symbol in JOB_DECORATORS and (line, column) not in decorators | module.import_positions:
            out.dynamic.append((module.path, line, f"`{use.symbol}` used at line {line} other than as the decorator "
                                "of a top-level function (a job made as the program runs)"))
    for node, _ in module.calls if module.runs_code else ():
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name in _RUN_TIME_IMPORTS:
            out.dynamic.append((module.path, node.lineno, f"`{name}` at line {node.lineno} runs code the "
                                "source does not show"))


def _top_level(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """A module's statements, those inside top-level ``if``/``try``/``with`` blocks included."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _top_level([*stmt.body, *stmt.orelse])
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _top_level(stmt.body)
        elif isinstance(stmt, ast.Try):
            yield from _top_level([*stmt.body, *(s for h in stmt.handlers for s in h.body), *stmt.orelse,
                                   *stmt.finalbody])


def _job_type(call: ast.Call | None) -> str:
    if call is None:
        return "predict"
    node = next((k.value for k in call.keywords if k.arg == "type"), call.args[0] if call.args else None)
    if node is None:
        return "predict"
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _signature_findings(module: _Module, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Finding]:
    args = fn.args
    nodes = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation is not None]
    nodes += [d for d in (*args.defaults, *args.kw_defaults) if d is not None]
    kinds: dict[str, int] = {}
    for node in (n for top in nodes for n in ast.walk(top)):
        use = module.use(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
        if use is not None and use.symbol in _LIST_INPUTS:
            kinds.setdefault(_LIST_INPUTS[use.symbol], use.line)
    return [Finding(module.path, line, f"its inputs include {kind} placeholders; only tp.Numpy ones are exported",
                    True) for kind, line in sorted(kinds.items())]


def _config_findings(module: _Module, call: ast.Call | None, job_type: str) -> list[Finding]:
    """What the module's top level sets on the FunctionConfig the decorator names (train jobs only)."""
    if call is None or job_type == "predict":
        return []
    node = next((k.value for k in call.keywords if k.arg == "function_config"),
                call.args[1] if len(call.args) > 1 else None)
    if not isinstance(node, ast.Name):
        return []
    out = []
    for sub, stmt in module.calls:
        if not (isinstance(sub.func, ast.Attribute) and _root(sub.func) == node.id):
            continue
        certain = isinstance(stmt, (ast.Expr, ast.Assign))
        arg = sub.args[0] if sub.args else None
        if (sub.func.attr == "num_gradient_accumulation_steps" and isinstance(arg, ast.Constant)
                and isinstance(arg.value, int) and arg.value > 1):
            out.append(Finding(module.path, sub.lineno, f"it accumulates gradients over {arg.value} micro-steps",
                               certain))
        elif sub.func.attr == "indexed_slices_optimizer_conf":
            out.append(Finding(module.path, sub.lineno, "it updates embeddings row by row "
                               "(indexed_slices_optimizer_conf), which the export does only approximately (the rows "
                               "whose gradient is not all zero)", certain, approximate=True))
    return out


def _eager_findings(module: _Module) -> list[Finding]:
    out = []
    for sub, stmt in module.calls if module.uses_any(["enable_eager_execution"]) else ():
        if getattr(module.use(sub.func), "symbol", "") != "enable_eager_execution":
            continue
        arg = sub.args[0] if sub.args else next((k.value for k in sub.keywords), None)
        if arg is None or (isinstance(arg, ast.Constant) and arg.value is True):
            out.append(Finding(module.path, sub.lineno, "it runs eagerly (flow.enable_eager_execution); it keeps "
                               "no graph to export", isinstance(stmt, ast.Expr)))
    return out


class _Walker:
    """Walks a job's body and the program's functions it calls, recording findings with their certainty."""

    def __init__(self, program: _Program) -> None:
        self.program = program
        self.found: list[Finding] = []
        self.visited: set[tuple[str, str, bool]] = set()
        self.depth = 0

    def function(self, module: _Module, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                 cond: bool = False) -> list[Finding]:
        key = (module.path, fn.name, cond)
        if key in self.visited or self.depth >= _MAX_DEPTH:
            return self.found
        self.visited.add(key)
        self.depth += 1
        self.block(module, fn.body, cond)
        self.depth -= 1
        return self.found

    def block(self, module: _Module, body: list[ast.stmt], cond: bool) -> None:
        for stmt in body:
            self.stmt(module, stmt, cond)
            if not cond and _may_leave(stmt):
                cond = True

    def stmt(self, module: _Module, stmt: ast.stmt, cond: bool) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return  # a nested definition runs only when called
        if isinstance(stmt, (ast.If, ast.While)):
            self.expr(module, stmt.test, cond)
            self.block(module, [*stmt.body, *stmt.orelse], True)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.expr(module, stmt.iter, cond)
            self.block(module, [*stmt.body, *stmt.orelse], True)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self.expr(module, item.context_expr, cond)
            self.block(module, stmt.body, cond)
        elif isinstance(stmt, ast.Try):
            self.block(module, stmt.body, cond)
            self.block(module, [*(s for h in stmt.handlers for s in h.body), *stmt.orelse], True)
            self.block(module, stmt.finalbody, cond)
        elif isinstance(stmt, ast.Match):
            self.expr(module, stmt.subject, cond)
            self.block(module, [s for case in stmt.cases for s in case.body], True)
        else:
            self.expr(module, stmt, cond)

    def expr(self, module: _Module, node: ast.AST, cond: bool) -> None:
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.IfExp):
            self.expr(module, node.test, cond)
            self.expr(module, node.body, True)
            self.expr(module, node.orelse, True)
            return
        if isinstance(node, ast.BoolOp):
            self.expr(module, node.values[0], cond)
            for value in node.values[1:]:
                self.expr(module, value, True)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            cond = True
        if isinstance(node, ast.Call):
            self.call(module, node, cond)
        for child in ast.iter_child_nodes(node):
            self.expr(module, child, cond)

    def call(self, module: _Module, call: ast.Call, cond: bool) -> None:
        use = module.use(call.func)
        if use is not None:
            self.found += _op_findings(module, call, use, not cond)
            return
        target = self._callee(module, call.func)
        if target is not None:
            self.function(*target, cond)

    def _callee(self, module: _Module, func: ast.expr) -> tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The program's function a call names: one of the module's, one imported from the program's
        modules, or ``m.f`` of an imported module of the program."""
        if isinstance(func, ast.Name):
            if func.id in module.defs:
                return module, module.defs[func.id]
            if func.id in module.functions:
                path, name = module.functions[func.id]
                other = self.program.module(path)
                return (other, other.defs[name]) if other is not None and name in other.defs else None
        elif isinstance(func, ast.Attribute):
            found = module.module_of(func.value)
            other = self.program.module(found) if found is not None else None
            if other is not None and func.attr in other.defs:
                return other, other.defs[func.attr]
        return None


def _op_findings(module: _Module, call: ast.Call, use: Use, certain: bool) -> list[Finding]:
    symbol = canonical(use.symbol)
    at = (module.path, call.lineno)
    if use.status == "missing":
        return [Finding(*at, f"it uses `{symbol}`, which flowtorch lacks (its build stops there)", certain)]
    if _is_data_op(symbol):
        if symbol in EXPORTABLE_DATA_OPS:
            return []
        return [Finding(*at, f"it reads data with `{symbol}`, which export does not support; feed the data as "
                        "inputs instead", certain)]
    if symbol == "optimizer.CustomScheduler":
        return [Finding(*at, "the learning-rate schedule CustomScheduler has no export", certain)]
    if symbol in _REFUSED_OPTIMIZERS:
        return [Finding(*at, f"OneFlow's {symbol.rsplit('.', 1)[1]} cannot be exported: "
                        f"{_REFUSED_OPTIMIZERS[symbol]}", certain)]
    return []


def _is_data_op(symbol: str) -> bool:
    return symbol in _UNTYPED_DATA_OPS or symbol_kind(symbol) == _DATA_BLOB


def _may_leave(stmt: ast.stmt) -> bool:
    """Whether the statements after ``stmt`` may be skipped: it holds a ``return`` (a ``raise`` ends the
    build itself, so what follows it is still on every path of a build that succeeds)."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo += ast.iter_child_nodes(node)
    return False


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return node.id if isinstance(node, ast.Name) else None


def _dedupe(findings: list[Finding]) -> list[Finding]:
    best: dict[tuple[str, int, str], Finding] = {}
    for f in findings:
        key = (f.file, f.line, f.reason)
        if key not in best or (f.certain and not best[key].certain):
            best[key] = f
    return sorted(best.values(), key=lambda f: (not f.certain, f.file, f.line))
