from flowtorch.core.operator import op_conf_pb2 as _op_conf_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DLNetConf(_message.Message):
    __slots__ = ("op",)
    OP_FIELD_NUMBER: _ClassVar[int]
    op: _containers.RepeatedCompositeFieldContainer[_op_conf_pb2.OperatorConf]
    def __init__(self, op: _Optional[_Iterable[_Union[_op_conf_pb2.OperatorConf, _Mapping]]] = ...) -> None: ...
