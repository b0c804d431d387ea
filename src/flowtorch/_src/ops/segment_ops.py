"""Segment sums: ``flow.math.unsorted_segment_sum`` (+ ``_like``), ``flow.math.unsorted_batch_segment_sum``
(OneFlow ``ops/math_ops.py``; ``user/ops/unsorted_segment_sum_op.cpp``, ``unsorted_batch_segment_sum_op.cpp``)
and ``flow.experimental.indexed_slices_reduce_sum`` (``experimental/indexed_slices_ops.py``).

* ``unsorted_segment_sum(data, segment_ids, num_segments, axis)``: ``data``'s axes ``axis …
  axis + segment_ids.ndim - 1`` are indexed by ``segment_ids``; row ``i`` of them is added to segment
  ``segment_ids[i]``. The output is ``data.shape[:axis] + (num_segments,) + data.shape[axis + ids.ndim:]``,
  dtype of ``data``. Ids outside ``[0, num_segments)`` are dropped (OneFlow's GPU kernel skips them; its
  CPU kernel skipped ids past the end and aborted on negative ones). The gradient of ``data`` gathers the
  output gradient at the ids (0 for dropped ids), as OneFlow's ``gather`` backward op does.
* ``unsorted_segment_sum_like``: the same with ``num_segments = like.shape[axis]`` and ``like``'s shape;
  only ``like``'s shape is read.
* ``unsorted_batch_segment_sum(data, segment_ids, num_segments)``: ``segment_ids`` of shape
  ``B + (n,)`` and ``data`` of shape ``B + (n,) + rest``; each batch entry sums its own rows. Its gradient is
  OneFlow's ``batch_gather``.
* float16 sums accumulate in float32 and are rounded once, as OneFlow's half kernel does.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_int, is_int, numel
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.dynamic_ops import unique_with_counts_kernel

_INDEX_DTYPES = (torch.int32, torch.int64)


def _check_ids(ids: Any, op: str, arg: str = "segment_ids") -> Blob:
    ids = check_blob(ids, op, arg)
    if ids.meta.dtype not in _INDEX_DTYPES:
        raise arg_error(op, arg, "an int32 or int64 blob", Desc(f"{ids.lbn} of dtype {ids.dtype}"))
    return ids


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


# --- kernels ------------------------------------------------------------------------------------------
def segment_sum_kernel(data: torch.Tensor, ids: torch.Tensor, num_segments: int, axis: int) -> torch.Tensor:
    """Rows of ``data`` (its axes ``axis … axis + ids.ndim - 1``) added into ``num_segments`` segments."""
    outer = data.shape[:axis]
    inner = data.shape[axis + ids.dim():]
    n = ids.numel()
    flat = data.reshape(numel(outer), n, numel(inner)).to(_acc_dtype(data.dtype))
    flat_ids = ids.reshape(n).long()
    # dropped ids go to one extra segment, which is cut off: its rows then get a zero gradient
    flat_ids = torch.where((flat_ids >= 0) & (flat_ids < num_segments), flat_ids, num_segments)
    out = flat.new_zeros(flat.shape[0], num_segments + 1, flat.shape[2]).index_add(1, flat_ids, flat)
    return out[:, :num_segments].reshape(*outer, num_segments, *inner).to(data.dtype)


def segment_sum_like_kernel(data: torch.Tensor, ids: torch.Tensor, like: torch.Tensor, axis: int) -> torch.Tensor:
    return segment_sum_kernel(data, ids, like.shape[axis], axis)


def batch_segment_sum_kernel(data: torch.Tensor, ids: torch.Tensor, num_segments: int) -> torch.Tensor:
    """Per batch entry (``ids``' leading axes), rows of ``data`` along ``ids``' last axis into segments."""
    axis = ids.dim() - 1
    batch = data.shape[:axis]
    inner = data.shape[axis + 1:]
    b, n, m = numel(batch), ids.shape[-1], numel(inner)
    flat = data.reshape(b, n, m).to(_acc_dtype(data.dtype))
    flat_ids = ids.reshape(b, n).long()
    flat_ids = torch.where((flat_ids >= 0) & (flat_ids < num_segments), flat_ids, num_segments)
    out = flat.new_zeros(b, num_segments + 1, m).scatter_add(1, flat_ids.unsqueeze(-1).expand(b, n, m), flat)
    return out[:, :num_segments].reshape(*batch, num_segments, *inner).to(data.dtype)


def indexed_slices_reduce_sum_kernel(indices: torch.Tensor,
                                     values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    n = indices.numel()
    flat_values = values.reshape(n, -1)
    unique, idx, _, num_unique = unique_with_counts_kernel(indices.reshape(n), torch.int64)
    sums = flat_values.new_zeros(flat_values.shape).index_add(0, idx, flat_values)
    return unique, sums, num_unique


# --- ops ----------------------------------------------------------------------------------------------------
def _segment_axis(data: Blob, ids: Blob, axis: Any, op: str) -> int:
    if not is_int(axis) or not 0 <= axis <= data.ndim - ids.ndim:
        raise arg_error(op, "axis", f"an int in [0, {data.ndim - ids.ndim}] (data {data.shape}, segment_ids "
                        f"{ids.shape})", axis)
    axis = int(axis)
    if data.shape[axis:axis + ids.ndim] != ids.shape:
        raise arg_error(op, "segment_ids", f"a blob of shape data.shape[{axis}:{axis + ids.ndim}] = "
                        f"{data.shape[axis:axis + ids.ndim]}", Desc(f"{ids.lbn} {ids.shape}"))
    return axis


def unsorted_segment_sum(data: Blob, segment_ids: Blob, num_segments: int, axis: int = 0,
                         name: str | None = None) -> Blob:
    """``flow.math.unsorted_segment_sum`` (also ``flow.unsorted_segment_sum``): sums of ``data``'s rows
    per segment id along ``axis`` (``UnsortedSegmentSum_<n>/out_0``)."""
    op = "math.unsorted_segment_sum"
    data = check_blob(data, op, "data")
    ids = _check_ids(segment_ids, op)
    num_segments = check_int(num_segments, op, "num_segments")
    axis = _segment_axis(data, ids, axis, op)
    return apply(segment_sum_kernel, data, ids, num_segments, axis, op_type="unsorted_segment_sum",
                 prefix="UnsortedSegmentSum", name=name)


def unsorted_segment_sum_like(data: Blob, segment_ids: Blob, like: Blob, axis: int = 0,
                              name: str | None = None) -> Blob:
    """``flow.math.unsorted_segment_sum_like``: :func:`unsorted_segment_sum` with ``like``'s shape
    (``UnsortedSegmentSumLike_<n>/out_0``); ``like`` must have ``data``'s dtype and agree with ``data`` on
    every axis but ``axis``."""
    op = "math.unsorted_segment_sum_like"
    data = check_blob(data, op, "data")
    ids = _check_ids(segment_ids, op)
    like = check_blob(like, op, "like")
    axis = _segment_axis(data, ids, axis, op)
    if like.meta.dtype != data.meta.dtype:
        raise arg_error(op, "like", f"a blob of data's dtype {data.dtype}", Desc(f"{like.lbn} of dtype {like.dtype}"))
    expected = data.shape[:axis] + like.shape[axis:axis + 1] + data.shape[axis + ids.ndim:]
    if like.ndim != data.ndim - ids.ndim + 1 or like.shape != expected:
        raise arg_error(op, "like", f"a blob of shape data.shape[:{axis}] + (num_segments,) + "
                        f"data.shape[{axis + ids.ndim}:]", Desc(f"{like.lbn} {like.shape} for data {data.shape}"))
    return apply(segment_sum_like_kernel, data, ids, like, axis, op_type="unsorted_segment_sum_like",
                 prefix="UnsortedSegmentSumLike", name=name)


def unsorted_batch_segment_sum(data: Blob, segment_ids: Blob, num_segments: int, name: str | None = None) -> Blob:
    """``flow.math.unsorted_batch_segment_sum`` (also ``flow.unsorted_batch_segment_sum``): per batch entry
    of ``segment_ids``' leading axes, segment sums along its last axis
    (``UnsortedBatchSegmentSum_<n>/out_0``)."""
    op = "math.unsorted_batch_segment_sum"
    data = check_blob(data, op, "data")
    ids = _check_ids(segment_ids, op)
    num_segments = check_int(num_segments, op, "num_segments")
    if ids.ndim < 1 or data.ndim < ids.ndim or data.shape[:ids.ndim - 1] != ids.shape[:-1]:
        raise arg_error(op, "segment_ids", "a blob of rank >= 1 whose leading axes (all but the last) match "
                        "data's", Desc(f"{ids.lbn} {ids.shape} for data {data.shape}"))
    if data.shape[ids.ndim - 1] != ids.shape[-1]:
        raise arg_error(op, "segment_ids", f"a last axis of data.shape[{ids.ndim - 1}] = {data.shape[ids.ndim - 1]}",
                        Desc(f"{ids.lbn} {ids.shape}"))
    return apply(batch_segment_sum_kernel, data, ids, num_segments, op_type="unsorted_batch_segment_sum",
                 prefix="UnsortedBatchSegmentSum", name=name)


def indexed_slices_reduce_sum(indices: Blob, values: Blob, name: str | None = None) -> tuple[Blob, Blob, Blob]:
    """``flow.experimental.indexed_slices_reduce_sum(indices, values)`` → ``(y_indices, y_values,
    num_unique)`` (``IndexedSlicesReduceSum_<n>/{y_indices,y_values,num_unique}``): the ``n`` index rows
    merged by index. ``y_indices`` (n,) holds the unique indices in order of first occurrence, ``y_values``
    (n, m) their summed rows and ``num_unique`` (int64, shape (1,)) how many there are; entries past it are
    0 in ``y_values`` (OneFlow left ``y_indices`` there unwritten; flowtorch repeats the first index)."""
    op = "experimental.indexed_slices_reduce_sum"
    idx = _check_ids(indices, op, "indices")
    vals = check_blob(values, op, "values")
    if vals.ndim <= idx.ndim or vals.shape[:idx.ndim] != idx.shape:
        raise arg_error(op, "values", f"a blob of higher rank whose leading axes are indices' {idx.shape}",
                        Desc(f"{vals.lbn} {vals.shape}"))
    if not vals.meta.dtype.is_floating_point:
        raise arg_error(op, "values", "a floating-point blob", Desc(f"{vals.lbn} of dtype {vals.dtype}"))
    n = numel(idx.shape)
    m = numel(vals.shape) // n
    meta = (torch.empty((n,), dtype=idx.meta.dtype, device="meta"),
            torch.empty((n, m), dtype=vals.meta.dtype, device="meta"),
            torch.empty((1,), dtype=torch.int64, device="meta"))
    return apply(indexed_slices_reduce_sum_kernel, idx, vals, op_type="indexed_slices_reduce_sum",
                 prefix="IndexedSlicesReduceSum", name=name, meta=meta, outputs=("y_indices", "y_values", "num_unique"))
