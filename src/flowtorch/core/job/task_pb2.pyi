from flowtorch.core.graph import exec_sequence_pb2 as _exec_sequence_pb2
from flowtorch.core.register import register_desc_pb2 as _register_desc_pb2
from flowtorch.core.job import placement_pb2 as _placement_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TaskType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kInvalid: _ClassVar[TaskType]
    kNormalForward: _ClassVar[TaskType]
    kCopyHd: _ClassVar[TaskType]
    kCopyCommNet: _ClassVar[TaskType]
    kDeviceTick: _ClassVar[TaskType]
    kDecodeRandom: _ClassVar[TaskType]
    kPack: _ClassVar[TaskType]
    kUnpack: _ClassVar[TaskType]
    kRepeat: _ClassVar[TaskType]
    kAcc: _ClassVar[TaskType]
    kSrcSubsetTick: _ClassVar[TaskType]
    kDstSubsetTick: _ClassVar[TaskType]
    kSourceTick: _ClassVar[TaskType]
    kTick: _ClassVar[TaskType]
    kAccTick: _ClassVar[TaskType]
    kCase: _ClassVar[TaskType]
    kEsac: _ClassVar[TaskType]
    kWaitAndSendIds: _ClassVar[TaskType]
    kReentrantLock: _ClassVar[TaskType]
    kCallbackNotify: _ClassVar[TaskType]
    kForeignInput: _ClassVar[TaskType]
    kForeignOutput: _ClassVar[TaskType]
    kDistributeConcat: _ClassVar[TaskType]
    kDistributeSplit: _ClassVar[TaskType]
    kSliceBoxing: _ClassVar[TaskType]
    kCollectiveBoxingGeneric: _ClassVar[TaskType]
    kBoxingIdentity: _ClassVar[TaskType]
    kDecodeH2D: _ClassVar[TaskType]
    kCollectiveBoxingPack: _ClassVar[TaskType]
    kCollectiveBoxingUnpack: _ClassVar[TaskType]
    kSspVariableProxy: _ClassVar[TaskType]
    kBoxingZeros: _ClassVar[TaskType]
kInvalid: TaskType
kNormalForward: TaskType
kCopyHd: TaskType
kCopyCommNet: TaskType
kDeviceTick: TaskType
kDecodeRandom: TaskType
kPack: TaskType
kUnpack: TaskType
kRepeat: TaskType
kAcc: TaskType
kSrcSubsetTick: TaskType
kDstSubsetTick: TaskType
kSourceTick: TaskType
kTick: TaskType
kAccTick: TaskType
kCase: TaskType
kEsac: TaskType
kWaitAndSendIds: TaskType
kReentrantLock: TaskType
kCallbackNotify: TaskType
kForeignInput: TaskType
kForeignOutput: TaskType
kDistributeConcat: TaskType
kDistributeSplit: TaskType
kSliceBoxing: TaskType
kCollectiveBoxingGeneric: TaskType
kBoxingIdentity: TaskType
kDecodeH2D: TaskType
kCollectiveBoxingPack: TaskType
kCollectiveBoxingUnpack: TaskType
kSspVariableProxy: TaskType
kBoxingZeros: TaskType

class RegstDescIdSet(_message.Message):
    __slots__ = ("regst_desc_id",)
    REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    regst_desc_id: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, regst_desc_id: _Optional[_Iterable[int]] = ...) -> None: ...

class TaskSetInfo(_message.Message):
    __slots__ = ("chain_id", "order_in_graph")
    CHAIN_ID_FIELD_NUMBER: _ClassVar[int]
    ORDER_IN_GRAPH_FIELD_NUMBER: _ClassVar[int]
    chain_id: int
    order_in_graph: int
    def __init__(self, chain_id: _Optional[int] = ..., order_in_graph: _Optional[int] = ...) -> None: ...

class TaskProto(_message.Message):
    __slots__ = ("task_type", "machine_id", "thrd_id", "task_id", "job_id", "task_set_info", "exec_sequence", "produced_regst_desc", "consumed_regst_desc_id", "parallel_ctx")
    class ProducedRegstDescEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _register_desc_pb2.RegstDescProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_register_desc_pb2.RegstDescProto, _Mapping]] = ...) -> None: ...
    class ConsumedRegstDescIdEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: RegstDescIdSet
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[RegstDescIdSet, _Mapping]] = ...) -> None: ...
    TASK_TYPE_FIELD_NUMBER: _ClassVar[int]
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    THRD_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_SET_INFO_FIELD_NUMBER: _ClassVar[int]
    EXEC_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    PRODUCED_REGST_DESC_FIELD_NUMBER: _ClassVar[int]
    CONSUMED_REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CTX_FIELD_NUMBER: _ClassVar[int]
    task_type: TaskType
    machine_id: int
    thrd_id: int
    task_id: int
    job_id: int
    task_set_info: TaskSetInfo
    exec_sequence: _exec_sequence_pb2.ExecSequence
    produced_regst_desc: _containers.MessageMap[str, _register_desc_pb2.RegstDescProto]
    consumed_regst_desc_id: _containers.MessageMap[str, RegstDescIdSet]
    parallel_ctx: _placement_pb2.ParallelContext
    def __init__(self, task_type: _Optional[_Union[TaskType, str]] = ..., machine_id: _Optional[int] = ..., thrd_id: _Optional[int] = ..., task_id: _Optional[int] = ..., job_id: _Optional[int] = ..., task_set_info: _Optional[_Union[TaskSetInfo, _Mapping]] = ..., exec_sequence: _Optional[_Union[_exec_sequence_pb2.ExecSequence, _Mapping]] = ..., produced_regst_desc: _Optional[_Mapping[str, _register_desc_pb2.RegstDescProto]] = ..., consumed_regst_desc_id: _Optional[_Mapping[str, RegstDescIdSet]] = ..., parallel_ctx: _Optional[_Union[_placement_pb2.ParallelContext, _Mapping]] = ...) -> None: ...
