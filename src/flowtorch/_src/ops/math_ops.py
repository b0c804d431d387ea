"""``flow.math`` arithmetic with OneFlow's op choice and names (``framework``/``ops/math_ops.py``).

OneFlow picks a different kernel, and so a different auto name, for blob∘blob of the same shape,
blob∘scalar, blob∘(1,)-blob and broadcasting; results keep the blob's dtype for scalar operands.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src.job.blob import Blob
from flowtorch._src.ops._record import apply, check_blob, is_scalar


# --- kernels (plain torch, run at every step) --------------------------------------------------------
def _keep_dtype(out: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return out if out.dtype == like.dtype else out.to(like.dtype)


def scalar_add_kernel(x: torch.Tensor, c: float) -> torch.Tensor:
    return _keep_dtype(torch.add(x, c), x)


def scalar_mul_kernel(x: torch.Tensor, c: float) -> torch.Tensor:
    return _keep_dtype(torch.mul(x, c), x)


def reciprocal_no_nan_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x == 0, torch.zeros_like(x), torch.reciprocal(x))


def full_reduce_shape(out: torch.Tensor) -> torch.Tensor:
    """OneFlow has no 0-d blobs: a full reduction is shape (1,)."""
    return out.reshape(1) if out.dim() == 0 else out


def reduce_sum_kernel(x: torch.Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> torch.Tensor:
    if axis is None:
        out = torch.sum(x)
        return out.reshape([1] * x.dim()) if keepdims else out.reshape(1)
    return full_reduce_shape(torch.sum(x, dim=axis, keepdim=keepdims))


def _axes(axis: Any, ndim: int, op: str) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    for a in axes:
        if not isinstance(a, int) or not -ndim <= a < max(ndim, 1):
            raise ValueError(f"flow.math.{op}: axis {a!r} is out of range for a blob of rank {ndim}")
    if len(axes) == 0:
        return None
    return tuple(a % ndim for a in axes)


# --- binary arithmetic ----------------------------------------------------------------------------
def add(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        return apply(scalar_add_kernel, check_blob(y, "math.add", "y"), x, op_type="ScalarAdd", name=name)
    x = check_blob(x, "math.add", "x")
    if is_scalar(y):
        return apply(scalar_add_kernel, x, y, op_type="ScalarAdd", name=name)
    y = check_blob(y, "math.add", "y")
    if x.shape == y.shape:
        return apply(torch.add, x, y, op_type="AddN", name=name)
    if x.shape == (1,):
        return apply(torch.add, y, x, op_type="ScalarAddByTensor", name=name, outputs=("y_0",))
    if y.shape == (1,):
        return apply(torch.add, x, y, op_type="ScalarAddByTensor", name=name, outputs=("y_0",))
    return apply(torch.add, x, y, op_type="broadcast_add", name=name, outputs=("z_0",))


def subtract(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        return add(multiply(check_blob(y, "math.subtract", "y"), -1), x, name=name)
    x = check_blob(x, "math.subtract", "x")
    if is_scalar(y):
        return apply(scalar_add_kernel, x, -y, op_type="ScalarAdd", name=name)
    y = check_blob(y, "math.subtract", "y")
    if x.shape != y.shape and y.shape == (1,):
        return apply(torch.sub, x, y, op_type="ScalarSubByTensor", name=name, outputs=("y_0",))
    return apply(torch.sub, x, y, op_type="broadcast_sub", name=name, outputs=("z_0",))


def multiply(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        return apply(scalar_mul_kernel, check_blob(y, "math.multiply", "y"), x, op_type="ScalarMul", name=name)
    x = check_blob(x, "math.multiply", "x")
    if is_scalar(y):
        return apply(scalar_mul_kernel, x, y, op_type="ScalarMul", name=name)
    y = check_blob(y, "math.multiply", "y")
    if x.shape == y.shape:
        return apply(torch.mul, x, y, op_type="ElementWiseMul", name=name)
    if x.shape == (1,) or y.shape == (1,):
        return apply(torch.mul, x, y, op_type="ScalarMulByTensor", name=name, outputs=("y_0",))
    return apply(torch.mul, x, y, op_type="broadcast_mul", name=name, outputs=("z_0",))


def divide(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        y = check_blob(y, "math.divide", "y")
        recip = apply(reciprocal_no_nan_kernel, y, op_type="reciprocal_no_nan", outputs=("y_0",))
        return apply(scalar_mul_kernel, recip, x, op_type="ScalarMul", name=name)
    x = check_blob(x, "math.divide", "x")
    if is_scalar(y):
        return apply(scalar_mul_kernel, x, 0.0 if y == 0 else 1.0 / float(y), op_type="ScalarMul", name=name)
    y = check_blob(y, "math.divide", "y")
    if x.shape != y.shape and y.shape == (1,):
        return apply(torch.div, x, y, op_type="ScalarDivByTensor", name=name, outputs=("y_0",))
    return apply(torch.div, x, y, op_type="broadcast_div", name=name, outputs=("z_0",))


def _compare(kernel: Any, op: str, x: Any, y: Any, name: str | None) -> Blob:
    x = check_blob(x, f"math.{op}", "x")
    if is_scalar(y):
        return apply(kernel, x, y, op_type=f"broadcast_{op}", name=name, outputs=("z_0",))
    y = check_blob(y, f"math.{op}", "y")
    return apply(kernel, x, y, op_type=f"broadcast_{op}", name=name, outputs=("z_0",))


def _cmp_kernel(fn: Any) -> Any:
    def kernel(x: torch.Tensor, y: Any) -> torch.Tensor:
        # OneFlow's comparison ops return int8 blobs.
        return fn(x, y).to(torch.int8)
    kernel.__name__ = f"{fn.__name__}_int8"
    return kernel


_eq, _ne = _cmp_kernel(torch.eq), _cmp_kernel(torch.ne)
_lt, _le = _cmp_kernel(torch.lt), _cmp_kernel(torch.le)
_gt, _ge = _cmp_kernel(torch.gt), _cmp_kernel(torch.ge)


def equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_eq, "equal", x, y, name)


def not_equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_ne, "not_equal", x, y, name)


def less(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_lt, "less", x, y, name)


def less_equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_le, "less_equal", x, y, name)


def greater(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_gt, "greater", x, y, name)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_ge, "greater_equal", x, y, name)


# --- reductions ---------------------------------------------------------------------------------------
def reduce_sum(input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    x = check_blob(input_tensor, "math.reduce_sum", "input_tensor")
    axes = _axes(axis, x.ndim, "reduce_sum")
    return apply(reduce_sum_kernel, x, axes, keepdims, op_type="ReduceSum", name=name,
                 outputs=("output_tensor_0",))


def reduce_mean(input_blob: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """OneFlow builds reduce_mean as reduce_sum × (1/count) (``ops/reduce_mean.py``), hence its names."""
    x = check_blob(input_blob, "math.reduce_mean", "input_blob")
    axes = _axes(axis, x.ndim, "reduce_mean")
    total = reduce_sum(x, axis=axis, keepdims=keepdims, name=name)
    count = 1
    for i in (range(x.ndim) if axes is None else axes):
        count *= x.shape[i]
    return multiply(total, 1.0 / count)
