from flowtorch.core.common import shape_pb2 as _shape_pb2
from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from flowtorch.core.common import device_type_pb2 as _device_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kOpTypeInvalid: _ClassVar[OpType]
    kOpTypeAllReduce: _ClassVar[OpType]
    kOpTypeReduceScatter: _ClassVar[OpType]
    kOpTypeAllGather: _ClassVar[OpType]
    kOpTypeReduce: _ClassVar[OpType]
    kOpTypeBroadcast: _ClassVar[OpType]
    kOpTypeAll2All: _ClassVar[OpType]

class ReduceMethod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kReduceMethodInvalid: _ClassVar[ReduceMethod]
    kReduceMethodSum: _ClassVar[ReduceMethod]

class Backend(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kBackendInvalid: _ClassVar[Backend]
    kBackendNCCL: _ClassVar[Backend]
kOpTypeInvalid: OpType
kOpTypeAllReduce: OpType
kOpTypeReduceScatter: OpType
kOpTypeAllGather: OpType
kOpTypeReduce: OpType
kOpTypeBroadcast: OpType
kOpTypeAll2All: OpType
kReduceMethodInvalid: ReduceMethod
kReduceMethodSum: ReduceMethod
kBackendInvalid: Backend
kBackendNCCL: Backend

class DeviceDesc(_message.Message):
    __slots__ = ("machine_id", "device_type", "device_id")
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    machine_id: int
    device_type: _device_type_pb2.DeviceType
    device_id: int
    def __init__(self, machine_id: _Optional[int] = ..., device_type: _Optional[_Union[_device_type_pb2.DeviceType, str]] = ..., device_id: _Optional[int] = ...) -> None: ...

class DeviceSet(_message.Message):
    __slots__ = ("device",)
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    device: _containers.RepeatedCompositeFieldContainer[DeviceDesc]
    def __init__(self, device: _Optional[_Iterable[_Union[DeviceDesc, _Mapping]]] = ...) -> None: ...

class OpDesc(_message.Message):
    __slots__ = ("name", "op_type", "reduce_method", "root", "data_type", "shape", "num_ranks", "backend")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    REDUCE_METHOD_FIELD_NUMBER: _ClassVar[int]
    ROOT_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    NUM_RANKS_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    name: str
    op_type: OpType
    reduce_method: ReduceMethod
    root: int
    data_type: _data_type_pb2.DataType
    shape: _shape_pb2.ShapeProto
    num_ranks: int
    backend: Backend
    def __init__(self, name: _Optional[str] = ..., op_type: _Optional[_Union[OpType, str]] = ..., reduce_method: _Optional[_Union[ReduceMethod, str]] = ..., root: _Optional[int] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., num_ranks: _Optional[int] = ..., backend: _Optional[_Union[Backend, str]] = ...) -> None: ...

class RequestDesc(_message.Message):
    __slots__ = ("op_desc", "device_set", "order", "dependency_depth")
    OP_DESC_FIELD_NUMBER: _ClassVar[int]
    DEVICE_SET_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_DEPTH_FIELD_NUMBER: _ClassVar[int]
    op_desc: OpDesc
    device_set: DeviceSet
    order: int
    dependency_depth: int
    def __init__(self, op_desc: _Optional[_Union[OpDesc, _Mapping]] = ..., device_set: _Optional[_Union[DeviceSet, _Mapping]] = ..., order: _Optional[int] = ..., dependency_depth: _Optional[int] = ...) -> None: ...

class RequestSet(_message.Message):
    __slots__ = ("request",)
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    request: _containers.RepeatedCompositeFieldContainer[RequestDesc]
    def __init__(self, request: _Optional[_Iterable[_Union[RequestDesc, _Mapping]]] = ...) -> None: ...

class RankDesc(_message.Message):
    __slots__ = ("op_desc", "rank")
    OP_DESC_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    op_desc: OpDesc
    rank: int
    def __init__(self, op_desc: _Optional[_Union[OpDesc, _Mapping]] = ..., rank: _Optional[int] = ...) -> None: ...
