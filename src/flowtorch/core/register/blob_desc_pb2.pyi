from flowtorch.core.common import shape_pb2 as _shape_pb2
from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BlobDescProto(_message.Message):
    __slots__ = ("shape", "data_type", "is_dynamic")
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    IS_DYNAMIC_FIELD_NUMBER: _ClassVar[int]
    shape: _shape_pb2.ShapeProto
    data_type: _data_type_pb2.DataType
    is_dynamic: bool
    def __init__(self, shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., is_dynamic: bool = ...) -> None: ...

class BlobDescSignature(_message.Message):
    __slots__ = ("bn_in_op2blob_desc",)
    class BnInOp2blobDescEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: BlobDescProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[BlobDescProto, _Mapping]] = ...) -> None: ...
    BN_IN_OP2BLOB_DESC_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2blob_desc: _containers.MessageMap[str, BlobDescProto]
    def __init__(self, bn_in_op2blob_desc: _Optional[_Mapping[str, BlobDescProto]] = ...) -> None: ...
