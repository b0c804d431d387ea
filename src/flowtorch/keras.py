"""``oneflow.keras`` (v0.1.2): ``keras.activations`` and ``keras.maths``, thin names for ops flowtorch has."""

from __future__ import annotations

import types
from typing import Any

from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import grad_ops, math_ops, nn_ops, unary_ops

__all__ = ["activations", "maths"]


def _relu(x: Any, alpha: float = 0.0, max_value: Any = None, threshold: float = 0.0, name: str | None = None) -> Any:
    """``keras.activations.relu``: OneFlow v0.1.2 asserted the Keras extras away (alpha 0, no max, threshold 0)."""
    if alpha != 0.0 or max_value is not None or threshold != 0.0:
        raise ArgumentError(f"flow.keras.activations.relu: only alpha=0, max_value=None, threshold=0 (as OneFlow); "
                            f"received alpha={alpha!r}, max_value={max_value!r}, threshold={threshold!r}")
    return nn_ops.relu(x, name=name)


activations = types.SimpleNamespace(relu=_relu, sigmoid=unary_ops.sigmoid, tanh=unary_ops.tanh, gelu=unary_ops.gelu,
                                    gelu_grad=grad_ops.gelu_grad, tanh_grad=grad_ops.tanh_grad)
maths = types.SimpleNamespace(add=math_ops.add)
