from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ObjectMsgFieldTypeAndName(_message.Message):
    __slots__ = ("field_type", "field_name", "pointer_removed_field_type")
    FIELD_TYPE_FIELD_NUMBER: _ClassVar[int]
    FIELD_NAME_FIELD_NUMBER: _ClassVar[int]
    POINTER_REMOVED_FIELD_TYPE_FIELD_NUMBER: _ClassVar[int]
    field_type: str
    field_name: str
    pointer_removed_field_type: str
    def __init__(self, field_type: _Optional[str] = ..., field_name: _Optional[str] = ..., pointer_removed_field_type: _Optional[str] = ...) -> None: ...

class ObjectMsgUnionFieldList(_message.Message):
    __slots__ = ("union_name", "union_field")
    UNION_NAME_FIELD_NUMBER: _ClassVar[int]
    UNION_FIELD_FIELD_NUMBER: _ClassVar[int]
    union_name: str
    union_field: _containers.RepeatedCompositeFieldContainer[ObjectMsgFieldTypeAndName]
    def __init__(self, union_name: _Optional[str] = ..., union_field: _Optional[_Iterable[_Union[ObjectMsgFieldTypeAndName, _Mapping]]] = ...) -> None: ...

class ObjectMsgField(_message.Message):
    __slots__ = ("union_field_list", "struct_field")
    UNION_FIELD_LIST_FIELD_NUMBER: _ClassVar[int]
    STRUCT_FIELD_FIELD_NUMBER: _ClassVar[int]
    union_field_list: ObjectMsgUnionFieldList
    struct_field: ObjectMsgFieldTypeAndName
    def __init__(self, union_field_list: _Optional[_Union[ObjectMsgUnionFieldList, _Mapping]] = ..., struct_field: _Optional[_Union[ObjectMsgFieldTypeAndName, _Mapping]] = ...) -> None: ...

class ObjectMsgFieldList(_message.Message):
    __slots__ = ("object_msg_field",)
    OBJECT_MSG_FIELD_FIELD_NUMBER: _ClassVar[int]
    object_msg_field: _containers.RepeatedCompositeFieldContainer[ObjectMsgField]
    def __init__(self, object_msg_field: _Optional[_Iterable[_Union[ObjectMsgField, _Mapping]]] = ...) -> None: ...
