from flowtorch.core.job import task_pb2 as _task_pb2
from flowtorch.core.job import job_conf_pb2 as _job_conf_pb2
from flowtorch.core.memory import memory_block_pb2 as _memory_block_pb2
from flowtorch.core.graph.boxing import collective_boxing_pb2 as _collective_boxing_pb2
from flowtorch.core.operator import op_attribute_pb2 as _op_attribute_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MachineIds(_message.Message):
    __slots__ = ("machine_id",)
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    machine_id: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, machine_id: _Optional[_Iterable[int]] = ...) -> None: ...

class NetTopo(_message.Message):
    __slots__ = ("peer_machine_ids",)
    class PeerMachineIdsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: MachineIds
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[MachineIds, _Mapping]] = ...) -> None: ...
    PEER_MACHINE_IDS_FIELD_NUMBER: _ClassVar[int]
    peer_machine_ids: _containers.MessageMap[int, MachineIds]
    def __init__(self, peer_machine_ids: _Optional[_Mapping[int, MachineIds]] = ...) -> None: ...

class JobConfs(_message.Message):
    __slots__ = ("job_id2job_conf",)
    class JobId2jobConfEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: _job_conf_pb2.JobConfigProto
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[_job_conf_pb2.JobConfigProto, _Mapping]] = ...) -> None: ...
    JOB_ID2JOB_CONF_FIELD_NUMBER: _ClassVar[int]
    job_id2job_conf: _containers.MessageMap[int, _job_conf_pb2.JobConfigProto]
    def __init__(self, job_id2job_conf: _Optional[_Mapping[int, _job_conf_pb2.JobConfigProto]] = ...) -> None: ...

class CollectiveBoxingPlan(_message.Message):
    __slots__ = ("job_id2request_set",)
    class JobId2requestSetEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: _collective_boxing_pb2.RequestSet
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[_collective_boxing_pb2.RequestSet, _Mapping]] = ...) -> None: ...
    JOB_ID2REQUEST_SET_FIELD_NUMBER: _ClassVar[int]
    job_id2request_set: _containers.MessageMap[int, _collective_boxing_pb2.RequestSet]
    def __init__(self, job_id2request_set: _Optional[_Mapping[int, _collective_boxing_pb2.RequestSet]] = ...) -> None: ...

class CtrlRegstDescInfo(_message.Message):
    __slots__ = ("ctrl_regst_desc_id2producer_task_id",)
    class CtrlRegstDescId2producerTaskIdEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: int
        def __init__(self, key: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...
    CTRL_REGST_DESC_ID2PRODUCER_TASK_ID_FIELD_NUMBER: _ClassVar[int]
    ctrl_regst_desc_id2producer_task_id: _containers.ScalarMap[int, int]
    def __init__(self, ctrl_regst_desc_id2producer_task_id: _Optional[_Mapping[int, int]] = ...) -> None: ...

class OpAttributeRefTable(_message.Message):
    __slots__ = ("op_name2op_attribute",)
    class OpName2opAttributeEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _op_attribute_pb2.OpAttribute
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_op_attribute_pb2.OpAttribute, _Mapping]] = ...) -> None: ...
    OP_NAME2OP_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    op_name2op_attribute: _containers.MessageMap[str, _op_attribute_pb2.OpAttribute]
    def __init__(self, op_name2op_attribute: _Optional[_Mapping[str, _op_attribute_pb2.OpAttribute]] = ...) -> None: ...

class OpAttributeInfo(_message.Message):
    __slots__ = ("job_id2op_attribute_ref_table",)
    class JobId2opAttributeRefTableEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: OpAttributeRefTable
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[OpAttributeRefTable, _Mapping]] = ...) -> None: ...
    JOB_ID2OP_ATTRIBUTE_REF_TABLE_FIELD_NUMBER: _ClassVar[int]
    job_id2op_attribute_ref_table: _containers.MessageMap[int, OpAttributeRefTable]
    def __init__(self, job_id2op_attribute_ref_table: _Optional[_Mapping[int, OpAttributeRefTable]] = ...) -> None: ...

class Plan(_message.Message):
    __slots__ = ("task", "block_chunk_list", "net_topo", "job_confs", "collective_boxing_plan", "ctrl_regst_desc_info", "job_id2op_attribute_ref_table")
    class JobId2opAttributeRefTableEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: OpAttributeRefTable
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[OpAttributeRefTable, _Mapping]] = ...) -> None: ...
    TASK_FIELD_NUMBER: _ClassVar[int]
    BLOCK_CHUNK_LIST_FIELD_NUMBER: _ClassVar[int]
    NET_TOPO_FIELD_NUMBER: _ClassVar[int]
    JOB_CONFS_FIELD_NUMBER: _ClassVar[int]
    COLLECTIVE_BOXING_PLAN_FIELD_NUMBER: _ClassVar[int]
    CTRL_REGST_DESC_INFO_FIELD_NUMBER: _ClassVar[int]
    JOB_ID2OP_ATTRIBUTE_REF_TABLE_FIELD_NUMBER: _ClassVar[int]
    task: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskProto]
    block_chunk_list: _memory_block_pb2.MemBlockAndChunkList
    net_topo: NetTopo
    job_confs: JobConfs
    collective_boxing_plan: CollectiveBoxingPlan
    ctrl_regst_desc_info: CtrlRegstDescInfo
    job_id2op_attribute_ref_table: _containers.MessageMap[int, OpAttributeRefTable]
    def __init__(self, task: _Optional[_Iterable[_Union[_task_pb2.TaskProto, _Mapping]]] = ..., block_chunk_list: _Optional[_Union[_memory_block_pb2.MemBlockAndChunkList, _Mapping]] = ..., net_topo: _Optional[_Union[NetTopo, _Mapping]] = ..., job_confs: _Optional[_Union[JobConfs, _Mapping]] = ..., collective_boxing_plan: _Optional[_Union[CollectiveBoxingPlan, _Mapping]] = ..., ctrl_regst_desc_info: _Optional[_Union[CtrlRegstDescInfo, _Mapping]] = ..., job_id2op_attribute_ref_table: _Optional[_Mapping[int, OpAttributeRefTable]] = ...) -> None: ...
