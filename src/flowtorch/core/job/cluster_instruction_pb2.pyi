from flowtorch.core.eager import eager_instruction_pb2 as _eager_instruction_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClusterCtrlSessionStart(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClusterCtrlHalt(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClusterCtrlAbort(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClusterInstructionProto(_message.Message):
    __slots__ = ("cluster_ctrl_session_start", "cluster_ctrl_halt", "eager_instruction", "cluster_ctrl_abort")
    CLUSTER_CTRL_SESSION_START_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_CTRL_HALT_FIELD_NUMBER: _ClassVar[int]
    EAGER_INSTRUCTION_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_CTRL_ABORT_FIELD_NUMBER: _ClassVar[int]
    cluster_ctrl_session_start: ClusterCtrlSessionStart
    cluster_ctrl_halt: ClusterCtrlHalt
    eager_instruction: _eager_instruction_pb2.EagerInstruction
    cluster_ctrl_abort: ClusterCtrlAbort
    def __init__(self, cluster_ctrl_session_start: _Optional[_Union[ClusterCtrlSessionStart, _Mapping]] = ..., cluster_ctrl_halt: _Optional[_Union[ClusterCtrlHalt, _Mapping]] = ..., eager_instruction: _Optional[_Union[_eager_instruction_pb2.EagerInstruction, _Mapping]] = ..., cluster_ctrl_abort: _Optional[_Union[ClusterCtrlAbort, _Mapping]] = ...) -> None: ...
