from flowtorch.core.common import range_pb2 as _range_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TensorSliceViewProto(_message.Message):
    __slots__ = ("dim",)
    DIM_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedCompositeFieldContainer[_range_pb2.RangeProto]
    def __init__(self, dim: _Optional[_Iterable[_Union[_range_pb2.RangeProto, _Mapping]]] = ...) -> None: ...
