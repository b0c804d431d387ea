from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpBlobArg(_message.Message):
    __slots__ = ("op_name", "bn_in_op")
    OP_NAME_FIELD_NUMBER: _ClassVar[int]
    BN_IN_OP_FIELD_NUMBER: _ClassVar[int]
    op_name: str
    bn_in_op: str
    def __init__(self, op_name: _Optional[str] = ..., bn_in_op: _Optional[str] = ...) -> None: ...

class OpBlobArgPair(_message.Message):
    __slots__ = ("first", "second")
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    first: OpBlobArg
    second: OpBlobArg
    def __init__(self, first: _Optional[_Union[OpBlobArg, _Mapping]] = ..., second: _Optional[_Union[OpBlobArg, _Mapping]] = ...) -> None: ...

class OpBlobArgPairs(_message.Message):
    __slots__ = ("pair",)
    PAIR_FIELD_NUMBER: _ClassVar[int]
    pair: _containers.RepeatedCompositeFieldContainer[OpBlobArgPair]
    def __init__(self, pair: _Optional[_Iterable[_Union[OpBlobArgPair, _Mapping]]] = ...) -> None: ...

class OpBlobArgList(_message.Message):
    __slots__ = ("oba",)
    OBA_FIELD_NUMBER: _ClassVar[int]
    oba: _containers.RepeatedCompositeFieldContainer[OpBlobArg]
    def __init__(self, oba: _Optional[_Iterable[_Union[OpBlobArg, _Mapping]]] = ...) -> None: ...
