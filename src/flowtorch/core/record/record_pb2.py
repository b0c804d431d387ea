"""``oneflow.core.record.record_pb2``: the OFRecord messages, to write and read record files."""

from flowtorch._src.data.protos import BytesList as BytesList
from flowtorch._src.data.protos import DoubleList as DoubleList
from flowtorch._src.data.protos import Feature as Feature
from flowtorch._src.data.protos import FloatList as FloatList
from flowtorch._src.data.protos import Int32List as Int32List
from flowtorch._src.data.protos import Int64List as Int64List
from flowtorch._src.data.protos import OFRecord as OFRecord

__all__ = [
    "BytesList", "DoubleList", "Feature", "FloatList", "Int32List", "Int64List", "OFRecord",
]
