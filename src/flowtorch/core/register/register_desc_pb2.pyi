from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from flowtorch.core.memory import memory_case_pb2 as _memory_case_pb2
from flowtorch.core.common import shape_pb2 as _shape_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LbiBlobDescPair(_message.Message):
    __slots__ = ("lbi", "blob_desc")
    LBI_FIELD_NUMBER: _ClassVar[int]
    BLOB_DESC_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    blob_desc: _blob_desc_pb2.BlobDescProto
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., blob_desc: _Optional[_Union[_blob_desc_pb2.BlobDescProto, _Mapping]] = ...) -> None: ...

class DataRegstDesc(_message.Message):
    __slots__ = ("lbi2blob_desc", "time_shape")
    LBI2BLOB_DESC_FIELD_NUMBER: _ClassVar[int]
    TIME_SHAPE_FIELD_NUMBER: _ClassVar[int]
    lbi2blob_desc: _containers.RepeatedCompositeFieldContainer[LbiBlobDescPair]
    time_shape: _shape_pb2.ShapeProto
    def __init__(self, lbi2blob_desc: _Optional[_Iterable[_Union[LbiBlobDescPair, _Mapping]]] = ..., time_shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ...) -> None: ...

class CtrlRegstDesc(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RegstDescTypeProto(_message.Message):
    __slots__ = ("data_regst_desc", "ctrl_regst_desc")
    DATA_REGST_DESC_FIELD_NUMBER: _ClassVar[int]
    CTRL_REGST_DESC_FIELD_NUMBER: _ClassVar[int]
    data_regst_desc: DataRegstDesc
    ctrl_regst_desc: CtrlRegstDesc
    def __init__(self, data_regst_desc: _Optional[_Union[DataRegstDesc, _Mapping]] = ..., ctrl_regst_desc: _Optional[_Union[CtrlRegstDesc, _Mapping]] = ...) -> None: ...

class RegstDescProto(_message.Message):
    __slots__ = ("regst_desc_id", "producer_task_id", "consumer_task_id", "min_register_num", "max_register_num", "register_num", "mem_case", "regst_desc_type", "enable_reuse_mem", "mem_block_id", "mem_block_offset", "separated_header_mem_block_id", "inplace_consumed_regst_desc_id", "hint_inplace_consumed_regst_desc_id", "force_inplace_consumed_regst_desc_id")
    REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCER_TASK_ID_FIELD_NUMBER: _ClassVar[int]
    CONSUMER_TASK_ID_FIELD_NUMBER: _ClassVar[int]
    MIN_REGISTER_NUM_FIELD_NUMBER: _ClassVar[int]
    MAX_REGISTER_NUM_FIELD_NUMBER: _ClassVar[int]
    REGISTER_NUM_FIELD_NUMBER: _ClassVar[int]
    MEM_CASE_FIELD_NUMBER: _ClassVar[int]
    REGST_DESC_TYPE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_REUSE_MEM_FIELD_NUMBER: _ClassVar[int]
    MEM_BLOCK_ID_FIELD_NUMBER: _ClassVar[int]
    MEM_BLOCK_OFFSET_FIELD_NUMBER: _ClassVar[int]
    SEPARATED_HEADER_MEM_BLOCK_ID_FIELD_NUMBER: _ClassVar[int]
    INPLACE_CONSUMED_REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    HINT_INPLACE_CONSUMED_REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    FORCE_INPLACE_CONSUMED_REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    regst_desc_id: int
    producer_task_id: int
    consumer_task_id: _containers.RepeatedScalarFieldContainer[int]
    min_register_num: int
    max_register_num: int
    register_num: int
    mem_case: _memory_case_pb2.MemoryCase
    regst_desc_type: RegstDescTypeProto
    enable_reuse_mem: bool
    mem_block_id: int
    mem_block_offset: int
    separated_header_mem_block_id: int
    inplace_consumed_regst_desc_id: int
    hint_inplace_consumed_regst_desc_id: int
    force_inplace_consumed_regst_desc_id: int
    def __init__(self, regst_desc_id: _Optional[int] = ..., producer_task_id: _Optional[int] = ..., consumer_task_id: _Optional[_Iterable[int]] = ..., min_register_num: _Optional[int] = ..., max_register_num: _Optional[int] = ..., register_num: _Optional[int] = ..., mem_case: _Optional[_Union[_memory_case_pb2.MemoryCase, _Mapping]] = ..., regst_desc_type: _Optional[_Union[RegstDescTypeProto, _Mapping]] = ..., enable_reuse_mem: bool = ..., mem_block_id: _Optional[int] = ..., mem_block_offset: _Optional[int] = ..., separated_header_mem_block_id: _Optional[int] = ..., inplace_consumed_regst_desc_id: _Optional[int] = ..., hint_inplace_consumed_regst_desc_id: _Optional[int] = ..., force_inplace_consumed_regst_desc_id: _Optional[int] = ...) -> None: ...
