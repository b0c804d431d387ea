"""Element-wise losses of OneFlow v0.3.4: ``flow.nn.KLDivLoss`` (``ops/nn_ops.py``, built from other ops)
and ``flow.smooth_l1_loss`` (``ops/loss_ops.py``, user op ``smooth_l1_loss``).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.dtypes import int8
from flowtorch._src.ops._checks import arg_error, check_float_blob, check_like, check_number
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import cast, zeros_like
from flowtorch._src.ops.index_ops import where
from flowtorch._src.ops.loss_ops import _prep, _reduce
from flowtorch._src.ops.unary_ops import exp, log, rint


def KLDivLoss(input: Blob, target: Blob, log_target: bool = False, reduction: str = "mean",
              name: str | None = None) -> Blob:
    """``flow.nn.KLDivLoss``: target·(log(target) − input), or with ``log_target`` exp(target)·(target −
    input), element-wise, then reduced ("mean" over all elements, "sum" or "none").

    As OneFlow built it (ops named ``<name>log``, ``<name>rint``, ``<name>where`` …, name defaulting to
    ``KLDivLoss_<n>``): without ``log_target`` an element counts where ``int8(rint(target + 0.5)) != 0``
    — that is where target > 0 (and, as in OneFlow, where target < −1) — and is 0 elsewhere."""
    op = "nn.KLDivLoss"
    x, t = _prep(input, target, reduction, op)
    if not isinstance(log_target, bool):
        raise arg_error(op, "log_target", "a bool", log_target)
    prefix = name if name is not None else naming.unique_str("KLDivLoss_")
    if log_target:
        loss = exp(t, name=prefix + "exp") * (t - x)
    else:
        pointwise = t * (log(t, name=prefix + "log") - x)
        zeros = zeros_like(pointwise, name=prefix + "zeros")
        keep = cast(rint(t + 0.5, name=prefix + "rint"), int8, name=prefix + "cast2int")
        loss = where(keep, pointwise, zeros, name=prefix + "where")
    return _reduce(loss, reduction, prefix)


def smooth_l1_loss_kernel(prediction: torch.Tensor, label: torch.Tensor, beta: float) -> torch.Tensor:
    # OneFlow's label takes no gradient (requires_grad false in user/ops/smooth_l1_loss_op.cpp); with
    # beta == 0 both it and torch give |d| with gradient sign(d).
    return F.smooth_l1_loss(prediction, label.detach(), reduction="none", beta=beta)


def smooth_l1_loss(prediction: Blob, label: Blob, beta: float = 1.0, name: str | None = None) -> Blob:
    """``flow.smooth_l1_loss``: per element, with d = prediction − label, 0.5·d²/beta where |d| < beta,
    else |d| − 0.5·beta (``SmoothL1Loss_<n>/loss_0``). Float or double; the label gets no gradient."""
    op = "smooth_l1_loss"
    p = check_float_blob(prediction, op, "prediction")
    t = check_like(check_float_blob(label, op, "label"), p, op, "label", "prediction")
    if check_number(beta, op, "beta") < 0:
        raise arg_error(op, "beta", "a number >= 0", beta)
    b = float(np.float32(beta))  # OneFlow's attribute is a float32, also for double data
    return apply(smooth_l1_loss_kernel, p, t, b, op_type="smooth_l1_loss", prefix="SmoothL1Loss",
                 name=name, outputs=("loss_0",))


__all__ = ["KLDivLoss", "smooth_l1_loss"]
