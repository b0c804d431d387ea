"""Ops that only OneFlow's earliest releases (v0.1.0) or its master before them exported.

* ``flow.copy`` (v0.1.0 ``ops/copy.py``): the ``copy`` system op, an identity (``identity_op.cpp``,
  ``IdentityOpTpl<CopyOp>``), ``Copy_<n>/out``.
* ``flow.experimental.broadcast_maximum`` / ``broadcast_minimum`` (v0.1.0 ``experimental/broadcast_*_op.py``):
  the system ops of ``broadcast_binary_op.cpp``: ``a`` and ``b`` of one data type, the output the broadcast of
  their shapes, ``BroadcastMaximum_<n>/out``.
* ``flow.math.naive_logical_and(lhs, rhs)`` (v0.1.0 ``ops/math_ops.py``): the ``logical_and`` op of 2019
  (``logical_and_op.cpp``, ``logical_and_kernel.cpp``): ``lhs`` and ``rhs`` of one shape, the output of
  ``lhs``' shape and data type, 1 where both are non-zero else 0, ``LogicalAnd_<n>/out``.
* ``flow.local_gather(params, indices, axis=0)`` (v0.1.0 ``ops/array_ops.py``): the ``local_gather`` op of
  late 2019 (``local_gather_op.cpp``), a gather on each device's own part: output shape
  ``params.shape[:axis] + indices.shape + params.shape[axis + 1:]``, ``LocalGather_<n>/out``.
* ``flow.local_scatter_nd_update`` and ``flow.local_nonzero`` (master, January–March 2020,
  ``ops/array_ops.py``; ``local_scatter_nd_update_op.cpp`` and ``local_nonzero_op.cpp`` of late 2019): a
  ``tensor_scatter_nd_update`` on the device's part, and the int32 coordinates of the non-zero elements, one
  row each, resized to their number (a dynamic blob, as ``sync_dynamic_resize`` made it).
* ``flow.piece_slice(inputs, output_size)`` (master, January–June 2020): ``inputs.shape[0] == output_size``
  pieces along the first axis, each a dynamic blob of ``inputs.shape[1:]`` (``piece_slice_op.cpp``),
  ``PieceSlice_<n>/out_<i>``.
* ``flow.detection.smooth_l1(prediction, label, beta=1.0, scale=1.0)`` (master, January–April 2020):
  ``scale * (0.5 d²/beta if |d| < beta else |d| - 0.5 beta)`` with ``d = prediction - label``
  (``smooth_l1_kernel.cpp``), ``SmoothL1_<n>/out``.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.dtypes import int32
from flowtorch._src.ops._checks import Desc, arg_error, check_float_blob, check_number, norm_axis
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.dynamic_ops import argwhere
from flowtorch._src.ops.index_ops import gather_kernel, tensor_scatter_nd_update
from flowtorch._src.ops.math_ops import maximum_kernel, minimum_kernel

__all__ = ["broadcast_maximum", "broadcast_minimum", "copy", "local_gather", "local_nonzero",
           "local_scatter_nd_update", "naive_logical_and", "piece_slice", "smooth_l1"]


def copy(x: Blob, name: str | None = None) -> Blob:
    """``flow.copy(x, name=None)``: ``x`` unchanged, as a new blob ``Copy_<n>/out``."""
    x = check_blob(x, "copy", "x")
    return apply(torch.Tensor.view_as, x, x, op_type="copy", prefix="Copy", name=name, outputs=("out",))


def _broadcast_pair(a: Any, b: Any, op: str) -> tuple[Blob, Blob]:
    a = check_blob(a, op, "a")
    b = check_blob(b, op, "b")
    if a.meta.dtype != b.meta.dtype:  # BroadcastBinaryOp: CHECK_EQ(a.data_type(), b.data_type())
        raise arg_error(op, "b", f"a blob of a's data type {a.dtype}", Desc(f"{b.lbn} of {b.dtype}"))
    try:
        torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError:
        raise arg_error(op, "b", f"a shape that broadcasts with a's {a.shape}", Desc(f"{b.lbn} {b.shape}")) from None
    return a, b


def broadcast_maximum(a: Blob, b: Blob, name: str | None = None) -> Blob:
    """``flow.experimental.broadcast_maximum(a, b, name=None)``: the element-wise larger, broadcast."""
    a, b = _broadcast_pair(a, b, "experimental.broadcast_maximum")
    return apply(maximum_kernel, a, b, op_type="broadcast_maximum", prefix="BroadcastMaximum", name=name,
                 outputs=("out",))


def broadcast_minimum(a: Blob, b: Blob, name: str | None = None) -> Blob:
    """``flow.experimental.broadcast_minimum(a, b, name=None)``: the element-wise smaller, broadcast."""
    a, b = _broadcast_pair(a, b, "experimental.broadcast_minimum")
    return apply(minimum_kernel, a, b, op_type="broadcast_minimum", prefix="BroadcastMinimum", name=name,
                 outputs=("out",))


def naive_logical_and_kernel(lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    return torch.logical_and(lhs != 0, rhs != 0).to(lhs.dtype)


def naive_logical_and(lhs: Blob, rhs: Blob, name: str | None = None) -> Blob:
    """``flow.math.naive_logical_and(lhs, rhs, name=None)``: 1 where both are non-zero, else 0, in ``lhs``'
    data type."""
    op = "math.naive_logical_and"
    lhs = check_blob(lhs, op, "lhs")
    rhs = check_blob(rhs, op, "rhs")
    if lhs.shape != rhs.shape:  # LogicalAndOp: CHECK_EQ(lhs->shape(), rhs->shape())
        raise arg_error(op, "rhs", f"a blob of lhs' shape {lhs.shape}", Desc(f"{rhs.lbn} {rhs.shape}"))
    return apply(naive_logical_and_kernel, lhs, rhs, op_type="logical_and", prefix="LogicalAnd", name=name,
                 outputs=("out",))


def _int_indices(indices: Blob, op: str) -> Blob:
    if indices.meta.dtype not in (torch.int8, torch.int32, torch.int64, torch.uint8):
        raise arg_error(op, "indices", "an integer blob", Desc(f"{indices.lbn} of {indices.dtype}"))
    if indices.ndim == 0:
        raise arg_error(op, "indices", "a blob of at least one axis", Desc(f"{indices.lbn} {indices.shape}"))
    return indices


def local_gather(params: Blob, indices: Blob, axis: int = 0, name: str | None = None) -> Blob:
    """``flow.local_gather(params, indices, axis=0, name=None)``: ``indices`` taken along ``axis`` of
    ``params``."""
    op = "local_gather"
    p = check_blob(params, op, "params")
    i = _int_indices(check_blob(indices, op, "indices"), op)
    ax = norm_axis(axis, p.ndim, op)
    return apply(gather_kernel, p, i, ax, op_type="local_gather", prefix="LocalGather", name=name, outputs=("out",))


def local_scatter_nd_update(inputs: Blob, indices: Blob, updates: Blob, name: str | None = None) -> Blob:
    """``flow.local_scatter_nd_update(inputs, indices, updates, name=None)``: a copy of ``inputs`` with
    ``out[indices[j]] = updates[j]`` (``LocalScatterNdUpdate_<n>``)."""
    return tensor_scatter_nd_update(inputs, indices, updates,
                                    name=name if name is not None else naming.unique_str("LocalScatterNdUpdate_"))


def local_nonzero(input: Blob, name: str | None = None) -> Blob:
    """``flow.local_nonzero(input, name=None)``: the int32 coordinates of ``input``'s non-zero elements, one row
    each in row-major order, shape ``(count, input.ndim)`` (dynamic; its bound is ``input``'s element count)."""
    x = check_blob(input, "local_nonzero", "input")
    return argwhere(x, dtype=int32, name=name if name is not None else naming.unique_str("LocalNonzero_"))


def piece_slice_kernel(x: torch.Tensor, n: int) -> tuple[torch.Tensor, ...]:
    return tuple(x[i] for i in range(n))


def piece_slice(inputs: Blob, output_size: int, name: str | None = None) -> tuple[Blob, ...]:
    """``flow.piece_slice(inputs, output_size, name=None)``: the ``output_size`` pieces of ``inputs`` along its
    first axis, as a tuple."""
    op = "piece_slice"
    x = check_blob(inputs, op, "inputs")
    if x.ndim < 1 or x.shape[0] != output_size:  # OneFlow: assert inputs.shape[0] == output_size
        raise arg_error(op, "output_size", f"inputs' first dimension ({x.shape[0] if x.ndim else 'none'}: "
                        f"{x.lbn} {x.shape})", output_size)
    outputs = tuple(f"out_{i}" for i in range(output_size))
    metas = tuple(torch.empty(x.shape[1:], dtype=x.meta.dtype, device="meta") for _ in outputs)
    out = apply(piece_slice_kernel, x, int(output_size), op_type="piece_slice", prefix="PieceSlice", name=name,
                outputs=outputs, meta=metas if len(metas) > 1 else metas[0], dynamic=True)
    return out if isinstance(out, tuple) else (out,)


def smooth_l1_kernel(prediction: torch.Tensor, label: torch.Tensor, beta: float, scale: float) -> torch.Tensor:
    d = torch.abs(prediction - label)
    out = torch.where(d < beta, 0.5 * d * d / beta if beta > 0 else torch.zeros_like(d), d - 0.5 * beta)
    return out * scale


def smooth_l1(prediction: Blob, label: Blob, beta: float = 1.0, scale: float = 1.0,
              name: str | None = None) -> Blob:
    """``flow.detection.smooth_l1(prediction, label, beta=1.0, scale=1.0, name=None)``."""
    op = "detection.smooth_l1"
    p = check_float_blob(prediction, op, "prediction")
    t = check_float_blob(label, op, "label")
    if p.shape != t.shape or p.meta.dtype != t.meta.dtype:
        raise arg_error(op, "label", f"a blob of prediction's shape {p.shape} and type {p.dtype}",
                        Desc(f"{t.lbn} {t.shape} {t.dtype}"))
    if check_number(beta, op, "beta") < 0:
        raise arg_error(op, "beta", "a number >= 0", beta)
    return apply(smooth_l1_kernel, p, t, float(beta), float(check_number(scale, op, "scale")), op_type="smooth_l1",
                 prefix="SmoothL1", name=name, outputs=("out",))
