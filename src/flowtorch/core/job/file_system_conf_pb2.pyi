from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LocalFsConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NetworkFsConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HdfsConf(_message.Message):
    __slots__ = ("namenode",)
    NAMENODE_FIELD_NUMBER: _ClassVar[int]
    namenode: str
    def __init__(self, namenode: _Optional[str] = ...) -> None: ...

class FileSystemConf(_message.Message):
    __slots__ = ("localfs_conf", "networkfs_conf", "hdfs_conf")
    LOCALFS_CONF_FIELD_NUMBER: _ClassVar[int]
    NETWORKFS_CONF_FIELD_NUMBER: _ClassVar[int]
    HDFS_CONF_FIELD_NUMBER: _ClassVar[int]
    localfs_conf: LocalFsConf
    networkfs_conf: NetworkFsConf
    hdfs_conf: HdfsConf
    def __init__(self, localfs_conf: _Optional[_Union[LocalFsConf, _Mapping]] = ..., networkfs_conf: _Optional[_Union[NetworkFsConf, _Mapping]] = ..., hdfs_conf: _Optional[_Union[HdfsConf, _Mapping]] = ...) -> None: ...
