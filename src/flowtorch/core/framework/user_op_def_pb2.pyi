from flowtorch.core.framework import user_op_attr_pb2 as _user_op_attr_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class UserOpDef(_message.Message):
    __slots__ = ("name", "input", "output", "attr")
    class ArgDef(_message.Message):
        __slots__ = ("name", "is_optional", "num", "num_as_min")
        NAME_FIELD_NUMBER: _ClassVar[int]
        IS_OPTIONAL_FIELD_NUMBER: _ClassVar[int]
        NUM_FIELD_NUMBER: _ClassVar[int]
        NUM_AS_MIN_FIELD_NUMBER: _ClassVar[int]
        name: str
        is_optional: bool
        num: int
        num_as_min: bool
        def __init__(self, name: _Optional[str] = ..., is_optional: bool = ..., num: _Optional[int] = ..., num_as_min: bool = ...) -> None: ...
    class AttrDef(_message.Message):
        __slots__ = ("name", "type", "default_val")
        NAME_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        DEFAULT_VAL_FIELD_NUMBER: _ClassVar[int]
        name: str
        type: _user_op_attr_pb2.AttrType
        default_val: _user_op_attr_pb2.AttrValue
        def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[_user_op_attr_pb2.AttrType, str]] = ..., default_val: _Optional[_Union[_user_op_attr_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ATTR_FIELD_NUMBER: _ClassVar[int]
    name: str
    input: _containers.RepeatedCompositeFieldContainer[UserOpDef.ArgDef]
    output: _containers.RepeatedCompositeFieldContainer[UserOpDef.ArgDef]
    attr: _containers.RepeatedCompositeFieldContainer[UserOpDef.AttrDef]
    def __init__(self, name: _Optional[str] = ..., input: _Optional[_Iterable[_Union[UserOpDef.ArgDef, _Mapping]]] = ..., output: _Optional[_Iterable[_Union[UserOpDef.ArgDef, _Mapping]]] = ..., attr: _Optional[_Iterable[_Union[UserOpDef.AttrDef, _Mapping]]] = ...) -> None: ...
