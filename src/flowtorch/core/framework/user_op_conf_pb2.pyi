from flowtorch.core.framework import user_op_attr_pb2 as _user_op_attr_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class UserOpConf(_message.Message):
    __slots__ = ("op_type_name", "input", "output", "attr")
    class ListString(_message.Message):
        __slots__ = ("s",)
        S_FIELD_NUMBER: _ClassVar[int]
        s: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, s: _Optional[_Iterable[str]] = ...) -> None: ...
    class InputEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: UserOpConf.ListString
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[UserOpConf.ListString, _Mapping]] = ...) -> None: ...
    class OutputEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: UserOpConf.ListString
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[UserOpConf.ListString, _Mapping]] = ...) -> None: ...
    class AttrEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _user_op_attr_pb2.AttrValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_user_op_attr_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    OP_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ATTR_FIELD_NUMBER: _ClassVar[int]
    op_type_name: str
    input: _containers.MessageMap[str, UserOpConf.ListString]
    output: _containers.MessageMap[str, UserOpConf.ListString]
    attr: _containers.MessageMap[str, _user_op_attr_pb2.AttrValue]
    def __init__(self, op_type_name: _Optional[str] = ..., input: _Optional[_Mapping[str, UserOpConf.ListString]] = ..., output: _Optional[_Mapping[str, UserOpConf.ListString]] = ..., attr: _Optional[_Mapping[str, _user_op_attr_pb2.AttrValue]] = ...) -> None: ...
