"""Margin losses of OneFlow v0.3.4: ``flow.nn.TripletMarginLoss`` (``ops/nn_ops.py``, built from other ops)
and ``flow.combined_margin_loss`` (``ops/combined_margin_loss.py``, user op ``combined_margin_loss``: the
ArcFace/CosFace/SphereFace logit margin). ``nn.MarginRankingLoss`` lives with the other PyTorch-style
losses in :mod:`flowtorch._src.ops.loss_ops`.
"""

from __future__ import annotations

import numpy as np
import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_float_blob, check_number
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import constant_like
from flowtorch._src.ops.loss_ops import _prep, _reduce
from flowtorch._src.ops.math_ops import clip_by_value, reduce_sum
from flowtorch._src.ops.math_ops import pow as pow_
from flowtorch._src.ops.unary_ops import abs as abs_
from flowtorch._src.ops.unary_ops import sqrt, square


# --- TripletMarginLoss --------------------------------------------------------------------------------------
def _p_norm(x: Blob, p: float, name: str) -> Blob:
    """The p-norm over axis 1, built from ops named as OneFlow's ``_p_norm`` named them."""
    magnitude = abs_(x, name=name + "_abs")
    if p == 2.0:
        return sqrt(reduce_sum(square(magnitude, name=name + "_square"), axis=1, name=name + "_sum"),
                    name=name + "_sqrt")
    # OneFlow made these constants float32; flowtorch uses x's dtype so double inputs work too.
    exponent = constant_like(magnitude, p, dtype=x.dtype, name=name + "_p_constant")
    powered = pow_(magnitude, exponent, name=name + "_pow1")
    total = reduce_sum(powered, axis=1, name=name + "_sum")
    return pow_(total, constant_like(total, 1.0 / p, dtype=x.dtype, name=name + "_p_reciprocal_constant"),
                name=name + "_norm_val")


def TripletMarginLoss(anchor: Blob, positive: Blob, negative: Blob, margin: float = 1.0,
                      p: float = 2.0, eps: float = 1e-6, swap: bool = False, reduction: str = "mean",
                      name: str | None = None) -> Blob:
    """``flow.nn.TripletMarginLoss``: max(0, margin + ‖a − p + eps‖ₚ − ‖a − n + eps‖ₚ) per row (norms over
    axis 1), reduced. Ops are named ``<name>_distance_1_abs`` …, ``<name>_reduce_mean`` (name defaulting
    to ``TripletMarginLoss<n>``). ``swap=True`` is refused, as OneFlow refused it."""
    op = "nn.TripletMarginLoss"
    a, pos = _prep(anchor, positive, reduction, op, "anchor", "positive")
    _, neg = _prep(anchor, negative, reduction, op, "anchor", "negative")
    if a.ndim < 2:
        raise arg_error(op, "anchor", "a blob of rank >= 2 (the norm is taken over axis 1)",
                        Desc(f"{a.lbn} {a.shape}"))
    margin_f = check_number(margin, op, "margin")
    p_f = check_number(p, op, "p")
    if p_f <= 0:
        raise arg_error(op, "p", "a positive number", p)
    eps_f = check_number(eps, op, "eps")
    if swap is not False:
        raise arg_error(op, "swap", "False (OneFlow v0.3.4 did not support the distance swap)", swap)
    prefix = name if name is not None else naming.unique_str("TripletMarginLoss")
    d_pos = _p_norm(a - pos + eps_f, p_f, prefix + "_distance_1")
    d_neg = _p_norm(a - neg + eps_f, p_f, prefix + "_distance_2")
    loss = clip_by_value(margin_f + d_pos - d_neg, min_value=0.0)
    return _reduce(loss, reduction, prefix)


# --- combined_margin_loss -----------------------------------------------------------------------------------
def combined_margin_loss_kernel(x: torch.Tensor, label: torch.Tensor, m1: float, m2: float,
                                m3: float) -> tuple[torch.Tensor, torch.Tensor]:
    """y = x except y[i, label[i]] = cos(m1·θ + m2) − m3 with θ = acos(x[i, label[i]]); theta[i] = θ (0 for a
    label outside [0, classes)). Autograd gives OneFlow's backward, dy·m1·sin(m1·θ + m2) / sin θ."""
    flat = x.reshape(x.shape[0], -1)
    classes = flat.shape[1]
    valid = (label >= 0) & (label < classes)
    column = torch.where(valid, label, 0).long().unsqueeze(1)
    logit = flat.gather(1, column).squeeze(1)
    # rows with no class in range keep x; 0 stands in for their cosine so acos (and its gradient) stays finite
    theta = torch.acos(torch.where(valid, logit, 0.0))
    picked = torch.where(valid, torch.cos(theta * m1 + m2) - m3, logit)
    y = flat.scatter(1, column, picked.unsqueeze(1)).reshape(x.shape)
    return y, torch.where(valid, theta, 0.0).detach()


def combined_margin_loss(x: Blob, label: Blob, m1: float = 1, m2: float = 0, m3: float = 0,
                         name: str | None = None) -> Blob:
    """``flow.combined_margin_loss(x, label, m1, m2, m3)``: the cosine logits ``x`` (N, classes…) with the
    label's logit of each row replaced by cos(m1·acos(x) + m2) − m3 (ArcFace m2, CosFace m3, SphereFace
    m1). Records ``CombinedMarginLoss_<n>/{y_0,theta_0}`` and returns ``y_0``; a row whose label is
    outside [0, classes) is left unchanged, as OneFlow's kernel leaves it. The label gets no gradient."""
    op = "combined_margin_loss"
    xb = check_float_blob(x, op, "x")
    lab = check_blob(label, op, "label")
    if lab.meta.dtype not in (torch.int32, torch.int64):
        raise TypeError(f"flow.{op}: label must be an int32 or int64 blob; received {lab.lbn} of dtype {lab.dtype}")
    if xb.ndim < 2:
        raise arg_error(op, "x", "a blob of rank >= 2 (N, classes)", Desc(f"{xb.lbn} {xb.shape}"))
    if lab.shape != (xb.shape[0],):
        raise arg_error(op, "label", f"shape ({xb.shape[0]},) (one class per row of x)", Desc(f"{lab.lbn} {lab.shape}"))
    # OneFlow's margins are float32 attributes, also for double data
    margins = [float(np.float32(check_number(m, op, arg))) for m, arg in ((m1, "m1"), (m2, "m2"), (m3, "m3"))]
    y, _ = apply(combined_margin_loss_kernel, xb, lab, *margins, op_type="combined_margin_loss",
                 prefix="CombinedMarginLoss", name=name, outputs=("y_0", "theta_0"))
    return y


__all__ = ["TripletMarginLoss", "combined_margin_loss"]
