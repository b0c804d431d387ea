"""``flow.regularizers``: l1 / l2 penalties attached to a variable.

The optimizer adds ``l1 * sign(w) + l2 * w`` to the variable's (already 1/n-scaled) gradient
before clipping and the update (OneFlow v0.3.4 ``job_rewriter/autograd.cpp``,
``RegularizeGradient``); nothing is added to the loss. OneFlow's ``flow.regularizers.*`` returned a
``RegularizerConf`` message (``python/ops/regularizer_util.py``); :func:`regularizer_from_conf` reads one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from flowtorch._src.errors import ArgumentError
from flowtorch._src.proto_confs import is_message, oneof_fields

__all__ = ["L1L2Regularizer", "l1", "l1_l2", "l2", "regularizer_from_conf"]


@dataclass(frozen=True)
class L1L2Regularizer:
    """OneFlow's ``L1L2RegularizerConf``: the two penalty factors."""

    l1: float = 0.0
    l2: float = 0.0

    def __post_init__(self) -> None:
        for field in ("l1", "l2"):
            value = getattr(self, field)
            if not isinstance(value, (int, float, np.floating, np.integer)) or isinstance(value, bool):
                raise ArgumentError(f"regularizers: {field} must be a number, got {value!r}")
            object.__setattr__(self, field, float(value))

    def __repr__(self) -> str:
        return f"regularizers.l1_l2(l1={self.l1!r}, l2={self.l2!r})"


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2Regularizer:
    """``flow.regularizers.l1_l2(l1=0.01, l2=0.01)``."""
    return L1L2Regularizer(l1, l2)


def l1(l: float = 0.01) -> L1L2Regularizer:  # noqa: E741 - OneFlow's parameter name
    """``flow.regularizers.l1(l=0.01)``: only the l1 term."""
    return L1L2Regularizer(l, 0.0)


def l2(l: float = 0.01) -> L1L2Regularizer:  # noqa: E741 - OneFlow's parameter name
    """``flow.regularizers.l2(l=0.01)``: only the l2 term."""
    return L1L2Regularizer(0.0, l)


def regularizer_from_conf(regularizer: Any) -> Any:
    """A ``RegularizerConf`` message (``oneflow.core.job.regularizer_conf_pb2``) as an :class:`L1L2Regularizer`,
    its unset factors at the schema's default 0; anything else is returned as it is."""
    if not is_message(regularizer, "oneflow.RegularizerConf"):
        return regularizer
    _, fields = oneof_fields(regularizer, "type", "regularizer")  # l1_l2_conf, its one kind in v0.4.0
    return L1L2Regularizer(fields.get("l1", 0.0), fields.get("l2", 0.0))
