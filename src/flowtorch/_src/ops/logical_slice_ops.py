"""``flow.experimental.logical_slice`` and ``logical_slice_assign`` (OneFlow ``ops/array_ops.py``): slices
with positive steps over the logical (whole) blob; the assign writes into a variable in place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.index_ops import _slice_spec, slice_kernel, slice_shape, slice_update_kernel
from flowtorch._src.ops.state_ops import assign_kernel


def _checked_spec(x: Blob, slice_tup_list: Any, op: str) -> tuple[tuple[int, int, int, bool], ...]:
    spec = _slice_spec(x, slice_tup_list, op)  # shape and range checks shared with slice_v2
    for tup in slice_tup_list:
        if tup[2] is not None and tup[2] <= 0:
            # OneFlow's _GetSliceAttrs: "Slice step must be greater than 0" for the logical ops
            raise arg_error(op, "slice_tup_list", "(start, stop, step) tuples with step > 0", tup)
    return spec


def logical_slice(x: Blob, slice_tup_list: Sequence[Any], name: str | None = None) -> Blob:
    """``flow.experimental.logical_slice(x, [(start, stop, step), …])`` (``LogicalSlice_<n>/y_0``)."""
    x = check_blob(x, "experimental.logical_slice", "x")
    spec = _checked_spec(x, slice_tup_list, "experimental.logical_slice")
    return apply(slice_kernel, x, spec, op_type="logical_slice", prefix="LogicalSlice", name=name, outputs=("y_0",))


def _assign_slice(ref: torch.Tensor, value: torch.Tensor, spec: tuple[tuple[int, int, int, bool], ...]) -> None:
    assign_kernel(ref, slice_update_kernel(ref.detach(), value, spec))


torch.fx.node.has_side_effect(_assign_slice)  # no output: dead-code elimination must keep it


def logical_slice_assign(x: Blob, value: Blob, slice_tup_list: Sequence[Any], name: str | None = None) -> None:
    """``flow.experimental.logical_slice_assign(x, value, [(start, stop, step), …])``: the slice of the
    variable ``x`` takes ``value`` when the job runs (``LogicalSliceAssign_<n>``; no output)."""
    op = "experimental.logical_slice_assign"
    x = check_blob(x, op, "x")
    if not x.is_variable:
        raise arg_error(op, "x", "a variable blob (from flow.get_variable)", Desc(f"{x.lbn}, made by an op"))
    value = check_blob(value, op, "value")
    spec = _checked_spec(x, slice_tup_list, op)
    want = slice_shape(spec)
    if value.shape != want:
        raise arg_error(op, "value", f"a blob of the slice's shape {want}", Desc(f"{value.lbn} of shape {value.shape}"))
    apply(_assign_slice, x, value, spec, op_type="logical_slice_assign", prefix="LogicalSliceAssign",
          name=name, outputs=(), meta=())
