from flowtorch.core.job import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ThrdIds(_message.Message):
    __slots__ = ("thrd_id",)
    THRD_ID_FIELD_NUMBER: _ClassVar[int]
    thrd_id: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, thrd_id: _Optional[_Iterable[int]] = ...) -> None: ...

class ClusterThrdIds(_message.Message):
    __slots__ = ("machine_id2thrd_ids",)
    class MachineId2thrdIdsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: ThrdIds
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[ThrdIds, _Mapping]] = ...) -> None: ...
    MACHINE_ID2THRD_IDS_FIELD_NUMBER: _ClassVar[int]
    machine_id2thrd_ids: _containers.MessageMap[int, ThrdIds]
    def __init__(self, machine_id2thrd_ids: _Optional[_Mapping[int, ThrdIds]] = ...) -> None: ...

class SubPlan(_message.Message):
    __slots__ = ("task",)
    TASK_FIELD_NUMBER: _ClassVar[int]
    task: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskProto]
    def __init__(self, task: _Optional[_Iterable[_Union[_task_pb2.TaskProto, _Mapping]]] = ...) -> None: ...
