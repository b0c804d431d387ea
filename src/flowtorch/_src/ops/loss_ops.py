"""The PyTorch-style losses of ``flow.nn`` (v0.3.4 ``ops/nn_ops.py``): ``MSELoss``, ``L1Loss``, ``BCELoss``,
``BCEWithLogitsLoss``, ``MarginRankingLoss``.

OneFlow built each from other ops, so flowtorch does the same: the numbers (e.g. BCELoss without log
clamping) and the op names (``MSELoss<n>_mean_squared_subtract`` …, note OneFlow's prefix has no ``_``)
are OneFlow's. ``reduction`` is "mean" (a (1,) blob), "sum" or "none".
"""

from __future__ import annotations

from typing import Any

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_choice, check_float_blob
from flowtorch._src.ops.math_ops import (
    add,
    clip_by_value,
    multiply,
    reduce_mean,
    reduce_sum,
    squared_difference,
    subtract,
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
