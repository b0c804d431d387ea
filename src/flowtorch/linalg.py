"""``oneflow.linalg``: matrix products."""

from flowtorch._src.ops.array_ops import matmul as matmul

__all__ = ["matmul"]
