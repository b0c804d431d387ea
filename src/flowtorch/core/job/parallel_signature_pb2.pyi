from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ParallelSignature(_message.Message):
    __slots__ = ("op_parallel_desc_symbol_id", "bn_in_op2parallel_desc_symbol_id")
    class BnInOp2parallelDescSymbolIdEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    OP_PARALLEL_DESC_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    BN_IN_OP2PARALLEL_DESC_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    op_parallel_desc_symbol_id: int
    bn_in_op2parallel_desc_symbol_id: _containers.ScalarMap[str, int]
    def __init__(self, op_parallel_desc_symbol_id: _Optional[int] = ..., bn_in_op2parallel_desc_symbol_id: _Optional[_Mapping[str, int]] = ...) -> None: ...
