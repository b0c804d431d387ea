"""``oneflow.core``: the protobuf modules OneFlow programs import (``oneflow.core.record.record_pb2`` …)."""

from flowtorch.core import common as common
from flowtorch.core import operator as operator
from flowtorch.core import record as record
from flowtorch.core import serving as serving

__all__ = ["common", "operator", "record", "serving"]
