from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReflectionTestFoo(_message.Message):
    __slots__ = ("required_int32", "optional_string", "repeated_int32", "repeated_string", "map_int32", "oneof_int32", "another_oneof_int32")
    class MapInt32Entry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: int
        def __init__(self, key: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...
    REQUIRED_INT32_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_STRING_FIELD_NUMBER: _ClassVar[int]
    REPEATED_INT32_FIELD_NUMBER: _ClassVar[int]
    REPEATED_STRING_FIELD_NUMBER: _ClassVar[int]
    MAP_INT32_FIELD_NUMBER: _ClassVar[int]
    ONEOF_INT32_FIELD_NUMBER: _ClassVar[int]
    ANOTHER_ONEOF_INT32_FIELD_NUMBER: _ClassVar[int]
    required_int32: int
    optional_string: str
    repeated_int32: _containers.RepeatedScalarFieldContainer[int]
    repeated_string: _containers.RepeatedScalarFieldContainer[str]
    map_int32: _containers.ScalarMap[int, int]
    oneof_int32: int
    another_oneof_int32: int
    def __init__(self, required_int32: _Optional[int] = ..., optional_string: _Optional[str] = ..., repeated_int32: _Optional[_Iterable[int]] = ..., repeated_string: _Optional[_Iterable[str]] = ..., map_int32: _Optional[_Mapping[int, int]] = ..., oneof_int32: _Optional[int] = ..., another_oneof_int32: _Optional[int] = ...) -> None: ...

class ReflectionTestBar(_message.Message):
    __slots__ = ("required_foo", "optional_foo", "repeated_foo", "map_foo", "oneof_foo", "another_oneof_foo")
    class MapFooEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: ReflectionTestFoo
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[ReflectionTestFoo, _Mapping]] = ...) -> None: ...
    REQUIRED_FOO_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_FOO_FIELD_NUMBER: _ClassVar[int]
    REPEATED_FOO_FIELD_NUMBER: _ClassVar[int]
    MAP_FOO_FIELD_NUMBER: _ClassVar[int]
    ONEOF_FOO_FIELD_NUMBER: _ClassVar[int]
    ANOTHER_ONEOF_FOO_FIELD_NUMBER: _ClassVar[int]
    required_foo: ReflectionTestFoo
    optional_foo: ReflectionTestFoo
    repeated_foo: _containers.RepeatedCompositeFieldContainer[ReflectionTestFoo]
    map_foo: _containers.MessageMap[int, ReflectionTestFoo]
    oneof_foo: ReflectionTestFoo
    another_oneof_foo: ReflectionTestFoo
    def __init__(self, required_foo: _Optional[_Union[ReflectionTestFoo, _Mapping]] = ..., optional_foo: _Optional[_Union[ReflectionTestFoo, _Mapping]] = ..., repeated_foo: _Optional[_Iterable[_Union[ReflectionTestFoo, _Mapping]]] = ..., map_foo: _Optional[_Mapping[int, ReflectionTestFoo]] = ..., oneof_foo: _Optional[_Union[ReflectionTestFoo, _Mapping]] = ..., another_oneof_foo: _Optional[_Union[ReflectionTestFoo, _Mapping]] = ...) -> None: ...
