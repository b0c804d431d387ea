"""Array ops: reshape, transpose, matmul, identity, cast, constant (foundation set)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src import dtypes
from flowtorch._src.job.blob import Blob
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
    return apply(torch.reshape, x, target, op_type="Reshape", name=name)


def transpose(a: Blob, perm: Sequence[int] | None = None, conjugate: bool = False,
              batch_axis_non_change: bool = False, name: str | None = None) -> Blob:
    a = check_blob(a, "transpose", "a")
    if perm is None:
        perm = tuple(reversed(range(a.ndim)))
    perm = tuple(int(p) for p in perm)
    if sorted(p % max(a.ndim, 1) for p in perm) != list(range(a.ndim)):
        raise ValueError(f"flow.transpose: perm {perm} is not a permutation of the {a.ndim} axes of {a.lbn}")
    return apply(torch.permute, a, perm, op_type="Transpose", name=name, outputs=("output_0",))


def matmul_kernel(a: torch.Tensor, b: torch.Tensor, transpose_a: bool, transpose_b: bool) -> torch.Tensor:
    if transpose_a:
        a = a.transpose(-1, -2)
    if transpose_b:
        b = b.transpose(-1, -2)
    return torch.matmul(a, b)


def matmul(a: Blob, b: Blob, transpose_a: bool = False, transpose_b: bool = False,
           name: str | None = None) -> Blob:
    a = check_blob(a, "matmul", "a")
    b = check_blob(b, "matmul", "b")
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"flow.matmul: both operands need rank >= 2; received {a.shape} and {b.shape}")
    k_a = a.shape[-2] if transpose_a else a.shape[-1]
    k_b = b.shape[-1] if transpose_b else b.shape[-2]
    if k_a != k_b:
        raise ValueError(f"flow.matmul: inner dimensions differ: a {a.shape} (transpose_a={transpose_a}) "
                         f"vs b {b.shape} (transpose_b={transpose_b})")
    return apply(matmul_kernel, a, b, bool(transpose_a), bool(transpose_b), op_type="Matmul", name=name)


def identity(x: Blob, name: str | None = None) -> Blob:
    # v0.1.x names identity's output bare ``out`` (a system op); the tensor is passed on unchanged.
    return apply(torch.Tensor.view_as, check_blob(x, "identity", "x"), x, op_type="Identity", name=name,
                 outputs=("out",))


def cast(x: Blob, dtype: Any, name: str | None = None) -> Blob:
    x = check_blob(x, "cast", "x")
    target = dtypes.to_dtype(dtype, what="flow.cast: dtype")
    return apply(torch.Tensor.to, x, target.torch_dtype, op_type="Cast", name=name)


def constant_kernel(value: float, shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    return torch.full(shape, value, dtype=dtype, device=device)


def constant(value: Any, dtype: Any = None, shape: Sequence[int] | None = None, name: str | None = None) -> Blob:
    from flowtorch._src.job.context import current_builder
    builder = current_builder("constant")
    target = dtypes.to_dtype(dtype) if dtype is not None else builder.default_dtype
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"flow.constant: value must be an int or float; received {value!r}")
    shape_t = tuple(int(s) for s in (shape if shape is not None else (1,)))
    return apply(constant_kernel, float(value) if target.is_floating_point else int(value), shape_t,
                 target.torch_dtype, builder.device, op_type="Constant", name=name)
