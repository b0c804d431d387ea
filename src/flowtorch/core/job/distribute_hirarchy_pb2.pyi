from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DistributeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kInvalidDistributeType: _ClassVar[DistributeType]
    kSpaceDistribute: _ClassVar[DistributeType]
    kTimeDistribute: _ClassVar[DistributeType]
kInvalidDistributeType: DistributeType
kSpaceDistribute: DistributeType
kTimeDistribute: DistributeType

class DistributeDim(_message.Message):
    __slots__ = ("distribute_type", "sbp_parallel", "distribute_num")
    DISTRIBUTE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTE_NUM_FIELD_NUMBER: _ClassVar[int]
    distribute_type: DistributeType
    sbp_parallel: _sbp_parallel_pb2.SbpParallel
    distribute_num: int
    def __init__(self, distribute_type: _Optional[_Union[DistributeType, str]] = ..., sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., distribute_num: _Optional[int] = ...) -> None: ...

class DistributeHirarchy(_message.Message):
    __slots__ = ("dim",)
    DIM_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedCompositeFieldContainer[DistributeDim]
    def __init__(self, dim: _Optional[_Iterable[_Union[DistributeDim, _Mapping]]] = ...) -> None: ...
