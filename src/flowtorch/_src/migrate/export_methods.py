"""The methods of an exported job's module, each the code its results need and nothing twice.

``forward`` computes the job's returns (a train job that returns nothing: its losses) from the inputs they
use; ``loss`` (train jobs) continues from the values of ``forward`` it needs instead of computing them again.
When it needs values ``forward`` does not return, both call ``_graph``, which computes the returns and those
values once. Dead code (a predict job's unused loss, a train job's returns that its loss does not need) is left
out of each method: a method takes only the inputs its code reads. An in-place call is kept while the tensor it
writes is live, or is an input or attribute of the module (:func:`live_nodes`). :func:`method_source` is the
plain form (one method, fx's dead-code elimination) that ``flow.saved_model`` uses.
"""

from __future__ import annotations

import builtins
import dis
import re
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx

from flowtorch._src.errors import ExportError
from flowtorch._src.migrate.export_codegen import Converted

# Calls whose result shares its input's memory: an in-place call on one writes its root's storage.
_VIEWS = frozenset({"view", "reshape", "expand", "expand_as", "view_as", "transpose", "permute", "narrow",
                    "select", "unsqueeze", "squeeze", "t", "as_strided", "diagonal", "unflatten", "flatten",
                    "movedim", "getitem", "__getitem__", "detach", "unbind", "split", "chunk", "contiguous"})


@dataclass
class Method:
    name: str
    inputs: list[str]  # the job inputs it takes, in the job's order
    source: str  # indented for a class body


def live_nodes(graph: torch.fx.Graph, outputs: Iterable[torch.fx.Node], given: Iterable[torch.fx.Node] = (),
               done: Iterable[torch.fx.Node] = ()) -> set[torch.fx.Node]:
    """The nodes ``outputs`` need, stopping at ``given`` (values another method computed: included when reached),
    plus in-place calls (not in ``done``) that write a live tensor or the module's inputs or attributes."""
    given, done = set(given), set(done)
    live: set[torch.fx.Node] = set()

    def mark(roots: Iterable[torch.fx.Node]) -> None:
        stack = list(roots)
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            if n not in given:
                stack.extend(n.all_input_nodes)

    mark(outputs)
    impure = [n for n in graph.nodes if n not in done and n.op in ("call_function", "call_method")
              and (n.meta.get("export_impure") or n.is_impure())]
    changed = True
    while changed:
        changed = False
        for n in impure:
            if n in live:
                continue
            root = _written(n)
            if root is None or root.op in ("placeholder", "get_attr") or root in live:
                mark([n])
                changed = True
    return live


def _written(node: torch.fx.Node) -> torch.fx.Node | None:
    """The node whose storage an in-place call writes (through views), if its first argument is a node."""
    a = node.args[0] if node.args else None
    while isinstance(a, torch.fx.Node) and a.op in ("call_function", "call_method"):
        name = a.target if isinstance(a.target, str) else getattr(a.target, "__name__", "")
        if name not in _VIEWS or not a.args or not isinstance(a.args[0], torch.fx.Node):
            break
        a = a.args[0]
    return a if isinstance(a, torch.fx.Node) else None


def _free(node: torch.fx.Node) -> bool:
    """Computed again wherever needed rather than passed between methods: inputs, attributes, batch sizes."""
    return node.op in ("placeholder", "get_attr") or bool(node.meta.get("export_free"))


def _body(graph: torch.fx.Graph, outputs: Sequence[torch.fx.Node], given: Sequence[torch.fx.Node] = (),
          done: Iterable[torch.fx.Node] = ()) -> tuple[list[str], list[str], dict[torch.fx.Node, str]]:
    """(the job inputs read, the code lines after the ``def`` line, the names of ``given``) of a function
    computing ``outputs`` from the inputs and ``given``."""
    live = live_nodes(graph, outputs, given, done)
    new = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    inputs = [n for n in graph.nodes if n.op == "placeholder" and n in live]
    for n in [*inputs, *given]:
        env[n] = new.placeholder(n.name)
    for n in graph.nodes:
        if n in live and n not in env and n.op != "output":
            env[n] = new.node_copy(n, env.__getitem__)
    values = [env[n] for n in outputs]
    new.output(values[0] if len(values) == 1 else tuple(values))
    new.lint()
    code = new.python_code("self")
    check_globals(code.src, code.globals)
    lines = tidy_lines(code.src.strip("\n").splitlines())
    return [n.name for n in inputs], lines[1:], {n: env[n].name for n in given}


def _method(name: str, params: Sequence[str], doc: str, lines: Sequence[str]) -> str:
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    text = [f"def {name}(self{''.join(', ' + p for p in params)}):", f'    """{doc}"""', *lines]
    return "\n".join("    " + line if line else "" for line in text) + "\n"


def _ordered(names: Iterable[str], order: Sequence[str]) -> list[str]:
    wanted = set(names)
    return [n for n in order if n in wanted]


def job_methods(converted: Converted, input_names: Sequence[str], train: bool, returns_doc: str) -> list[Method]:
    """``forward`` (and, for a train job, ``loss``, sharing what ``forward`` computes) of a converted job."""
    graph = converted.graph
    returns = list(converted.returns or converted.losses)
    f_live = live_nodes(graph, returns)
    if not train:
        f_inputs, f_lines, _ = _body(graph, returns)
        return [Method("forward", f_inputs, _method("forward", f_inputs, returns_doc, f_lines))]
    losses = list(converted.losses)
    shared = [n for n in graph.nodes if n in f_live and not _free(n)]
    reached = live_nodes(graph, losses, shared, f_live)
    boundary = [n for n in shared if n in reached]  # what loss continues from
    extra = [n for n in boundary if n not in returns]
    methods = []
    if extra:
        g_inputs, g_lines, _ = _body(graph, returns + extra)
        methods.append(Method("_graph", g_inputs, _method(
            "_graph", g_inputs, "The job's graph, once: forward's values, then those loss() continues from.",
            g_lines)))
        pick = "[0]" if len(returns) == 1 else f"[:{len(returns)}]"
        f_inputs = g_inputs
        f_lines = [f"    return self._graph({', '.join(g_inputs)}){pick}"]
        source_call, source_values = f"self._graph({', '.join(g_inputs)})", returns + extra
    else:
        f_inputs, f_lines, _ = _body(graph, returns)
        source_call, source_values = f"self.forward({', '.join(f_inputs)})", returns
    methods.append(Method("forward", f_inputs, _method("forward", f_inputs, returns_doc, f_lines)))
    l_inputs, l_lines, names = _body(graph, losses, boundary, f_live)
    if boundary:
        targets = [names.get(n, "_") for n in source_values]
        l_lines = [f"    {', '.join(targets)} = {source_call}", *l_lines]
        l_inputs = _ordered([*f_inputs, *l_inputs], input_names)
    methods.append(Method("loss", l_inputs, _method(
        "loss", l_inputs, "The job's loss blob(s), as OneFlow computed them (unreduced).", l_lines)))
    return methods


# --- source of one method ------------------------------------------------------------------------------------
_PUBLIC_NN = {name: getattr(torch.nn.functional, name) for name in dir(torch._C._nn)
              if getattr(torch.nn.functional, name, None) is getattr(torch._C._nn, name)}


def method_source(converted: Converted, outputs: Sequence[torch.fx.Node], name: str, doc: str) -> str:
    """``def <name>(self, inputs…)`` returning ``outputs`` (one value, or a tuple), indented for a class body."""
    graph = torch.fx.Graph()
    mapping: dict[torch.fx.Node, torch.fx.Node] = {}
    graph.graph_copy(converted.graph, mapping)
    values = [mapping[n] for n in outputs]
    graph.output(values[0] if len(values) == 1 else tuple(values))
    graph.eliminate_dead_code(is_impure_node=lambda n: n.is_impure() or bool(n.meta.get("export_impure")))
    graph.lint()
    code = graph.python_code("self")
    check_globals(code.src, code.globals)
    lines = tidy_lines(code.src.strip("\n").splitlines())
    lines[0] = lines[0].replace("def forward(", f"def {name}(", 1)
    lines.insert(1, f'    """{doc}"""')
    return "\n".join("    " + line if line else "" for line in lines) + "\n"


def tidy_lines(lines: list[str]) -> list[str]:
    """fx's code made readable: no ``x = None`` frees, ``self.w`` used in place, ``f(a, dim=1)``."""
    out: list[str] = []
    attrs: dict[str, str] = {}
    for line in lines:
        line = re.sub(r";\s+(\w+ = )+None$", "", line.rstrip())
        m = re.fullmatch(r"\s+(\w+) = self\.(\w+)", line)
        if m:
            attrs[m.group(1)] = m.group(2)
            continue
        if attrs:
            line = re.sub(r"\b(\w+)\b", lambda w: f"self.{attrs[w.group(1)]}" if w.group(1) in attrs
                          and w.string[w.start() - 1:w.start()] != "." else w.group(1), line)
        for fn in _PUBLIC_NN:
            line = line.replace(f"torch._C._nn.{fn}(", f"torch.nn.functional.{fn}(")
        m = re.match(r"(\s+\w+ = )(.*)$", line)
        if m:
            line = m.group(1) + re.sub(r"(\w) = ", r"\1=", m.group(2))
        out.append(line)
    return out


def check_globals(src: str, globs: dict[str, Any]) -> None:
    """Every global name fx's code reads must exist in a file that imports only torch."""
    module = compile(src, "<export>", "exec")
    function = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    for ins in dis.get_instructions(function):
        name = ins.argval
        if ins.opname != "LOAD_GLOBAL" or name in ("torch", "inf", "nan") or hasattr(builtins, name):
            continue
        raise ExportError(f"the exported code needs {name} = {globs.get(name)!r}, which is not part of plain PyTorch")
