"""Argument checks shared by the op wrappers: every message names the op, the argument, what was
expected and what was received (OneFlow itself mostly used bare ``assert``).

:class:`ArgumentError` derives from both ``ValueError`` and ``AssertionError`` so programs written
against OneFlow (which caught ``AssertionError`` from its asserts or ``ValueError`` from its explicit
checks) keep working.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from flowtorch._src import dtypes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops._record import check_blob, is_scalar

__all__ = ["Desc", "ArgumentError", "arg_error", "check_blob", "is_scalar", "norm_axis", "norm_axes", "int_tuple",
           "check_choice", "check_blobs", "check_float_blob", "module_op_name", "numel", "builder", "is_int",
           "check_int", "check_shape", "is_number", "check_number", "check_rate"]


class Desc(str):
    """A description of what an op received (shown without quotes in error messages)."""

    def __repr__(self) -> str:
        return str(self)


def arg_error(op: str, arg: str, expected: str, received: Any) -> ArgumentError:
    return ArgumentError(f"flow.{op}: argument {arg!r} must be {expected}; received {received!r}")


def is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A Python or numpy int or float, not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def check_number(value: Any, op: str, arg: str) -> float:
    if not is_number(value):
        raise arg_error(op, arg, "a number", value)
    return float(value)


def check_rate(rate: Any, op: str) -> float:
    """A dropout rate: a float in [0, 1)."""
    if not is_number(rate) or not 0.0 <= rate < 1.0:
        raise arg_error(op, "rate", "a float in [0, 1)", rate)
    return float(rate)


def check_int(value: Any, op: str, arg: str, minimum: int = 1) -> int:
    if not is_int(value) or value < minimum:
        raise arg_error(op, arg, "a positive int" if minimum == 1 else f"an int >= {minimum}", value)
    return int(value)


def check_shape(value: Any, op: str, arg: str, what: str = "a list/tuple of positive ints", *,
                allow_empty: bool = True) -> tuple[int, ...]:
    """A list/tuple of positive ints (``()`` too, unless ``allow_empty`` is false) → tuple of ints."""
    if not isinstance(value, (list, tuple)) or not all(is_int(s) and s > 0 for s in value) or (
            not value and not allow_empty):
        raise arg_error(op, arg, what if value or allow_empty else f"a non-empty {what.removeprefix('a ')}", value)
    return tuple(int(s) for s in value)


def builder(op: str) -> Any:
    return current_builder(op)


def numel(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def norm_axis(axis: Any, ndim: int, op: str, arg: str = "axis", *, extra: int = 0) -> int:
    """``axis`` in ``[-(ndim+extra), ndim+extra)`` → non-negative int."""
    bound = ndim + extra
    if not isinstance(axis, int) or isinstance(axis, bool) or not -bound <= axis < bound:
        raise arg_error(op, arg, f"an int in [{-bound}, {bound})", axis)
    return axis % bound if bound else 0


def norm_axes(axis: Any, ndim: int, op: str, arg: str = "axis") -> list[int]:
    """``None`` → every axis; int or list/tuple of ints → sorted-as-given non-negative axes."""
    if axis is None:
        return list(range(ndim))
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out = [norm_axis(a, ndim, op, arg) for a in axes]
    if len(set(out)) != len(out):
        raise arg_error(op, arg, "distinct axes", axis)
    return out


def int_tuple(value: Any, n: int, op: str, arg: str) -> tuple[int, ...]:
    """An int or a list/tuple of 1 or ``n`` positive ints → tuple of ``n`` ints (OneFlow ``_GetSequence``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        values = [value]
    elif isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        values = list(value)
    else:
        raise arg_error(op, arg, f"an int or a list/tuple of {n} ints", value)
    if len(values) == 1:
        values = values * n
    if len(values) != n or any(v <= 0 for v in values):
        raise arg_error(op, arg, f"an int or a list/tuple of {n} positive ints", value)
    return tuple(values)


def check_choice(value: Any, choices: Sequence[str], op: str, arg: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise arg_error(op, arg, "one of " + ", ".join(repr(c) for c in choices), value)
    return value


def check_blobs(values: Any, op: str, arg: str, *, min_len: int = 1) -> list[Blob]:
    if isinstance(values, Blob) or not isinstance(values, (list, tuple)):
        raise arg_error(op, arg, "a list or tuple of blobs", values)
    if len(values) < min_len:
        raise arg_error(op, arg, f"a list of at least {min_len} blob(s)", values)
    return [check_blob(v, op, f"{arg}[{i}]") for i, v in enumerate(values)]


def check_float_blob(x: Any, op: str, arg: str) -> Blob:
    x = check_blob(x, op, arg)
    if not x.meta.dtype.is_floating_point:
        raise TypeError(f"flow.{op}: argument {arg!r} must be a floating-point blob; received {x.lbn} of dtype "
                        f"{x.dtype}")
    return x


def check_like(x: Blob, like: Blob, op: str, arg: str, like_arg: str) -> Blob:
    """``x`` (argument ``arg``) must have the shape and dtype of ``like`` (argument ``like_arg``)."""
    if x.shape != like.shape or x.meta.dtype != like.meta.dtype:
        raise arg_error(op, arg, f"the shape and dtype of {like_arg} ({like.shape} {like.dtype})",
                        Desc(f"{x.lbn} {x.shape} {x.dtype}"))
    return x


def to_dtype(value: Any, op: str, arg: str = "dtype") -> dtypes.DType:
    return dtypes.to_dtype(value, what=f"flow.{op}: argument {arg!r}")


def module_op_name(name: str | None, default: str, prefix: str, op: str) -> str:
    """Ops OneFlow built as "modules" with a fixed default name (``random.CoinFlip``, ``random.bernoulli``):
    the first op of a job takes ``name`` (or ``default``); later ones get ``<prefix><n>``."""
    b = builder(op)
    wanted = naming.scoped(name if name is not None else default)
    taken = {blob.op_name for blob in b.all_blobs}
    if wanted in taken:
        if name is not None:
            raise ArgumentError(f"flow.{op}: an op named {wanted!r} already exists in job {b.job_name!r}")
        return naming.op_name(prefix, None)
    return wanted
