"""``flow.math.reduce_*`` beyond sum/mean, and ``flow.nn.moments`` (OneFlow ``ops/reduce_ops.py``).

Single-op reductions (``ReduceMax_<n>/output_tensor_0`` …) run one torch call; a full reduction gives
shape (1,) (OneFlow has no 0-d blobs), ``keepdims`` keeps every axis as 1, and an empty axis list returns
the input unchanged. ``reduce_variance``/``reduce_std``/``reduce_logsumexp``/``reduce_euclidean_norm`` are
built from other ops exactly as OneFlow built them, so they have OneFlow's numbers (variance is
E[x²] − E[x]², not torch's two-pass formula) and its derived op names (``<name>_square_minuend`` …).
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import arg_error, check_blob, norm_axes, norm_axis
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import zeros_like
from flowtorch._src.ops.math_ops import not_equal, reduce_mean, reduce_sum, subtract
from flowtorch._src.ops.unary_ops import exp, log, sqrt, square


def _finish(out: torch.Tensor, x: torch.Tensor, full: bool, keepdims: bool) -> torch.Tensor:
    if full and not keepdims:
        return out.reshape(1)
    if out.dim() == 0:
        return out.reshape([1] * max(x.dim(), 1))
    return out


def reduce_max_kernel(x: torch.Tensor, axes: list[int], keepdims: bool) -> torch.Tensor:
    return _finish(torch.amax(x, dim=axes, keepdim=keepdims), x, len(axes) == x.dim(), keepdims)


def reduce_min_kernel(x: torch.Tensor, axes: list[int], keepdims: bool) -> torch.Tensor:
    return _finish(torch.amin(x, dim=axes, keepdim=keepdims), x, len(axes) == x.dim(), keepdims)


def reduce_prod_kernel(x: torch.Tensor, axes: list[int], keepdims: bool) -> torch.Tensor:
    out = x
    for d in sorted(axes, reverse=True):
        out = torch.prod(out, dim=d, keepdim=keepdims, dtype=x.dtype)
    return _finish(out, x, len(axes) == x.dim(), keepdims)


def reduce_any_kernel(x: torch.Tensor, axes: list[int], keepdims: bool) -> torch.Tensor:
    out = torch.any(x != 0, dim=axes, keepdim=keepdims).to(x.dtype)
    return _finish(out, x, len(axes) == x.dim(), keepdims)


def reduce_all_kernel(x: torch.Tensor, axes: list[int], keepdims: bool) -> torch.Tensor:
    out = torch.all(x != 0, dim=axes, keepdim=keepdims).to(x.dtype)
    return _finish(out, x, len(axes) == x.dim(), keepdims)


def _single(kernel: Any, prefix: str, public: str, empty: str = "identity") -> Any:
    def op(input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
        x = check_blob(input_tensor, f"math.{public}", "input_tensor")
        axes = norm_axes(axis, x.ndim, f"math.{public}")
        if not axes:
            if empty == "identity":
                return x
            return not_equal(x, 0)
        return apply(kernel, x, axes, bool(keepdims), op_type=public, prefix=prefix, name=name,
                     outputs=("output_tensor_0",), attrs={"axis": list(axes), "keepdims": bool(keepdims)})
    op.__name__ = op.__qualname__ = public
    op.__doc__ = (f"``flow.math.{public}(input_tensor, axis=None, keepdims=False, name=None)`` "
                  f"(OneFlow op ``{public}``, ``{prefix}_<n>/output_tensor_0``).")
    return op


reduce_max = _single(reduce_max_kernel, "ReduceMax", "reduce_max")
reduce_min = _single(reduce_min_kernel, "ReduceMin", "reduce_min")
reduce_prod = _single(reduce_prod_kernel, "ReduceProd", "reduce_prod")
reduce_any = _single(reduce_any_kernel, "ReduceAny", "reduce_any", empty="not_equal")
reduce_all = _single(reduce_all_kernel, "ReduceAll", "reduce_all", empty="not_equal")


def _prefix(name: str | None, default: str) -> str:
    return name if name is not None else naming.unique_str(default)


def reduce_variance(input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """E[x²] − E[x]² over ``axis`` (OneFlow's composition, ``ReduceVariance_<n>_…`` op names)."""
    x = check_blob(input_tensor, "math.reduce_variance", "input_tensor")
    name = _prefix(name, "ReduceVariance_")
    norm_axes(axis, x.ndim, "math.reduce_variance")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return zeros_like(x, name=name + "_zeros_like")
    return subtract(
        reduce_mean(square(x, name + "_square_minuend"), axis, keepdims, name + "_reduce_mean_minuend"),
        square(reduce_mean(x, axis, keepdims, name + "_reduce_mean_subtrahend"), name + "_square_subtrahend"),
        name + "_subtract")


def reduce_std(input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """sqrt(reduce_variance) (``ReduceStd_<n>_…``)."""
    x = check_blob(input_tensor, "math.reduce_std", "input_tensor")
    name = _prefix(name, "ReduceStd_")
    norm_axes(axis, x.ndim, "math.reduce_std")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return zeros_like(x, name=name + "_zeros_like")
    return sqrt(reduce_variance(x, axis, keepdims, name + "_reduce_variance"), name + "_sqrt")


def reduce_logsumexp(input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """log(reduce_sum(exp(x))) as OneFlow built it (no max shift: overflows like OneFlow for x > 88)."""
    x = check_blob(input_tensor, "math.reduce_logsumexp", "input_tensor")
    name = _prefix(name, "ReduceLogSumExp_")
    norm_axes(axis, x.ndim, "math.reduce_logsumexp")
    return log(reduce_sum(exp(x, name + "_exp"), axis, keepdims, name + "_reduce_sum"), name + "_log")


def reduce_euclidean_norm(input_tensor: Blob, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> Blob:
    """sqrt(reduce_sum(square(x))) (``ReduceEuclideanNorm_<n>_…``)."""
    x = check_blob(input_tensor, "math.reduce_euclidean_norm", "input_tensor")
    name = _prefix(name, "ReduceEuclideanNorm_")
    norm_axes(axis, x.ndim, "math.reduce_euclidean_norm")
    return sqrt(reduce_sum(square(x, name + "_square"), axis, keepdims, name + "_reduce_sum"), name + "_sqrt")


def moments(x: Blob, axes: Any, keepdims: bool = False, name: str | None = None) -> tuple[Blob, Blob]:
    """``flow.nn.moments``: (reduce_mean, reduce_variance) over ``axes``, built under the namespace
    ``Moments_<n>`` as in v0.3.4 (so op names read ``Moments_3-ReduceSum_4`` …)."""
    x = check_blob(x, "nn.moments", "x")
    if not isinstance(axes, (list, tuple)):
        raise arg_error("nn.moments", "axes", "a list of ints", axes)
    norm_axes(list(axes), x.ndim, "nn.moments", "axes")
    name = _prefix(name, "Moments_")
    with naming.namespace(name):
        return (reduce_mean(x, axis=list(axes), keepdims=keepdims),
                reduce_variance(x, axis=list(axes), keepdims=keepdims))


def l2_normalize_kernel(x: torch.Tensor, axis: int, epsilon: float) -> tuple[torch.Tensor, torch.Tensor]:
    square_sum = torch.sum(x * x, dim=axis, keepdim=True)
    y = x * torch.rsqrt(torch.clamp_min(square_sum, epsilon))
    return y, square_sum


def l2_normalize(input: Blob, axis: int | None = None, epsilon: float = 1e-12,
                 name: str | None = None) -> Blob:
    """``flow.math.l2_normalize``: x / sqrt(max(sum(x²), epsilon)) along ``axis``
    (``L2Normalize_<n>/y_0`` and ``square_x_sum_0``)."""
    x = check_blob(input, "math.l2_normalize", "input")
    ax = norm_axis(axis, x.ndim, "math.l2_normalize")
    y, _ = apply(l2_normalize_kernel, x, ax, float(epsilon), op_type="l2_normalize", prefix="L2Normalize", name=name,
                 outputs=("y_0", "square_x_sum_0"))
    return y

