from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LogicalBlobId(_message.Message):
    __slots__ = ("op_name", "blob_name")
    OP_NAME_FIELD_NUMBER: _ClassVar[int]
    BLOB_NAME_FIELD_NUMBER: _ClassVar[int]
    op_name: str
    blob_name: str
    def __init__(self, op_name: _Optional[str] = ..., blob_name: _Optional[str] = ...) -> None: ...

class LogicalBlobIdPair(_message.Message):
    __slots__ = ("first", "second")
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    first: LogicalBlobId
    second: LogicalBlobId
    def __init__(self, first: _Optional[_Union[LogicalBlobId, _Mapping]] = ..., second: _Optional[_Union[LogicalBlobId, _Mapping]] = ...) -> None: ...

class LogicalBlobIdPairs(_message.Message):
    __slots__ = ("pair",)
    PAIR_FIELD_NUMBER: _ClassVar[int]
    pair: _containers.RepeatedCompositeFieldContainer[LogicalBlobIdPair]
    def __init__(self, pair: _Optional[_Iterable[_Union[LogicalBlobIdPair, _Mapping]]] = ...) -> None: ...

class LogicalBlobIdGroups(_message.Message):
    __slots__ = ("lbi_group",)
    class LogicalBlobIdGroup(_message.Message):
        __slots__ = ("lbi",)
        LBI_FIELD_NUMBER: _ClassVar[int]
        lbi: _containers.RepeatedCompositeFieldContainer[LogicalBlobId]
        def __init__(self, lbi: _Optional[_Iterable[_Union[LogicalBlobId, _Mapping]]] = ...) -> None: ...
    LBI_GROUP_FIELD_NUMBER: _ClassVar[int]
    lbi_group: _containers.RepeatedCompositeFieldContainer[LogicalBlobIdGroups.LogicalBlobIdGroup]
    def __init__(self, lbi_group: _Optional[_Iterable[_Union[LogicalBlobIdGroups.LogicalBlobIdGroup, _Mapping]]] = ...) -> None: ...

class ArgSignature(_message.Message):
    __slots__ = ("bn_in_op2lbi",)
    class BnInOp2lbiEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: LogicalBlobId
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[LogicalBlobId, _Mapping]] = ...) -> None: ...
    BN_IN_OP2LBI_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2lbi: _containers.MessageMap[str, LogicalBlobId]
    def __init__(self, bn_in_op2lbi: _Optional[_Mapping[str, LogicalBlobId]] = ...) -> None: ...
