from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReadableRegstInfo(_message.Message):
    __slots__ = ("regst_desc_id", "act_id")
    REGST_DESC_ID_FIELD_NUMBER: _ClassVar[int]
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    regst_desc_id: int
    act_id: int
    def __init__(self, regst_desc_id: _Optional[int] = ..., act_id: _Optional[int] = ...) -> None: ...

class ActEvent(_message.Message):
    __slots__ = ("is_experiment_phase", "actor_id", "work_stream_id", "act_id", "ready_time", "start_time", "stop_time", "readable_regst_infos")
    IS_EXPERIMENT_PHASE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    WORK_STREAM_ID_FIELD_NUMBER: _ClassVar[int]
    ACT_ID_FIELD_NUMBER: _ClassVar[int]
    READY_TIME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    STOP_TIME_FIELD_NUMBER: _ClassVar[int]
    READABLE_REGST_INFOS_FIELD_NUMBER: _ClassVar[int]
    is_experiment_phase: bool
    actor_id: int
    work_stream_id: int
    act_id: int
    ready_time: float
    start_time: float
    stop_time: float
    readable_regst_infos: _containers.RepeatedCompositeFieldContainer[ReadableRegstInfo]
    def __init__(self, is_experiment_phase: bool = ..., actor_id: _Optional[int] = ..., work_stream_id: _Optional[int] = ..., act_id: _Optional[int] = ..., ready_time: _Optional[float] = ..., start_time: _Optional[float] = ..., stop_time: _Optional[float] = ..., readable_regst_infos: _Optional[_Iterable[_Union[ReadableRegstInfo, _Mapping]]] = ...) -> None: ...
