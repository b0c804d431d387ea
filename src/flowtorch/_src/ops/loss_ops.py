"""The PyTorch-style losses of ``flow.nn`` (v0.3.4 ``ops/nn_ops.py``): ``MSELoss``, ``L1Loss``, ``BCELoss``,
``BCEWithLogitsLoss``, ``MarginRankingLoss``, and v0.4.0's ``flow.ctc_loss``.

OneFlow built each from other ops, so flowtorch does the same: the numbers (e.g. BCELoss without log
clamping) and the op names (``MSELoss<n>_mean_squared_subtract`` …, note OneFlow's prefix has no ``_``)
are OneFlow's. ``reduction`` is "mean" (a (1,) blob), "sum" or "none".
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_choice, check_float_blob
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.array_ops import cast, constant, zeros
from flowtorch._src.ops.index_ops import where
from flowtorch._src.ops.math_ops import (
    add,
    clip_by_value,
    equal,
    multiply,
    reduce_mean,
    reduce_sum,
    squared_difference,
    subtract,
    xdivy,
)
from flowtorch._src.ops.unary_ops import abs as abs_
from flowtorch._src.ops.unary_ops import exp, log, negative

_REDUCTIONS = ("none", "mean", "sum")


def _prep(input: Any, target: Any, reduction: str, op: str, a: str = "input", b: str = "target") -> tuple[Blob, Blob]:
    x = check_float_blob(input, op, a)
    t = check_float_blob(target, op, b)
    if x.shape != t.shape:
        raise arg_error(op, b, f"the shape of {a} {x.shape}", Desc(f"{t.lbn} {t.shape}"))
    check_choice(reduction, _REDUCTIONS, op, "reduction")
    return x, t


def _reduce(value: Blob, reduction: str, prefix: str) -> Blob:
    if reduction == "mean":
        return reduce_mean(value, name=prefix + "_reduce_mean")
    if reduction == "sum":
        return reduce_sum(value, name=prefix + "_reduce_sum")
    return value


def MSELoss(input: Blob, target: Blob, reduction: str = "mean", name: str | None = None) -> Blob:
    """``flow.nn.MSELoss``: (target − input)² reduced (``MSELoss<n>_mean_squared_…``, ``…_reduce_mean``)."""
    x, t = _prep(input, target, reduction, "nn.MSELoss")
    prefix = name if name is not None else naming.unique_str("MSELoss")
    return _reduce(squared_difference(t, x, name=prefix + "_mean_squared"), reduction, prefix)


def L1Loss(input: Blob, target: Blob, reduction: str = "mean", name: str | None = None) -> Blob:
    """``flow.nn.L1Loss``: |target − input| reduced (``L1Loss<n>_sub``, ``L1Loss<n>_abs`` …)."""
    x, t = _prep(input, target, reduction, "nn.L1Loss")
    prefix = name if name is not None else naming.unique_str("L1Loss")
    return _reduce(abs_(subtract(t, x, name=prefix + "_sub"), name=prefix + "_abs"), reduction, prefix)


def _weighted(loss: Blob, weight: Any, x: Blob, op: str) -> Blob:
    if weight is None:
        return loss
    w = check_float_blob(weight, op, "weight")
    if w.shape != x.shape:
        raise arg_error(op, "weight", f"the shape of input {x.shape}", Desc(f"{w.lbn} {w.shape}"))
    return w * loss


def BCELoss(input: Blob, target: Blob, weight: Blob | None = None, reduction: str = "mean",
            name: str | None = None) -> Blob:
    """``flow.nn.BCELoss``: −(t·log(x) + (1 − t)·log(1 − x)) [· weight], reduced; no clamping of the logs
    (OneFlow's formula)."""
    x, t = _prep(input, target, reduction, "nn.BCELoss")
    prefix = name if name is not None else naming.unique_str("BCELoss")
    loss = negative(t * log(x) + (1 - t) * log(1 - x))
    return _reduce(_weighted(loss, weight, x, "nn.BCELoss"), reduction, prefix)


def BCEWithLogitsLoss(input: Blob, target: Blob, weight: Blob | None = None,
                      pos_weight: Blob | None = None, reduction: str = "mean", name: str | None = None) -> Blob:
    """``flow.nn.BCEWithLogitsLoss``: the stable sigmoid cross entropy, with optional ``pos_weight``
    (one value per class, the last axis) and ``weight``. OneFlow v0.3.4 required ``pos_weight``
    (it read ``pos_weight.shape`` unconditionally); flowtorch allows None."""
    op = "nn.BCEWithLogitsLoss"
    x, t = _prep(input, target, reduction, op)
    if pos_weight is not None:
        pw = check_float_blob(pos_weight, op, "pos_weight")
        if pw.shape[0] != x.shape[-1]:
            raise arg_error(op, "pos_weight", f"length {x.shape[-1]} (the number of classes)",
                            Desc(f"{pw.lbn} {pw.shape}"))
    prefix = name if name is not None else naming.unique_str("BCEWithLogitsLoss")
    neg_input = negative(x)
    max_val = clip_by_value(neg_input, min_value=0)
    neg_max_val = negative(max_val)
    if pos_weight is not None:
        log_weight = ((pos_weight - 1) * t) + 1
        loss = (1 - t) * x + log_weight * (log(exp(neg_max_val) + exp(neg_input - max_val)) + max_val)
    else:
        loss = (1 - t) * x + max_val
        loss = loss + log(exp(neg_max_val) + exp(neg_input - max_val))
    return _reduce(_weighted(loss, weight, x, op), reduction, prefix)


def MarginRankingLoss(input1: Blob, input2: Blob, target: Blob, margin: float = 0.0,
                      reduction: str = "mean", name: str | None = None) -> Blob:
    """``flow.nn.MarginRankingLoss``: max(0, margin − target·(input1 − input2)), reduced."""
    op = "nn.MarginRankingLoss"
    x1, x2 = _prep(input1, input2, reduction, op, "input1", "input2")
    t = check_float_blob(target, op, "target")
    if not isinstance(margin, (int, float)) or isinstance(margin, bool):
        raise arg_error(op, "margin", "a number", margin)
    prefix = name if name is not None else naming.unique_str("MarginRankingLoss")
    loss = clip_by_value(add(float(margin), multiply(t, negative(subtract(x1, x2)))), min_value=0.0)
    return _reduce(loss, reduction, prefix)


def ctc_loss_kernel(log_probs: torch.Tensor, targets: torch.Tensor, input_lengths: torch.Tensor,
                    target_lengths: torch.Tensor, blank: int, zero_infinity: bool) -> tuple[torch.Tensor, torch.Tensor]:
    # OneFlow's ctc_loss op (user/kernels/ctc_loss_kernel_util.cpp): each sample's negative log likelihood and the
    # log alphas (batch, time, 2 * max_target_length + 1) of the forward recursion, as aten's _ctc_loss gives them
    loss, alpha = torch._ctc_loss(log_probs, targets.long(), input_lengths.long(), target_lengths.long(), blank,
                                  zero_infinity)
    return loss, alpha


def ctc_loss(log_probs: Blob, targets: Blob, input_lengths: Blob, target_lengths: Blob, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False, name: str | None = None) -> Blob:
    """``flow.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
    zero_infinity=False)`` (v0.4.0, ``ops/loss_ops.py``): Connectionist Temporal Classification. ``log_probs`` is
    (time, batch, labels), ``targets`` (batch, max_target_length). OneFlow's composition: the ``ctc_loss`` op
    (``CTCLoss_<n>/loss_0``), infinite losses set to 0 under ``zero_infinity`` (their gradients too), then "mean"
    divides each loss by its target length (at least 1) and averages, "sum" adds up, "none" keeps the batch."""
    op = "ctc_loss"
    lp = check_float_blob(log_probs, op, "log_probs")
    tg = check_blob(targets, op, "targets")
    lengths = [check_blob(b, op, arg) for b, arg in ((input_lengths, "input_lengths"),
                                                     (target_lengths, "target_lengths"))]
    red = check_choice(reduction, _REDUCTIONS, op, "reduction")
    if lp.ndim != 3:
        raise arg_error(op, "log_probs", "a (time, batch, labels) blob", Desc(f"{lp.lbn} {lp.shape}"))
    batch = lp.shape[1]
    if tg.ndim != 2 or tg.shape[0] != batch or tg.meta.dtype not in (torch.int32, torch.int64):
        raise arg_error(op, "targets", f"an int32/int64 blob of shape ({batch}, max_target_length)",
                        Desc(f"{tg.lbn} {tg.shape} {tg.dtype}"))
    for blob, arg in zip(lengths, ("input_lengths", "target_lengths")):
        if blob.shape != (batch,) or blob.meta.dtype not in (torch.int32, torch.int64):
            raise arg_error(op, arg, f"an int32/int64 blob of shape ({batch},)", Desc(f"{blob.lbn} {blob.shape} "
                                                                                      f"{blob.dtype}"))
    if not isinstance(blank, int) or isinstance(blank, bool) or not 0 <= blank < lp.shape[2]:
        raise arg_error(op, "blank", f"a label index in [0, {lp.shape[2]})", blank)
    prefix = name if name is not None else naming.unique_str("CTCLoss_")
    loss, _ = apply(ctc_loss_kernel, lp, tg, lengths[0], lengths[1], blank, bool(zero_infinity), op_type="ctc_loss",
                    op_name=prefix, outputs=("loss_0", "alpha_0"))
    if zero_infinity:
        inf = constant(float("inf"), dtype=lp.dtype, shape=loss.shape, name=prefix + "_constant")
        none = zeros(loss.shape, dtype=lp.dtype, name=prefix + "_zeros")
        loss = where(equal(loss, inf, name=prefix + "_equal"), none, loss, name=prefix + "_where")
    if red == "mean":
        scale = cast(clip_by_value(lengths[1], min_value=1, name=prefix + "_clip_by_value"), dtype=lp.dtype,
                     name=prefix + "_cast")
        return reduce_mean(xdivy(loss, scale, name=prefix + "_xdivy"), name=prefix + "_reduce_mean")
    if red == "sum":
        return reduce_sum(loss, name=prefix + "_reduce_sum")
    return loss
