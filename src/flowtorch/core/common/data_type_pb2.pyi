from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class DataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kInvalidDataType: _ClassVar[DataType]
    kChar: _ClassVar[DataType]
    kFloat: _ClassVar[DataType]
    kDouble: _ClassVar[DataType]
    kInt8: _ClassVar[DataType]
    kInt32: _ClassVar[DataType]
    kInt64: _ClassVar[DataType]
    kUInt8: _ClassVar[DataType]
    kOFRecord: _ClassVar[DataType]
    kFloat16: _ClassVar[DataType]
    kTensorBuffer: _ClassVar[DataType]
kInvalidDataType: DataType
kChar: DataType
kFloat: DataType
kDouble: DataType
kInt8: DataType
kInt32: DataType
kInt64: DataType
kUInt8: DataType
kOFRecord: DataType
kFloat16: DataType
kTensorBuffer: DataType

class OptInt64(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...
