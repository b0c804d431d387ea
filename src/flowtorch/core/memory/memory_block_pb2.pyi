from flowtorch.core.memory import memory_case_pb2 as _memory_case_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemBlockProto(_message.Message):
    __slots__ = ("mem_block_id", "job_id", "machine_id", "mem_case", "enable_reuse_mem", "chunk_id", "chunk_offset", "mem_size", "thrd_id_hint")
    MEM_BLOCK_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    MEM_CASE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_REUSE_MEM_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_OFFSET_FIELD_NUMBER: _ClassVar[int]
    MEM_SIZE_FIELD_NUMBER: _ClassVar[int]
    THRD_ID_HINT_FIELD_NUMBER: _ClassVar[int]
    mem_block_id: int
    job_id: _containers.RepeatedScalarFieldContainer[int]
    machine_id: int
    mem_case: _memory_case_pb2.MemoryCase
    enable_reuse_mem: bool
    chunk_id: int
    chunk_offset: int
    mem_size: int
    thrd_id_hint: int
    def __init__(self, mem_block_id: _Optional[int] = ..., job_id: _Optional[_Iterable[int]] = ..., machine_id: _Optional[int] = ..., mem_case: _Optional[_Union[_memory_case_pb2.MemoryCase, _Mapping]] = ..., enable_reuse_mem: bool = ..., chunk_id: _Optional[int] = ..., chunk_offset: _Optional[int] = ..., mem_size: _Optional[int] = ..., thrd_id_hint: _Optional[int] = ...) -> None: ...

class ChunkProto(_message.Message):
    __slots__ = ("chunk_id", "job_id", "machine_id", "mem_case", "mem_size")
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    MEM_CASE_FIELD_NUMBER: _ClassVar[int]
    MEM_SIZE_FIELD_NUMBER: _ClassVar[int]
    chunk_id: int
    job_id: _containers.RepeatedScalarFieldContainer[int]
    machine_id: int
    mem_case: _memory_case_pb2.MemoryCase
    mem_size: int
    def __init__(self, chunk_id: _Optional[int] = ..., job_id: _Optional[_Iterable[int]] = ..., machine_id: _Optional[int] = ..., mem_case: _Optional[_Union[_memory_case_pb2.MemoryCase, _Mapping]] = ..., mem_size: _Optional[int] = ...) -> None: ...

class MemBlockAndChunkList(_message.Message):
    __slots__ = ("mem_block", "chunk")
    MEM_BLOCK_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    mem_block: _containers.RepeatedCompositeFieldContainer[MemBlockProto]
    chunk: _containers.RepeatedCompositeFieldContainer[ChunkProto]
    def __init__(self, mem_block: _Optional[_Iterable[_Union[MemBlockProto, _Mapping]]] = ..., chunk: _Optional[_Iterable[_Union[ChunkProto, _Mapping]]] = ...) -> None: ...
