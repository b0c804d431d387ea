from flowtorch.core.framework import user_op_attr_pb2 as _user_op_attr_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ConfigDefType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kEnvConfigDefType: _ClassVar[ConfigDefType]
    kSessionConfigDefType: _ClassVar[ConfigDefType]
    kFunctionConfigDefType: _ClassVar[ConfigDefType]
    kScopeConfigDefType: _ClassVar[ConfigDefType]
kEnvConfigDefType: ConfigDefType
kSessionConfigDefType: ConfigDefType
kFunctionConfigDefType: ConfigDefType
kScopeConfigDefType: ConfigDefType

class ConfigDef(_message.Message):
    __slots__ = ("attr_name2attr_def",)
    class AttrName2attrDefEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _user_op_attr_pb2.AttrDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_user_op_attr_pb2.AttrDef, _Mapping]] = ...) -> None: ...
    ATTR_NAME2ATTR_DEF_FIELD_NUMBER: _ClassVar[int]
    attr_name2attr_def: _containers.MessageMap[str, _user_op_attr_pb2.AttrDef]
    def __init__(self, attr_name2attr_def: _Optional[_Mapping[str, _user_op_attr_pb2.AttrDef]] = ...) -> None: ...
