"""A job's signature: the input defs read at decoration, call-time checks, and the result form.

Spec §1: inputs are all ``tp.*.Placeholder`` annotations, or all ``*TensorDef`` defaults; results follow
the return annotation (``None``, ``tp.Numpy``, ``List``/``Tuple``/``Dict`` nestings, ``tp.Bundle``,
``tp.Callback``) or, unannotated, come back as a future.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.typing_defs import ArgDef, Callback, ListListNumpy, ListNumpy, Numpy, _Generic
from flowtorch._src.data.tensor_list import TensorList, list_input
from flowtorch._src.dist import collectives

LEAF_KINDS = {Numpy: "numpy", ListNumpy: "list_numpy", ListListNumpy: "list_list_numpy"}


# --- result forms -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Leaf:
    kind: str  # numpy | list_numpy | list_list_numpy | local (old API / unannotated)


@dataclass(frozen=True)
class TupleForm:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class ListForm:
    item: Any


@dataclass(frozen=True)
class DictForm:
    key: Any
    value: Any


@dataclass(frozen=True)
class BundleForm:
    leaf: Leaf


@dataclass(frozen=True)
class ReturnSpec:
    mode: str  # "none" | "sync" | "callback" | "future"
    form: Any = None
    annotation: Any = None


_typing_check = False


def enable_typing_check(val: bool = True) -> None:
    """``flow.experimental.enable_typing_check``: jobs decorated from now on must annotate every parameter
    and their return (``framework/typing_util.py``); ``flow.unittest.TestCase`` sets it from
    ``ONEFLOW_TEST_ENABLE_TYPING_CHECK``."""
    global _typing_check
    _typing_check = bool(val)


def typing_check_enabled() -> bool:
    return _typing_check


def parse_return(annotation: Any, job: str) -> ReturnSpec:
    if annotation is inspect.Signature.empty:
        if _typing_check:
            raise NotImplementedError(f"no return annotation found (job {job!r}; "
                                      "flow.experimental.enable_typing_check is on)")
        return ReturnSpec("future", None, annotation)
    if annotation is None or annotation is type(None):
        return ReturnSpec("none", None, annotation)
    if isinstance(annotation, _Generic) and annotation.name == "Callback":
        inner = annotation.arg
        return ReturnSpec("callback", _parse_form(inner, job), annotation)
    if annotation is Callback:
        raise TypeError(f"global_function {job!r}: T in oneflow.typing.Callback[T] cannot be omitted")
    return ReturnSpec("sync", _parse_form(annotation, job), annotation)


def _parse_form(ann: Any, job: str) -> Any:
    if ann in LEAF_KINDS:
        return Leaf(LEAF_KINDS[ann])
    if isinstance(ann, _Generic) and ann.name == "Bundle":
        if ann.arg not in LEAF_KINDS:
            raise NotImplementedError(f"invalid return annotation {ann!r} found (job {job!r}: Bundle[T] needs "
                                      "T in tp.Numpy, tp.ListNumpy, tp.ListListNumpy)")
        return BundleForm(Leaf(LEAF_KINDS[ann.arg]))
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if ann in (tuple, list, dict, typing.Tuple, typing.List, typing.Dict):
        raise TypeError(f"global_function {job!r}: T in {ann!r} cannot be omitted; write e.g. "
                        "Tuple[tp.Numpy, tp.Numpy]")
    if origin is tuple:
        if not args:
            raise TypeError(f"global_function {job!r}: T in {ann!r} cannot be omitted")
        return TupleForm(tuple(_parse_form(a, job) for a in args))
    if origin is list:
        return ListForm(_parse_form(args[0], job))
    if origin is dict:
        return DictForm(args[0], _parse_form(args[1], job))
    raise NotImplementedError(f"invalid return annotation {ann!r} found (job {job!r}; expected tp.Numpy, "
                              "tp.ListNumpy, tp.ListListNumpy, Tuple/List/Dict of them, tp.Bundle[T] or "
                              "tp.Callback[T])")


def flatten_return(value: Any, spec: ReturnSpec, job: str
                   ) -> tuple[list[Blob], list[str], Callable[[list[Any]], Any]]:
    """Check the body's return against the annotation; give its blobs, each blob's leaf kind, and a
    function rebuilding the same structure from one converted value per blob."""
    if spec.mode == "none":
        if value is not None:
            raise TypeError(f"{value!r} does not matched return annotation None of global_function {job}.")
        return [], [], lambda leaves: None
    found: list[tuple[Blob, str]] = []
    if spec.mode == "future":
        build = _flatten_any(value, Leaf("local"), found, job, allow_none=True)
    else:
        build = _flatten(value, spec.form, found, job, spec.annotation)
    return [b for b, _ in found], [k for _, k in found], build


def _flatten(value: Any, form: Any, blobs: list[tuple[Blob, str]], job: str, ann: Any) -> Callable[[Any], Any]:
    def mismatch(extra: str = "") -> TypeError:
        return TypeError(f"{value!r} does not matched return annotation {ann!r} of global_function {job}.{extra}")

    if isinstance(form, Leaf):
        if not isinstance(value, Blob):
            raise TypeError("oneflow.global_function returns RemoteBlob or list/tuple/dict nested RemoteBlob "
                            f"only; job {job!r} returned {type(value).__name__} {value!r} where annotation "
                            f"{ann!r} expects a blob")
        if form.kind == "numpy" and value.is_dynamic:
            raise TypeError(f"job {job!r}: only fixed shaped blob compatible to oneflow.typing.Numpy. you can "
                            "change annotation to oneflow.typing.ListNumpy or oneflow.typing.ListListNumpy")
        i = len(blobs)
        blobs.append((value, form.kind))
        return lambda leaves: leaves[i]
    if isinstance(form, BundleForm):
        return _flatten_any(value, form.leaf, blobs, job, allow_none=False)
    if isinstance(form, TupleForm):
        if not isinstance(value, tuple):
            raise mismatch()
        if len(value) != len(form.items):
            raise mismatch(f" length compare: {len(value)} v.s. {len(form.items)}")
        parts = [_flatten(v, f, blobs, job, ann) for v, f in zip(value, form.items)]
        return lambda leaves: tuple(p(leaves) for p in parts)
    if isinstance(form, ListForm):
        if not isinstance(value, list):
            raise mismatch()
        parts = [_flatten(v, form.item, blobs, job, ann) for v in value]
        return lambda leaves: [p(leaves) for p in parts]
    if isinstance(form, DictForm):
        if not isinstance(value, dict):
            raise mismatch()
        for k in value:
            if type(k) is not form.key and form.key is not typing.Any:
                raise mismatch(f" key {k!r} is {type(k).__name__}, annotation says {form.key!r}")
        items = [(k, _flatten(v, form.value, blobs, job, ann)) for k, v in value.items()]
        return lambda leaves: {k: p(leaves) for k, p in items}
    raise AssertionError(form)


def _flatten_any(value: Any, leaf: Leaf, blobs: list[tuple[Blob, str]], job: str,
                 allow_none: bool) -> Callable[[Any], Any]:
    if value is None and allow_none:
        return lambda leaves: None
    if isinstance(value, Blob):
        i = len(blobs)
        blobs.append((value, leaf.kind))
        return lambda leaves: leaves[i]
    if isinstance(value, (tuple, list)):
        parts = [_flatten_any(v, leaf, blobs, job, False) for v in value]
        kind = type(value)
        return lambda leaves: kind(p(leaves) for p in parts)
    if isinstance(value, dict):
        items = [(k, _flatten_any(v, leaf, blobs, job, False)) for k, v in value.items()]
        return lambda leaves: {k: p(leaves) for k, p in items}
    raise TypeError("oneflow.global_function returns RemoteBlob or list/tuple/dict nested RemoteBlob only; "
                    f"job {job!r} returned {type(value).__name__} {value!r}")


# --- inputs -------------------------------------------------------------------------------------------
@dataclass
class InputSpec:
    """One job parameter: a single def (``arg``), or a tuple of them (``items``, from a ``Tuple[...]``
    annotation or a v0.1 list/tuple of ``*TensorDef`` defaults; ``container`` is the type passed in)."""

    name: str
    arg: ArgDef | None = None
    items: tuple[InputSpec, ...] = ()
    container: type = tuple

    def leaves(self) -> list[InputSpec]:
        """The single-def specs under this one, in argument order."""
        if self.arg is not None:
            return [self]
        return [leaf for item in self.items for leaf in item.leaves()]

    @property
    def leaf_arg(self) -> ArgDef:
        """The def of a single-def spec (one of :meth:`leaves`)."""
        if self.arg is None:
            raise TypeError(f"parameter {self.name!r} is a tuple of placeholders; its leaves() have the defs")
        return self.arg

    def assemble(self, values: Any) -> Any:
        """Rebuild this parameter's structure from an iterator over one value per leaf."""
        if self.arg is not None:
            return next(values)
        return self.container(item.assemble(values) for item in self.items)

    def split(self, value: Any, job: str) -> list[Any]:
        """The call argument's values, one per leaf, after checking it has this parameter's structure."""
        if self.arg is not None:
            return [value]
        kinds = (tuple, list) if self.container is list else (tuple,)
        if not isinstance(value, kinds) or len(value) != len(self.items):
            what = "list or tuple" if self.container is list else "tuple"
            raise AssertionError(f"job {job!r}, argument {self.name!r}: expected a {what} of {len(self.items)} "
                                 f"values (one per placeholder); received {_describe(value)}")
        return [leaf for item, v in zip(self.items, value) for leaf in item.split(v, job)]


def resolved_signature(func: Callable[..., Any], localns: dict[str, Any] | None = None) -> inspect.Signature:
    """The signature with string annotations (``from __future__ import annotations``) evaluated, in the
    function's globals and ``localns`` (the locals of the scope that defined it, for jobs built inside a
    function from its variables: ``tp.Numpy.Placeholder((batch, 3))``)."""
    try:
        return inspect.signature(func, eval_str=True, locals=localns)
    except Exception:  # an annotation that cannot be evaluated is reported by the caller
        return inspect.signature(func)


def parse_inputs(sig: inspect.Signature, job: str) -> list[InputSpec]:
    """The input defs of a job's (resolved) signature."""
    params = list(sig.parameters.values())
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise NotImplementedError(f"global_function {job!r}: no parameters like *args or **kwargs supported "
                                      f"(found {p})")
    annotated = [p.annotation is not inspect.Parameter.empty for p in params]
    if _typing_check and not all(annotated):
        missing = next(p.name for p, a in zip(params, annotated) if not a)
        raise NotImplementedError(f"parameter {missing} is not annotated (job {job!r}; "
                                  "flow.experimental.enable_typing_check is on)")
    if any(annotated) and not all(annotated):
        unannotated = [p.name for p, a in zip(params, annotated) if not a]
        raise NotImplementedError(f"All parameters of global function should be annotated (job {job!r}: "
                                  f"{', '.join(unannotated)} not annotated)")
    specs = []
    for p in params:
        if p.annotation is not inspect.Parameter.empty:
            specs.append(_param_from_annotation(p.annotation, p.name, job))
        elif p.default is inspect.Parameter.empty:
            raise NotImplementedError(
                f"global_function {job!r}: parameter {p.name!r} has neither an annotation nor a default; give it "
                "oneflow.typing.Numpy.Placeholder(shape) as annotation or flow.FixedTensorDef(shape) as default")
        else:
            specs.append(_param_from_default(p.default, p.name, job))
    return specs


def _bad_param(found: Any, name: str, job: str, what: str) -> NotImplementedError:
    return NotImplementedError(
        f"invalid parameter {what} {found!r} found (job {job!r}, parameter {name!r}: its {what} must be "
        "oneflow.typing.Numpy.Placeholder(...), ListNumpy.Placeholder(...), ListListNumpy.Placeholder(...) or "
        "a typing.Tuple of them; or a flow.FixedTensorDef / MirroredTensorDef default, or a list/tuple of them)")


def _param_from_annotation(ann: Any, name: str, job: str) -> InputSpec:
    # OneFlow's CheckGlobalFunctionParamAnnotation (framework/typing_util.py): placeholders or Tuple[...]
    # nestings of them.
    if isinstance(ann, ArgDef):
        return InputSpec(name, ann)
    if typing.get_origin(ann) is tuple:
        args = typing.get_args(ann)
        if not args or Ellipsis in args:
            raise TypeError(f"global_function {job!r}, parameter {name!r}: T in typing.Tuple[T, ...] cannot be "
                            "omitted; write one placeholder per element")
        return InputSpec(name, items=tuple(_param_from_annotation(a, f"{name}[{i}]", job)
                                           for i, a in enumerate(args)))
    raise _bad_param(ann, name, job, "annotation")


def _param_from_default(default: Any, name: str, job: str) -> InputSpec:
    if isinstance(default, ArgDef):
        return InputSpec(name, default)
    if isinstance(default, (list, tuple)) and default:
        return InputSpec(name, items=tuple(_param_from_default(d, f"{name}[{i}]", job)
                                           for i, d in enumerate(default)), container=type(default))
    raise _bad_param(default, name, job, "default")


class DeviceInputs(list):  # type: ignore[type-arg]
    """A mirrored argument's parts, one per device, when one process runs every device of the call (a predict
    job given N parts by a program that asked for N devices; the job runs once per part)."""


def copied_arrays(value: Any) -> Any:
    """``value`` with every numpy array in it (in lists and tuples) copied, by numpy: what a call hands to a
    step that runs after the call returned, while the caller may already change its arrays."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if type(value) in (list, tuple):
        return type(value)(copied_arrays(v) for v in value)
    return value


def convert_input(value: Any, spec: InputSpec, dtype: dtypes.DType, job: str, index: int,
                  device: str, parts: int = 1) -> torch.Tensor | TensorList | DeviceInputs:
    """Check one call argument against its def and turn it into a tensor of the declared dtype, on memory
    of its own when the caller's array is read-only (or needed converting); a ``tp.ListListNumpy`` one into
    a tensor list. ``parts``: the devices this one process runs (> 1: a mirrored argument of that many parts
    becomes :class:`DeviceInputs`)."""
    arg = spec.arg
    if arg is None:
        raise TypeError(f"{_where(job, spec, index)}: a tuple parameter is converted value by value (its spec's "
                        "leaves())")
    if arg.kind == "numpy":
        if (type(value) is np.ndarray and value.dtype == dtype.numpy_dtype and value.shape == arg.shape
                and value.flags.c_contiguous and value.flags.writeable):
            array = value  # the common case, checked without building the message of a failed check
        else:
            array = _check_array(value, _where(job, spec, index), arg.shape, dtype, exact=True)
    else:
        where = _where(job, spec, index)
        devices = collectives.world_size()  # one process per device: this one takes its own part
        if devices == 1 and parts > 1 and isinstance(value, list) and len(value) == parts:
            return DeviceInputs(convert_input([item], spec, dtype, job, index, device) for item in value)
        if not isinstance(value, list) or len(value) != devices:
            hint = (f" (a list of {len(value)} parts runs on {len(value)} processes: python -m flowtorch --nproc "
                    f"{len(value)} script.py)" if isinstance(value, list) and len(value) > devices else "")
            raise AssertionError(f"{where}: expected a list with one numpy.ndarray per device ({devices} "
                                 f"device{'s' if devices > 1 else ''}){hint}; received {_describe(value)}")
        item = value[collectives.rank()]
        if arg.kind == "list_list_numpy":  # a tensor list: one ndarray per tensor, shapes may differ
            if isinstance(item, list):  # same conversions (and range checks) as for one array; the rest is its
                item = [_convert(a, f"{where}, tensor {i} of the list", dtype)
                        if isinstance(a, np.ndarray) and _convertible(a.dtype, dtype.numpy_dtype) else a
                        for i, a in enumerate(item)]
            return list_input(item, arg.shape, dtype, where, device)
        array = _check_array(item, where, arg.shape, dtype, exact=False)
    tensor = torch.from_numpy(array)
    return tensor if device == "cpu" else tensor.to(device, non_blocking=True)


def _where(job: str, spec: InputSpec, index: int) -> str:
    return f"job {job!r}, argument {spec.name!r} (#{index})"


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray of shape {value.shape} dtype {value.dtype}"
    return f"{type(value).__name__} {value!r}"[:200]


def _check_array(value: Any, where: str, shape: tuple[int, ...], dtype: dtypes.DType, exact: bool) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise AssertionError(  # OneFlow asserts, as for the shape checks below
            f"{where}: expected numpy.ndarray of shape {shape} {dtype.name}; received {_describe(value)}")
    if exact and value.shape != shape:
        raise AssertionError(f"{where}: expected shape {shape}; received shape {value.shape} "
                             "(OneFlow placeholders need the exact shape)")
    if not exact:
        numel = int(np.prod(value.shape))
        if value.ndim != len(shape) or numel > int(np.prod(shape)):
            raise AssertionError(f"{where}: expected rank {len(shape)} with at most {int(np.prod(shape))} elements "
                                 f"(declared {shape}); received shape {value.shape}")
    # OneFlow cast silently; we cast what keeps every value (float64→float32 data, int64→int32 labels) and
    # refuse what it would have garbled (float→int labels, out-of-range values): spec §10.
    if value.dtype != dtype.numpy_dtype and not _convertible(value.dtype, dtype.numpy_dtype):
        raise TypeError(f"{where}: expected dtype {dtype.name}; received {value.dtype}, which cannot be "
                        f"converted to {dtype.name} without losing its meaning (cast it explicitly)")
    return _convert(value, where, dtype)


def _convertible(source: np.dtype, target: np.dtype) -> bool:
    """Whether ``source`` arrays may be fed to a ``target`` placeholder (given their values fit)."""
    return (source.kind == "b" or (source.kind in "iu" and target.kind in "iuf")
            or (source.kind == "f" and target.kind == "f"))


def _convert(value: np.ndarray, where: str, dtype: dtypes.DType) -> np.ndarray:
    """``value`` as a C-contiguous, writable array of ``dtype`` (a copy unless it already was one); a
    TypeError for values the cast would change beyond rounding (wrapped ints, finite floats turned inf)."""
    target = dtype.numpy_dtype
    if value.dtype == target:
        # A read-only array is copied: torch would warn, and the step must not write through it.
        return np.ascontiguousarray(value) if value.flags.writeable else np.array(value, order="C", copy=True)
    if value.dtype.kind in "iu" and target.kind in "iu":
        have, can = np.iinfo(value.dtype), np.iinfo(target)
        if value.size and (have.min < can.min or have.max > can.max):
            lo, hi = int(value.min()), int(value.max())
            if lo < can.min or hi > can.max:
                # compared in the source dtype: a bound that can be crossed at all lies inside its range
                bad = np.zeros(value.shape, bool)
                if have.min < can.min:
                    bad |= value < value.dtype.type(can.min)
                if have.max > can.max:
                    bad |= value > value.dtype.type(can.max)
                raise _lossy(value, bad, where, dtype, f"[{can.min}, {can.max}]", "cast explicitly")
        return np.ascontiguousarray(value, dtype=target)
    if target.kind == "f" and value.dtype.kind in "iuf" and value.size:
        top = float(np.finfo(target).max)
        widest = float(np.finfo(value.dtype).max if value.dtype.kind == "f" else np.iinfo(value.dtype).max)
        if widest > top:
            lo, hi = np.fmin.reduce(value, axis=None), np.fmax.reduce(value, axis=None)  # NaN ignored
            if lo < -top or hi > top:  # maybe overflow (or inf already there): the cast tells
                with np.errstate(over="ignore", invalid="ignore"):
                    out = np.ascontiguousarray(value, dtype=target)
                bad = np.isinf(out) & np.isfinite(value)
                if bad.any():
                    raise _lossy(value, bad, where, dtype, f"[-{top:.8g}, {top:.8g}]",
                                 "they would become inf; cast explicitly")
                return out
    return np.ascontiguousarray(value, dtype=target)


def _lossy(value: np.ndarray, bad: np.ndarray, where: str, dtype: dtypes.DType, bounds: str, advice: str
           ) -> TypeError:
    flat = int(np.argmax(bad))  # bad is C-ordered: the first offending value in index order
    index = tuple(int(i) for i in np.unravel_index(flat, value.shape))
    more = int(np.count_nonzero(bad)) - 1
    return TypeError(f"{where}: expected {dtype.name}; received {value.dtype} values outside {dtype.name}'s "
                     f"range {bounds} ({value[index].item()!r} at index {index}{f' and {more} more' if more else ''})"
                     f": {advice}")
