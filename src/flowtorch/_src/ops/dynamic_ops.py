"""Ops with data-dependent shapes: ``flow.experimental.unique_with_counts``, ``flow.argwhere`` and
``flow.cast_to_static_shape`` (OneFlow ``experimental/unique_op.py``, ``ops/array_ops.py``).

OneFlow gives such a blob a *static* shape that is an upper bound and marks it ``is_dynamic``; at run time
its tensor may be smaller. flowtorch does the same: the op records an explicit upper-bound meta tensor
(the builder cannot infer a data-dependent shape on meta tensors), the blob is ``is_dynamic``, and every
step the kernel returns a tensor of the real size, which the following ops (gather, gather_nd, arithmetic,
tensor_scatter_nd_update …) take as it is. A blob made from a dynamic one is dynamic too (see
``JobBuilder.record``); ``cast_to_static_shape`` makes one static again after checking, at run time, that
its tensor has the full static shape.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import dtypes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blobs
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.array_ops import transpose

_INDEX_OUT = (dtypes.int32, dtypes.int64)


def unique_with_counts_kernel(x: torch.Tensor, idx_dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """OneFlow's CPU kernel: unique values in order of first occurrence. ``y``, ``idx`` and ``count`` keep
    ``x``'s length; past ``num_unique`` OneFlow leaves them unwritten, flowtorch fills ``y`` with its first
    value (so every entry is a valid id) and ``count`` with 0."""
    n = x.numel()
    flat = x.reshape(-1)
    uniq, inverse, counts = torch.unique(flat, sorted=True, return_inverse=True, return_counts=True)
    k = uniq.numel()
    first = torch.full((k,), n, dtype=torch.int64, device=x.device)
    first.scatter_reduce_(0, inverse, torch.arange(n, device=x.device), reduce="amin")
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(k, device=x.device)
    y = torch.empty_like(flat)
    count = torch.zeros(n, dtype=idx_dtype, device=x.device)
    if k:
        y[:k] = uniq[order]
        y[k:] = y[0]
        count[:k] = counts[order].to(idx_dtype)
    idx = rank[inverse].to(idx_dtype)
    num_unique = torch.full((1,), k, dtype=idx_dtype, device=x.device)
    return y, idx, count, num_unique


def unique_with_counts(x: Blob, out_idx: Any = dtypes.int32, name: str | None = None) -> tuple[Blob, ...]:
    """``flow.experimental.unique_with_counts(x, out_idx=flow.int32, name=None)`` → ``(y, idx, count,
    num_unique)`` (``UniqueWithCounts_<n>/{y_0,idx_0,count_0,num_unique_0}``). ``x`` is 1-D; ``y[idx[i]] ==
    x[i]``; ``count[j]`` counts ``y[j]``; only the first ``num_unique`` entries of ``y`` and ``count`` are
    meaningful. ``y``, ``idx`` and ``count`` have ``x``'s static shape (and dynamic flag), ``num_unique``
    shape (1,); ``idx``, ``count`` and ``num_unique`` have dtype ``out_idx`` (int32 or int64)."""
    x = check_blob(x, "experimental.unique_with_counts", "x")
    if x.ndim != 1:
        raise arg_error("experimental.unique_with_counts", "x", "a 1-D blob", Desc(f"{x.lbn} {x.shape}"))
    target = dtypes.to_dtype(out_idx, what="flow.experimental.unique_with_counts: out_idx")
    if target not in _INDEX_OUT:
        raise arg_error("experimental.unique_with_counts", "out_idx", "flow.int32 or flow.int64", target)
    idx_t = target.torch_dtype
    meta = (torch.empty(x.shape, dtype=x.meta.dtype, device="meta"),
            torch.empty(x.shape, dtype=idx_t, device="meta"),
            torch.empty(x.shape, dtype=idx_t, device="meta"),
            torch.empty((1,), dtype=idx_t, device="meta"))
    return apply(unique_with_counts_kernel, x, idx_t, op_type="unique_with_counts", prefix="UniqueWithCounts",
                 name=name, meta=meta, outputs=("y_0", "idx_0", "count_0", "num_unique_0"))


def argwhere_kernel(cond: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    out = torch.nonzero(cond).to(dtype)
    return out, torch.full((1,), out.shape[0], dtype=dtype, device=cond.device)


def sync_dynamic_resize_kernel(x: torch.Tensor, size: torch.Tensor) -> torch.Tensor:
    return x.narrow(0, 0, int(size.reshape(-1)[0]))


def argwhere(condition: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.argwhere(condition, dtype=None, name=None)``: the coordinates of the non-zero elements of
    ``condition``, one row each in row-major order, dtype int32 unless ``dtype`` is given. OneFlow builds an
    ``argwhere`` op (``ArgWhere_<n>``) and a ``SyncDynamicResize_<m>/out`` that trims it to the count; the
    result is dynamic with static shape ``(condition.numel, condition.ndim)``."""
    cond = check_blob(condition, "argwhere", "condition")
    target = dtypes.int32 if dtype is None else dtypes.to_dtype(dtype, what="flow.argwhere: dtype")
    if target not in _INDEX_OUT:
        raise arg_error("argwhere", "dtype", "flow.int32 or flow.int64", target)
    prefix = naming.op_name("ArgWhere_", name)
    numel = 1
    for s in cond.shape:
        numel *= s
    meta = (torch.empty((numel, cond.ndim), dtype=target.torch_dtype, device="meta"),
            torch.empty((1,), dtype=target.torch_dtype, device="meta"))
    out, size = apply(argwhere_kernel, cond, target.torch_dtype, op_type="argwhere", op_name=prefix, meta=meta,
                      dynamic=(True, cond.is_dynamic), outputs=("output_0", "output_size_0"))
    return apply(sync_dynamic_resize_kernel, out, size, op_type="sync_dynamic_resize", prefix="SyncDynamicResize",
                 outputs=("out",), meta=out.meta, dynamic=True)


def sync_dynamic_resize(inputs: Blob, size: Blob, name: str | None = None) -> Blob:
    """``flow.sync_dynamic_resize(inputs, size)``: the first ``size[0]`` rows (axis 0) of ``inputs``, a dynamic
    blob with ``inputs``' static shape (``SyncDynamicResize_<n>/out``); ``size`` is an int32/int64 (1,) blob."""
    x = check_blob(inputs, "sync_dynamic_resize", "inputs")
    n = check_blob(size, "sync_dynamic_resize", "size")
    if x.ndim == 0:
        raise arg_error("sync_dynamic_resize", "inputs", "a blob of rank >= 1", Desc(f"{x.lbn} {x.shape}"))
    if n.shape != (1,) or n.meta.dtype not in (torch.int32, torch.int64):
        raise arg_error("sync_dynamic_resize", "size", "an int32/int64 blob of shape (1,)",
                        Desc(f"{n.lbn} {n.shape} {n.dtype}"))
    return apply(sync_dynamic_resize_kernel, x, n, op_type="sync_dynamic_resize", prefix="SyncDynamicResize", name=name,
                 outputs=("out",), meta=x.meta, dynamic=True)


def cast_to_static_shape_kernel(x: torch.Tensor, shape: tuple[int, ...], lbn: str) -> torch.Tensor:
    if tuple(x.shape) != shape:
        raise RuntimeError(f"flow.cast_to_static_shape: the dynamic blob {lbn} has shape {tuple(x.shape)} in this "
                           f"step, not its static shape {shape} (OneFlow's kernel checks the same)")
    return x.view_as(x)


def cast_to_static_shape(x: Blob, name: str | None = None) -> Blob:
    """``flow.cast_to_static_shape(x, name=None)``: ``x`` itself when it is static (no op, as in OneFlow);
    else ``CastToStaticShape_<n>/output_0``, a static blob whose run-time shape must equal ``x``'s static
    shape."""
    x = check_blob(x, "cast_to_static_shape", "x")
    if not x.is_dynamic:
        return x
    return apply(cast_to_static_shape_kernel, x, x.shape, x.lbn, op_type="cast_to_static_shape",
                 prefix="CastToStaticShape", name=name, outputs=("output_0",), dynamic=False)


def nonzero(a: Blob, name: str | None = None) -> Blob:
    """``flow.nonzero(a, name=None)``: the coordinates of the non-zero elements of ``a``, one column each
    (shape ``(a.ndim, count)``, int32): OneFlow transposes an ``argwhere`` (``Nonzero_ArgWhere_<n>``, then
    ``Nonzero_Transpose_<m>``; with ``name``, ``<name>_ArgWhere`` and ``<name>_Transpose``)."""
    x = check_blob(a, "nonzero", "a")
    if name is None:
        found, flipped = naming.unique_str("Nonzero_ArgWhere_"), naming.unique_str("Nonzero_Transpose_")
    else:
        found, flipped = f"{name}_ArgWhere", f"{name}_Transpose"
    return transpose(argwhere(x, name=found), perm=(1, 0), name=flipped)


def dynamic_reshape_kernel(x: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    return x.reshape(shape)


def dynamic_reshape(x: Blob, shape: Any, name: str | None = None) -> Blob:
    """``flow.dynamic_reshape(x, shape, name=None)`` (``DynamicReshape_<n>/out``): a reshape whose ``-1`` axis is
    worked out again every step from the tensor's run-time size, so a dynamic blob (a smaller batch than its
    static bound) reshapes by its real size; the static shape is the reshape of ``x``'s static shape."""
    op = "dynamic_reshape"
    x = check_blob(x, op, "x")
    if not isinstance(shape, (list, tuple)) or not all(isinstance(s, int) and (s > 0 or s == -1) for s in shape) \
            or sum(s == -1 for s in shape) > 1:
        raise arg_error(op, "shape", "a list/tuple of positive ints with at most one -1", shape)
    numel = x.meta.numel()
    known = 1
    for s in shape:
        known *= s if s != -1 else 1
    if (numel % known if -1 in shape else numel != known):
        raise arg_error(op, "shape", f"a shape of {numel} elements (x is {x.lbn} {x.shape})", list(shape))
    static = tuple(numel // known if s == -1 else s for s in shape)
    meta = torch.empty(static, dtype=x.meta.dtype, device="meta")
    return apply(dynamic_reshape_kernel, x, tuple(shape), op_type="dynamic_reshape", prefix="DynamicReshape",
                 name=name, outputs=("out",), meta=meta)


def dim0_dynamic_to_fixed_kernel(inputs: list[torch.Tensor], bound: int) -> tuple[torch.Tensor, ...]:
    n = inputs[0].shape[0]
    if any(t.shape[0] != n for t in inputs):
        raise RuntimeError(f"flow.dim0_dynamic_to_fixed: the inputs have {[t.shape[0] for t in inputs]} rows in this "
                           "step; they must agree (OneFlow's kernel checks the same)")
    outs = [torch.cat([t, t.new_zeros((bound - n,) + tuple(t.shape[1:]))]) if n < bound else t.view_as(t)
            for t in inputs]
    mask = (torch.arange(bound, device=inputs[0].device) < n).to(torch.int32)
    return (*outs, mask)


def dim0_dynamic_to_fixed(inputs: Any, name: str | None = None) -> tuple[Blob, ...]:
    """``flow.dim0_dynamic_to_fixed(inputs, name=None)`` (v0.1.2, ``ops/detection.py``): dynamic blobs of one axis-0
    bound made static, and an int32 ``mask`` of that length, 1 for the step's real rows
    (``Dim0DynamicToFixed_<n>/out_<i>``, ``/mask``). v0.1.2 shipped the Python without the op; its last kernel
    (``dim0_dynamic_to_fixed_kernel.cpp``, removed in Dec. 2019) left the rows past the real ones as they were in
    memory: flowtorch fills them with zeros."""
    op = "dim0_dynamic_to_fixed"
    blobs = [inputs] if isinstance(inputs, Blob) else check_blobs(inputs, op, "inputs")
    for b in blobs:
        if not b.is_dynamic or b.ndim == 0:
            raise arg_error(op, "inputs", "dynamic blobs of rank >= 1 (OneFlow's op checks is_dynamic)",
                            Desc(f"{b.lbn} {b.shape} dynamic={b.is_dynamic}"))
        if b.shape[0] != blobs[0].shape[0]:
            raise arg_error(op, "inputs", f"blobs of {blobs[0].lbn}'s axis-0 bound {blobs[0].shape[0]}",
                            Desc(f"{b.lbn} {b.shape}"))
    bound = blobs[0].shape[0]
    meta = (*(b.meta for b in blobs), torch.empty((bound,), dtype=torch.int32, device="meta"))
    out = apply(dim0_dynamic_to_fixed_kernel, blobs, bound, op_type="dim0_dynamic_to_fixed",
                prefix="Dim0DynamicToFixed", name=name, meta=meta, dynamic=False,
                outputs=(*(f"out_{i}" for i in range(len(blobs))), "mask"))
    return out if isinstance(out, tuple) else (out,)
