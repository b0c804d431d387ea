"""Indexing ops: gather, tensor_scatter_nd_update/add, slice, where, one_hot, sort (OneFlow
``ops/array_ops.py``, ``one_hot.py``, ``sort_ops.py``, ``math_ops.py``).

Names follow v0.1.x where the op existed (``Gather_<n>/out_0``, ``SliceV2_<n>/y_0``, ``Where_<n>/out_0``,
``OneHot_<n>/out_0``, ``BroadcastToCompatibleWith_<n>/y``), else v0.3.4/v0.4 (``Reverse_<n>/y_0``,
``DimGather_<n>/output_0``, ``MaskedFill_<n>_Where``, ``TensorScatterNdUpdate_<n>/out_0``). ``slice`` accepts
OneFlow v0.3.4's full
(start, stop, step) semantics, negative steps included.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src import dtypes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_blobs, check_choice, is_int, norm_axis
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import constant_like, transpose
from flowtorch._src.ops.dynamic_ops import argwhere

_INDEX_DTYPES = (torch.int32, torch.int64, torch.int8, torch.uint8)


def _check_indices(b: Blob, op: str, arg: str) -> Blob:
    if b.meta.dtype not in _INDEX_DTYPES:
        raise TypeError(f"flow.{op}: argument {arg!r} must be an integer blob (int32/int64); received {b.lbn} of "
                        f"dtype {b.dtype}")
    return b


# --- gather family ------------------------------------------------------------------------------------------
def gather_kernel(params: torch.Tensor, indices: torch.Tensor, axis: int) -> torch.Tensor:
    out = torch.index_select(params, axis, indices.reshape(-1).long())
    shape = params.shape[:axis] + indices.shape + params.shape[axis + 1:]
    return out.reshape(shape)


def batch_gather_kernel(params: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    """OneFlow's ``batch_gather``: the leading ``indices.ndim - 1`` axes are batch axes, and each batch takes
    ``indices``' last axis from the next axis of ``params``."""
    nb = indices.dim() - 1
    lead = params.shape[:nb]
    n = 1
    for d in lead:
        n *= d
    flat_p = params.reshape((n,) + params.shape[nb:])
    flat_i = indices.reshape(n, -1).long()
    rows = torch.arange(n, device=params.device).unsqueeze(1)
    out = flat_p[rows, flat_i]
    return out.reshape(indices.shape + params.shape[nb + 1:])


def gather(params: Blob, indices: Blob, validate_indices: Any = None, axis: int | None = None,
           batch_dims: int = 0, name: str | None = None) -> Blob:
    """``flow.gather(params, indices, axis=None, batch_dims=0)``: take ``indices`` along ``axis``
    (default ``batch_dims``), ``Gather_<n>/out_0``. An index outside the axis raises an error at run time
    (OneFlow's CPU kernel aborted on negative indices and wrote zero rows for indices past the end).

    With ``batch_dims > 0`` OneFlow v0.4 requires ``axis == batch_dims`` (a larger axis is
    NotImplementedError, a smaller one AttributeError) and then builds its ``batch_gather`` op
    (``BatchGather_<n>/out_0``), whose batch axes come from ``indices``, not from ``batch_dims``: the first
    ``indices.ndim - 1`` axes of both blobs are batch axes and ``indices``' last axis selects along the next
    axis of ``params``. The output is ``params.shape`` with that axis replaced by ``indices.shape[-1]``
    (``oneflow/user/ops/batch_gather_op.cpp``)."""
    p = check_blob(params, "gather", "params")
    i = _check_indices(check_blob(indices, "gather", "indices"), "gather", "indices")
    if not isinstance(batch_dims, int) or isinstance(batch_dims, bool) or batch_dims < 0:
        raise arg_error("gather", "batch_dims", "a non-negative int", batch_dims)
    if axis is None:
        ax = batch_dims
    elif batch_dims > 0:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise arg_error("gather", "axis", "an int", axis)
        ax = axis + p.ndim if axis < 0 else axis
    else:
        ax = norm_axis(axis, p.ndim, "gather")
    if batch_dims > 0:
        if ax > batch_dims:
            raise NotImplementedError(f"flow.gather: with batch_dims={batch_dims} OneFlow supports only "
                                      f"axis == batch_dims; received axis={axis}")
        if ax < batch_dims:
            raise AttributeError(f"flow.gather: with batch_dims={batch_dims} OneFlow supports only "
                                 f"axis == batch_dims; received axis={axis}")
        nb = i.ndim - 1
        if i.ndim < 2 or i.ndim > p.ndim:  # OneFlow's batch_gather rejects 1-D indices (its SBP function)
            raise arg_error("gather", "indices", f"a blob of 2 to {p.ndim} axes with batch_dims > 0 (params "
                            f"{p.lbn} has {p.ndim})", Desc(f"{i.lbn} {i.shape}"))
        if i.shape[:nb] != p.shape[:nb] and not (i.is_dynamic or p.is_dynamic):
            raise arg_error("gather", "indices",
                            f"leading shape {p.shape[:nb]} (batch_gather's batch axes are the first "
                            f"indices.ndim - 1 = {nb} axes of params {p.lbn} {p.shape})",
                            Desc(f"{i.lbn} {i.shape}"))
        return apply(batch_gather_kernel, p, i, op_type="batch_gather", prefix="BatchGather", name=name)
    return apply(gather_kernel, p, i, ax, op_type="gather", prefix="Gather", name=name)


def gather_nd_kernel(params: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    idx = indices.long()
    return params[tuple(idx[..., k] for k in range(idx.shape[-1]))]


def gather_nd(params: Blob, indices: Blob, name: str | None = None) -> Blob:
    """``flow.gather_nd``: ``indices[..., K]`` index the first K axes of ``params`` (``GatherNd_<n>/out_0``)."""
    p = check_blob(params, "gather_nd", "params")
    i = _check_indices(check_blob(indices, "gather_nd", "indices"), "gather_nd", "indices")
    if i.ndim < 1 or not 1 <= i.shape[-1] <= p.ndim:
        raise arg_error("gather_nd", "indices", f"a last axis of size 1..{p.ndim}", Desc(f"{i.lbn} {i.shape}"))
    return apply(gather_nd_kernel, p, i, op_type="gather_nd", prefix="GatherNd", name=name)


def _scatter_nd_key(indices: torch.Tensor) -> tuple[torch.Tensor, ...]:
    idx = indices.long()
    return tuple(idx[..., k] for k in range(idx.shape[-1]))


def tensor_scatter_nd_update_kernel(params: torch.Tensor, updates: torch.Tensor,
                                    indices: torch.Tensor) -> torch.Tensor:
    return params.index_put(_scatter_nd_key(indices), updates)


def tensor_scatter_nd_add_kernel(params: torch.Tensor, updates: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    return params.index_put(_scatter_nd_key(indices), updates, accumulate=True)


def _tensor_scatter_nd(op: str, prefix: str, kernel: Any, params: Blob, indices: Blob, updates: Blob,
                       name: str | None) -> Blob:
    p = check_blob(params, op, "params")
    i = _check_indices(check_blob(indices, op, "indices"), op, "indices")
    u = check_blob(updates, op, "updates")
    if i.ndim < 1 or not 1 <= i.shape[-1] <= p.ndim:
        raise arg_error(op, "indices", f"a last axis of size 1..{p.ndim}", Desc(f"{i.lbn} {i.shape}"))
    batch = i.ndim - 1
    expected = i.shape[:batch] + p.shape[i.shape[-1]:]
    if u.shape != expected:  # OneFlow's CheckScatterNdShape, on the static shapes
        raise arg_error(op, "updates", f"shape {expected} (indices' leading axes, then params' axes past the "
                        f"{i.shape[-1]} indexed ones)", Desc(f"{u.lbn} {u.shape}"))
    if u.meta.dtype != p.meta.dtype:
        raise TypeError(f"flow.{op}: updates must have params' dtype {p.dtype}; received {u.lbn} of dtype {u.dtype}")
    # The output is params' shape whatever the indices' run-time count: dynamic only if params is.
    return apply(kernel, p, u, i, op_type=op, prefix=prefix, name=name, dynamic=p.is_dynamic)


def scatter_nd_kernel(updates: torch.Tensor, indices: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    out = torch.zeros(shape, dtype=updates.dtype, device=updates.device)
    return out.index_put(_scatter_nd_key(indices), updates, accumulate=True)


def scatter_nd(indices: Blob, updates: Blob, shape: Sequence[int], name: str | None = None) -> Blob:
    """``flow.scatter_nd(indices, updates, shape, name=None)``: zeros of ``shape`` with
    ``out[indices[j]] += updates[j]`` (OneFlow's kernel zeroes, then scatter-adds: repeated indices sum;
    ``ScatterNd_<n>/out_0``). ``updates`` gets ``gather_nd(dout, indices)`` as its gradient."""
    op = "scatter_nd"
    i = _check_indices(check_blob(indices, op, "indices"), op, "indices")
    u = check_blob(updates, op, "updates")
    if not isinstance(shape, (list, tuple)) or not shape or not all(is_int(s) and s > 0 for s in shape):
        raise arg_error(op, "shape", "a non-empty list or tuple of positive ints", shape)
    out_shape = tuple(int(s) for s in shape)
    if i.ndim < 1 or not 1 <= i.shape[-1] <= len(out_shape):
        raise arg_error(op, "indices", f"a last axis of size 1..{len(out_shape)}", Desc(f"{i.lbn} {i.shape}"))
    expected = i.shape[:-1] + out_shape[i.shape[-1]:]
    if not i.is_dynamic and u.shape != expected:  # OneFlow's CheckScatterNdShape
        raise arg_error(op, "updates", f"shape {expected} (indices' leading axes, then shape's axes past the "
                        f"{i.shape[-1]} indexed ones)", Desc(f"{u.lbn} {u.shape}"))
    meta = torch.empty(out_shape, dtype=u.meta.dtype, device="meta")
    return apply(scatter_nd_kernel, u, i, out_shape, op_type=op, prefix="ScatterNd", name=name, meta=meta,
                 dynamic=False)


def tensor_scatter_nd_update(params: Blob, indices: Blob, updates: Blob, name: str | None = None) -> Blob:
    """``flow.tensor_scatter_nd_update(params, indices, updates, name=None)``: a copy of ``params`` with
    ``out[indices[j]] = updates[j]`` (``TensorScatterNdUpdate_<n>/out_0``). Gradients: ``updates`` gets
    ``gather_nd(dout, indices)``, ``params`` gets ``dout`` with the written positions zeroed. With repeated
    indices which update wins is unspecified (as in OneFlow's GPU kernel)."""
    return _tensor_scatter_nd("tensor_scatter_nd_update", "TensorScatterNdUpdate", tensor_scatter_nd_update_kernel,
                              params, indices, updates, name)


def tensor_scatter_nd_add(params: Blob, indices: Blob, updates: Blob, name: str | None = None) -> Blob:
    """``flow.tensor_scatter_nd_add(params, indices, updates, name=None)``: a copy of ``params`` with
    ``out[indices[j]] += updates[j]``, repeated indices accumulating (``TensorScatterNdAdd_<n>/out_0``)."""
    return _tensor_scatter_nd("tensor_scatter_nd_add", "TensorScatterNdAdd", tensor_scatter_nd_add_kernel,
                              params, indices, updates, name)


def dim_gather_kernel(x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    return torch.gather(x, dim, index.long())


def dim_gather(input: Blob, dim: int, index: Blob, name: str | None = None) -> Blob:
    """``flow.dim_gather`` = torch.gather (``DimGather_<n>/output_0``)."""
    x = check_blob(input, "dim_gather", "input")
    i = _check_indices(check_blob(index, "dim_gather", "index"), "dim_gather", "index")
    d = norm_axis(dim, x.ndim, "dim_gather", "dim")
    if i.ndim != x.ndim or any(i.shape[k] != x.shape[k] for k in range(x.ndim) if k != d):
        raise arg_error("dim_gather", "index", f"the shape of input {x.shape} except on axis {d}",
                        Desc(f"{i.lbn} {i.shape}"))
    return apply(dim_gather_kernel, x, d, i, op_type="dim_gather", prefix="DimGather", name=name, outputs=("output_0",))


# --- slices ---------------------------------------------------------------------------------------------------
def slice_kernel(x: torch.Tensor, spec: tuple[tuple[int, int, int, bool], ...]) -> torch.Tensor:
    flips = [d for d, (_, _, _, flip) in enumerate(spec) if flip]
    if flips:
        x = torch.flip(x, flips)
    return x[tuple(builtins.slice(a, b, c) for a, b, c, _ in spec)]


def _axis_spec(r: range, size: int) -> tuple[int, int, int, bool]:
    """The slice ``r`` of an axis of ``size`` as (start, stop, positive step, flip the axis first)."""
    if r.step > 0:
        return r.start, r.start + len(r) * r.step, r.step, False
    first = size - 1 - r.start
    return first, first + len(r) * (-r.step), -r.step, True


def dynamic_slice_kernel(x: torch.Tensor, tups: tuple[tuple[int | None, ...], ...]) -> torch.Tensor:
    padded = tups + ((None, None, None),) * (x.dim() - len(tups))
    return slice_kernel(x, tuple(_axis_spec(range(*builtins.slice(*tup).indices(size)), size)
                                 for tup, size in zip(padded, x.shape)))


def _slice_spec(x: Blob, slice_tup_list: Any, op: str) -> tuple[tuple[int, int, int, bool], ...]:
    if not isinstance(slice_tup_list, (list, tuple)) or len(slice_tup_list) > x.ndim:
        raise arg_error(op, "slice_tup_list", f"a list of at most {x.ndim} (start, stop, step) tuples",
                        slice_tup_list)
    tups = list(slice_tup_list) + [(None, None, None)] * (x.ndim - len(slice_tup_list))
    spec = []
    for d, (tup, size) in enumerate(zip(tups, x.shape)):
        if not isinstance(tup, (list, tuple)) or len(tup) != 3 or not all(
                v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in tup):
            raise arg_error(op, "slice_tup_list", "(start, stop, step) tuples of ints or None", tup)
        start, stop, step = tup
        step = 1 if step is None else step
        if step == 0:
            raise arg_error(op, "slice_tup_list", "a non-zero step", tup)
        if start is not None and not -size <= start < size:
            raise arg_error(op, "slice_tup_list", f"start in [{-size}, {size}) for axis {d}", tup)
        if stop is not None and not -size - 1 <= stop <= size:
            raise arg_error(op, "slice_tup_list", f"stop in [{-size - 1}, {size}] for axis {d}", tup)
        r = range(*builtins.slice(start, stop, step).indices(size))
        if len(r) == 0:
            raise arg_error(op, "slice_tup_list", f"a non-empty slice of axis {d} (size {size})", tup)
        spec.append(_axis_spec(r, size))
    return tuple(spec)


def slice_v2(x: Blob, slice_tup_list: Sequence[Any], name: str | None = None) -> Blob:
    """``flow.slice_v2(x, [(start, stop, step), …])`` with Python slice semantics (``SliceV2_<n>/y_0``)."""
    x = check_blob(x, "slice_v2", "x")
    spec = _slice_spec(x, slice_tup_list, "slice_v2")
    if x.is_dynamic:  # the bounds resolve against the value's own shape at run time, as OneFlow's kernel does
        tups = tuple(tuple(t) for t in slice_tup_list)
        return apply(dynamic_slice_kernel, x, tups, op_type="slice", prefix="SliceV2", name=name, outputs=("y_0",))
    return apply(slice_kernel, x, spec, op_type="slice", prefix="SliceV2", name=name, outputs=("y_0",))


def slice_shape(spec: tuple[tuple[int, int, int, bool], ...]) -> tuple[int, ...]:
    """The shape of the slice a :func:`_slice_spec` spec takes."""
    return tuple(len(range(a, b, c)) for a, b, c, _ in spec)


def slice_update_kernel(x: torch.Tensor, update: torch.Tensor, spec: tuple[tuple[int, int, int, bool], ...]
                        ) -> torch.Tensor:
    index = []
    for d, ((a, b, c, flip), size) in enumerate(zip(spec, x.shape)):
        positions = torch.arange(a, b, c, device=x.device)
        if flip:  # the spec counts a negative step from the flipped axis' start
            positions = size - 1 - positions
        index.append(positions.reshape([-1 if i == d else 1 for i in range(x.dim())]))
    return x.index_put(tuple(index), update.to(x.dtype))


def slice_update(x: Blob, update: Blob, slice_tup_list: Sequence[Any], name: str | None = None) -> Blob:
    """``flow.slice_update(x, update, [(start, stop, step), …])``: ``x`` with that slice replaced by ``update``
    (``SliceUpdate_<n>/y_0``); gradients flow to both, ``x``'s zero on the slice."""
    x = check_blob(x, "slice_update", "x")
    update = check_blob(update, "slice_update", "update")
    spec = _slice_spec(x, slice_tup_list, "slice_update")
    want = slice_shape(spec)
    if update.shape != want:
        raise arg_error("slice_update", "update", f"a blob of shape {want} (the slice's shape)",
                        f"{update.lbn} of shape {update.shape}")
    return apply(slice_update_kernel, x, update, spec, op_type="slice_update", prefix="SliceUpdate",
                 name=name, outputs=("y_0",))


def slice(x: Blob, begin: Sequence[int | None], size: Sequence[int | None],
          name: str | None = None) -> Blob:
    """``flow.slice(x, begin, size)``: ``size`` -1 (or None) runs to the end (``SliceV2_<n>/y_0``)."""
    x = check_blob(x, "slice", "x")
    if not isinstance(begin, (list, tuple)) or len(begin) != x.ndim:
        raise arg_error("slice", "begin", f"a list of {x.ndim} ints (one per axis of {x.lbn} {x.shape})", begin)
    if not isinstance(size, (list, tuple)) or len(size) != x.ndim:
        raise arg_error("slice", "size", f"a list of {x.ndim} ints (one per axis of {x.lbn} {x.shape})", size)
    tups = []
    for d, (b, s, dim) in enumerate(zip(begin, size, x.shape)):
        if b is not None and (not isinstance(b, int) or not -dim <= b < dim):
            raise arg_error("slice", "begin", f"ints in [{-dim}, {dim}) for axis {d}", list(begin))
        start = None if b is None else (b + dim if b < 0 else b)
        if s is None or s == -1:
            stop = None
        elif isinstance(s, int) and s > 0 and (start or 0) + s <= dim:
            stop = (start or 0) + s
        else:
            raise arg_error("slice", "size", f"-1 or a positive int with begin + size <= {dim} for axis {d}",
                            list(size))
        tups.append((start, stop, 1))
    return slice_v2(x, tups, name=name)


def reverse(input: Blob, axis: Any, name: str | None = None) -> Blob:
    """``flow.reverse``: flip ``axis`` (a slice with step -1, ``Reverse_<n>/y_0``)."""
    x = check_blob(input, "reverse", "input")
    axes = [axis] if isinstance(axis, int) else axis
    if not isinstance(axes, (list, tuple)) or not axes:
        raise arg_error("reverse", "axis", "an int or a list of ints", axis)
    tups: list[Any] = [(None, None, None)] * x.ndim
    for a in axes:
        tups[norm_axis(a, x.ndim, "reverse")] = (None, None, -1)
    prefix = name if name is not None else naming.unique_str("Reverse_")
    return slice_v2(x, tups, name=prefix)


# --- where / masked_fill ---------------------------------------------------------------------------------------
def broadcast_to_kernel(x: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    return x.expand(shape) if x.dim() == len(shape) else x.reshape((1,) * (len(shape) - x.dim()) + x.shape).expand(
        shape)


def broadcast_to_compatible_kernel(x: torch.Tensor, compatible: Sequence[torch.Tensor]) -> torch.Tensor:
    """Broadcast to the shapes the blobs have in this step (dynamic blobs may be smaller than their static
    shape; OneFlow's kernel takes the run-time shapes too)."""
    return broadcast_to_kernel(x, tuple(torch.broadcast_shapes(x.shape, *[c.shape for c in compatible])))


def broadcast_to_compatible_with(x: Blob, compatible: Sequence[Blob], name: str | None = None) -> Blob:
    """``flow.broadcast_to_compatible_with``: broadcast ``x`` to the common shape of itself and
    ``compatible`` (system op ``BroadcastToCompatibleWith_<n>/y``)."""
    x = check_blob(x, "broadcast_to_compatible_with", "x")
    others = check_blobs(list(compatible), "broadcast_to_compatible_with", "compatible", min_len=0)
    try:
        shape = tuple(torch.broadcast_shapes(x.shape, *[o.shape for o in others]))
    except RuntimeError:
        raise ValueError(f"flow.broadcast_to_compatible_with: {x.lbn} {x.shape} cannot broadcast with "
                         f"{[o.shape for o in others]}") from None
    if x.is_dynamic or any(o.is_dynamic for o in others):
        return apply(broadcast_to_compatible_kernel, x, others, op_type="broadcast_to_compatible_with",
                     prefix="BroadcastToCompatibleWith", name=name, outputs=("y",),
                     meta=torch.empty(shape, dtype=x.meta.dtype, device="meta"))
    return apply(broadcast_to_kernel, x, shape, op_type="broadcast_to_compatible_with",
                 prefix="BroadcastToCompatibleWith", name=name, outputs=("y",))


def where_kernel(cond: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(cond != 0, x, y)


def where(condition: Blob, x: Blob | None = None, y: Blob | None = None, name: str | None = None) -> Blob:
    """``flow.where(condition, x, y)``: x where condition != 0 else y (``Where_<n>/out_0``); differing
    shapes go through ``broadcast_to_compatible_with`` first, as in OneFlow. ``flow.where(condition)`` is
    ``flow.argwhere(condition)``."""
    cond = check_blob(condition, "where", "condition")
    if x is None and y is None:  # OneFlow: the coordinates of condition's non-zero elements (a dynamic blob)
        return argwhere(cond, name=name)
    if x is None or y is None:
        raise ValueError("flow.where: it is not supported when exactly one of x or y is non-None")
    x = check_blob(x, "where", "x")
    y = check_blob(y, "where", "y")
    if x.meta.dtype != y.meta.dtype:
        raise TypeError(f"flow.where: x and y must have one dtype; received {x.lbn} {x.dtype} and {y.lbn} {y.dtype}")
    name = name if name is not None else naming.unique_str("Where_")
    if not (x.shape == cond.shape and y.shape == cond.shape):
        cond, x, y = (broadcast_to_compatible_with(cond, [x, y]), broadcast_to_compatible_with(x, [cond, y]),
                      broadcast_to_compatible_with(y, [cond, x]))
    return apply(where_kernel, cond, x, y, op_type="where", prefix="Where", name=name)


def masked_fill(x: Blob, mask: Blob, value: Any, name: str | None = None) -> Blob:
    """``flow.masked_fill``: constant_like + where (``MaskedFill_<n>_ConstantLike``, ``…_Where``)."""
    x = check_blob(x, "masked_fill", "x")
    mask = check_blob(mask, "masked_fill", "mask")
    prefix = name if name is not None else naming.unique_str("MaskedFill_")
    filled = constant_like(x, value, name=prefix + "_ConstantLike")
    return where(mask, filled, x, name=prefix + "_Where")


# --- one_hot, sort --------------------------------------------------------------------------------------------
def one_hot_kernel(indices: torch.Tensor, depth: int, on: Any, off: Any, dtype: torch.dtype) -> torch.Tensor:
    classes = torch.arange(depth, device=indices.device)
    hit = indices.unsqueeze(-1) == classes
    # torch.full, not torch.tensor: no host-to-device copy, so a CUDA graph can hold it
    return torch.where(hit, torch.full((), on, dtype=dtype, device=indices.device),
                       torch.full((), off, dtype=dtype, device=indices.device))


def one_hot(indices: Blob, depth: int, on_value: Any = 1, off_value: Any = 0, axis: int = -1, dtype: Any = None,
            name: str | None = None) -> Blob:
    """``flow.one_hot`` (``OneHot_<n>/out_0``; a non-last ``axis`` adds a ``Transpose``). Indices outside
    [0, depth) give an all-``off_value`` row. ``dtype`` defaults to the job's default data type."""
    builder = current_builder("one_hot")
    idx = _check_indices(check_blob(indices, "one_hot", "indices"), "one_hot", "indices")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth <= 0:
        raise arg_error("one_hot", "depth", "a positive int", depth)
    out_nd = idx.ndim + 1
    ax = norm_axis(axis, out_nd, "one_hot")
    target = builder.default_dtype if dtype is None else dtypes.to_dtype(dtype, what="flow.one_hot: dtype")
    cast = float if target.is_floating_point else int
    out = apply(one_hot_kernel, idx, depth, cast(on_value), cast(off_value), target.torch_dtype, op_type="one_hot",
                prefix="OneHot", name=name)
    if ax != out_nd - 1:
        perm = list(range(out_nd))
        perm.insert(ax, out_nd - 1)
        perm.pop()
        out = transpose(out, perm)
    return out


def sort_kernel(x: torch.Tensor, descending: bool) -> torch.Tensor:
    return torch.sort(x, dim=-1, descending=descending, stable=True).values


def argsort_kernel(x: torch.Tensor, descending: bool) -> torch.Tensor:
    return torch.sort(x, dim=-1, descending=descending, stable=True).indices.to(torch.int32)


_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _sort_args(op: str, axis: Any, direction: Any, name: Any) -> tuple[Any, str, Any]:
    """``(axis, direction, name)`` of a v0.3.4 call ``(input, axis=-1, direction="ASCENDING", name=None)`` or a
    v0.1.2 one ``(input, direction="ASCENDING", name=None)``: v0.3.4 put ``axis`` where v0.1.2 had ``direction``,
    so a str there is v0.1.2's direction and the next argument, unless a direction, v0.1.2's name."""
    if not isinstance(axis, str):
        return axis, check_choice(direction, _DIRECTIONS, op, "direction"), name
    if direction is None or (isinstance(direction, str) and direction not in _DIRECTIONS):
        if name is not None:
            raise arg_error(op, "name", "given once (v0.1.2's third argument is the name)", name)
        name = direction
    elif direction not in ("ASCENDING", axis):
        raise arg_error(op, "direction", f"given once (the second argument already says {axis!r})", direction)
    return -1, check_choice(axis, _DIRECTIONS, op, "direction"), name


def _sort_along(kernel: Any, op: str, op_type: str, prefix: str, input: Blob, axis: Any, direction: Any,
                name: Any) -> Blob:
    """v0.3.4's ``sort_ops.py``: the last axis sorts in place; another is moved last (the others keep their
    order), sorted and moved back, by transposes ``<name>_transpose`` and ``<name>_inverse_transpose``."""
    x = check_blob(input, op, "input")
    axis, direction, name = _sort_args(op, axis, direction, name)
    axis = norm_axis(axis, x.ndim, op)
    descending = direction == "DESCENDING"
    if axis == x.ndim - 1:
        return apply(kernel, x, descending, op_type=op_type, prefix=prefix, name=name)
    name = name if name is not None else naming.unique_str(prefix + "_")
    perm = [d for d in range(x.ndim) if d != axis] + [axis]
    inverse = [perm.index(d) for d in range(x.ndim)]
    t = transpose(x, perm, name=name + "_transpose")
    t = apply(kernel, t, descending, op_type=op_type, prefix=prefix, name=name)
    return transpose(t, inverse, name=name + "_inverse_transpose")


def sort(input: Blob, axis: int | str = -1, direction: str = "ASCENDING", name: str | None = None) -> Blob:
    """``flow.sort`` along ``axis`` (``Sort_<n>/out_0``). v0.1.2's ``sort(input, direction, name)`` works too:
    a str second argument is its direction."""
    return _sort_along(sort_kernel, "sort", "sort", "Sort", input, axis, direction, name)


def argsort(input: Blob, axis: int | str = -1, direction: str = "ASCENDING", name: str | None = None) -> Blob:
    """``flow.argsort``: int32 indices that sort ``axis`` (``ArgSort_<n>/out_0``). v0.1.2's
    ``argsort(input, direction, name)`` works too: a str second argument is its direction."""
    return _sort_along(argsort_kernel, "argsort", "arg_sort", "ArgSort", input, axis, direction, name)
