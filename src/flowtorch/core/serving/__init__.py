"""``oneflow.core.serving``."""

from flowtorch.core.serving import saved_model_pb2 as saved_model_pb2

__all__ = ["saved_model_pb2"]
