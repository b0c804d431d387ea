from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DTypeSignature(_message.Message):
    __slots__ = ("name2dtype",)
    class Name2dtypeEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _data_type_pb2.DataType
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_data_type_pb2.DataType, str]] = ...) -> None: ...
    NAME2DTYPE_FIELD_NUMBER: _ClassVar[int]
    name2dtype: _containers.ScalarMap[str, _data_type_pb2.DataType]
    def __init__(self, name2dtype: _Optional[_Mapping[str, _data_type_pb2.DataType]] = ...) -> None: ...
