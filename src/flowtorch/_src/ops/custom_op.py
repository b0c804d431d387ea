"""``flow.experimental.register_user_op``: a flowtorch extension, the Python counterpart of OneFlow's
``REGISTER_USER_OP`` + Python kernel (``experimental.custom_op_module`` needed OneFlow's C++ runtime).

The kernel becomes a ``torch.library`` custom op (``torch.ops.flowtorch_user.<op type>``), so it runs in
eager, compiled and CUDA-graph steps alike, and its op type joins the op registry: build it with
``flow.user_op_builder(name).Op(op_type)…`` or by calling the returned object inside a job::

    @flow.experimental.register_user_op("scaled_tanh", inputs=["x"], outputs=["y"], attrs={"scale": 1.0})
    def scaled_tanh(x, scale):
        return torch.tanh(x) * scale

    @scaled_tanh.register_grad
    def _(inputs, outputs, output_grads, scale):      # one gradient per input (None: no gradient)
        (y,), (dy,) = outputs, output_grads
        return (dy * (scale - y * y / scale),)

    y = scaled_tanh(blob, scale=2.0)                  # in a job body: op ``scaled_tanh_<n>``, blob ``…/y_0``
"""

from __future__ import annotations

import importlib.util
import keyword
import os
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from flowtorch._src import dtypes, errors, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import op_registry
from flowtorch._src.ops.op_registry import ATTR_TYPES, REQUIRED, AttrSpec, OpDef
from flowtorch._src.ops.user_op_builder import user_op_builder

__all__ = ["CustomOpModule", "UserOpDef", "register_user_op"]

_NAMESPACE = "flowtorch_user"
# OneFlow attr type -> torch schema type (the list-of-shape/dtype/str attrs have no schema type)
_SCHEMA_TYPES = {"int32": "int", "int64": "int", "bool": "bool", "float": "float", "double": "float", "string": "str",
                 "shape": "int[]", "dtype": "ScalarType", "list_int32": "int[]", "list_int64": "int[]",
                 "list_float": "float[]"}


def _safe(name: str) -> str:
    return name if name.isidentifier() and not keyword.iskeyword(name) else f"{name}_"


def _attr_spec(name: str, value: Any, where: str) -> AttrSpec:
    """``{"alpha": 0.5}`` (type from the default), ``{"k": ("int64",)}`` (required) or
    ``{"k": ("int64", 3)}``."""
    if isinstance(value, AttrSpec):
        return value
    if isinstance(value, tuple) and value and isinstance(value[0], str) and value[0] in ATTR_TYPES and len(value) <= 2:
        return AttrSpec(name, value[0], value[1] if len(value) == 2 else REQUIRED)
    if isinstance(value, bool):
        return AttrSpec(name, "bool", value)
    if isinstance(value, int):
        return AttrSpec(name, "int64", value)
    if isinstance(value, float):
        return AttrSpec(name, "float", value)
    if isinstance(value, str):
        return AttrSpec(name, "string", value)
    if isinstance(value, dtypes.DType):
        return AttrSpec(name, "dtype", value)
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return AttrSpec(name, "list_int64", value)
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return AttrSpec(name, "list_float", value)
    raise ArgumentError(f"flow.experimental.{where}: attr {name!r}: give a default value (bool, int, float, str, "
                          f"flow dtype, non-empty list of ints or floats) or (type, [default]) with a type among "
                          f"{', '.join(_SCHEMA_TYPES)}; received {value!r}")


class UserOpDef:
    """What :func:`register_user_op` returns: call it in a job body to build the op; ``register_grad`` and
    ``register_fake`` (shape inference for torch.compile and for kernels that cannot run on meta tensors)
    complete it."""

    def __init__(self, op_def: OpDef, torch_op: Any, custom: Any) -> None:
        self.op_def = op_def
        self.torch_op = torch_op  # torch.ops.flowtorch_user.<op type>.default
        self._custom = custom

    @property
    def op_type_name(self) -> str:
        return self.op_def.op_type_name

    def __repr__(self) -> str:
        return f"UserOpDef({self.op_type_name!r})"

    def register_fake(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn(*inputs, *attrs)`` returning empty tensors of the outputs' shapes and dtypes."""
        self._custom.register_fake(fn)
        return fn

    def register_grad(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn(inputs, outputs, output_grads, *attrs)`` → one gradient per input (``None``: none)."""
        n_in, n_attrs, op = len(self.op_def.inputs), len(self.op_def.attrs), self.op_type_name

        def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
            outs = output if isinstance(output, tuple) else (output,)
            ctx.save_for_backward(*inputs[:n_in], *outs)
            ctx.attrs = inputs[n_in:]

        def backward(ctx: Any, *grads: torch.Tensor) -> tuple[Any, ...]:
            saved = ctx.saved_tensors
            out = fn(tuple(saved[:n_in]), tuple(saved[n_in:]), grads, *ctx.attrs)
            out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            if len(out) != n_in:
                raise RuntimeError(f"flow.experimental.register_user_op: the gradient of op type {op!r} returned "
                                   f"{len(out)} value(s); it must return one per input ({n_in})")
            return (*out, *([None] * n_attrs))

        self._custom.register_autograd(backward, setup_context=setup_context)
        return fn

    def __call__(self, *inputs: Blob, name: str | None = None, **attrs: Any) -> Any:
        """Build the op in the current job: inputs in declaration order, attrs by name; returns its blob
        (or a tuple of blobs). The op is named ``name`` or ``<op type>_<n>``."""
        od = self.op_def
        if len(inputs) != len(od.inputs):
            raise ArgumentError(f"flow op {od.op_type_name!r}: takes {len(od.inputs)} input blob(s) "
                                  f"({', '.join(a.name for a in od.inputs)}); received {len(inputs)}")
        b = user_op_builder(name if name is not None else naming.unique_str(f"{od.op_type_name}_")).Op(od.op_type_name)
        for arg, x in zip(od.inputs, inputs):
            b.Input(arg.name, [x])
        for key, value in attrs.items():
            b.Attr(key, value)
        for arg in od.outputs:
            b.Output(arg.name)
        blobs = b.Build().InferAndTryRun().RemoteBlobList()
        return blobs[0] if len(blobs) == 1 else blobs


def register_user_op(op_type_name: str, *, inputs: Sequence[str] = ("in",), outputs: Sequence[str] = ("out",),
                     attrs: Mapping[str, Any] | None = None) -> Callable[[Callable[..., Any]], UserOpDef]:
    """Decorator: register ``fn(*inputs, *attrs) -> tensor(s)`` as OneFlow op type ``op_type_name`` with
    these input and output arg names (one blob each) and attrs (name → default value, or
    ``(type, [default])``). ``fn`` must return new tensors (not its inputs or views of them) and, unless
    ``register_fake`` is given, also run on meta tensors (plain torch code does)."""
    where = "register_user_op"
    if not isinstance(op_type_name, str) or not op_type_name.isidentifier():
        raise ArgumentError(f"flow.experimental.{where}: the op type name must be an identifier str; received "
                              f"{op_type_name!r}")
    for what, names in (("inputs", inputs), ("outputs", outputs)):
        if isinstance(names, str) or not all(isinstance(n, str) and n for n in names):
            raise ArgumentError(f"flow.experimental.{where}: {what} must be a list of arg names; received {names!r}")
    if not outputs:
        raise ArgumentError(f"flow.experimental.{where}: op type {op_type_name!r} needs at least one output")
    specs = [_attr_spec(k, v, where) for k, v in (attrs or {}).items()]
    for spec in specs:
        if spec.type not in _SCHEMA_TYPES:
            raise ArgumentError(f"flow.experimental.{where}: attr {spec.name!r}: type {spec.type!r} cannot be "
                                  f"passed to a Python kernel; use one of {', '.join(_SCHEMA_TYPES)}")
    try:
        op_registry.lookup(op_type_name)
    except errors.UnknownOpError:
        pass
    else:
        raise ArgumentError(f"flow.experimental.{where}: op type {op_type_name!r} is already registered")
    params = [f"Tensor {_safe(n)}" for n in inputs] + [f"{_SCHEMA_TYPES[s.type]} {_safe(s.name)}" for s in specs]
    returns = "Tensor" if len(outputs) == 1 else "(" + ", ".join("Tensor" for _ in outputs) + ")"
    schema = f"({', '.join(params)}) -> {returns}"

    def decorate(fn: Callable[..., Any]) -> UserOpDef:
        custom = torch.library.custom_op(f"{_NAMESPACE}::{op_type_name}", fn, mutates_args=(), schema=schema)
        custom.register_fake(fn)
        torch_op = getattr(torch.ops, _NAMESPACE).__getattr__(op_type_name).default
        od = op_registry.register(op_type_name, inputs=inputs, outputs=outputs, attrs=specs, kernel=torch_op,
                                  doc=fn.__doc__ or "")
        return UserOpDef(od, torch_op, custom)
    return decorate


_NO_CPP = ("flow.experimental.custom_op_module(...).{}(): OneFlow compiled the module's C++ op definition and "
           "kernels against its own libraries; flowtorch has no C++ op runtime. Register the op in Python "
           "instead, with flow.experimental.register_user_op (its kernel is a torch function)")


class CustomOpModule:
    """``flow.experimental.custom_op_module(op_module_name, module_path="")`` (v0.3.4,
    ``ops/util/custom_op_module.py``): OneFlow's builder of an op module from ``<module_path>/<name>/<name>_py_api.py``,
    ``_cpp_def.cpp``, ``_py_kernel.py`` and ``_cpp_kernel.cpp``. The Python parts load as OneFlow loaded them
    (``py_api()`` sets ``.api``); the C++ steps raise a NotImplementedError naming ``register_user_op``."""

    def __init__(self, op_module_name: str, module_path: str = "") -> None:
        if not isinstance(op_module_name, str) or not op_module_name.isidentifier():
            raise ArgumentError(f"flow.experimental.custom_op_module: op_module_name must be an identifier; "
                                f"received {op_module_name!r}")
        self.op_module_name = op_module_name
        self.folder = os.path.join(os.path.normpath(module_path or "."), op_module_name)
        self.api: types.ModuleType | None = None
        self.py_kernel_module: types.ModuleType | None = None

    def _load(self, suffix: str) -> types.ModuleType:
        path = os.path.join(self.folder, f"{self.op_module_name}_{suffix}.py")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"flow.experimental.custom_op_module: {path} does not exist")
        spec = importlib.util.spec_from_file_location(self.op_module_name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"flow.experimental.custom_op_module: cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def py_api(self) -> CustomOpModule:
        self.api = self._load("py_api")
        return self

    def py_kernel(self) -> CustomOpModule:
        self.py_kernel_module = self._load("py_kernel")
        return self

    def cpp_def(self) -> CustomOpModule:
        raise NotImplementedError(_NO_CPP.format("cpp_def"))

    def cpp_kernel(self) -> CustomOpModule:
        raise NotImplementedError(_NO_CPP.format("cpp_kernel"))

    def gpu_kernel(self) -> CustomOpModule:
        raise NotImplementedError(_NO_CPP.format("gpu_kernel"))

    def build_load(self) -> None:
        raise NotImplementedError(_NO_CPP.format("build_load"))


class OpLib(CustomOpModule):
    """``flow.experimental.op_lib(op_type_name, lib_path="")`` (v0.3.1, ``ops/util/op_lib_builder.py``): the same
    builder under its first name (v0.3.2 renamed it ``custom_op_module``), reading
    ``<lib_path>/<op_type_name>/<op_type_name>_py_api.py`` and the other parts."""

    def __init__(self, op_type_name: str, lib_path: str = "") -> None:
        super().__init__(op_type_name, lib_path)
