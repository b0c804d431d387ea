"""``oneflow.system``: ``system.assign(ref, value)``, OneFlow's system-op form of ``flow.assign``."""

from __future__ import annotations

from typing import Any

from flowtorch._src.ops import state_ops

__all__ = ["assign"]


def assign(ref: Any, value: Any, validate_shape: Any = None, use_locking: Any = None, name: str | None = None) -> None:
    """``flow.system.assign(ref, value, validate_shape=None, use_locking=None, name=None)``: ``flow.assign``
    (OneFlow ignored ``validate_shape`` and ``use_locking`` too)."""
    state_ops.assign(ref, value, name=name)
