"""Array ops: shapes, concatenation, constants (OneFlow ``ops/array_ops.py``, ``constant_op.py``, ``pad.py``).

Names follow OneFlow v0.1.x where the op existed there (``Reshape_<n>/out_0``, ``Concat_<n>/out_0``,
``ConstantLike_<n>/out`` — a system op, bare blob name), else v0.3.4 (``Flatten_<n>/out_0``,
``Stack_<n>expand_dims_<i>`` + ``Stack_<n>concat``, ``Zeros_<n>constant``). Shape-only kernels return
torch views where OneFlow copied; values and gradients are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src import dtypes, naming, releases
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.data.tensor_list import TensorList
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import batch_axes
from flowtorch._src.ops._checks import Desc, arg_error, check_blobs, is_int, norm_axis
from flowtorch._src.ops._record import apply, check_blob


def _infer_shape(shape: Sequence[int], numel: int, op: str) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if sum(1 for s in shape if s == -1) > 1:
        raise ValueError(f"flow.{op}: at most one -1 is allowed in shape {shape}")
    known = 1
    for s in shape:
        if s != -1:
            if s <= 0:
                raise ValueError(f"flow.{op}: shape {shape} has a non-positive dimension")
            known *= s
    if -1 in shape:
        if numel % known:
            raise ValueError(f"flow.{op}: cannot reshape {numel} elements into {shape}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise ValueError(f"flow.{op}: cannot reshape a blob of {numel} elements into shape {shape}")
    return shape


def reshape(x: Blob, shape: Sequence[int], name: str | None = None) -> Blob:
    x = check_blob(x, "reshape", "x")
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"flow.reshape: shape must be a list or tuple of ints; received {shape!r}")
    numel = 1
    for s in x.shape:
        numel *= s
    target = _infer_shape(shape, numel, "reshape")
    return apply(torch.reshape, x, target, op_type="reshape", prefix="Reshape", name=name)


def transpose(a: Blob, perm: Sequence[int] | None = None, conjugate: bool = False,
              batch_axis_non_change: bool = False, name: str | None = None) -> Blob:
    a = check_blob(a, "transpose", "a")
    if perm is None:
        perm = tuple(reversed(range(a.ndim)))
    perm = tuple(int(p) for p in perm)
    if sorted(p % max(a.ndim, 1) for p in perm) != list(range(a.ndim)):
        raise ValueError(f"flow.transpose: perm {perm} is not a permutation of the {a.ndim} axes of {a.lbn}")
    out = apply(torch.permute, a, perm, op_type="transpose", prefix="Transpose", name=name, outputs=("output_0",))
    return batch_axes.follow(out, a) if batch_axis_non_change else out  # (transpose_ops.cpp, v0.3.4)


def matmul_kernel(a: torch.Tensor, b: torch.Tensor, transpose_a: bool, transpose_b: bool) -> torch.Tensor:
    if transpose_a:
        a = a.transpose(-1, -2)
    if transpose_b:
        b = b.transpose(-1, -2)
    if a.dtype == torch.float16 and a.device.type == "cpu":
        # OneFlow's float16 matmul was cuBLAS's, which accumulates in float32; torch's CPU half kernel does not
        return torch.matmul(a.float(), b.float()).to(torch.float16)
    return torch.matmul(a, b)


def scaled_matmul_kernel(a: torch.Tensor, b: torch.Tensor, transpose_a: bool, transpose_b: bool,
                         alpha: float) -> torch.Tensor:
    return matmul_kernel(a, b, transpose_a, transpose_b).mul_(alpha)


def matmul(a: Blob, b: Blob, transpose_a: bool = False, transpose_b: bool = False, alpha: float = 1.0,
           name: str | None = None) -> Blob:
    """``flow.matmul`` / ``flow.linalg.matmul``: alpha · op(a) @ op(b) (``Matmul_<n>/out_0``); batched when
    both have rank > 2, and a rank > 2 ``a`` times a 2-D ``b`` broadcasts ``b``. ``alpha`` is v0.4's."""
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
        raise TypeError(f"flow.matmul: alpha must be a number; received {alpha!r}")
    a = check_blob(a, "matmul", "a")
    b = check_blob(b, "matmul", "b")
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"flow.matmul: both operands need rank >= 2; received {a.shape} and {b.shape}")
    k_a = a.shape[-2] if transpose_a else a.shape[-1]
    k_b = b.shape[-1] if transpose_b else b.shape[-2]
    if k_a != k_b:
        raise ValueError(f"flow.matmul: inner dimensions differ: a {a.shape} (transpose_a={transpose_a}) "
                         f"vs b {b.shape} (transpose_b={transpose_b})")
    if a.ndim != b.ndim and releases.before(releases.MATMUL_BROADCASTS_B):
        raise ArgumentError(f"flow.matmul: a {a.shape} and b {b.shape} differ in rank; {releases.describe()} "
                         f"({releases.ENV}) multiplied operands of one rank only (linalg.py asserted "
                         "len(a.shape) == len(b.shape) until v0.4.0)")
    # OneFlow's op for the ranks: matmul for 2-D operands, batch_matmul for equal ranks > 2, v0.4's
    # broadcast_matmul otherwise (a batched a times a 2-D b; flowtorch takes any ranks torch.matmul does)
    op_type = "matmul" if a.ndim == b.ndim == 2 else "batch_matmul" if a.ndim == b.ndim else "broadcast_matmul"
    attrs = {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b), "alpha": float(alpha)}
    if alpha == 1.0:  # the plain kernel, which the dense/bias fusion (step/fuse.py) recognises
        return apply(matmul_kernel, a, b, bool(transpose_a), bool(transpose_b), op_type=op_type, prefix="Matmul",
                     name=name, attrs=attrs)
    return apply(scaled_matmul_kernel, a, b, bool(transpose_a), bool(transpose_b), float(alpha), op_type=op_type,
                 prefix="Matmul", name=name, attrs=attrs)


def tensor_list_identity_kernel(x: TensorList) -> TensorList:
    return TensorList([t.view_as(t) for t in x.tensors])


def identity(x: Blob, name: str | None = None) -> Blob:
    # v0.1.x names identity's output bare ``out`` (a system op); the tensor is passed on unchanged.
    x = check_blob(x, "identity", "x")
    if x.is_tensor_list:  # v0.1.2's identity (a system op) passed a MirroredTensorListDef input's list on
        return apply(tensor_list_identity_kernel, x, op_type="identity", prefix="Identity", name=name,
                     outputs=("out",), meta=x.meta, tensor_lists=(True,))
    return apply(torch.Tensor.view_as, x, x, op_type="identity", prefix="Identity", name=name, outputs=("out",))


def cast(x: Blob, dtype: Any, name: str | None = None) -> Blob:
    x = check_blob(x, "cast", "x")
    target = dtypes.to_dtype(dtype, what="flow.cast: dtype")
    if target.torch_dtype == x.meta.dtype:
        return x  # OneFlow (``ops/math_ops.py``) adds no op when the dtype already matches
    return apply(torch.Tensor.to, x, target.torch_dtype, op_type="cast", prefix="Cast", name=name)


def constant_kernel(value: float, shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.full(shape, value, dtype=dtype, device=device)


def constant(value: Any, dtype: Any = None, shape: Sequence[int] | None = None, name: str | None = None) -> Blob:
    builder = current_builder("constant")
    target = dtypes.to_dtype(dtype) if dtype is not None else builder.default_dtype
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"flow.constant: value must be an int or float; received {value!r}")
    shape_t = tuple(int(s) for s in (shape if shape is not None else (1,)))
    return apply(constant_kernel, float(value) if target.is_floating_point else int(value), shape_t,
                 target.torch_dtype, builder.device, op_type="constant", prefix="Constant", name=name)


# --- shape ops ---------------------------------------------------------------------------------------
def flatten(input: Blob, start_dim: int = 0, end_dim: int = -1, name: str | None = None) -> Blob:
    """``flow.flatten``: merge axes ``start_dim..end_dim`` (``Flatten_<n>/out_0``)."""
    x = check_blob(input, "flatten", "input")
    nd = max(x.ndim, 1)
    s = norm_axis(start_dim, nd, "flatten", "start_dim")
    e = norm_axis(end_dim, nd, "flatten", "end_dim")
    if s > e:
        raise arg_error("flatten", "end_dim", f"an axis >= start_dim ({start_dim})", end_dim)
    return apply(torch.flatten, x, s, e, op_type="flatten", prefix="Flatten", name=name)


def squeeze(input: Blob, axis: Sequence[int] | None = None, name: str | None = None) -> Blob:
    """``flow.squeeze``: drop size-1 axes (all of them when ``axis`` is None) (``Squeeze_<n>/out_0``)."""
    x = check_blob(input, "squeeze", "input")
    if axis is None:
        axes = [i for i, d in enumerate(x.shape) if d == 1]
    else:
        if not isinstance(axis, (list, tuple)):
            raise arg_error("squeeze", "axis", "a list or tuple of ints (or None)", axis)
        axes = [norm_axis(a, x.ndim, "squeeze") for a in axis]
        for a in axes:
            if x.shape[a] != 1:
                raise arg_error("squeeze", "axis", f"axes of size 1 of {x.lbn} {x.shape}", list(axis))
    return apply(squeeze_kernel, x, tuple(axes), op_type="squeeze", prefix="Squeeze", name=name)


def squeeze_kernel(x: torch.Tensor, axes: tuple[int, ...]) -> torch.Tensor:
    # by axes, not by a reshape to the static shape: a dynamic blob (argwhere's rows) keeps its run-time length
    if not axes:
        return x.view_as(x)
    out = x.squeeze(axes)
    return out.reshape(1) if out.dim() == 0 else out  # user/ops/squeeze_op.cpp: no axes left gives (1,)


def expand_dims(input: Blob, axis: int, name: str | None = None) -> Blob:
    """``flow.expand_dims``: insert a size-1 axis (``ExpandDims_<n>/out_0``)."""
    x = check_blob(input, "expand_dims", "input")
    ax = norm_axis(axis, x.ndim, "expand_dims", extra=1)
    return apply(torch.unsqueeze, x, ax, op_type="expand_dims", prefix="ExpandDims", name=name)


def concat_kernel(inputs: list[torch.Tensor], axis: int, max_dim_size: int | None = None) -> torch.Tensor:
    """``torch.cat``; with ``max_dim_size`` (a dynamic output's static size) the run-time size must fit it."""
    out = torch.cat(inputs, dim=axis)
    if max_dim_size is not None and out.shape[axis] > max_dim_size:
        raise ArgumentError(f"flow.concat: the concatenated size {out.shape[axis]} on axis {axis} is larger than "
                            f"max_dim_size {max_dim_size}")
    return out


def concat(inputs: Any = None, axis: int = 0, max_dim_size: int | None = None, name: str | None = None,
           values: Any = None) -> Blob:
    """``flow.concat(inputs, axis=0)`` (``values=`` is the v0.1 spelling) (``Concat_<n>/out_0``)."""
    if values is not None:
        if inputs is not None:
            raise ArgumentError("flow.concat: pass the blobs as inputs= or values=, not both")
        inputs = values
    blobs = check_blobs(inputs, "concat", "inputs")
    if len(blobs) == 1 and releases.before(releases.CONCAT_TAKES_ONE):
        raise arg_error("concat", "inputs", f"at least 2 blobs under {releases.describe()} ({releases.ENV}): "
                        "v0.1.0-v0.1.2's array_ops.py asserted len(values) >= 2", f"{len(blobs)} blob")
    if len(blobs) == 1:
        return blobs[0]
    first = blobs[0]
    ax = norm_axis(axis, first.ndim, "concat")
    for b in blobs[1:]:
        if b.ndim != first.ndim or any(b.shape[i] != first.shape[i] for i in range(b.ndim) if i != ax) \
                or b.meta.dtype != first.meta.dtype:
            raise arg_error("concat", "inputs", f"blobs matching {first.lbn} {first.shape} {first.dtype} except on "
                            f"axis {ax}", Desc(f"{b.lbn} {b.shape} {b.dtype}"))
    # user/ops/concat_op.cpp: only the static inputs' sizes are known at build; a dynamic input counts at
    # run time, and a concat with one has max_dim_size (default: every input's static size, summed) as its
    # static size
    static_size = sum(b.shape[ax] for b in blobs if not b.is_dynamic)
    if max_dim_size is None:
        max_dim_size = sum(b.shape[ax] for b in blobs)
    elif not is_int(max_dim_size) or max_dim_size < static_size:
        raise arg_error("concat", "max_dim_size", f"an int >= the static inputs' concatenated size {static_size}",
                        max_dim_size)
    if not any(b.is_dynamic for b in blobs):
        return apply(concat_kernel, blobs, ax, op_type="concat", prefix="Concat", name=name)
    shape = list(first.shape)
    shape[ax] = int(max_dim_size)
    meta = torch.empty(shape, dtype=first.meta.dtype, device="meta")
    return apply(concat_kernel, blobs, ax, int(max_dim_size), op_type="concat", prefix="Concat", name=name,
                 meta=meta, dynamic=True)


def stack(inputs: Any, axis: int = 0, name: str | None = None) -> Blob:
    """``flow.stack``: expand_dims each input then concat, as v0.3.4 built it
    (``Stack_<n>expand_dims_<i>/out_0`` …, ``Stack_<n>concat/out_0``)."""
    if isinstance(inputs, Blob):
        inputs = [inputs]
    blobs = check_blobs(inputs, "stack", "inputs")
    ax = norm_axis(axis, blobs[0].ndim, "stack", extra=1)
    for b in blobs[1:]:
        if b.shape != blobs[0].shape:
            raise arg_error("stack", "inputs", f"blobs of one shape ({blobs[0].lbn}: {blobs[0].shape})",
                            Desc(f"{b.lbn}: {b.shape}"))
    prefix = name if name is not None else naming.unique_str("Stack_")
    expanded = [expand_dims(b, ax, name=f"{prefix}expand_dims_{i}") for i, b in enumerate(blobs)]
    return apply(concat_kernel, expanded, ax, op_type="concat", prefix="Concat", name=prefix + "concat")


def reshape_like(x: Blob, like: Blob, name: str | None = None) -> Blob:
    """``flow.reshape_like`` (``ReshapeLike_<n>/out_0``)."""
    x = check_blob(x, "reshape_like", "x")
    like = check_blob(like, "reshape_like", "like")
    if x.meta.numel() != like.meta.numel():
        raise ValueError(f"flow.reshape_like: x {x.lbn} {x.shape} and like {like.lbn} {like.shape} have different "
                         "element counts")
    out = apply(torch.reshape, x, tuple(like.shape), op_type="reshape_like", prefix="ReshapeLike", name=name)
    return batch_axes.follow(out, like)  # like's batch axis (reshape_like_op.cpp)


def broadcast_like_kernel(x: torch.Tensor, shape: tuple[int, ...], axes: tuple[int, ...]) -> torch.Tensor:
    if x.dim() != len(shape):
        for a in axes:
            x = x.unsqueeze(a)
    return x.expand(shape)


def broadcast_like(x: Blob, like: Blob, broadcast_axes: Sequence[int] | None = None,
                   name: str | None = None) -> Blob:
    """``flow.broadcast_like``: expand ``x`` to ``like``'s shape along ``broadcast_axes``
    (``BroadcastLike_<n>/y_0``). ``x`` has those axes either as 1 or removed."""
    x = check_blob(x, "broadcast_like", "x")
    like = check_blob(like, "broadcast_like", "like")
    axes = list(range(like.ndim)) if broadcast_axes is None else broadcast_axes
    if not isinstance(axes, (list, tuple)) or not 0 < len(axes) <= like.ndim:
        raise arg_error("broadcast_like", "broadcast_axes", f"a list of 1..{like.ndim} axes", broadcast_axes)
    axes_t = tuple(sorted(norm_axis(a, like.ndim, "broadcast_like", "broadcast_axes") for a in axes))
    if x.ndim == like.ndim:
        reduced = tuple(1 if i in axes_t else d for i, d in enumerate(like.shape))
        ok = x.shape == reduced or all(xd in (1, ld) for xd, ld in zip(x.shape, like.shape))
    else:
        reduced = tuple(d for i, d in enumerate(like.shape) if i not in axes_t)
        ok = x.shape == reduced or (x.shape == (1,) and not reduced)
    if not ok:
        raise arg_error("broadcast_like", "x", f"shape {reduced} (like {like.shape} reduced on axes "
                        f"{list(axes_t)})", Desc(f"{x.lbn} {x.shape}"))
    axes_arg = axes_t if x.ndim != like.ndim and x.shape != (1,) else ()
    out = apply(broadcast_like_kernel, x, tuple(like.shape), axes_arg, op_type="broadcast_like",
                prefix="BroadcastLike", name=name, outputs=("y_0",))
    return batch_axes.follow(out, like)  # like's batch axis (broadcast_like_op.cpp)


def pad_kernel(x: torch.Tensor, pads: tuple[int, ...], value: float) -> torch.Tensor:
    return torch.nn.functional.pad(x, pads, mode="constant", value=value)


def pad(x: Blob, paddings: Sequence[Sequence[int]], constant_value: float = 0, name: str | None = None) -> Blob:
    """``flow.pad(x, paddings, constant_value=0)``: ``paddings`` holds (before, after) per axis
    (``Pad_<n>/y_0``)."""
    x = check_blob(x, "pad", "x")
    value = float(constant_value) if x.meta.dtype.is_floating_point else int(constant_value)
    return apply(pad_kernel, x, torch_pad_order(check_pad_pairs(x, paddings, "pad")), value, op_type="pad",
                 prefix="Pad", name=name, outputs=("y_0",))


def check_pad_pairs(x: Blob, paddings: Any, op: str) -> list[tuple[int, int]]:
    """``paddings``: one (before, after) pair of non-negative ints per axis of ``x``, else an error naming ``op``."""
    if not isinstance(paddings, (list, tuple)) or len(paddings) != x.ndim or not all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, int) and v >= 0 for v in p)
            for p in paddings):
        raise arg_error(op, "paddings", f"{x.ndim} (before, after) pairs of non-negative ints", paddings)
    return [(p[0], p[1]) for p in paddings]


def torch_pad_order(pairs: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """(before, after) per axis as ``F.pad`` takes them: the last axis first, flattened."""
    return tuple(v for before, after in reversed(pairs) for v in (before, after))


# --- constants ------------------------------------------------------------------------------------------
def constant_like_kernel(like: torch.Tensor, value: Any, dtype: torch.dtype) -> torch.Tensor:
    return torch.full_like(like, value, dtype=dtype)


def constant_like(like: Blob, value: Any, dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.constant_like``: a blob of ``like``'s shape filled with ``value``; v0.1.x system op
    ``ConstantLike_<n>/out``; dtype defaults to ``like``'s."""
    like = check_blob(like, "constant_like", "like")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"flow.constant_like: argument 'value' must be an int or float; received {value!r}")
    target = like.meta.dtype if dtype is None else dtypes.to_dtype(dtype, what="flow.constant_like: dtype").torch_dtype
    value = float(value) if target.is_floating_point else int(value)
    return apply(constant_like_kernel, like, value, target, op_type="constant_like", prefix="ConstantLike",
                 name=name, outputs=("out",))


def zeros_like(like: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.zeros_like`` = constant_like(like, 0)."""
    return constant_like(like, 0, dtype=dtype, name=name)


def ones_like(like: Blob, dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.ones_like`` = constant_like(like, 1)."""
    return constant_like(like, 1, dtype=dtype, name=name)


def zeros(shape: Sequence[int], dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.zeros``: constant named ``Zeros_<n>constant`` (v0.3.4); dtype defaults to float32."""
    prefix = name if name is not None else naming.unique_str("Zeros_")
    return constant(0.0, dtype=dtype if dtype is not None else dtypes.float32, shape=shape,
                    name=prefix + "constant")


def ones(shape: Sequence[int], dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.ones``: constant named ``Ones_<n>constant`` (v0.3.4); dtype defaults to float32."""
    prefix = name if name is not None else naming.unique_str("Ones_")
    return constant(1.0, dtype=dtype if dtype is not None else dtypes.float32, shape=shape,
                    name=prefix + "constant")


def range_kernel(start: int, limit: int, delta: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.arange(start, limit, delta, dtype=dtype, device=device)


def range_op(start: int, limit: int | None = None, delta: int = 1, dtype: Any = None,
             name: str | None = None) -> Blob:
    """``flow.range(start, limit=None, delta=1, dtype=None)``: ints ``start, start+delta, …`` below
    ``limit`` (``Range_<n>/out_0``). OneFlow v0.3.4 required ``dtype`` and named every call ``range``;
    flowtorch defaults dtype to int64 and numbers the op so two ranges can live in one job."""
    builder = current_builder("range")
    if limit is None:
        start, limit = 0, start
    for arg, v in (("start", start), ("limit", limit), ("delta", delta)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise ArgumentError(f"flow.range: argument {arg!r} must be an int; received {v!r}")
    if delta <= 0 or limit <= start:
        raise ArgumentError(f"flow.range: need limit > start and delta > 0; received start={start}, "
                              f"limit={limit}, delta={delta}")
    target = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype, what="flow.range: dtype")
    return apply(range_kernel, start, limit, delta, target.torch_dtype, builder.device, op_type="range", prefix="Range",
                 name=name)


range_op.__name__ = range_op.__qualname__ = "range"  # public as ``flow.range`` (``flowtorch._facade``)


# --- v0.4.0's diag and expand --------------------------------------------------------------------------------------
def diag_kernel(x: torch.Tensor, diagonal: int) -> torch.Tensor:
    return torch.diag(x, diagonal)


def diag(input: Blob, diagonal: int = 0, name: str | None = None) -> Blob:
    """``flow.diag(input, diagonal=0)`` (v0.4.0, ``ops/diag_ops.py``): a vector becomes the square matrix with it on
    diagonal ``diagonal`` (above the main one when positive), a matrix gives that diagonal (``Diag_<n>/out_0``)."""
    x = check_blob(input, "diag", "input")
    if x.ndim not in (1, 2):
        raise arg_error("diag", "input", "a 1-D or 2-D blob", Desc(f"{x.lbn} {x.shape}"))
    if not is_int(diagonal):
        raise arg_error("diag", "diagonal", "an int", diagonal)
    return apply(diag_kernel, x, int(diagonal), op_type="diag", prefix="Diag", name=name)


def expand(x: Blob, expand_size: Sequence[int], name: str | None = None) -> Blob:
    """``flow.expand(x, expand_size)`` (v0.4.0): size-1 axes repeated to ``expand_size`` (``-1`` keeps an axis; new
    leading axes may be added, not as -1), as ``torch.Tensor.expand`` (``Expand_<n>/out_0``)."""
    op = "expand"
    x = check_blob(x, op, "x")
    if not isinstance(expand_size, (list, tuple)) or not all(is_int(s) for s in expand_size) \
            or len(expand_size) < x.ndim:
        raise arg_error(op, "expand_size", f"a list/tuple of at least {x.ndim} ints (x is {x.lbn} {x.shape})",
                        expand_size)
    lead = len(expand_size) - x.ndim
    for i, size in enumerate(expand_size):
        have = x.shape[i - lead] if i >= lead else None
        if size == -1 and have is not None or have == size:
            continue
        if size < 1 or (have is not None and have != 1):
            raise arg_error(op, f"expand_size[{i}]", "-1, the axis's size, or any size for an axis of 1 (new leading "
                            "axes: >= 1)", size)
    return apply(torch.Tensor.expand, x, tuple(int(s) for s in expand_size), op_type="expand", prefix="Expand",
                 name=name)
