from flowtorch.core.common import shape_pb2 as _shape_pb2
from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FieldKey(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kInvalidFieldKey: _ClassVar[FieldKey]
    kTensorShape: _ClassVar[FieldKey]
    kFieldKeySize: _ClassVar[FieldKey]
kInvalidFieldKey: FieldKey
kTensorShape: FieldKey
kFieldKeySize: FieldKey

class TensorPodProto(_message.Message):
    __slots__ = ("shape", "data_type")
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    shape: _shape_pb2.ShapeProto
    data_type: _data_type_pb2.DataType
    def __init__(self, shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ...) -> None: ...

class StructPodProto(_message.Message):
    __slots__ = ("field",)
    FIELD_FIELD_NUMBER: _ClassVar[int]
    field: _containers.RepeatedCompositeFieldContainer[FieldPodProto]
    def __init__(self, field: _Optional[_Iterable[_Union[FieldPodProto, _Mapping]]] = ...) -> None: ...

class FieldId(_message.Message):
    __slots__ = ("key", "lbi")
    KEY_FIELD_NUMBER: _ClassVar[int]
    LBI_FIELD_NUMBER: _ClassVar[int]
    key: FieldKey
    lbi: _logical_blob_id_pb2.LogicalBlobId
    def __init__(self, key: _Optional[_Union[FieldKey, str]] = ..., lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ...) -> None: ...

class FieldPodProto(_message.Message):
    __slots__ = ("field_id", "alignment", "pod")
    FIELD_ID_FIELD_NUMBER: _ClassVar[int]
    ALIGNMENT_FIELD_NUMBER: _ClassVar[int]
    POD_FIELD_NUMBER: _ClassVar[int]
    field_id: FieldId
    alignment: int
    pod: PodProto
    def __init__(self, field_id: _Optional[_Union[FieldId, _Mapping]] = ..., alignment: _Optional[int] = ..., pod: _Optional[_Union[PodProto, _Mapping]] = ...) -> None: ...

class PodProto(_message.Message):
    __slots__ = ("tensor_pod", "struct_pod")
    TENSOR_POD_FIELD_NUMBER: _ClassVar[int]
    STRUCT_POD_FIELD_NUMBER: _ClassVar[int]
    tensor_pod: TensorPodProto
    struct_pod: StructPodProto
    def __init__(self, tensor_pod: _Optional[_Union[TensorPodProto, _Mapping]] = ..., struct_pod: _Optional[_Union[StructPodProto, _Mapping]] = ...) -> None: ...
