from flowtorch.core.job import placement_pb2 as _placement_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ParallelConfSignature(_message.Message):
    __slots__ = ("op_parallel_conf", "bn_in_op2parallel_conf")
    class BnInOp2parallelConfEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _placement_pb2.ParallelConf
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_placement_pb2.ParallelConf, _Mapping]] = ...) -> None: ...
    OP_PARALLEL_CONF_FIELD_NUMBER: _ClassVar[int]
    BN_IN_OP2PARALLEL_CONF_FIELD_NUMBER: _ClassVar[int]
    op_parallel_conf: _placement_pb2.ParallelConf
    bn_in_op2parallel_conf: _containers.MessageMap[str, _placement_pb2.ParallelConf]
    def __init__(self, op_parallel_conf: _Optional[_Union[_placement_pb2.ParallelConf, _Mapping]] = ..., bn_in_op2parallel_conf: _Optional[_Mapping[str, _placement_pb2.ParallelConf]] = ...) -> None: ...
