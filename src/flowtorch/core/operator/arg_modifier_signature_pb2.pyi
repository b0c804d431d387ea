from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InputBlobModifier(_message.Message):
    __slots__ = ("is_mutable", "requires_grad")
    IS_MUTABLE_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_GRAD_FIELD_NUMBER: _ClassVar[int]
    is_mutable: bool
    requires_grad: bool
    def __init__(self, is_mutable: bool = ..., requires_grad: bool = ...) -> None: ...

class OutputBlobModifier(_message.Message):
    __slots__ = ("is_mutable", "requires_grad", "header_infered_before_compute", "mutable_inplace_ibn", "const_inplace_ibn")
    IS_MUTABLE_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_GRAD_FIELD_NUMBER: _ClassVar[int]
    HEADER_INFERED_BEFORE_COMPUTE_FIELD_NUMBER: _ClassVar[int]
    MUTABLE_INPLACE_IBN_FIELD_NUMBER: _ClassVar[int]
    CONST_INPLACE_IBN_FIELD_NUMBER: _ClassVar[int]
    is_mutable: bool
    requires_grad: bool
    header_infered_before_compute: bool
    mutable_inplace_ibn: str
    const_inplace_ibn: str
    def __init__(self, is_mutable: bool = ..., requires_grad: bool = ..., header_infered_before_compute: bool = ..., mutable_inplace_ibn: _Optional[str] = ..., const_inplace_ibn: _Optional[str] = ...) -> None: ...

class ArgModifierSignature(_message.Message):
    __slots__ = ("ibn2input_blob_modifier", "obn2output_blob_modifier")
    class Ibn2inputBlobModifierEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: InputBlobModifier
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[InputBlobModifier, _Mapping]] = ...) -> None: ...
    class Obn2outputBlobModifierEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: OutputBlobModifier
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[OutputBlobModifier, _Mapping]] = ...) -> None: ...
    IBN2INPUT_BLOB_MODIFIER_FIELD_NUMBER: _ClassVar[int]
    OBN2OUTPUT_BLOB_MODIFIER_FIELD_NUMBER: _ClassVar[int]
    ibn2input_blob_modifier: _containers.MessageMap[str, InputBlobModifier]
    obn2output_blob_modifier: _containers.MessageMap[str, OutputBlobModifier]
    def __init__(self, ibn2input_blob_modifier: _Optional[_Mapping[str, InputBlobModifier]] = ..., obn2output_blob_modifier: _Optional[_Mapping[str, OutputBlobModifier]] = ...) -> None: ...
