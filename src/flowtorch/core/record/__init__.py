"""``oneflow.core.record``."""

from flowtorch.core.record import record_pb2 as record_pb2

__all__ = ["record_pb2"]
