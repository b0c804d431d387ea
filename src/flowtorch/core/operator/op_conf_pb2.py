"""``oneflow.core.operator.op_conf_pb2``: the ``ActivationType`` enum that programs pass to OneFlow's
fused ops (``op_conf_util.kNone`` …)."""

from flowtorch._src.data.protos import ActivationType as ActivationType
from flowtorch._src.data.protos import kNone as kNone
from flowtorch._src.data.protos import kRelu as kRelu
from flowtorch._src.data.protos import kSigmoid as kSigmoid
from flowtorch._src.data.protos import kTanH as kTanH

__all__ = [
    "ActivationType", "kNone", "kTanH", "kSigmoid", "kRelu",
]
