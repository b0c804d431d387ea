"""A job's captured fx graph rewritten into plain torch calls, and the Python source of its methods.

The job's graph calls flowtorch kernels (``conv_kernel``, ``bn_infer_kernel``, sparse cross entropy …) and
watch taps. :class:`GraphConverter` drops the taps and inlines every flowtorch call: the kernel is run
once on meta tensors under a :class:`~torch.overrides.TorchFunctionMode` that records each top-level
torch call it makes (``torch.conv2d``, ``F.pad``, ``x.movedim`` …) as a node of the new graph. Python
values the kernel computes from shapes are baked in, as OneFlow's static shapes are. A kernel that needs
the data to decide what to do (``.item()``), calls a flowtorch custom op or holds a random generator is
refused with a ``NotImplementedError`` naming its op. Variables become ``get_attr`` nodes (``self.<attr>``)
and the session's device becomes ``<first input>.device``, so the module follows ``.to(device)``.
"""

from __future__ import annotations

import builtins
import dis
import inspect
import keyword
import operator
import re
import types
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

from flowtorch._src.errors import ExportError
from flowtorch._src.watch import taps

_TAPS = {taps.value_tap, taps.diff_tap, taps.compiled_value_tap, taps.compiled_diff_tap}
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


class GraphConverter:
    """Rewrites one job graph (see the module docstring)."""

    def __init__(self, module: torch.fx.GraphModule, input_names: Sequence[str], var_attrs: Sequence[str],
                 var_tensors: Sequence[torch.Tensor], trainable: Sequence[bool], device: str,
                 job_name: str) -> None:
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
                continue
            self._convert_node(node)
        if output is None:  # every fx graph ends in one output node
            raise RuntimeError(f"job {self.job_name!r}: its graph has no output node")
        returns, losses = output.args[0][0], output.args[0][1]
        return Converted(self.graph, [self.env[n] for n in returns], [self.env[n] for n in losses], self.constants)

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
        return python_name(re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name)).lower()

    def _convert_node(self, node: torch.fx.Node) -> None:
        target = node.target
        source = node.args[0] if node.args else None
        if (node.op == "call_function" and target is operator.getitem and isinstance(source, torch.fx.Node)
                and isinstance(self.env[source], tuple)):
            index = node.args[1]
            self._bind(node, self.env[source][index], self.values[source][index])
            return
        plain = node.op == "call_method" or (node.op == "call_function" and is_plain_torch(target))
        if node.op not in ("call_function", "call_method"):
            raise ExportError(f"job {self.job_name!r}: graph node {node.format_node()} is not exported")
        meta_args = torch.fx.node.map_aggregate((node.args, node.kwargs), self._meta_of)
        if not plain:
            self._inline(node, meta_args)
            return
        new_args = torch.fx.node.map_aggregate((node.args, node.kwargs), self._new_of)
        try:
            if isinstance(target, str):  # call_method: the method's name
                value = getattr(meta_args[0][0], target)(*meta_args[0][1:], **meta_args[1])
            else:
                value = target(*meta_args[0], **meta_args[1])
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
    def _inline(self, node: torch.fx.Node, meta_args: tuple[tuple[Any, ...], dict[str, Any]]) -> None:
        op = self._op_name(node)
        fn = node.target
        fn_name = getattr(fn, "__name__", type(fn).__name__)
        if not callable(fn):  # (only call_function nodes are inlined)
            raise ExportError(f"job {self.job_name!r}, op {op!r}: graph node {node.format_node()} calls no function")
        recorder = _Recorder(self, op)
        try:
            with recorder:
                value = fn(*meta_args[0], **meta_args[1])
        except ExportError:
            raise
        except Exception as exc:  # the kernel needs real data
            raise ExportError(f"job {self.job_name!r}, op {op!r}: its kernel {fn_name} cannot run on meta tensors "
                              f"({type(exc).__name__}: {exc}); it depends on the data, which a plain graph "
                              "cannot express") from exc
        self.env[node] = pytree.tree_map(self._node_of_result(op, fn_name), value)
        self.values[node] = value

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

    def record(self, op: str, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        """One top-level torch call of a kernel being inlined (called by :class:`_Recorder`)."""
        name = getattr(func, "__name__", "")
        mutates = (name.endswith("_") and not name.endswith("__")) or name == "__setitem__"
        if name == "__get__" and type(func).__name__ == "method-wrapper":  # a property: x.T, x.shape …
            if not isinstance(out, torch.Tensor):
                return
            args, func, name = (args[0], func.__self__.__name__), getattr, "getattr"
        elif not mutates and not any(isinstance(v, torch.Tensor) for v in pytree.tree_leaves(out)):
            return  # a Python value (a shape, a dtype): baked into the calls that use it
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

    def _call(self, kind: str, target: Any, args: Any, kwargs: Any, name: str) -> torch.fx.Node:
        return self.graph.create_node(kind, target, tuple(args), dict(kwargs), name=python_name(name).lower())

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


class _Recorder(TorchFunctionMode):
    """Records the top-level torch calls of one kernel into the converter's graph."""

    def __init__(self, converter: GraphConverter, op: str) -> None:
        super().__init__()
        self.converter = converter
        self.op = op

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        self.converter.record(self.op, func, args, kwargs, out)
        return out


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
    _check_globals(code.src, code.globals)
    lines = _tidy(code.src.strip("\n").splitlines())
    lines[0] = lines[0].replace("def forward(", f"def {name}(", 1)
    lines.insert(1, f'    """{doc}"""')
    return "\n".join("    " + line if line else "" for line in lines) + "\n"


def _tidy(lines: list[str]) -> list[str]:
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


def _check_globals(src: str, globs: dict[str, Any]) -> None:
    """Every global name fx's code reads must exist in a file that imports only torch."""
    module = compile(src, "<export>", "exec")
    function = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    for ins in dis.get_instructions(function):
        name = ins.argval
        if ins.opname != "LOAD_GLOBAL" or name in ("torch", "inf", "nan") or hasattr(builtins, name):
            continue
        raise ExportError(f"the exported code needs {name} = {globs.get(name)!r}, which is not part of plain PyTorch")
