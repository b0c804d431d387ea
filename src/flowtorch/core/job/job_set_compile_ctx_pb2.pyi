from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class JobSetCompileCtxProto(_message.Message):
    __slots__ = ("var_op_name2random_seed",)
    class VarOpName2randomSeedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    VAR_OP_NAME2RANDOM_SEED_FIELD_NUMBER: _ClassVar[int]
    var_op_name2random_seed: _containers.ScalarMap[str, int]
    def __init__(self, var_op_name2random_seed: _Optional[_Mapping[str, int]] = ...) -> None: ...
