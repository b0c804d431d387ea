"""Smaller ``flow.math`` / top-level ops of OneFlow v0.3.4 (``ops/math_ops.py``, ``ops/count_not_finite.py``,
kernels in ``user/kernels``):

* ``math.polyval(coeffs, x)``: Horner's rule built from OneFlow's own ops — ``zeros_like`` (named
  ``Polyval_<n>`` or ``name``) then ``add(c, multiply(p, x))`` per coefficient, highest power first.
* ``math.tril(x, diagonal=0, fill_value=0)``: x on and below the ``diagonal``-th diagonal of the last two
  axes, ``fill_value`` above (``Tril_<n>/out_0``); its gradient is the tril of the output gradient.
* ``math.reduced_shape_elem_cnt(x, axis=None, dtype=None)``: the number of elements of ``x`` (over ``axis``
  only, when given) as a (1,) blob of ``dtype`` (int32 by default), from ``x``'s run-time shape
  (``ShapeElemCnt_<n>/y``).
* ``count_not_finite(x)`` / ``multi_count_not_finite([x, …])``: how many elements are inf or NaN, as an int64
  (1,) blob (``CountNotFinite_<n>/y_0``, ``MultiCountNotFinite_<n>/y_0``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src import dtypes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops import math_ops
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_blobs, is_int, is_number
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import zeros_like


# --- polyval ------------------------------------------------------------------------------------------------
def polyval(coeffs: Sequence[Any], x: Blob, name: str | None = None) -> Blob:
    """``flow.math.polyval(coeffs, x)``: coeffs[0]·x^(n-1) + … + coeffs[n-1]; 0 for no coefficients."""
    if not isinstance(coeffs, (list, tuple)):  # a ValueError, as OneFlow raised
        raise ValueError(f"flow.math.polyval: argument 'coeffs' must be a list or tuple of numbers; "
                         f"received {type(coeffs).__name__} {coeffs!r}")
    x = check_blob(x, "math.polyval", "x")
    for i, c in enumerate(coeffs):
        if not is_number(c):
            raise arg_error("math.polyval", f"coeffs[{i}]", "a number", c)
    name = name if name is not None else naming.unique_str("Polyval_")
    p = zeros_like(x, name=name)
    for c in coeffs:
        p = math_ops.add(c.item() if hasattr(c, "item") else c, math_ops.multiply(p, x))
    return p


# --- tril --------------------------------------------------------------------------------------------------
def tril_kernel(x: torch.Tensor, diagonal: int, fill: float) -> torch.Tensor:
    rows = torch.arange(x.shape[-2], device=x.device).unsqueeze(-1)
    cols = torch.arange(x.shape[-1], device=x.device)
    return torch.where(cols <= rows + diagonal, x, torch.full((), fill, dtype=x.dtype, device=x.device))


def tril(x: Blob, diagonal: int = 0, fill_value: float = 0, name: str | None = None) -> Blob:
    """``flow.math.tril`` (also ``flow.nn.tril``): ``x`` where column <= row + ``diagonal`` over the last two
    axes, else ``fill_value`` (cast to ``x``'s dtype, as OneFlow's kernel does)."""
    op = "math.tril"
    x = check_blob(x, op, "x")
    if x.ndim < 2:
        raise arg_error(op, "x", "a blob of rank >= 2", Desc(f"{x.lbn} {x.shape}"))
    if not is_int(diagonal):
        raise arg_error(op, "diagonal", "an int", diagonal)
    if not is_number(fill_value):
        raise arg_error(op, "fill_value", "a number", fill_value)
    fill: float | int = float(fill_value) if x.meta.dtype.is_floating_point else fill_value
    if not x.meta.dtype.is_floating_point:
        if not math.isfinite(fill_value):
            raise arg_error(op, "fill_value", f"a finite number for the {x.dtype} blob {x.lbn}", fill_value)
        fill = int(fill_value)
    return apply(tril_kernel, x, int(diagonal), fill, op_type="tril", prefix="Tril", name=name)


# --- element counts --------------------------------------------------------------------------------------
def shape_elem_cnt_kernel(x: torch.Tensor, axes: tuple[int, ...] | None, dtype: torch.dtype) -> torch.Tensor:
    dims = x.shape if axes is None else [x.shape[a] for a in axes]
    return torch.full((1,), math.prod(dims), dtype=dtype, device=x.device)


def reduced_shape_elem_cnt(input_blob: Blob, axis: Sequence[int] | None = None, dtype: Any = None,
                           name: str | None = None) -> Blob:
    """``flow.math.reduced_shape_elem_cnt``: the element count of ``input_blob`` (of its axes ``axis`` when
    given), int32 unless ``dtype`` says otherwise (``ShapeElemCnt_<n>/y``)."""
    op = "math.reduced_shape_elem_cnt"
    x = check_blob(input_blob, op, "input_blob")
    axes: tuple[int, ...] | None = None
    if axis is not None:
        if not isinstance(axis, (list, tuple)) or not all(is_int(a) and -x.ndim <= a < x.ndim for a in axis):
            raise arg_error(op, "axis", f"None or a list/tuple of ints in [{-x.ndim}, {x.ndim})", axis)
        axes = tuple(sorted({int(a) % x.ndim for a in axis}))
    return _elem_cnt(x, axes, dtype, op, "ShapeElemCnt", name)


def elem_cnt(inputs: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.elem_cnt(inputs, dtype=None, name=None)``: the number of elements of ``inputs`` (of a dynamic
    blob, its count at run time), shape ``(1,)``, int32 unless ``dtype`` says otherwise (OneFlow's
    ``shape_elem_cnt`` op over all axes, ``ElemCnt_<n>/y``)."""
    return _elem_cnt(check_blob(inputs, "elem_cnt", "inputs"), None, dtype, "elem_cnt", "ElemCnt", name)


def _elem_cnt(x: Blob, axes: tuple[int, ...] | None, dtype: Any, op: str, prefix: str, name: str | None) -> Blob:
    target = dtypes.int32 if dtype is None else dtypes.to_dtype(dtype, what=f"flow.{op}: dtype")
    meta = torch.empty((1,), dtype=target.torch_dtype, device="meta")
    return apply(shape_elem_cnt_kernel, x, axes, target.torch_dtype, op_type="shape_elem_cnt", prefix=prefix,
                 name=name, outputs=("y",), meta=meta, dynamic=False)


def count_not_finite_kernel(xs: Sequence[torch.Tensor]) -> torch.Tensor:
    total = torch.zeros((1,), dtype=torch.int64, device=xs[0].device)
    for x in xs:
        total = total + (~torch.isfinite(x)).sum(dtype=torch.int64)
    return total


def _float_blobs(xs: object, op: str, arg: str) -> list[Blob]:  # (xs as the caller gave it: checked here)
    blobs = check_blobs(xs, op, arg)
    for i, b in enumerate(blobs):
        if not b.meta.dtype.is_floating_point:
            raise arg_error(op, f"{arg}[{i}]" if len(blobs) > 1 or arg != "x" else arg, "a floating-point blob",
                            Desc(f"{b.lbn} of dtype {b.dtype}"))
        if b.meta.dtype != blobs[0].meta.dtype:
            raise arg_error(op, f"{arg}[{i}]", f"a blob of {arg}[0]'s dtype {blobs[0].dtype}",
                            Desc(f"{b.lbn} of dtype {b.dtype}"))
    return blobs


def count_not_finite(x: Blob, name: str | None = None) -> Blob:
    """``flow.count_not_finite(x)``: the number of inf and NaN elements (int64, shape (1,))."""
    blobs = _float_blobs([check_blob(x, "count_not_finite", "x")], "count_not_finite", "x")
    return apply(count_not_finite_kernel, blobs, op_type="count_not_finite", prefix="CountNotFinite",
                 name=name, outputs=("y_0",))


def multi_count_not_finite(x: Sequence[Blob] | None = None, name: str | None = None) -> Blob:
    """``flow.multi_count_not_finite([x, …])``: inf and NaN elements over all blobs (one dtype), int64 (1,)."""
    blobs = _float_blobs(x, "multi_count_not_finite", "x")
    return apply(count_not_finite_kernel, blobs, op_type="multi_count_not_finite", prefix="MultiCountNotFinite",
                 name=name, outputs=("y_0",))

