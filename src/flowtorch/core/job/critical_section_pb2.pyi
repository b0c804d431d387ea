from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TotalJobCriticalSection(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InputOutputCriticalSection(_message.Message):
    __slots__ = ("lbi_producer_op_name",)
    LBI_PRODUCER_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    lbi_producer_op_name: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, lbi_producer_op_name: _Optional[_Iterable[str]] = ...) -> None: ...

class CriticalSection(_message.Message):
    __slots__ = ("job_id", "machine_id2source_tick_op_name", "machine_id2sink_tick_op_name", "mem_block_id", "chunk_id", "total_job_critical_section", "input_output_critical_section")
    class MachineId2sourceTickOpNameEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    class MachineId2sinkTickOpNameEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    MACHINE_ID2SOURCE_TICK_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    MACHINE_ID2SINK_TICK_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    MEM_BLOCK_ID_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_JOB_CRITICAL_SECTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_OUTPUT_CRITICAL_SECTION_FIELD_NUMBER: _ClassVar[int]
    job_id: int
    machine_id2source_tick_op_name: _containers.ScalarMap[int, str]
    machine_id2sink_tick_op_name: _containers.ScalarMap[int, str]
    mem_block_id: _containers.RepeatedScalarFieldContainer[int]
    chunk_id: _containers.RepeatedScalarFieldContainer[int]
    total_job_critical_section: TotalJobCriticalSection
    input_output_critical_section: InputOutputCriticalSection
    def __init__(self, job_id: _Optional[int] = ..., machine_id2source_tick_op_name: _Optional[_Mapping[int, str]] = ..., machine_id2sink_tick_op_name: _Optional[_Mapping[int, str]] = ..., mem_block_id: _Optional[_Iterable[int]] = ..., chunk_id: _Optional[_Iterable[int]] = ..., total_job_critical_section: _Optional[_Union[TotalJobCriticalSection, _Mapping]] = ..., input_output_critical_section: _Optional[_Union[InputOutputCriticalSection, _Mapping]] = ...) -> None: ...
