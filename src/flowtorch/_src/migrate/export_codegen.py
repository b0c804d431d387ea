"""A job's captured fx graph rewritten into plain torch calls, and the Python source of its methods.

The job's graph calls flowtorch kernels (``conv_kernel``, ``bn_infer_kernel``, sparse cross entropy …) and
watch taps. :class:`GraphConverter` drops the taps and inlines every flowtorch call: the kernel is run
once on meta tensors under a :class:`~torch.overrides.TorchFunctionMode` that records each top-level
torch call it makes (``torch.conv2d``, ``F.pad``, ``x.movedim`` …) as a node of the new graph. Python
values the kernel computes from shapes are baked in, as OneFlow's static shapes are, except the batch size
(``free_batch``: the graph is converted a second time at another batch size and the numbers that follow it
are computed from the inputs at run time; see :mod:`.export_batch`). A kernel that needs
the data to decide what to do (``.item()``), calls a flowtorch custom op or holds a random generator is
refused with a ``NotImplementedError`` naming its op. Variables become ``get_attr`` nodes (``self.<attr>``)
and the session's device becomes ``<first input>.device``, so the module follows ``.to(device)``.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import logging
import math
import operator
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

from flowtorch._src.errors import ExportError
from flowtorch._src.migrate.export_batch import BatchExpr, BatchPlan, deduce, factor_name, same_value, user_shape
from flowtorch._src.ops.index_ops import gather_kernel
from flowtorch._src.step.sparse_update import sparse_gather_kernel
from flowtorch._src.watch import taps

log = logging.getLogger("flowtorch")

_TAPS = {taps.value_tap, taps.diff_tap, taps.compiled_value_tap, taps.compiled_diff_tap}
# kernels a step swapped in for its own update (lazy row updates, step.sparse_update): the export
# differentiates through the original
_ORIGINAL: dict[Any, Callable[..., Any]] = {sparse_gather_kernel: gather_kernel}
_META = torch.device("meta")

# Tensor dunders written as Python operators (the r-forms with their operands swapped).
_OPERATORS: dict[str, tuple[Callable[..., Any], bool]] = {}
for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"):
    _fn = getattr(operator, _op + "_" if _op in ("and", "or") else _op)
    _OPERATORS[f"__{_op}__"] = (_fn, False)
    _OPERATORS[f"__r{_op}__"] = (_fn, True)
for _op in ("lt", "le", "gt", "ge", "eq", "ne", "neg", "invert", "abs", "getitem", "setitem"):
    _OPERATORS[f"__{_op}__"] = (getattr(operator, _op), False)


def python_name(name: str, taken: set[str] | None = None, reserved: Collection[str] = ()) -> str:
    """``name`` as a Python identifier (``dense1-weight`` → ``dense1_weight``), unique in ``taken`` (which
    receives it) and never a keyword, a builtin or one of ``reserved``."""
    base = re.sub(r"\W", "_", name).strip("_") or "v"
    if base[0].isdigit():
        base = "v_" + base
    if keyword.iskeyword(base) or base in reserved or hasattr(builtins, base):
        base += "_"
    out, n = base, 1
    while taken is not None and out in taken:
        n += 1
        out = f"{base}_{n}"
    if taken is not None:
        taken.add(out)
    return out


def short_name(name: str, limit: int = 32) -> str:
    """A line's name: ``name`` as a lower-case identifier, its leading parts dropped while it is longer than
    ``limit`` (``model_block3_layer2_conv2d_bias_add`` → ``layer2_conv2d_bias_add``); fx keeps names unique."""
    parts = python_name(name).lower().split("_")
    while len(parts) > 1 and (len("_".join(parts)) > limit or not parts[0] or parts[0][0].isdigit()):
        parts.pop(0)
    return python_name("_".join(parts))


def is_plain_torch(fn: Any) -> bool:
    """Whether the generated file can call ``fn`` with nothing but ``import torch``."""
    if isinstance(fn, torch._ops.OpOverload):
        return fn.namespace in ("aten", "prims")
    if isinstance(fn, torch._ops.OpOverloadPacket):  # (a packet has no namespace of its own)
        return fn._qualified_op_name.startswith("aten::")
    if getattr(fn, "__objclass__", None) is torch._C.TensorBase:
        return True
    module = getattr(fn, "__module__", None) or ""
    if module in ("_operator", "operator", "builtins") and fn in (getattr, *vars(operator).values()):
        return True
    return module == "torch" or (module.startswith("torch.") and not module.startswith("torch.ops."))


def _tensor_method(fn: Any) -> str | None:
    name = getattr(fn, "__name__", None)
    return name if name and getattr(torch.Tensor, name, None) is fn else None


@dataclass
class Converted:
    """The job's graph in plain torch: no output node yet; ``returns``/``losses`` are its values."""

    graph: torch.fx.Graph
    returns: list[torch.fx.Node]
    losses: list[torch.fx.Node]
    constants: dict[str, torch.Tensor] = field(default_factory=dict)  # attr → tensor the kernels closed over
    batch_size: int | None = None  # the inputs' batch size (dim 0) when the code computes it from them, else None


class GraphConverter:
    """Rewrites one job graph (see the module docstring)."""

    def __init__(self, module: torch.fx.GraphModule, input_names: Sequence[str], var_attrs: Sequence[str],
                 var_tensors: Sequence[torch.Tensor], trainable: Sequence[bool], device: str,
                 job_name: str, *, free_batch: bool = False) -> None:
        self.old = module.graph
        self.input_names = list(input_names)
        self.var_attrs = list(var_attrs)
        self.var_tensors = list(var_tensors)
        self.trainable = list(trainable)
        self.session_device = torch.device(device)
        self.job_name = job_name
        self.graph = torch.fx.Graph()
        self.env: dict[torch.fx.Node, Any] = {}   # old node → new node (or a tuple of them)
        self.values: dict[torch.fx.Node, Any] = {}  # old node → its meta value
        self.by_id: dict[int, torch.fx.Node] = {}  # id(meta tensor) → the new node computing it
        self.keep: list[Any] = []  # keeps traced tensors alive, so ids stay unique
        self.constants: dict[str, torch.Tensor] = {}
        self.const_nodes: dict[int, tuple[torch.fx.Node, torch.Tensor]] = {}
        self.names: set[str] = set(self.var_attrs)
        self.device_node: torch.fx.Node | None = None
        self.first: torch.fx.Node | None = None  # an input (or variable): the module's device
        self.anchor: torch.fx.Node | None = None  # the end of the prologue, where constants go
        # the second conversion, at another batch size (free_batch; None once it cannot follow the graph)
        self.free_batch = free_batch
        self.plan: BatchPlan | None = None
        self.values2: dict[torch.fx.Node, Any] | None = None  # old node → its meta value at plan.other
        self.batched: list[torch.fx.Node] = []  # the new graph's inputs whose dim 0 is the batch
        self.batch_nodes: dict[torch.fx.Node, torch.fx.Node] = {}  # input → ``input.size(0)``
        self.expr_nodes: dict[tuple[torch.fx.Node, BatchExpr], torch.fx.Node] = {}

    # --- the walk ------------------------------------------------------------------------------------------
    def convert(self) -> Converted:
        inputs = [n for n in self.old.nodes if n.op == "placeholder" and not n.name.startswith("var_")]
        variables = [n for n in self.old.nodes if n.op == "placeholder" and n.name.startswith("var_")]
        if len(inputs) != len(self.input_names) or len(variables) != len(self.var_attrs):
            raise ExportError(f"job {self.job_name!r}: its graph has {len(inputs)} inputs and {len(variables)} "
                              f"variables; expected {len(self.input_names)} and {len(self.var_attrs)} (its inputs "
                              "and the data blobs its body fed it)")
        for node, name in zip(inputs, self.input_names):
            meta = node.meta.get("flowtorch_placeholder_meta", node.meta.get("flowtorch_meta"))  # (fed: the latter)
            new = self.graph.placeholder(name)
            self._bind(node, new, torch.empty_like(meta, device="meta"))
        for node, attr, tensor, grad in zip(variables, self.var_attrs, self.var_tensors, self.trainable):
            meta = torch.empty_like(tensor, device="meta").requires_grad_(grad and tensor.is_floating_point())
            self._bind(node, self.graph.get_attr(attr), meta)
        self.first = next(iter(self.graph.nodes), None)
        self.anchor = next(iter(reversed(self.graph.nodes)), None)
        if self.free_batch:
            self._plan_batch(inputs, variables)
        output = None
        for node in self.old.nodes:
            if node.op == "placeholder":
                continue
            if node.op == "output":
                output = node
                break
            if node.op == "call_function" and node.target in _TAPS:
                if node.target in (taps.diff_tap, taps.compiled_diff_tap):
                    self.env[node], self.values[node] = self.env[node.args[0]], self.values[node.args[0]]
                    if self.values2 is not None:
                        self.values2[node] = self.values2[node.args[0]]
                continue
            self._convert_node(node)
        if output is None:  # every fx graph ends in one output node
            raise RuntimeError(f"job {self.job_name!r}: its graph has no output node")
        returns, losses = output.args[0][0], output.args[0][1]
        batch = self.plan.size if self.plan is not None and self.values2 is not None else None
        return Converted(self.graph, [self.env[n] for n in returns], [self.env[n] for n in losses], self.constants,
                         batch)

    # --- the batch size ------------------------------------------------------------------------------------
    def _plan_batch(self, inputs: list[torch.fx.Node], variables: list[torch.fx.Node]) -> None:
        """Start the second conversion: the inputs whose batch axis is 0 get another batch size."""
        metas = [(node, self.values[node]) for node in inputs]
        size = next((m.shape[0] for node, m in metas if node.meta.get("flowtorch_batch_axis") == 0 and m.dim()), None)
        if size is None:
            return
        self.plan = BatchPlan(int(size))
        self.values2 = {}
        for node, meta in metas:
            if node.meta.get("flowtorch_batch_axis") == 0 and meta.dim() and meta.shape[0] == size:
                self.values2[node] = self.plan.resized(meta)
                self.batched.append(self.env[node])
            else:
                self.values2[node] = meta
        for node in variables:
            self.values2[node] = self.values[node]

    def _fix_batch(self, op: str, reason: str) -> None:
        """Give up the second conversion: the export keeps the job's batch size."""
        if self.values2 is not None and self.plan is not None:
            log.warning("flowtorch.export: job %r is exported for batch size %d only: op %r %s", self.job_name,
                        self.plan.size, op, reason)
        self.values2 = None

    def _meta2_of(self, a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            if self.values2 is None:
                raise RuntimeError("the second conversion was given up")
            return self.values2[a]
        return self._meta_of(a)

    def _user_arg(self, node: torch.fx.Node) -> tuple[int, Any, bool] | None:
        """The argument of ``node`` that the job's body computed from the batch size: (its position, its value at
        the other batch size, whether it is a shape whose leading entry may be -1); see :mod:`.export_batch`."""
        if self.values2 is None or self.plan is None:
            return None
        op_type = node.meta.get("flowtorch_op_type")
        x = node.args[0] if node.args else None
        if not isinstance(x, torch.fx.Node) or not isinstance(self.values.get(x), torch.Tensor):
            return user_shape(op_type, node.args, False, self.plan)
        if op_type == "scalar_mul" and x.meta.get("flowtorch_op_type") == "reduce_sum" and len(node.args) > 1:
            # reduce_mean: reduce_sum times 1/count, count the reduced elements (ops/math_ops.py)
            src, c = x.args[0], node.args[1]
            if isinstance(src, torch.fx.Node) and isinstance(c, float):
                count = self.values[src].numel() / max(self.values[x].numel(), 1)
                count2 = self.values2[src].numel() / max(self.values2[x].numel(), 1)
                if count2 != count and count and math.isclose(c, 1.0 / count, rel_tol=1e-12):
                    return 1, 1.0 / round(count2), False
            return None
        resized = self.values2[x].shape != self.values[x].shape
        return user_shape(op_type, node.args, resized, self.plan)

    def _batch_node(self, near: Sequence[Any]) -> torch.fx.Node:
        """``input.size(0)`` of the first batched input that ``near`` (nodes) depends on, else of the first one."""
        found: set[torch.fx.Node] = set()
        stack = [n for n in near if isinstance(n, torch.fx.Node)]
        seen: set[torch.fx.Node] = set()
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if n.op == "placeholder":
                found.add(n)
            stack.extend(n.all_input_nodes)
        source = next((n for n in self.batched if n in found), self.batched[0])
        if source not in self.batch_nodes:
            node = self._prologue("call_method", "size", (source, 0), "batch")
            node.meta["export_free"] = True
            self.batch_nodes[source] = node
        return self.batch_nodes[source]

    def _expr(self, expr: BatchExpr, near: Sequence[Any]) -> torch.fx.Node:
        """The node computing ``expr`` from the batch size (one per batch node and expression)."""
        batch = self._batch_node(near)
        key = (batch, expr)
        if key in self.expr_nodes:
            return self.expr_nodes[key]
        f = expr.factor
        if not expr.per_batch:
            if f == 1 and isinstance(f, int):
                return batch
            node = (self._call("call_function", float, (batch,), {}, "batch_f") if f == 1 else
                    self._call("call_function", operator.mul, (batch, f), {}, f"batch_x{factor_name(f)}"))
        elif f != 1 and isinstance(f, float) and math.isclose(1 / f, round(1 / f)):
            scaled = self._call("call_function", operator.mul, (batch, round(1 / f)), {}, f"batch_x{round(1 / f)}")
            scaled.meta["export_free"] = True
            node = self._call("call_function", operator.truediv, (1.0, scaled), {}, "per_batch")
        else:
            node = self._call("call_function", operator.truediv, (float(f), batch), {}, "per_batch")
        node.meta["export_free"] = True
        self.expr_nodes[key] = node
        return node

    def _user_code(self, node: torch.fx.Node, value: Any, value2: Any, minus_one: bool, near: Sequence[Any]) -> Any:
        """The code of an argument the body computed from the batch size (a shape: its leading entry)."""
        if self.plan is None:
            raise RuntimeError("no batch size to compute an argument from")
        if isinstance(value, (tuple, list, torch.Size)) and value and isinstance(value[0], int):
            return (-1 if minus_one else self._expr(BatchExpr(value[0] // self.plan.size), near), *value[1:])
        if isinstance(value, tuple) and value and isinstance(value[0], tuple):  # a slice spec: its first stop
            start, _, step, flip = value[0]
            return ((start, self._expr(BatchExpr(1), near), step, flip), *value[1:])
        expr = deduce(value, value2, self.plan)
        if expr is None:
            self._fix_batch(self._op_name(node), f"takes {value!r}, computed from the batch size")
            return value
        return self._expr(expr, near)

    def _bind(self, old: torch.fx.Node, new: Any, value: Any) -> None:
        self.env[old], self.values[old] = new, value
        if isinstance(value, torch.Tensor) and isinstance(new, torch.fx.Node):
            self._track(value, new)

    def _track(self, value: torch.Tensor, node: torch.fx.Node) -> None:
        self.by_id[id(value)] = node
        self.keep.append(value)

    def _op_name(self, node: torch.fx.Node) -> str:
        """The OneFlow op's name in snake case (``SparseSoftmaxCrossEntropy_7`` →
        ``sparse_softmax_cross_entropy_7``)."""
        name = str(node.meta.get("flowtorch_op", node.name))
        return short_name(re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name))

    def _convert_node(self, node: torch.fx.Node) -> None:
        target = node.target
        source = node.args[0] if node.args else None
        if (node.op == "call_function" and target is operator.getitem and isinstance(source, torch.fx.Node)
                and isinstance(self.env[source], tuple)):
            index = node.args[1]
            self._bind(node, self.env[source][index], self.values[source][index])
            if self.values2 is not None:
                self.values2[node] = self.values2[source][index]
            return
        plain = node.op == "call_method" or (node.op == "call_function" and is_plain_torch(target))
        if node.op not in ("call_function", "call_method"):
            raise ExportError(f"job {self.job_name!r}: graph node {node.format_node()} is not exported")
        meta_args = torch.fx.node.map_aggregate((node.args, node.kwargs), self._meta_of)
        user = self._user_arg(node)
        if not plain:
            self._inline(node, meta_args, user)
            return
        new_args = torch.fx.node.map_aggregate((node.args, node.kwargs), self._new_of)
        if user is not None:
            pos, value2, minus_one = user
            code = self._user_code(node, node.args[pos], value2, minus_one, new_args[0])
            new_args = (new_args[0][:pos] + (code,) + new_args[0][pos + 1:], new_args[1])
        if self.values2 is not None:
            try:
                self.values2[node] = _run(target, self._args2(node, user))
            except Exception as exc:  # it cannot run at the other batch size: a shape the body fixed
                self._fix_batch(self._op_name(node), f"cannot run at another batch size ({type(exc).__name__}: {exc})")
        try:
            value = _run(target, meta_args)
        except Exception as exc:  # a torch op without meta support
            value = node.meta.get("flowtorch_meta")
            if value is None:
                raise ExportError(f"job {self.job_name!r}, op {self._op_name(node)!r}: cannot infer its shape on "
                                  f"meta tensors ({type(exc).__name__}: {exc})") from exc
        kind, method = node.op, _tensor_method(target) if node.op == "call_function" else None
        if method is not None:  # torch.Tensor.detach(x) (a non-trainable variable in a train job) → x.detach()
            kind, target = "call_method", method
        new = self.graph.create_node(kind, target, new_args[0], new_args[1], name=self._op_name(node))
        self._bind_result(node, new, value)

    def _args2(self, node: torch.fx.Node, user: tuple[int, Any, bool] | None
               ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``node``'s meta arguments at the other batch size."""
        args, kwargs = torch.fx.node.map_aggregate((node.args, node.kwargs), self._meta2_of)
        if user is not None:
            pos, shape, _ = user
            args = args[:pos] + (shape,) + args[pos + 1:]
        return args, kwargs

    def _bind_result(self, old: torch.fx.Node, new: torch.fx.Node, value: Any) -> None:
        self.env[old], self.values[old] = new, value
        self._track_outputs(value, new)

    def _track_outputs(self, value: Any, node: torch.fx.Node) -> None:
        """Track ``value`` (a tensor, or a tuple or list holding tensors) as what ``node`` makes."""
        if isinstance(value, torch.Tensor):
            self._track(value, node)
        elif isinstance(value, (tuple, list)):
            for i, item in enumerate(value):
                if isinstance(item, torch.Tensor):
                    self._track(item, self._call("call_function", operator.getitem, (node, i), {},
                                                 f"{node.name}_{i}"))

    def _meta_of(self, a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            return self.values[a]
        if isinstance(a, torch.Tensor):
            return self._constant(a)[1]
        return _META if self._is_session_device(a) else a

    def _new_of(self, a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            return self.env[a]
        if isinstance(a, torch.Tensor):
            return self._constant(a)[0]
        return self._device() if self._is_session_device(a) else a

    def _is_session_device(self, a: Any) -> bool:
        if isinstance(a, torch.device):
            return a == self.session_device or a.type == "meta"
        if isinstance(a, str) and re.fullmatch(r"(cpu|cuda)(:\d+)?", a):
            return torch.device(a) == self.session_device
        return False

    def _prologue(self, kind: str, target: Any, args: tuple[Any, ...], name: str) -> torch.fx.Node:
        """A node at the end of the prologue (after the inputs and variables), in creation order."""
        if self.anchor is None:
            node = self.graph.create_node(kind, target, args, name=name)
        else:
            with self.graph.inserting_after(self.anchor):
                node = self.graph.create_node(kind, target, args, name=name)
        self.anchor = node
        return node

    def _constant(self, tensor: torch.Tensor) -> tuple[torch.fx.Node, torch.Tensor]:
        """The buffer holding a tensor the graph or a kernel closed over, and its meta twin (one per tensor)."""
        found = self.const_nodes.get(id(tensor))
        if found is None:
            attr = python_name(f"const_{len(self.constants)}", self.names)
            self.constants[attr] = tensor.detach().clone()
            meta = torch.empty_like(tensor, device="meta")
            found = self.const_nodes[id(tensor)] = (self._prologue("get_attr", attr, (), attr), meta)
            self._track(meta, found[0])
            self.keep.append(tensor)
        return found

    def _device(self) -> torch.fx.Node:
        """``<first input or variable>.device``: the device the exported module runs on."""
        if self.device_node is None:
            if self.first is None:
                raise ExportError(f"job {self.job_name!r} has neither inputs nor variables: nothing tells its "
                                  "export which device to make tensors on")
            self.device_node = self._prologue("call_function", getattr, (self.first, "device"), "input_device")
        return self.device_node

    # --- inlining a flowtorch kernel ----------------------------------------------------------------------
    def _inline(self, node: torch.fx.Node, meta_args: tuple[tuple[Any, ...], dict[str, Any]],
                user: tuple[int, Any, bool] | None) -> None:
        op = self._op_name(node)
        fn = _ORIGINAL.get(node.target, node.target)
        fn_name = getattr(fn, "__name__", type(fn).__name__)
        if not callable(fn):  # (only call_function nodes are inlined)
            raise ExportError(f"job {self.job_name!r}, op {op!r}: graph node {node.format_node()} calls no function")
        recorder = _Recorder()
        try:
            with recorder:
                value = fn(*meta_args[0], **meta_args[1])
        except Exception as exc:  # the kernel needs real data
            raise ExportError(f"job {self.job_name!r}, op {op!r}: its kernel {fn_name} cannot run on meta tensors "
                              f"({type(exc).__name__}: {exc}); it depends on the data, which a plain graph "
                              "cannot express") from exc
        calls2 = self._inline2(node, op, fn, user, len(recorder.calls))
        for i, call in enumerate(recorder.calls):
            self._emit(op, call, calls2[i] if calls2 is not None else None)
        self.env[node] = pytree.tree_map(self._node_of_result(op, fn_name), value)
        self.values[node] = value

    def _inline2(self, node: torch.fx.Node, op: str, fn: Any, user: tuple[int, Any, bool] | None,
                 n_calls: int) -> list[_Call] | None:
        """The kernel's calls at the other batch size (its value kept in ``values2``), or None."""
        if self.values2 is None:
            return None
        recorder = _Recorder()
        try:
            args, kwargs = self._args2(node, user)
            with recorder:
                value2 = fn(*args, **kwargs)
        except Exception as exc:  # it cannot run at the other batch size: a shape the body fixed
            self._fix_batch(op, f"cannot run at another batch size ({type(exc).__name__}: {exc})")
            return None
        if len(recorder.calls) != n_calls:
            self._fix_batch(op, "makes other torch calls at another batch size")
            return None
        self.values2[node] = value2
        return recorder.calls

    def _node_of_result(self, op: str, fn_name: str) -> Callable[[Any], Any]:
        def node_of(v: Any) -> Any:
            if not isinstance(v, torch.Tensor):
                return v
            found = self.by_id.get(id(v))
            if found is None:
                raise ExportError(f"job {self.job_name!r}, op {op!r}: kernel {fn_name} returned a tensor it did not "
                                  "make with torch calls")
            return found
        return node_of

    def _emit(self, op: str, call: _Call, call2: _Call | None) -> None:
        """One recorded call of a kernel as a node; numbers that differ in ``call2`` (the same call at the other
        batch size) are computed from the batch size."""
        func, name, mutates, out = call.func, call.name, call.mutates, call.out
        args, kwargs = self._batch_numbers(op, call, call2)
        new_args, new_kwargs = pytree.tree_map(self._arg_node(op), (args, _without_defaults(func, kwargs)))
        method = _tensor_method(func)
        if method in _OPERATORS:
            target, swap = _OPERATORS[method]
            new = self._call("call_function", target, tuple(reversed(new_args)) if swap else new_args, new_kwargs,
                             f"{op}_{method.strip('_')}")
        elif method is not None:
            new = self._call("call_method", method, new_args, new_kwargs, f"{op}_{method}")
        elif is_plain_torch(func):
            new = self._call("call_function", func, new_args, new_kwargs, f"{op}_{name or 'call'}")
        else:
            raise ExportError(f"job {self.job_name!r}, op {op!r}: its kernel calls "
                              f"{getattr(func, '__qualname__', func)} ({getattr(func, '__module__', '?')}), which is "
                              "not part of plain PyTorch")
        if mutates:
            new.meta["export_impure"] = True
        self._track_outputs(out, new)

    def _batch_numbers(self, op: str, call: _Call, call2: _Call | None) -> tuple[Any, Any]:
        """``call``'s arguments with each number that follows the batch size replaced by its node."""
        if call2 is None or self.values2 is None or self.plan is None:
            return call.args, call.kwargs
        leaves, spec = pytree.tree_flatten((call.args, call.kwargs))
        leaves2, spec2 = pytree.tree_flatten((call2.args, call2.kwargs))
        if call2.func is not call.func or spec2 != spec:
            self._fix_batch(op, "makes other torch calls at another batch size")
            return call.args, call.kwargs
        near = [self.by_id.get(id(a)) for a in leaves if isinstance(a, torch.Tensor)]
        out = []
        for a, b in zip(leaves, leaves2):
            if isinstance(a, torch.Tensor) or same_value(a, b):
                out.append(a)
                continue
            parts = (a.start, a.stop, a.step) if isinstance(a, slice) else (a,)
            parts2 = (b.start, b.stop, b.step) if isinstance(b, slice) else (b,)
            if len(parts) != len(parts2):
                self._fix_batch(op, f"takes {a!r} at one batch size and {b!r} at another")
                return call.args, call.kwargs
            new = []
            for p, q in zip(parts, parts2):
                expr = None if same_value(p, q) else deduce(p, q, self.plan)
                if expr is None and not same_value(p, q):
                    self._fix_batch(op, f"computes {a!r} from the batch size in a way the export cannot follow")
                    return call.args, call.kwargs
                new.append(p if expr is None else self._expr(expr, near))
            out.append(slice(*new) if isinstance(a, slice) else new[0])
        return pytree.tree_unflatten(out, spec)

    @staticmethod
    def record(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> _Call | None:
        """One top-level torch call of a kernel being inlined, as the graph will make it (None: a Python value,
        baked into the calls that use it)."""
        name = getattr(func, "__name__", "")
        mutates = (name.endswith("_") and not name.endswith("__")) or name == "__setitem__"
        if name == "__get__" and type(func).__name__ == "method-wrapper":  # a property: x.T, x.shape …
            if not isinstance(out, torch.Tensor):
                return None
            args, func, name = (args[0], func.__self__.__name__), getattr, "getattr"
        elif not mutates and not any(isinstance(v, torch.Tensor) for v in pytree.tree_leaves(out)):
            return None
        return _Call(func, name, mutates, args, kwargs, out)

    def _call(self, kind: str, target: Any, args: Any, kwargs: Any, name: str) -> torch.fx.Node:
        return self.graph.create_node(kind, target, tuple(args), dict(kwargs), name=short_name(name))

    def _arg_node(self, op: str) -> Callable[[Any], Any]:
        def to_node(a: Any) -> Any:
            if isinstance(a, torch.Tensor):
                found = self.by_id.get(id(a))
                if found is not None:
                    return found
                if a.device.type == "meta":
                    raise ExportError(f"job {self.job_name!r}, op {op!r}: its kernel used a tensor made outside "
                                      "plain torch calls")
                return self._constant(a)[0]
            if isinstance(a, torch.device) and a.type == "meta":
                return self._device()
            if isinstance(a, torch.Generator):
                raise ExportError(f"job {self.job_name!r}, op {op!r} draws random numbers from its own generator; "
                                  "random ops are not exported")
            return a
        return to_node


def _without_defaults(func: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` less those equal to ``func``'s defaults (``F.max_pool2d(..., ceil_mode=False)``)."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return kwargs
    out = {}
    for k, v in kwargs.items():
        default = params[k].default if k in params else inspect.Parameter.empty
        plain = v is None or isinstance(v, (bool, int, float, str))
        if k == "_stacklevel" or (plain and type(v) is type(default) and v == default):
            continue
        out[k] = v
    return out


@dataclass
class _Call:
    """A torch call a kernel made (the property gets ``x.T`` as ``getattr(x, "T")``)."""

    func: Any
    name: str
    mutates: bool
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    out: Any


def _run(target: Any, margs: tuple[tuple[Any, ...], dict[str, Any]]) -> Any:
    args, kwargs = margs
    if isinstance(target, str):  # call_method: the method's name
        return getattr(args[0], target)(*args[1:], **kwargs)
    return target(*args, **kwargs)


class _Recorder(TorchFunctionMode):
    """Collects the top-level torch calls of one kernel run (:meth:`GraphConverter.record` filters them)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[_Call] = []

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        call = GraphConverter.record(func, args, kwargs, out)
        if call is not None:
            self.calls.append(call)
        return out
