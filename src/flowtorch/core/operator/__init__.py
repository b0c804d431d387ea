"""``oneflow.core.operator``."""

from flowtorch.core.operator import op_conf_pb2 as op_conf_pb2

__all__ = ["op_conf_pb2"]
