"""``oneflow.core.common.data_type_pb2``: OneFlow's ``DataType`` enum."""

from flowtorch._src.data.protos import DataType as DataType
from flowtorch._src.data.protos import kChar as kChar
from flowtorch._src.data.protos import kDouble as kDouble
from flowtorch._src.data.protos import kFloat as kFloat
from flowtorch._src.data.protos import kFloat16 as kFloat16
from flowtorch._src.data.protos import kInt8 as kInt8
from flowtorch._src.data.protos import kInt32 as kInt32
from flowtorch._src.data.protos import kInt64 as kInt64
from flowtorch._src.data.protos import kInvalidDataType as kInvalidDataType
from flowtorch._src.data.protos import kOFRecord as kOFRecord
from flowtorch._src.data.protos import kTensorBuffer as kTensorBuffer
from flowtorch._src.data.protos import kUInt8 as kUInt8

__all__ = [
    "DataType", "kInvalidDataType", "kChar", "kFloat", "kDouble", "kInt8", "kInt32", "kInt64", "kUInt8",
    "kOFRecord", "kFloat16", "kTensorBuffer",
]
