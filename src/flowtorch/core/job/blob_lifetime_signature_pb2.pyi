from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class BlobLastUsedSignature(_message.Message):
    __slots__ = ("bn_in_op2blob_last_used",)
    class BnInOp2blobLastUsedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: bool = ...) -> None: ...
    BN_IN_OP2BLOB_LAST_USED_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2blob_last_used: _containers.ScalarMap[str, bool]
    def __init__(self, bn_in_op2blob_last_used: _Optional[_Mapping[str, bool]] = ...) -> None: ...

class BlobBackwardUsedSignature(_message.Message):
    __slots__ = ("bn_in_op2blob_backward_used",)
    class BnInOp2blobBackwardUsedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: bool = ...) -> None: ...
    BN_IN_OP2BLOB_BACKWARD_USED_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2blob_backward_used: _containers.ScalarMap[str, bool]
    def __init__(self, bn_in_op2blob_backward_used: _Optional[_Mapping[str, bool]] = ...) -> None: ...
