from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MirroredParallel(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OptMirroredParallel(_message.Message):
    __slots__ = ("mirrored_parallel",)
    MIRRORED_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    mirrored_parallel: MirroredParallel
    def __init__(self, mirrored_parallel: _Optional[_Union[MirroredParallel, _Mapping]] = ...) -> None: ...

class MirroredSignature(_message.Message):
    __slots__ = ("bn_in_op2opt_mirrored_parallel",)
    class BnInOp2optMirroredParallelEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: OptMirroredParallel
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[OptMirroredParallel, _Mapping]] = ...) -> None: ...
    BN_IN_OP2OPT_MIRRORED_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2opt_mirrored_parallel: _containers.MessageMap[str, OptMirroredParallel]
    def __init__(self, bn_in_op2opt_mirrored_parallel: _Optional[_Mapping[str, OptMirroredParallel]] = ...) -> None: ...
