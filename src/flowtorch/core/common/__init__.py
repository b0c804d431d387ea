"""``oneflow.core.common``."""

from flowtorch.core.common import data_type_pb2 as data_type_pb2

__all__ = ["data_type_pb2"]
