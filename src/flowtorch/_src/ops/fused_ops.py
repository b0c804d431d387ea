"""OneFlow's transformer ops: ``nn.layer_norm`` (the op, with caller-made gamma/beta) and the fused ops
GPT uses — ``nn.fused_bias_add_gelu``, ``nn.fused_bias_add_dropout``, ``math.fused_scale_tril``,
``math.fused_scale_tril_softmax_dropout`` and ``nn.fused_self_attention_query_mul_key_and_value``.

Names, arguments and defaults follow OneFlow v0.4.0 (``ops/nn_ops.py``, ``ops/math_ops.py``,
``ops/domain_ops.py``); values follow its kernels (``user/kernels/*``):

* ``layer_norm``: ``LayerNorm_<n>/y_0`` (+ ``mean_0``, ``inv_variance_0`` of shape
  ``x.shape[:begin_norm_axis]``, and ``normalized_0`` when gamma is given) — the single ``layer_norm`` op of
  OneFlow's GPU placement. (Under a "cpu" placement OneFlow built it from ``moments`` +
  ``batch_normalization`` + ``reshape``/``*``/``+`` ops instead; flowtorch records the one op everywhere.)
* ``fused_bias_add_gelu``: gelu(value + bias) with the exact (erf) gelu, ``FusedBiasAddGelu_<n>/out_0``.
* ``fused_bias_add_dropout``: (value + bias) · mask · 1/(1 − rate). The mask is a ``RandomMaskLike`` op
  named ``<op>-dropout_random_mask_like`` and the fused op is ``BiasAddDropout_<n>/out_0``. In predict jobs
  and for rate 0 it is plain ``nn.bias_add`` (``BiasAdd_<n>/out_0``), as in OneFlow.
* ``fused_scale_tril``: x·scale where column ≤ row + diagonal (the last two axes), else fill_value
  (``FusedScaleTril_<n>/out_0``).
* ``fused_scale_tril_softmax_dropout``: softmax over the last axis of ``fused_scale_tril(x)``, then
  · mask · 1/(1 − rate): ``FusedTrilScaleSoftmaxMaskScale_<n>/y_0`` (+ ``softmax_y_0``, the softmax before
  dropout, which carries no gradient) and the mask op ``<op>-dropout_random_mask_like``. OneFlow drew
  the mask in predict jobs too; flowtorch treats the dropout as ``nn.dropout`` does — not applied in
  predict jobs or for rate 0 (no mask op is recorded then, and ``y_0`` equals ``softmax_y_0``).
* ``fused_self_attention_query_mul_key_and_value(x, head_size, alpha)``: x of shape (s, b, n·3·h) is
  viewed as (s, b, n, 3h); q, k, v are its three h-wide slices moved to (b, n, s, h); returns
  (alpha · q @ kᵀ of shape (b, n, s, s), v) as ``FusedSelfAttentionQueryMulKeyAndValue_<n>/
  {query_mul_key_0, value_0}``.

The dropout masks come from :func:`flowtorch._src.ops.random_ops.random_mask_like` (torch's default
generator, or the op's own seeded one with ``seed=``), so they are compile- and CUDA-graph-safe like
``nn.dropout``'s.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.ops._checks import (
    Desc,
    arg_error,
    check_blob,
    check_float_blob,
    check_number,
    check_rate,
    is_int,
    norm_axis,
)
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.nn_ops import bias_add, bias_add_kernel, bias_args
from flowtorch._src.ops.random_ops import random_mask_like


def _int(value: Any, op: str, arg: str) -> int:
    """Any int (``diagonal`` may be negative)."""
    if not is_int(value):
        raise arg_error(op, arg, "an int", value)
    return int(value)


# --- layer_norm ---------------------------------------------------------------------------------------------
def layer_norm_kernel(x: torch.Tensor, beta: torch.Tensor | None, gamma: torch.Tensor | None, begin_norm_axis: int,
                      eps: float) -> tuple[torch.Tensor, ...]:
    """OneFlow's ``layer_norm`` op: (y, mean, inv_variance[, normalized]); gamma/beta have the trailing
    shape ``x.shape[begin_params_axis:]`` and broadcast against x."""
    normalized, mean, rstd = torch.native_layer_norm(x, x.shape[begin_norm_axis:], None, None, eps)
    stat_shape = x.shape[:begin_norm_axis]
    y = normalized
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    mean, rstd = mean.reshape(stat_shape), rstd.reshape(stat_shape)
    return (y, mean, rstd, normalized) if gamma is not None else (y, mean, rstd)


def layer_norm(inputs: Blob, gamma: Blob | None = None, beta: Blob | None = None, begin_norm_axis: int = 1,
               begin_params_axis: int = -1, epsilon: float = 1e-5, name: str | None = None) -> Blob:
    """``flow.nn.layer_norm``: normalise over the axes from ``begin_norm_axis`` on, then ``* gamma + beta``
    (each optional, of shape ``inputs.shape[begin_params_axis:]``). Returns ``LayerNorm_<n>/y_0``."""
    op = "nn.layer_norm"
    x = check_float_blob(inputs, op, "inputs")
    if x.ndim < 1:
        raise arg_error(op, "inputs", "a blob of rank >= 1", Desc(f"{x.lbn} {x.shape}"))
    bna = norm_axis(begin_norm_axis, x.ndim, op, "begin_norm_axis")
    bpa = norm_axis(begin_params_axis, x.ndim, op, "begin_params_axis")
    check_number(epsilon, op, "epsilon")
    param_shape = x.shape[bpa:]
    params: dict[str, Blob | None] = {}
    for arg, p in (("gamma", gamma), ("beta", beta)):
        if p is None:
            params[arg] = None
            continue
        b = check_blob(p, op, arg)
        if b.shape != param_shape:
            raise arg_error(op, arg, f"shape {param_shape} (inputs.shape[{begin_params_axis}:] of {x.lbn} {x.shape})",
                            Desc(f"{b.lbn} {b.shape}"))
        if b.meta.dtype != x.meta.dtype:
            raise TypeError(f"flow.{op}: {arg} dtype {b.dtype} differs from inputs dtype {x.dtype}")
        params[arg] = b
    outputs = ("y_0", "mean_0", "inv_variance_0") + (("normalized_0",) if gamma is not None else ())
    blobs = apply(layer_norm_kernel, x, params["beta"], params["gamma"], bna, float(epsilon), op_type="layer_norm",
                  prefix="LayerNorm", name=name, outputs=outputs)
    return blobs[0]


# --- bias add + gelu / dropout ----------------------------------------------------------------------------------
def fused_bias_add_gelu_kernel(x: torch.Tensor, b: torch.Tensor, axis: int) -> torch.Tensor:
    return F.gelu(bias_add_kernel(x, b, axis))


def fused_bias_add_gelu(value: Blob, bias: Blob, data_format: str | None = None, name: str | None = None) -> Blob:
    """``flow.nn.fused_bias_add_gelu``: gelu(bias_add(value, bias, data_format)) in one op
    (``FusedBiasAddGelu_<n>/out_0``)."""
    x, b, axis = bias_args(value, bias, data_format, "nn.fused_bias_add_gelu")
    return apply(fused_bias_add_gelu_kernel, x, b, axis, op_type="fused_bias_add_gelu", prefix="FusedBiasAddGelu",
                 name=name)


def fused_bias_add_mask_scale_kernel(x: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, axis: int,
                                     scale: float) -> torch.Tensor:
    return bias_add_kernel(x, b, axis).mul_(mask).mul_(scale)


def fused_bias_add_dropout(value: Blob, bias: Blob, data_format: str | None = None, rate: float = 0.0,
                           noise_shape: Any = None, seed: int | None = None, name: str | None = None) -> Blob:
    """``flow.nn.fused_bias_add_dropout``: dropout(bias_add(value, bias, data_format), rate) in one op
    (``BiasAddDropout_<n>/out_0``); plain ``nn.bias_add`` in predict jobs or for rate 0."""
    op = "nn.fused_bias_add_dropout"
    rate = check_rate(rate, op)
    if not current_builder(op).is_train or rate == 0.0:
        return bias_add(value, bias, data_format, name)
    x, b, axis = bias_args(value, bias, data_format, op)
    check_float_blob(x, op, "value")
    base = name if name is not None else naming.unique_str("BiasAddDropout_")
    mask = random_mask_like(x, rate, seed, noise_shape, name=f"{base}-dropout_random_mask_like")
    return apply(fused_bias_add_mask_scale_kernel, x, b, mask, axis, float(1.0 / (1.0 - rate)),
                 op_type="fused_bias_add_mask_scale", op_name=naming.scoped(base))


# --- scale + tril (+ softmax + dropout) --------------------------------------------------------------------------
def _lower_triangle(x: torch.Tensor, diagonal: int) -> torch.Tensor:
    """True where column <= row + diagonal, over the last two axes of x."""
    rows = torch.arange(x.shape[-2], device=x.device).unsqueeze(-1)
    cols = torch.arange(x.shape[-1], device=x.device)
    return cols <= rows + diagonal


def fused_scale_tril_kernel(x: torch.Tensor, diagonal: int, fill: float | int, scale: float | int) -> torch.Tensor:
    return torch.where(_lower_triangle(x, diagonal), x * scale, fill)


def _tril_args(x: Any, diagonal: Any, fill_value: Any, scale: Any, op: str) -> tuple[Blob, int, Any, Any]:
    x = check_blob(x, op, "x")
    if x.ndim < 2:
        raise arg_error(op, "x", "a blob of rank >= 2", Desc(f"{x.lbn} {x.shape}"))
    diagonal = _int(diagonal, op, "diagonal")
    fill = check_number(fill_value, op, "fill_value")
    scale = check_number(scale, op, "scale")
    if not x.meta.dtype.is_floating_point:
        # OneFlow casts both attributes to the blob's type
        if isinstance(fill, float) and not math.isfinite(fill):
            raise arg_error(op, "fill_value", f"a finite number for the {x.dtype} blob {x.lbn}", fill_value)
        fill, scale = int(fill), int(scale)
    return x, diagonal, fill, scale


def fused_scale_tril(x: Blob, diagonal: int = 0, fill_value: float | int = 0, scale: float | int = 1,
                     name: str | None = None) -> Blob:
    """``flow.math.fused_scale_tril`` (also ``flow.nn.``): x·scale on and below the ``diagonal``-th
    diagonal of the last two axes, ``fill_value`` above it (``FusedScaleTril_<n>/out_0``)."""
    x, diagonal, fill, scale = _tril_args(x, diagonal, fill_value, scale, "math.fused_scale_tril")
    return apply(fused_scale_tril_kernel, x, diagonal, fill, scale, op_type="fused_scale_tril", prefix="FusedScaleTril",
                 name=name)


def fused_tril_scale_softmax_kernel(x: torch.Tensor, diagonal: int, fill: float,
                                    scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    softmax_y = torch.softmax(fused_scale_tril_kernel(x, diagonal, fill, scale), dim=-1)
    return softmax_y, softmax_y.detach()


def fused_tril_scale_softmax_mask_scale_kernel(x: torch.Tensor, mask: torch.Tensor, diagonal: int, fill: float,
                                               scale: float, mask_scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    softmax_y = torch.softmax(fused_scale_tril_kernel(x, diagonal, fill, scale), dim=-1)
    return softmax_y * mask * mask_scale, softmax_y.detach()


def fused_scale_tril_softmax_dropout(x: Blob, diagonal: int = 0, fill_value: float | int = 0,
                                     scale: float | int = 1, rate: float = 0.0, noise_shape: Any = None,
                                     seed: int | None = None, name: str | None = None) -> Blob:
    """``flow.math.fused_scale_tril_softmax_dropout`` (also ``flow.nn.``): dropout(softmax(
    fused_scale_tril(x)), rate) with softmax over the last axis; returns
    ``FusedTrilScaleSoftmaxMaskScale_<n>/y_0``."""
    op = "math.fused_scale_tril_softmax_dropout"
    x = check_float_blob(x, op, "x")
    x, diagonal, fill, scale = _tril_args(x, diagonal, fill_value, scale, op)
    rate = check_rate(rate, op)
    if noise_shape is not None:
        raise NotImplementedError(f"flow.{op}: noise_shape is not supported (nor was it in OneFlow's "
                                  "random_mask_like)")
    base = name if name is not None else naming.unique_str("FusedTrilScaleSoftmaxMaskScale_")
    outputs = ("y_0", "softmax_y_0")
    if not current_builder(op).is_train or rate == 0.0:
        y, _ = apply(fused_tril_scale_softmax_kernel, x, diagonal, float(fill), float(scale),
                     op_type="fused_tril_scale_softmax_mask_scale", op_name=naming.scoped(base), outputs=outputs)
        return y
    mask = random_mask_like(x, rate, seed, name=f"{base}-dropout_random_mask_like")
    y, _ = apply(fused_tril_scale_softmax_mask_scale_kernel, x, mask, diagonal, float(fill), float(scale),
                 float(1.0 / (1.0 - rate)), op_type="fused_tril_scale_softmax_mask_scale", op_name=naming.scoped(base),
                 outputs=outputs)
    return y


# --- self-attention q·kᵀ and v --------------------------------------------------------------------------------
def fused_self_attention_kernel(h: torch.Tensor, head_size: int, alpha: float) -> tuple[torch.Tensor, torch.Tensor]:
    seq, batch, hidden = h.shape
    heads = hidden // (3 * head_size)
    h4 = h.reshape(seq, batch, heads, 3 * head_size)
    q = h4[..., :head_size].permute(1, 2, 0, 3)
    k = h4[..., head_size:2 * head_size].permute(1, 2, 3, 0)  # (b, n, h, s): kᵀ
    v = h4[..., 2 * head_size:].permute(1, 2, 0, 3)
    return torch.matmul(q, k).mul_(alpha), v.contiguous()


def fused_self_attention_query_mul_key_and_value(x: Blob, head_size: int, alpha: float = 1.0,
                                                 name: str | None = None) -> tuple[Blob, Blob]:
    """``flow.nn.fused_self_attention_query_mul_key_and_value(x, head_size, alpha=1.0)``: for x of shape
    (seq, batch, heads·3·head_size) returns (alpha·q@kᵀ of shape (batch, heads, seq, seq),
    v of shape (batch, heads, seq, head_size))."""
    op = "nn.fused_self_attention_query_mul_key_and_value"
    x = check_float_blob(x, op, "x")
    if isinstance(head_size, bool) or not isinstance(head_size, int) or head_size <= 0:
        raise arg_error(op, "head_size", "a positive int", head_size)
    check_number(alpha, op, "alpha")
    if x.ndim != 3 or x.shape[2] % (3 * head_size):
        raise arg_error(op, "x", f"a blob of shape (seq, batch, heads * 3 * {head_size})",
                        Desc(f"{x.lbn} {x.shape}"))
    qmk, v = apply(fused_self_attention_kernel, x, int(head_size), float(alpha),
                   op_type="fused_self_attention_query_mul_key_and_value",
                   prefix="FusedSelfAttentionQueryMulKeyAndValue", name=name, outputs=("query_mul_key_0", "value_0"))
    return qmk, v


__all__ = ["fused_bias_add_dropout", "fused_bias_add_gelu", "fused_scale_tril", "fused_scale_tril_softmax_dropout",
           "fused_self_attention_query_mul_key_and_value", "layer_norm", "layer_norm_kernel"]
