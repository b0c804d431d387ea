from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LbiAndDiffWatcherUuidPair(_message.Message):
    __slots__ = ("lbi", "watcher_uuid")
    LBI_FIELD_NUMBER: _ClassVar[int]
    WATCHER_UUID_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    watcher_uuid: str
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., watcher_uuid: _Optional[str] = ...) -> None: ...

class LbiAndDiffWatcherUuidPairList(_message.Message):
    __slots__ = ("lbi_and_uuid_pair",)
    LBI_AND_UUID_PAIR_FIELD_NUMBER: _ClassVar[int]
    lbi_and_uuid_pair: _containers.RepeatedCompositeFieldContainer[LbiAndDiffWatcherUuidPair]
    def __init__(self, lbi_and_uuid_pair: _Optional[_Iterable[_Union[LbiAndDiffWatcherUuidPair, _Mapping]]] = ...) -> None: ...

class LbiDiffWatcherInfo(_message.Message):
    __slots__ = ("job_name2lbi_and_watcher_uuids",)
    class JobName2lbiAndWatcherUuidsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: LbiAndDiffWatcherUuidPairList
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[LbiAndDiffWatcherUuidPairList, _Mapping]] = ...) -> None: ...
    JOB_NAME2LBI_AND_WATCHER_UUIDS_FIELD_NUMBER: _ClassVar[int]
    job_name2lbi_and_watcher_uuids: _containers.MessageMap[str, LbiAndDiffWatcherUuidPairList]
    def __init__(self, job_name2lbi_and_watcher_uuids: _Optional[_Mapping[str, LbiAndDiffWatcherUuidPairList]] = ...) -> None: ...
