"""Gradients through integer blobs, as OneFlow's autograd gives them.

OneFlow differentiates integer ops like any other: a train job may minimize an int32 or int8 loss
(``core/job_rewriter/autograd.cpp`` seeds it with a ``constant_like`` of ones of the loss's dtype), the
gradient of an integer blob is an integer blob (what ``watch_diff`` shows), and ``cast`` passes the gradient
back to a float variable (``flow.cast(var, flow.int32)``'s gradient is the int gradient cast to float).
Torch's autograd carries no gradient through integer tensors.

So a train job with an integer loss (or an integer ``watch_diff``) runs its graph through
:class:`IntGradRunner` instead of the plain ``GraphModule``: an integer blob that depends on a trainable
variable is carried as a float64 tensor whose *values* are exactly the integer result (each op's float output
is converted to the blob's dtype — truncation, wrap-around — and back) and whose *gradient* is the op's float
gradient straight through that conversion, truncated to the blob's dtype as OneFlow's integer gradient blob
holds it. A ``cast`` from float to an integer dtype passes that gradient on. What leaves the graph — returned
blobs, watched values and watched gradients — has the blob's own dtype again; the loss stays float64 for the
backward pass. Integer gradients of linear integer ops (add, scale, tril, masked_fill, where, reshapes …) are
exact this way."""

from __future__ import annotations

import functools
from typing import Any

import torch
import torch.fx

from flowtorch._src.capture.builder import BuiltGraph
from flowtorch._src.watch import taps

_CASTS = (torch.Tensor.to,)  # the kernel of flow.cast (ops/array_ops.py)


def _is_int(dtype: torch.dtype) -> bool:
    return not dtype.is_floating_point and not dtype.is_complex and dtype != torch.bool


def needed(built: BuiltGraph) -> bool:
    """A train job needs the runner when a loss or a diff-watched blob is an integer blob, or a loss depends
    on a cast of a variable-derived float blob to an integer dtype."""
    if any(_is_int(b.meta.dtype) for b in built.losses) or any(_is_int(w.blob.meta.dtype)
                                                                for w in built.diff_watches):
        return True
    casts = [n for n in built.module.graph.nodes if n.target in _CASTS and _is_int_cast(n)]
    return any(_reaches(c, {b.node for b in built.losses}) and _reads_variable(c) for c in casts)


def _reaches(start: torch.fx.Node, targets: set[torch.fx.Node]) -> bool:
    todo, seen = [start], set()
    while todo:
        node = todo.pop()
        if node in targets:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(node.users)
    return False


def _reads_variable(start: torch.fx.Node) -> bool:
    """Whether a variable's placeholder (``var_<i>``, not through the ``detach`` of a non-trainable one)
    feeds ``start``."""
    todo, seen = [start], set()
    while todo:
        node = todo.pop()
        if node in seen or node.target is torch.Tensor.detach:
            continue
        seen.add(node)
        if node.op == "placeholder" and str(node.target).startswith("var_"):
            return True
        todo.extend(node.all_input_nodes)
    return False


def _is_int_cast(node: torch.fx.Node) -> bool:
    src, dtype = _meta_dtype(node.args[0]), _meta_dtype(node)  # src None: a job input or a variable
    return (src is None or src.is_floating_point) and dtype is not None and _is_int(dtype)


def _meta_dtype(node: Any) -> torch.dtype | None:
    if isinstance(node, torch.fx.Node) and node.target is taps.diff_tap:
        node = node.args[0]  # a diff tap passes its blob on
    meta = node.meta.get("flowtorch_meta") if isinstance(node, torch.fx.Node) else None
    return meta.dtype if isinstance(meta, torch.Tensor) else None


class _Carry(torch.autograd.Function):
    """float64 holding an integer blob's numbers; its gradient goes to ``source`` (the op's float output, or
    the input of a cast) as the integer gradient OneFlow would store: truncated to the blob's dtype."""

    @staticmethod
    def forward(ctx: Any, value: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
        ctx.int_dtype, ctx.source_dtype = value.dtype, source.dtype
        return value.to(torch.float64)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor]:
        return None, grad.to(ctx.int_dtype).to(ctx.source_dtype)


def _carry(value: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    return _Carry.apply(value, source)


def _store_int_grad(record: taps.StepRecord, slot: int, dtype: torch.dtype, grad: torch.Tensor) -> None:
    record.grads[slot] = grad.detach().to(dtype)


class IntGradRunner(torch.fx.Interpreter):
    """Runs a train job's graph carrying integer blobs on the gradient path as float64 (see the module)."""

    def __init__(self, module: torch.fx.GraphModule) -> None:
        super().__init__(module, garbage_collect_values=True)
        self._carried: set[torch.fx.Node] = set()
        self._outputs = next(n for n in reversed(module.graph.nodes) if n.op == "output")

    def __call__(self, *args: torch.Tensor) -> Any:
        self._carried = set()
        try:
            outs, losses, *rest = self.run(*args)
            plain = [self._plain(o, node) for o, node in zip(outs, self._outputs.args[0][0])]
            return (tuple(plain), losses, *rest)
        finally:
            self._carried = set()

    # --- helpers ------------------------------------------------------------------------------------------
    def _plain(self, value: Any, node: Any) -> Any:
        """A carried blob's value in its own integer dtype (anything else as it is)."""
        if isinstance(node, torch.fx.Node) and node in self._carried:
            return value.detach().to(_meta_dtype(node))
        return value

    def _plain_args(self, n: torch.fx.Node) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args = torch.fx.node.map_arg(n.args, lambda a: self._plain(self.env[a], a))
        kwargs = torch.fx.node.map_arg(n.kwargs, lambda a: self._plain(self.env[a], a))
        return args, kwargs  # type: ignore[return-value]

    # --- one node -----------------------------------------------------------------------------------------
    def run_node(self, n: torch.fx.Node) -> Any:
        carried_in = any(a in self._carried for a in n.all_input_nodes)
        if n.op != "call_function" or not carried_in and n.target not in _CASTS:
            return super().run_node(n)
        if n.target is taps.value_tap:
            args, kwargs = self._plain_args(n)
            return taps.value_tap(*args, **kwargs)
        if n.target is taps.diff_tap:
            return self._diff_tap(n)
        fn = n.target
        if not callable(fn):  # (a call_function node's target is the function)
            raise TypeError(f"node {n.name}: call_function target {fn!r} is not callable")
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        try:
            out = fn(*args, **kwargs)
        except (RuntimeError, TypeError):
            if not carried_in:
                raise
            # a kernel that needs real integers (indices, shapes): no gradient through it
            args, kwargs = self._plain_args(n)
            return fn(*args, **kwargs)
        return self._settle(n, out, args)

    def _settle(self, n: torch.fx.Node, out: Any, args: tuple[Any, ...]) -> Any:
        dtype = _meta_dtype(n)
        if dtype is None or not _is_int(dtype) or not isinstance(out, torch.Tensor):
            return out
        if out.is_floating_point():
            if not out.requires_grad:
                return out.to(dtype)
            self._carried.add(n)
            return _carry(out.detach().to(dtype), out)
        src = args[0] if args else None
        if n.target in _CASTS and isinstance(src, torch.Tensor) and src.requires_grad and src.shape == out.shape:
            self._carried.add(n)  # OneFlow's cast gradient: the incoming gradient, cast back
            return _carry(out, src)
        return out

    def _diff_tap(self, n: torch.fx.Node) -> Any:
        blob, slot = n.args[:2]
        if not isinstance(blob, torch.fx.Node) or not isinstance(slot, int):
            raise TypeError(f"diff tap {n.name}: its arguments are (blob node, slot), not {n.args!r}")
        x = self.env[blob]
        record = taps.active_record()
        if blob not in self._carried or record is None or not x.requires_grad:
            return taps.diff_tap(x, slot)
        dtype = _meta_dtype(blob)
        if dtype is None:  # a carried blob is one of an integer dtype
            raise RuntimeError(f"diff tap {n.name}: the carried blob {blob.name} has no dtype in its meta")
        self._carried.add(n)
        x.register_hook(functools.partial(_store_int_grad, record, slot, dtype))
        return x

    def fetch_args_kwargs_from_env(self, n: torch.fx.Node) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = super().fetch_args_kwargs_from_env(n)
        return tuple(args), dict(kwargs)


def runner(built: BuiltGraph) -> IntGradRunner | None:
    """The runner for a train job that needs it (:func:`needed`), else None."""
    return IntGradRunner(built.module) if needed(built) else None
