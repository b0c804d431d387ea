"""OneFlow's exported gradient ops (``math.sigmoid_grad``, ``math.tanh_grad``, ``math.gelu_grad``,
``nn.softmax_grad``): ``dx`` from a forward output (or input) and ``dy``, as OneFlow's ``*_grad`` user ops
compute it, and ``math.two_stage_reduce_max``/``min`` and ``constant_scalar``, which on one device are the
plain ops. Each grad op's own gradient comes from torch's autograd of the formula."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, norm_axis
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.array_ops import constant, transpose
from flowtorch._src.ops.reduce_ops import reduce_max, reduce_min

_SQRT_2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def sigmoid_grad_kernel(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return dy * y * (1.0 - y)


def tanh_grad_kernel(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return dy * (1.0 - y * y)


def gelu_grad_kernel(x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    # d/dx [x Φ(x)] = Φ(x) + x φ(x), the exact (erf) GELU of OneFlow's gelu kernel
    return dy * (0.5 * (1.0 + torch.erf(x / _SQRT_2)) + x * torch.exp(-0.5 * x * x) * _INV_SQRT_2PI)


def softmax_grad_kernel(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return y * (dy - (dy * y).sum(dim=-1, keepdim=True))


def _pair(op: str, first: str, a: Any, dy: Any) -> tuple[Blob, Blob]:
    x = check_blob(a, op, first)
    d = check_blob(dy, op, "dy")
    if d.shape != x.shape or d.meta.dtype != x.meta.dtype:
        raise arg_error(op, "dy", f"{first}'s shape {x.shape} and dtype {x.dtype}",
                        Desc(f"{d.lbn} {d.shape} {d.dtype}"))
    return x, d


def sigmoid_grad(y: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``flow.math.sigmoid_grad(y, dy)``: ``dy * y * (1 - y)`` from sigmoid's output (``SigmoidGrad_<n>/dx_0``)."""
    y, dy = _pair("math.sigmoid_grad", "y", y, dy)
    return apply(sigmoid_grad_kernel, y, dy, op_type="sigmoid_grad", prefix="SigmoidGrad", name=name,
                 outputs=("dx",))


def tanh_grad(y: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``flow.math.tanh_grad(y, dy)`` (v0.2.0): ``dy * (1 - y²)`` from tanh's output (``TanhGrad_<n>/dx_0``)."""
    y, dy = _pair("math.tanh_grad", "y", y, dy)
    return apply(tanh_grad_kernel, y, dy, op_type="tanh_grad", prefix="TanhGrad", name=name, outputs=("dx",))


def gelu_grad(x: Blob, dy: Blob, name: str | None = None) -> Blob:
    """``flow.math.gelu_grad(x, dy)``: ``dy * (Φ(x) + x φ(x))`` from gelu's input (``GeluGrad_<n>/dx_0``)."""
    x, dy = _pair("math.gelu_grad", "x", x, dy)
    return apply(gelu_grad_kernel, x, dy, op_type="gelu_grad", prefix="GeluGrad", name=name, outputs=("dx",))


def softmax_grad(y: Blob, dy: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``flow.nn.softmax_grad(y, dy, axis=None)``: ``y * (dy - sum(dy * y, axis))`` from softmax's output. As
    OneFlow: a non-last ``axis`` is swapped to the end and back with transposes; the op is named
    ``Softmax_<n>`` (``/dx_0``)."""
    op = "nn.softmax_grad"
    y, dy = _pair(op, "y", y, dy)
    ax = norm_axis(-1 if axis is None else axis, y.ndim, op)
    if ax == y.ndim - 1:
        return apply(softmax_grad_kernel, y, dy, op_type="softmax_grad", prefix="Softmax", name=name, outputs=("dx",))
    perm = list(range(y.ndim))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    dx = apply(softmax_grad_kernel, transpose(y, perm), transpose(dy, perm), op_type="softmax_grad",
               prefix="Softmax", name=name, outputs=("dx",))
    return transpose(dx, perm)


def two_stage_reduce_max(x: Blob, axis: int | Sequence[int] | None = None, keepdims: bool = False,
                         name: str | None = None) -> Blob:
    """``flow.math.two_stage_reduce_max``: OneFlow's reduce over devices in two stages; on one device (and in
    its gradient, shared evenly by tied maxima) it is ``math.reduce_max`` (``ReduceMax_<n>``)."""
    return reduce_max(x, axis=axis, keepdims=keepdims, name=name)


def two_stage_reduce_min(x: Blob, axis: int | Sequence[int] | None = None, keepdims: bool = False,
                         name: str | None = None) -> Blob:
    """``flow.math.two_stage_reduce_min``: ``math.reduce_min`` on one device (``ReduceMin_<n>``)."""
    return reduce_min(x, axis=axis, keepdims=keepdims, name=name)


def constant_scalar(value: int | float, dtype: Any = None, name: str | None = None) -> Blob:
    """``flow.constant_scalar(value, dtype=None)``: ``flow.constant(value, dtype, shape=[1])`` (OneFlow ignores
    ``name`` here too)."""
    return constant(value, dtype=dtype, shape=[1])
