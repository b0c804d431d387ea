from flowtorch.core.kernel import kernel_pb2 as _kernel_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExecNodeProto(_message.Message):
    __slots__ = ("kernel_conf", "bn_in_op2regst_desc_id")
    class BnInOp2regstDescIdEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    KERNEL_CONF_FIELD_NUMBER: _ClassVar[int]
    BN_IN_OP2REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    kernel_conf: _kernel_pb2.KernelConf
    bn_in_op2regst_desc_id: _containers.ScalarMap[str, int]
    def __init__(self, kernel_conf: _Optional[_Union[_kernel_pb2.KernelConf, _Mapping]] = ..., bn_in_op2regst_desc_id: _Optional[_Mapping[str, int]] = ...) -> None: ...

class ExecSequence(_message.Message):
    __slots__ = ("exec_node",)
    EXEC_NODE_FIELD_NUMBER: _ClassVar[int]
    exec_node: _containers.RepeatedCompositeFieldContainer[ExecNodeProto]
    def __init__(self, exec_node: _Optional[_Iterable[_Union[ExecNodeProto, _Mapping]]] = ...) -> None: ...
