from flowtorch.core.common import shape_pb2 as _shape_pb2
from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InterfaceBlobConf(_message.Message):
    __slots__ = ("shape", "data_type", "is_dynamic", "parallel_distribution")
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    IS_DYNAMIC_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    shape: _shape_pb2.ShapeProto
    data_type: _data_type_pb2.DataType
    is_dynamic: bool
    parallel_distribution: _sbp_parallel_pb2.ParallelDistribution
    def __init__(self, shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., is_dynamic: bool = ..., parallel_distribution: _Optional[_Union[_sbp_parallel_pb2.ParallelDistribution, _Mapping]] = ...) -> None: ...
