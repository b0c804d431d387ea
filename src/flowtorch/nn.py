"""``oneflow.nn``: neural-network ops."""

from flowtorch._src.ops.nn_ops import relu as relu

__all__ = ["relu"]
