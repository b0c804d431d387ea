"""One registry of OneFlow op types: ``"relu"``, ``"add_n"``, ``"ccrelu"`` … → an :class:`OpDef`.

An :class:`OpDef` says what OneFlow's ``REGISTER_USER_OP`` said (input and output arg names, repeated or
not; attrs with their types and defaults) and names the torch kernel that computes the op, written once in
the module of the flowtorch op that uses it (``ops/op_table.py`` lists those), plus an optional gradient
where OneFlow's differs from torch's autograd. ``flow.user_op_builder`` (:mod:`.user_op_builder`) looks op
types up here; so do ops written on the builder (``flow.experimental.square_sum``) and Python ops
registered with ``flow.experimental.register_user_op`` (:mod:`.custom_op`).

Kernel calling convention: ``kernel(*inputs, *attrs)``: one tensor per input arg (a list of tensors for a
repeated arg) in declaration order, then the attrs named by ``kernel_attrs`` (default: every attr) in
declaration order, converted (a shape is a tuple of ints, a dtype a ``torch.dtype``). An op without inputs
gets the job's device first (``"meta"`` while its output shape is inferred). The kernel returns one tensor,
or a tuple of tensors in output-declaration order (a repeated output contributes one tensor per blob).
"""

from __future__ import annotations

import difflib
import keyword
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes
from flowtorch._src.errors import ArgumentError, UnknownOpError

__all__ = [
    "REQUIRED",
    "Arg",
    "AttrSpec",
    "OpDef",
    "UnknownOpError",
    "convert_attr",
    "invalid",
    "lookup",
    "register",
    "registered_names",
    "unregister",
]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


def invalid(what: str, expected: str, received: Any) -> ArgumentError:
    """The error an :class:`OpDef` ``check`` raises (the builder prefixes the op's name and type):
    ``invalid("input 'x2'", "the shape of x1 (2, 3)", desc)``."""
    return ArgumentError(f"{what} must be {expected}; received {received!r}")


@dataclass(frozen=True)
class Arg:
    """An input or output arg: ``count`` blobs exactly, or at least ``count`` when ``at_least``
    (OneFlow's ``InputWithMinimum``); an ``optional`` input may be left out (the kernel gets ``None``)."""

    name: str
    count: int = 1
    at_least: bool = False
    optional: bool = False

    @property
    def repeated(self) -> bool:
        """The kernel takes (or returns) a list of tensors for this arg."""
        return self.at_least or self.count != 1

    def accepts(self, n: int) -> bool:
        return n >= self.count if self.at_least else n == self.count

    def describe(self) -> str:
        if self.at_least:
            return f"at least {self.count} blob(s)"
        return f"exactly {self.count} blob(s)"


@dataclass(frozen=True)
class AttrSpec:
    """An attr of OneFlow type ``type`` (``"int64"``, ``"float"``, ``"shape"``, ``"list_dtype"`` …, see
    :data:`ATTR_TYPES`); without a default it must be set."""

    name: str
    type: str
    default: Any = REQUIRED

    def __post_init__(self) -> None:
        if self.type not in ATTR_TYPES:
            raise ValueError(f"attr {self.name!r}: unknown attr type {self.type!r}; one of {', '.join(ATTR_TYPES)}")


@dataclass(frozen=True)
class OpDef:
    """A registered op type (see the module docstring for the kernel convention).

    ``grad(inputs, outputs, output_grads, *attrs)`` returns one gradient per input arg (a list for a repeated
    arg, ``None`` for no gradient); without it torch's autograd differentiates the kernel. ``stateful``:
    ``kernel(*attrs)`` is called once per built op and returns that op's kernel (an op owning a random
    generator). ``infer(*args)`` gives the output meta tensor(s) instead of running the kernel on meta
    tensors (the static bound of a ``dynamic`` op). ``check(inputs, attrs, outputs)`` validates a built op
    (blobs by arg name, converted attrs, output counts by arg name) and raises a clear error.
    ``device_tag`` pins the op's outputs to a device kind ("cpu" for OneFlow's CPU-only ops).
    """

    op_type_name: str
    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    attrs: tuple[AttrSpec, ...]
    kernel: Callable[..., Any]
    grad: Callable[..., Any] | None = None
    kernel_attrs: tuple[str, ...] = ()
    stateful: bool = False
    infer: Callable[..., Any] | None = None
    check: Callable[..., None] | None = None
    dynamic: bool = False
    device_tag: str | None = None
    doc: str = ""
    _run: Callable[..., Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_run", self.kernel if self.grad is None or self.stateful
                           else with_grad(self.kernel, self.grad, self.op_type_name, len(self.inputs)))

    def make_kernel(self, attr_values: Sequence[Any]) -> Callable[..., Any]:
        """The kernel one built op records: a stateful op's own kernel, with the custom gradient if any."""
        if not self.stateful:
            return self._run
        kernel = self.kernel(*attr_values)
        return kernel if self.grad is None else with_grad(kernel, self.grad, self.op_type_name, len(self.inputs))

    def input(self, name: str) -> Arg | None:
        return next((a for a in self.inputs if a.name == name), None)

    def output(self, name: str) -> Arg | None:
        return next((a for a in self.outputs if a.name == name), None)

    def attr(self, name: str) -> AttrSpec | None:
        return next((a for a in self.attrs if a.name == name), None)


# --- attr types (OneFlow's ``user_op_attr.proto``) -------------------------------------------------------
def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_number(v: Any) -> bool:
    return _is_int(v) or isinstance(v, (float, np.floating))


class _BadAttr(Exception):
    pass


def _int(bits: int) -> Callable[[Any], int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def convert(v: Any) -> int:
        if not _is_int(v) or not lo <= int(v) <= hi:
            raise _BadAttr(f"an int{bits} (an int in [{lo}, {hi}])")
        return int(v)
    return convert


def _float(v: Any) -> float:
    # OneFlow asserted a Python float; ints are accepted here (the conversion is exact for attr values).
    if not _is_number(v):
        raise _BadAttr("a float")
    return float(v)


def _bool(v: Any) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise _BadAttr("a bool")
    return bool(v)


def _string(v: Any) -> str:
    if not isinstance(v, str):
        raise _BadAttr("a str")
    return v


def _shape(v: Any) -> tuple[int, ...]:
    if not isinstance(v, (list, tuple)) or not all(_is_int(d) for d in v):
        raise _BadAttr("a shape (a list or tuple of ints)")
    return tuple(int(d) for d in v)


def _dtype(v: Any) -> torch.dtype:
    if not isinstance(v, dtypes.DType):
        raise _BadAttr("a OneFlow dtype such as flow.float32")
    return v.torch_dtype


def _list(item: Callable[[Any], Any], what: str) -> Callable[[Any], list[Any]]:
    def convert(v: Any) -> list[Any]:
        if not isinstance(v, (list, tuple)):
            raise _BadAttr(f"a list or tuple of {what}")
        try:
            return [item(x) for x in v]
        except _BadAttr:
            raise _BadAttr(f"a list or tuple of {what}") from None
    return convert


ATTR_TYPES: dict[str, Callable[[Any], Any]] = {
    "int32": _int(32), "int64": _int(64), "bool": _bool, "float": _float, "double": _float, "string": _string,
    "shape": _shape, "dtype": _dtype, "list_int32": _list(_int(32), "int32s"), "list_int64": _list(_int(64), "ints"),
    "list_float": _list(_float, "floats"), "list_dtype": _list(_dtype, "OneFlow dtypes"),
    "list_shape": _list(_shape, "shapes"), "list_string": _list(_string, "strs"),
}

# OneFlow's older explicit ``.Attr(name, value, "AttrTypeInt64")`` spellings.
LEGACY_ATTR_TYPE_NAMES: dict[str, str] = {
    "AttrTypeInt32": "int32", "AttrTypeInt64": "int64", "AttrTypeBool": "bool", "AttrTypeFloat": "float",
    "AttrTypeDouble": "double", "AttrTypeString": "string", "AttrTypeShape": "shape", "AttrTypeDataType": "dtype",
    "AttrTypeListInt32": "list_int32", "AttrTypeListInt64": "list_int64", "AttrTypeListFloat": "list_float",
    "AttrTypeListDataType": "list_dtype", "AttrTypeListShape": "list_shape", "AttrTypeListString": "list_string",
}


def convert_attr(op: OpDef, name: str, value: Any, where: str) -> Any:
    """``value`` of attr ``name`` checked against its declared type and converted for the kernel.
    ``where`` names the API in messages (``user_op_builder('my_op')``)."""
    spec = op.attr(name)
    if spec is None:
        known = ", ".join(repr(a.name) for a in op.attrs) or "none"
        raise ArgumentError(f"flow.{where}: op type {op.op_type_name!r} has no attr {name!r}; its attrs: {known}")
    try:
        return ATTR_TYPES[spec.type](value)
    except _BadAttr as bad:
        raise TypeError(f"flow.{where}: attr {name!r} of op type {op.op_type_name!r} (type {spec.type}) must be "
                        f"{bad}; received {value!r}") from None


# --- custom gradients ------------------------------------------------------------------------------------
def _flatten(ins: Sequence[Any]) -> tuple[list[torch.Tensor], tuple[int | None, ...]]:
    flat: list[torch.Tensor] = []
    spec: list[int | None] = []
    for x in ins:
        if isinstance(x, (list, tuple)):
            flat.extend(x)
            spec.append(len(x))
        else:
            flat.append(x)
            spec.append(None)
    return flat, tuple(spec)


def _unflatten(flat: Sequence[Any], spec: tuple[int | None, ...]) -> list[Any]:
    out: list[Any] = []
    i = 0
    for n in spec:
        if n is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(list(flat[i:i + n]))
            i += n
    return out


def with_grad(kernel: Callable[..., Any], grad: Callable[..., Any], op_type_name: str,
              n_inputs: int) -> Callable[..., Any]:
    """``kernel`` with ``grad`` as its backward (a ``torch.autograd.Function``); the first ``n_inputs``
    arguments (tensors, or lists of tensors) are the differentiable inputs, the rest are attrs."""

    class _Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, spec: tuple[int | None, ...], attrs: tuple[Any, ...], *flat: torch.Tensor) -> Any:
            out = kernel(*_unflatten(flat, spec), *attrs)
            outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            ctx.save_for_backward(*flat, *outs)
            ctx.spec, ctx.attrs, ctx.n_flat = spec, attrs, len(flat)
            return tuple(outs) if isinstance(out, (tuple, list)) else out

        @staticmethod
        def backward(ctx: Any, *dys: torch.Tensor) -> Any:
            saved = ctx.saved_tensors
            ins = _unflatten(saved[:ctx.n_flat], ctx.spec)
            grads = grad(tuple(ins), tuple(saved[ctx.n_flat:]), dys, *ctx.attrs)
            flat_grads: list[Any] = []
            for g, n in zip(grads, ctx.spec):
                if n is None:
                    flat_grads.append(g)
                else:
                    flat_grads.extend([None] * n if g is None else g)
            return (None, None, *flat_grads)

    def run(*args: Any) -> Any:
        flat, spec = _flatten(args[:n_inputs])
        return _Fn.apply(spec, tuple(args[n_inputs:]), *flat)

    run.__name__ = run.__qualname__ = _identifier(op_type_name) + "_with_grad"
    return run


def _identifier(name: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return out if out.isidentifier() and not keyword.iskeyword(out) else f"op_{out}"


# --- the registry ----------------------------------------------------------------------------------------
_REGISTRY: dict[str, OpDef] = {}


def _args(items: Iterable[str | Arg], what: str, op: str) -> tuple[Arg, ...]:
    out = tuple(a if isinstance(a, Arg) else Arg(a) for a in items)
    names = [a.name for a in out]
    if len(set(names)) != len(names):
        raise ValueError(f"register {op!r}: repeated {what} arg name in {names}")
    for a in out:
        if not isinstance(a.name, str) or not a.name:
            raise ValueError(f"register {op!r}: {what} arg names must be non-empty strs; received {a.name!r}")
    return out


def register(op_type_name: str, *, kernel: Callable[..., Any], inputs: Iterable[str | Arg] = (),
             outputs: Iterable[str | Arg] = ("out",), attrs: Iterable[AttrSpec] = (),
             kernel_attrs: Sequence[str] | None = None, replace: bool = False, **options: Any) -> OpDef:
    """Register op type ``op_type_name`` (see :class:`OpDef` for ``options``) and return its definition."""
    if not isinstance(op_type_name, str) or not op_type_name:
        raise ValueError(f"register: the op type name must be a non-empty str; received {op_type_name!r}")
    if op_type_name in _REGISTRY and not replace:
        raise ValueError(f"op type {op_type_name!r} is already registered")
    ins, outs = _args(inputs, "input", op_type_name), _args(outputs, "output", op_type_name)
    attr_specs = tuple(attrs)
    names = [a.name for a in attr_specs]
    passed = tuple(names if kernel_attrs is None else kernel_attrs)
    if len(set(names)) != len(names) or any(n not in names for n in passed):
        raise ValueError(f"register {op_type_name!r}: attrs {names} must be distinct and kernel_attrs {passed} "
                         "among them")
    op = OpDef(op_type_name, ins, outs, attr_specs, kernel, kernel_attrs=passed, **options)
    _REGISTRY[op_type_name] = op
    return op


def unregister(op_type_name: str) -> None:
    _REGISTRY.pop(op_type_name, None)


def lookup(op_type_name: str, where: str = "user_op_builder") -> OpDef:
    """The definition of ``op_type_name``; :class:`UnknownOpError` (naming close matches) if none."""
    op = _REGISTRY.get(op_type_name) if isinstance(op_type_name, str) else None
    if op is None:
        close = difflib.get_close_matches(str(op_type_name), list(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownOpError(f"flow.{where}: unknown op type {op_type_name!r}{hint} (flowtorch knows "
                             f"{len(_REGISTRY)} op types: see flowtorch._src.ops.op_registry.registered_names(); "
                             "register a Python op with flow.experimental.register_user_op)")
    return op


def registered_names() -> list[str]:
    return sorted(_REGISTRY)
