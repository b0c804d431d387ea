"""Where an error happened: the job, the op and its blob name, added to any exception raised while a job
is built or one of its steps runs.

The exception keeps its type, identity and traceback (programs catch OneFlow's types): its message gets
the place as a prefix, once, the innermost place winning. An error of a step is traced to the fx node
that raised it through the graph module's line map, and the node to the op the body built there.
"""

from __future__ import annotations

from types import TracebackType

import torch.fx

from flowtorch._src.errors import add_note

_WHERE = "_flowtorch_where"
_NOT_ANNOTATED = (KeyboardInterrupt, SystemExit, GeneratorExit)


def annotate(exc: BaseException, where: str, job: str | None = None) -> None:
    """Put ``where`` in front of ``exc``'s message (once per exception).

    A message that already names ``job`` (flowtorch's own checks do) is left alone. An exception whose
    message is not its first argument (``KeyError``, ``OSError``…) gets ``where`` as a note instead.
    """
    if isinstance(exc, _NOT_ANNOTATED) or getattr(exc, _WHERE, None) is not None:
        return
    try:
        setattr(exc, _WHERE, where)
    except AttributeError:  # an exception type with __slots__: leave it be
        return
    if job is not None and f"job {job!r}" in str(exc):
        return
    args = exc.args
    if type(exc).__str__ is BaseException.__str__ and len(args) <= 1 and all(isinstance(a, str) for a in args):
        exc.args = (f"{where}: {args[0]}" if args else where,)
    else:
        add_note(exc, where)


def node_of(exc: BaseException, module: torch.fx.GraphModule) -> torch.fx.Node | None:
    """The node of ``module``'s generated forward that raised ``exc`` (None when it was elsewhere)."""
    code = getattr(type(module).forward, "__code__", None)
    line_map = getattr(module, "_lineno_map", None)
    if code is None or not line_map:
        return None
    node_index = None
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:  # the innermost frame of the generated code is the failing line
        if tb.tb_frame.f_code is code:
            node_index = line_map.get(tb.tb_lineno - getattr(module, "_prologue_start", 0))
        tb = tb.tb_next
    if node_index is None:
        return None
    nodes = list(module.graph.nodes)
    return nodes[node_index] if 0 <= node_index < len(nodes) else None


def describe_node(node: torch.fx.Node) -> str:
    """``op 'Gather_3' (blob Gather_3/out_0, built at File "job.py", line 12, in g)``, or the fx node's name
    for a node the body did not build (a fused or optimizer node)."""
    op = node.meta.get("flowtorch_op")
    if op is None:
        return f"graph node {node.name!r}"
    lbn, location = node.meta.get("flowtorch_lbn", ""), node.meta.get("flowtorch_location", "")
    details = ", ".join(p for p in (f"blob {lbn}" if lbn else "", f"built at {location}" if location else "") if p)
    return f"op {op!r}" + (f" ({details})" if details else "")


class job_context:  # a context manager, named like contextlib's (a class: entered on every step)
    """Annotate what escapes the block with ``job 'name', <doing>`` and, given the step's ``module``, the
    op whose node raised it."""

    __slots__ = ("job", "doing", "module")

    def __init__(self, job: str, doing: str, module: torch.fx.GraphModule | None = None) -> None:
        self.job, self.doing, self.module = job, doing, module

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is not None:
            annotate_job_error(exc, self.job, self.doing, self.module)


def annotate_job_error(exc: BaseException, job: str, doing: str, module: torch.fx.GraphModule | None = None) -> None:
    """What :class:`job_context` does with an exception escaping its block (for hot paths that catch it
    themselves)."""
    node = node_of(exc, module) if module is not None else None
    where = f"job {job!r}, {describe_node(node)}" if node is not None else f"job {job!r}"
    annotate(exc, f"{where} ({doing})", job)


def record_op(node: torch.fx.Node, op_name: str, lbn: str, location: str) -> None:
    """Remember on ``node`` which op built it, for :func:`describe_node`."""
    node.meta["flowtorch_op"] = op_name
    node.meta["flowtorch_lbn"] = lbn
    node.meta["flowtorch_location"] = location
