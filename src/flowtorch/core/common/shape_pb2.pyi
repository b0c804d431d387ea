from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ShapeProto(_message.Message):
    __slots__ = ("dim",)
    DIM_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, dim: _Optional[_Iterable[int]] = ...) -> None: ...

class ShapeSignature(_message.Message):
    __slots__ = ("name", "field2shape_proto")
    class Field2shapeProtoEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ShapeProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ShapeProto, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    FIELD2SHAPE_PROTO_FIELD_NUMBER: _ClassVar[int]
    name: str
    field2shape_proto: _containers.MessageMap[str, ShapeProto]
    def __init__(self, name: _Optional[str] = ..., field2shape_proto: _Optional[_Mapping[str, ShapeProto]] = ...) -> None: ...

class ShapeSignatureList(_message.Message):
    __slots__ = ("shape_signature",)
    SHAPE_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    shape_signature: _containers.RepeatedCompositeFieldContainer[ShapeSignature]
    def __init__(self, shape_signature: _Optional[_Iterable[_Union[ShapeSignature, _Mapping]]] = ...) -> None: ...
