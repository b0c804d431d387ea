"""OneFlow's internal module paths under the ``oneflow`` alias: ``oneflow.python.ops.nn_ops``,
``oneflow.python.framework.id_util`` … and ``oneflow._oneflow_internal`` (v0.4.0's C++ module).

Programs imported OneFlow's own modules for names its public API also gave (``nn_ops.conv2d`` is
``flow.nn.conv2d``) and for a few internals (``id_util.UniqueStr``, ``remote_blob.BlobDef`` in annotations,
``session_ctx.GetDefaultSession()``). ``migrate/oneflow_modules.json`` (``scripts/oneflow_names.py``) lists each
module of ``oneflow/python`` in v0.1.2–v0.3.4 with its public top-level names and the public name each was
exported as. :func:`find_spec` makes every listed module (and its packages) a module whose names resolve
on first use (:class:`OneFlowModule`): an exported name to flowtorch's object of its public name, a few
internals to the hand-written ones below. A name the OneFlow module had that flowtorch does not give
imports as an :class:`Unavailable`, which raises :class:`UnsupportedInternalNameError` when used; a name it
never had raises :class:`InternalNameError` (an ``AttributeError``).

Public names are looked up on the ``flowtorch`` package by ``importlib``, as :mod:`alias` maps ``oneflow.X``
to ``flowtorch.X``: the facade sits above this layer.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import json
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import numpy as np
import torch

from flowtorch._src import dtypes, modes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import maybe_builder
from flowtorch._src.deprecation import mark_deprecated
from flowtorch._src.errors import InternalNameError, UnsupportedInternalNameError
from flowtorch._src.placement import Distribute, auto, broadcast, split
from flowtorch._src.runtime.results import LocalBlob
from flowtorch._src.session import Session, default_session
from flowtorch._src.step.eager import EagerBlob
from flowtorch.core.common import data_type_pb2

TABLE = Path(__file__).resolve().parent / "migrate" / "oneflow_modules.json"
INTERNAL = "oneflow._oneflow_internal"
_CPP = "oneflow_api"
F = TypeVar("F", bound=Callable[..., Any])

# A name's entry in the table: its public name(s), newest first, or None (OneFlow never exported it).
Entry = str | list[str] | None


@functools.cache
def table() -> dict[str, dict[str, Entry]]:
    """``{module: {name: entry}}`` from ``migrate/oneflow_modules.json``."""
    loaded: dict[str, dict[str, Entry]] = json.loads(TABLE.read_text())
    return loaded


@functools.cache
def children() -> dict[str, frozenset[str]]:
    """Each package of the table (every listed module's parents included) and its submodules' last names."""
    kids: dict[str, set[str]] = {}
    for module in table():
        parts = module.split(".")
        for i in range(2, len(parts)):  # "oneflow" itself is flowtorch
            kids.setdefault(".".join(parts[:i]), set()).add(parts[i])
    return {package: frozenset(names) for package, names in kids.items()}


def known(module: str) -> bool:
    return module in table() or module in children()


# ----------------------------------------------------------------------------- the hand-written internals
def oneflow_export(*api_names: str, **kwargs: Any) -> Callable[[F], F]:
    """``oneflow_export.oneflow_export``: a decorator that returns the function unchanged. OneFlow read the
    ``api_names`` of its own modules once, at import, to fill its namespace: a program's use registered nothing."""
    return lambda func: func


def oneflow_deprecate(*api_names: str, **kwargs: Any) -> Callable[[F], F]:
    """``oneflow_export.oneflow_deprecate``: marks the function for ``flow.is_deprecated``, as OneFlow did."""
    return mark_deprecated


def JobBuildAndInferCtx_GetCurrentJobName() -> str:
    """The name of the job whose body is running (OneFlow's current JobBuildAndInferCtx)."""
    builder = maybe_builder()
    if builder is None:
        raise RuntimeError(
            "JobBuildAndInferCtx_GetCurrentJobName(): no job is being built. It names the job whose body is "
            "running: call it from the @flow.global_function body or a function the body calls (flowtorch "
            "builds every job once, when the session starts)")
    return builder.job_name


class SessionStatus:
    """``session_context.SessionStatus``: the states of a session (flowtorch's ``Session.status``)."""

    OPEN = "OPEN"
    RUNNING = "RUNNING"
    CLOSED = "CLOSED"


class SessionView:
    """What ``session_ctx.GetDefaultSession()`` gives: the parts of OneFlow's ``Session`` that programs read,
    over flowtorch's default session."""

    def __init__(self, session: Session) -> None:
        self._session = session

    @property
    def status(self) -> str:
        return self._session.status

    @property
    def is_running(self) -> bool:
        return self._session.is_running

    @property
    def job_name2var_name2var_blob_(self) -> dict[str, dict[str, Blob]]:
        """``{job: {variable name: blob}}`` of the job being built (the blobs its body's ``flow.get_variable``
        calls returned so far); empty outside a build. OneFlow kept every built job's; flowtorch keeps a job's
        blobs only while it is built."""
        builder = maybe_builder()
        return {} if builder is None else {builder.job_name: dict(builder.var_blobs)}

    def __getattr__(self, name: str) -> NoReturn:
        raise InternalNameError(
            f"session_ctx.GetDefaultSession().{name}: flowtorch's stand-in for OneFlow's Session gives only "
            "status, is_running and job_name2var_name2var_blob_; its other state has no counterpart here",
            name=name, obj=self)


def GetDefaultSession() -> SessionView:
    """``session_context.GetDefaultSession()``: a :class:`SessionView` of the default session."""
    return SessionView(default_session())


def GetProtoDtype4OfDtype(dtype: Any) -> int:
    """The ``DataType`` enum value (``core.common.data_type_pb2``) of a OneFlow dtype."""
    if not isinstance(dtype, dtypes.DType):
        raise TypeError(f"{_CPP}.deprecated.GetProtoDtype4OfDtype: expected a flow dtype such as flow.float32; "
                        f"received {dtype!r}")
    return int(data_type_pb2.DataType.Value(dtype.proto_name))


def convert_proto_dtype_to_oneflow_dtype(proto_dtype: int) -> dtypes.DType:
    """``dtype.convert_proto_dtype_to_oneflow_dtype``: the flow dtype of a ``DataType`` enum value."""
    for dtype in (*dtypes.ALL, dtypes.ofrecord, dtypes.tensor_buffer):
        if data_type_pb2.DataType.Value(dtype.proto_name) == proto_dtype:
            return dtype
    raise NotImplementedError(f"convert_proto_dtype_to_oneflow_dtype: no flow dtype has DataType {proto_dtype!r}")


def convert_numpy_dtype_to_oneflow_dtype(numpy_dtype: Any) -> dtypes.DType:
    """``dtype.convert_numpy_dtype_to_oneflow_dtype``: the flow dtype of a numpy dtype (``np.float32``)."""
    try:
        found = dtypes.from_numpy(np.dtype(numpy_dtype))
    except TypeError:
        found = None
    if found is None or found is dtypes.char:
        raise NotImplementedError(f"convert_numpy_dtype_to_oneflow_dtype: no flow dtype for numpy {numpy_dtype!r}")
    return found


def is_perm(perm: Sequence[int]) -> bool:
    """``transpose_util.is_perm``: whether ``perm`` orders ``0 … n-1``."""
    return sorted(perm) == list(range(len(perm)))


def get_perm_when_transpose_axis_to_last_dim(num_axes: int, axis: int) -> tuple[int, ...]:
    """``transpose_util``: the permutation that moves ``axis`` last, the other axes keeping their order."""
    full = axis + num_axes if axis < 0 else axis
    if not 0 <= full < num_axes:
        raise ValueError(f"get_perm_when_transpose_axis_to_last_dim: axis {axis} is out of range for {num_axes} axes")
    return (*(d for d in range(num_axes) if d != full), full)


def get_inversed_perm(perm: Sequence[int]) -> tuple[int, ...]:
    """``transpose_util.get_inversed_perm``: the permutation that undoes ``perm``."""
    if not is_perm(perm):
        raise ValueError(f"get_inversed_perm: {perm!r} is not a permutation of 0..{len(perm) - 1}")
    inverse = [0] * len(perm)
    for position, axis in enumerate(perm):
        inverse[axis] = position
    return tuple(inverse)


class Namespace(types.SimpleNamespace):
    """A sub-namespace of OneFlow's C++ module (``oneflow_api.distribute``): the names it has here, and
    :class:`InternalNameError` for the rest."""

    def __init__(self, qualname: str, **members: Any) -> None:
        super().__init__(**members)
        object.__setattr__(self, "_qualname", qualname)

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("__"):
            raise AttributeError(name)
        qualname = self.__dict__.get("_qualname", "namespace")
        have = ", ".join(sorted(k for k in self.__dict__ if not k.startswith("_")))
        raise InternalNameError(f"{qualname}.{name}: flowtorch's stand-in for OneFlow's C++ module (oneflow_api; "
                                f"oneflow._oneflow_internal from v0.4.0) gives {have} here", name=name, obj=self)


deprecated = Namespace(f"{_CPP}.deprecated", GetProtoDtype4OfDtype=GetProtoDtype4OfDtype,
                       GetDTypeByDataType=convert_proto_dtype_to_oneflow_dtype)
distribute = Namespace(f"{_CPP}.distribute", Distribute=Distribute, auto=auto, broadcast=broadcast, split=split)
flags = Namespace(f"{_CPP}.flags", with_cuda=torch.cuda.is_available)

_BLOB_CLASSES: dict[str, type] = {
    **dict.fromkeys(("BlobDef", "BlobDesc", "ConsistentBlob", "LazyConsistentBlob", "MirroredBlob",
                     "LazyMirroredBlob"), Blob),
    **dict.fromkeys(("EagerBlobTrait", "EagerConsistentBlob", "EagerMirroredBlob"), EagerBlob),
}

# Hand-written names of OneFlow's modules.
EXTRAS: dict[str, dict[str, object]] = {
    "oneflow.python.oneflow_export": {"oneflow_export": oneflow_export, "oneflow_deprecate": oneflow_deprecate},
    "oneflow.python.framework.id_util": {"UniqueId": naming.unique_id},
    "oneflow.python.framework.distribute": {"Distribute": Distribute},
    "oneflow.python.framework.dtype": {
        "dtype": dtypes.DType,
        "convert_proto_dtype_to_oneflow_dtype": convert_proto_dtype_to_oneflow_dtype,
        "convert_numpy_dtype_to_oneflow_dtype": convert_numpy_dtype_to_oneflow_dtype,
    },
    "oneflow.python.framework.session_context": {"GetDefaultSession": GetDefaultSession,
                                                 "SessionStatus": SessionStatus},
    "oneflow.python.framework.c_api_util": {
        "JobBuildAndInferCtx_GetCurrentJobName": JobBuildAndInferCtx_GetCurrentJobName,
        "EagerExecutionEnabled": modes.eager_execution_enabled,
    },
    "oneflow.python.framework.remote_blob": {k: v for k, v in _BLOB_CLASSES.items() if k != "BlobDesc"},
    "oneflow.python.framework.blob_desc": {"BlobDesc": Blob},
    "oneflow.python.framework.local_blob": {"LocalMirroredTensor": LocalBlob},
    "oneflow.python.ops.transpose_util": {
        "is_perm": is_perm,
        "get_perm_when_transpose_axis_to_last_dim": get_perm_when_transpose_axis_to_last_dim,
        "get_inversed_perm": get_inversed_perm,
    },
}

# Names of OneFlow's modules for a public name that the table does not give them.
ALIASES: dict[str, dict[str, str]] = {
    "oneflow.python.framework.function_util": {
        # not in OneFlow's module (its global_function was api_oneflow_function); programs import it anyway
        "global_function": "global_function",
        # v0.4.0: the decorator outside OneFlow's global (nn.Graph) mode, which flowtorch never is in
        "global_function_or_identity": "global_function",
    },
    "oneflow.python.framework.dtype": {"convert_of_dtype_to_numpy_dtype": "convert_oneflow_dtype_to_numpy_dtype"},
}

# v0.4.0's ``oneflow._oneflow_internal``: ``flowtorch.oneflow_api``'s names and these.
INTERNAL_EXTRAS: dict[str, object] = {
    "UniqueStr": naming.unique_str,
    "flags": flags,
    **{k: v for k, v in _BLOB_CLASSES.items() if k.startswith("Eager")},
}


# ----------------------------------------------------------------------------- resolving names
class Unavailable:
    """A name OneFlow's module had that flowtorch does not give: importing it works, using it (calling it,
    reading its attributes, ``isinstance`` against it, subclassing it) raises
    :class:`UnsupportedInternalNameError`."""

    __slots__ = ("_qualname", "_why")

    def __init__(self, qualname: str, why: str) -> None:
        self._qualname = qualname
        self._why = why

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise UnsupportedInternalNameError(f"{self._qualname}: {self._why}")

    __call__ = _refuse
    __instancecheck__ = _refuse
    __subclasscheck__ = _refuse
    __mro_entries__ = _refuse

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("_"):  # tools probe private markers (asyncio's _is_coroutine …): not a use
            raise AttributeError(name)
        self._refuse()

    def __repr__(self) -> str:
        return f"<{self._qualname}: not available in flowtorch>"


def public_object(name: str) -> Any:
    """flowtorch's object of the public name ``name`` (``"nn.conv2d"``); AttributeError when it has none."""
    obj: Any = importlib.import_module("flowtorch")
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def resolve(module: str, name: str) -> Any:
    """The value of ``module.name``; KeyError when OneFlow's module had no such name."""
    if name in EXTRAS.get(module, {}):
        return EXTRAS[module][name]
    entry: Entry
    if name in ALIASES.get(module, {}):
        entry = ALIASES[module][name]
    elif name in table().get(module, {}):
        entry = table()[module][name]
    else:
        raise KeyError(name)
    public = [entry] if isinstance(entry, str) else entry or []
    for candidate in public:
        try:
            return public_object(candidate)
        except AttributeError:
            continue
    if public:
        why = (f"OneFlow exported it as {' and '.join('flow.' + p for p in public)}, which flowtorch does not "
               "have yet (see docs/compat.md)")
    else:
        why = ("an internal of OneFlow's (it exported no public name for it) with no counterpart on PyTorch; "
               "flowtorch gives the names OneFlow exported from this module and a few internals programs read")
    return Unavailable(f"{module}.{name}", why)


class OneFlowModule(types.ModuleType):
    """One of OneFlow's ``oneflow.python.*`` modules: submodules import and names resolve on first use."""

    __all__: list[str]  # its names, for ``from … import *``

    def __getattr__(self, name: str) -> Any:
        module = self.__name__
        if name.startswith("__"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        if name in children().get(module, ()):
            return importlib.import_module(f"{module}.{name}")  # (the import binds it here too)
        try:
            value = resolve(module, name)
        except KeyError:
            raise InternalNameError(
                f"module {module!r} has no attribute {name!r}: OneFlow v0.1.2-v0.3.4's {module} had no such "
                "name (flowtorch stands in for its names, listed in migrate/oneflow_modules.json)",
                name=name, obj=self) from None
        setattr(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | _names(self.__name__))


def _names(module: str) -> set[str]:
    return (set(table().get(module, {})) | set(EXTRAS.get(module, {})) | set(ALIASES.get(module, {}))
            | set(children().get(module, ())))


class InternalModule(types.ModuleType):
    """``oneflow._oneflow_internal``: ``flowtorch.oneflow_api``'s names, :data:`INTERNAL_EXTRAS`, and
    :class:`InternalNameError` for the rest of OneFlow's C++ module."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(f"module {INTERNAL!r} has no attribute {name!r}")
        if name in INTERNAL_EXTRAS:
            return INTERNAL_EXTRAS[name]
        try:
            return getattr(importlib.import_module("flowtorch.oneflow_api"), name)
        except AttributeError:
            pass
        raise InternalNameError(
            f"module {INTERNAL!r} has no attribute {name!r} in flowtorch: it stands in for OneFlow v0.4.0's C++ "
            f"module with the names programs read ({', '.join(sorted(_internal_names()))}); the rest is "
            "OneFlow's runtime, which has no counterpart on PyTorch", name=name, obj=self)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | _internal_names())


def _internal_names() -> set[str]:
    api = importlib.import_module("flowtorch.oneflow_api")
    return set(INTERNAL_EXTRAS) | set(getattr(api, "__all__", ()))


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        if spec.name == INTERNAL:
            return InternalModule(INTERNAL, "OneFlow v0.4.0's C++ module, as far as flowtorch stands in for it")
        module = OneFlowModule(spec.name, f"OneFlow's {spec.name}, standing in under flowtorch: its names are "
                                          "flowtorch's objects of their public names")
        module.__all__ = sorted(_names(spec.name) - children().get(spec.name, frozenset()))
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def find_spec(fullname: str) -> importlib.machinery.ModuleSpec:
    """The spec of ``oneflow._oneflow_internal`` or a module of the table; ModuleNotFoundError for another
    ``oneflow.python.*`` path."""
    if fullname != INTERNAL and not known(fullname):
        raise ModuleNotFoundError(
            f"No module named {fullname!r}: OneFlow v0.1.2-v0.3.4 had no such module under oneflow/python "
            "(flowtorch stands in for those listed in migrate/oneflow_modules.json)", name=fullname)
    return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=fullname in children())

