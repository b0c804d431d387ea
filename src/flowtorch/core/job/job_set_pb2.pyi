from flowtorch.core.job import job_pb2 as _job_pb2
from flowtorch.core.job import resource_pb2 as _resource_pb2
from flowtorch.core.common import device_type_pb2 as _device_type_pb2
from flowtorch.core.job import file_system_conf_pb2 as _file_system_conf_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class IOConf(_message.Message):
    __slots__ = ("data_fs_conf", "snapshot_fs_conf", "save_downloaded_file_to_local_fs", "persistence_buf_byte", "enable_model_io_v2", "enable_legacy_model_io")
    DATA_FS_CONF_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FS_CONF_FIELD_NUMBER: _ClassVar[int]
    SAVE_DOWNLOADED_FILE_TO_LOCAL_FS_FIELD_NUMBER: _ClassVar[int]
    PERSISTENCE_BUF_BYTE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_MODEL_IO_V2_FIELD_NUMBER: _ClassVar[int]
    ENABLE_LEGACY_MODEL_IO_FIELD_NUMBER: _ClassVar[int]
    data_fs_conf: _file_system_conf_pb2.FileSystemConf
    snapshot_fs_conf: _file_system_conf_pb2.FileSystemConf
    save_downloaded_file_to_local_fs: bool
    persistence_buf_byte: int
    enable_model_io_v2: bool
    enable_legacy_model_io: bool
    def __init__(self, data_fs_conf: _Optional[_Union[_file_system_conf_pb2.FileSystemConf, _Mapping]] = ..., snapshot_fs_conf: _Optional[_Union[_file_system_conf_pb2.FileSystemConf, _Mapping]] = ..., save_downloaded_file_to_local_fs: bool = ..., persistence_buf_byte: _Optional[int] = ..., enable_model_io_v2: bool = ..., enable_legacy_model_io: bool = ...) -> None: ...

class ProfilerConf(_message.Message):
    __slots__ = ("collect_act_event",)
    COLLECT_ACT_EVENT_FIELD_NUMBER: _ClassVar[int]
    collect_act_event: bool
    def __init__(self, collect_act_event: bool = ...) -> None: ...

class ReuseMemPriorityStrategy(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ParallelismPriorityStrategy(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobNameGroup(_message.Message):
    __slots__ = ("job_name",)
    JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    job_name: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, job_name: _Optional[_Iterable[str]] = ...) -> None: ...

class CustomParallelismStrategy(_message.Message):
    __slots__ = ("nonparallel_group",)
    NONPARALLEL_GROUP_FIELD_NUMBER: _ClassVar[int]
    nonparallel_group: _containers.RepeatedCompositeFieldContainer[JobNameGroup]
    def __init__(self, nonparallel_group: _Optional[_Iterable[_Union[JobNameGroup, _Mapping]]] = ...) -> None: ...

class InterJobReuseMemStrategy(_message.Message):
    __slots__ = ("reuse_mem_priority", "parallelism_priority", "custom_parallelism")
    REUSE_MEM_PRIORITY_FIELD_NUMBER: _ClassVar[int]
    PARALLELISM_PRIORITY_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_PARALLELISM_FIELD_NUMBER: _ClassVar[int]
    reuse_mem_priority: ReuseMemPriorityStrategy
    parallelism_priority: ParallelismPriorityStrategy
    custom_parallelism: CustomParallelismStrategy
    def __init__(self, reuse_mem_priority: _Optional[_Union[ReuseMemPriorityStrategy, _Mapping]] = ..., parallelism_priority: _Optional[_Union[ParallelismPriorityStrategy, _Mapping]] = ..., custom_parallelism: _Optional[_Union[CustomParallelismStrategy, _Mapping]] = ...) -> None: ...

class ConfigProto(_message.Message):
    __slots__ = ("resource", "io_conf", "profiler_conf", "load_lib_path", "session_id")
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    IO_CONF_FIELD_NUMBER: _ClassVar[int]
    PROFILER_CONF_FIELD_NUMBER: _ClassVar[int]
    LOAD_LIB_PATH_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    resource: _resource_pb2.Resource
    io_conf: IOConf
    profiler_conf: ProfilerConf
    load_lib_path: _containers.RepeatedScalarFieldContainer[str]
    session_id: int
    def __init__(self, resource: _Optional[_Union[_resource_pb2.Resource, _Mapping]] = ..., io_conf: _Optional[_Union[IOConf, _Mapping]] = ..., profiler_conf: _Optional[_Union[ProfilerConf, _Mapping]] = ..., load_lib_path: _Optional[_Iterable[str]] = ..., session_id: _Optional[int] = ...) -> None: ...

class JobSet(_message.Message):
    __slots__ = ("job", "inter_job_reuse_mem_strategy")
    JOB_FIELD_NUMBER: _ClassVar[int]
    INTER_JOB_REUSE_MEM_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    job: _containers.RepeatedCompositeFieldContainer[_job_pb2.Job]
    inter_job_reuse_mem_strategy: InterJobReuseMemStrategy
    def __init__(self, job: _Optional[_Iterable[_Union[_job_pb2.Job, _Mapping]]] = ..., inter_job_reuse_mem_strategy: _Optional[_Union[InterJobReuseMemStrategy, _Mapping]] = ...) -> None: ...
