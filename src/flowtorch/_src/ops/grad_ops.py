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


def layer_norm_grad_kernel(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor, inv_variance: torch.Tensor,
                           begin_norm_axis: int) -> torch.Tensor:
    # the backward of (x - mean) * inv_variance over the axes from begin_norm_axis on, its statistics included
    axes = tuple(range(begin_norm_axis, x.dim()))
    stat_shape = tuple(x.shape[:begin_norm_axis]) + (1,) * len(axes)
    mean, inv_var = mean.reshape(stat_shape).to(x.dtype), inv_variance.reshape(stat_shape).to(x.dtype)
    x_hat = (x - mean) * inv_var
    return inv_var * (dy - dy.mean(dim=axes, keepdim=True) - x_hat * (dy * x_hat).mean(dim=axes, keepdim=True))


def layer_norm_grad(dy: Blob, x: Blob, mean: Blob, inv_variance: Blob, begin_norm_axis: int = 1,
                    name: str = "LayerNormGrad") -> Blob:
    """``flow.layers.layer_norm_grad(dy, x, mean, inv_variance, begin_norm_axis=1, name="LayerNormGrad")``: ``dx``
    of OneFlow's ``layer_norm`` from its saved ``mean`` and ``inv_variance`` (shape ``x.shape[:begin_norm_axis]``),
    ``inv_var * (dy - mean(dy) - x̂ mean(dy x̂))`` over the normalized axes (``LayerNormGrad/dx_0``)."""
    op = "layers.layer_norm_grad"
    x, d = _pair(op, "x", x, dy)
    bna = norm_axis(begin_norm_axis, x.ndim, op, "begin_norm_axis")
    if bna == 0:
        raise arg_error(op, "begin_norm_axis", "an axis > 0 (OneFlow's layer_norm_grad checks it)", begin_norm_axis)
    stats = []
    for arg, value in (("mean", mean), ("inv_variance", inv_variance)):
        blob = check_blob(value, op, arg)
        if blob.shape != tuple(x.shape[:bna]) or not blob.meta.dtype.is_floating_point:
            raise arg_error(op, arg, f"a float blob of shape {tuple(x.shape[:bna])} (x.shape[:begin_norm_axis])",
                            Desc(f"{blob.lbn} {blob.shape} {blob.dtype}"))
        stats.append(blob)
    return apply(layer_norm_grad_kernel, d, x, stats[0], stats[1], bna, op_type="layer_norm_grad", name=name,
                 outputs=("dx_0",))


def layer_norm_param_grad_kernel(dy: torch.Tensor, normalized: torch.Tensor, gamma: torch.Tensor,
                                 begin_params_axis: int) -> tuple[torch.Tensor, ...]:
    axes = tuple(range(begin_params_axis))
    return dy * gamma, dy.sum(dim=axes), (dy * normalized).sum(dim=axes)


def layer_norm_param_grad(dy: Blob, norm: Blob, gamma: Blob, begin_params_axis: int = -1,
                          name: str = "LayerNormParamGrad") -> tuple[Blob, Blob, Blob]:
    """``flow.layers.layer_norm_param_grad(dy, norm, gamma, begin_params_axis=-1, name="LayerNormParamGrad")`` →
    ``(normalized_diff, beta_diff, gamma_diff)``: ``dy * gamma``, and ``dy`` and ``dy * norm`` summed over the
    axes before ``begin_params_axis`` (``gamma``'s shape is ``dy.shape[begin_params_axis:]``). A negative axis
    counts from the end (OneFlow's op refused the default -1 here; its layers passed a positive one)."""
    op = "layers.layer_norm_param_grad"
    normalized, d = _pair(op, "norm", norm, dy)
    g = check_blob(gamma, op, "gamma")
    bpa = norm_axis(begin_params_axis, d.ndim, op, "begin_params_axis")
    if bpa == 0:
        raise arg_error(op, "begin_params_axis", "an axis > 0", begin_params_axis)
    if g.shape != tuple(d.shape[bpa:]) or g.meta.dtype != d.meta.dtype:
        raise arg_error(op, "gamma", f"a {d.dtype} blob of shape {tuple(d.shape[bpa:])} (dy.shape[begin_params_axis:])",
                        Desc(f"{g.lbn} {g.shape} {g.dtype}"))
    out = apply(layer_norm_param_grad_kernel, d, normalized, g, bpa, op_type="layer_norm_param_grad", name=name,
                outputs=("normalized_diff_0", "beta_diff_0", "gamma_diff_0"))
    return out[0], out[1], out[2]
