from flowtorch.core.control import ctrl_bootstrap_pb2 as _ctrl_bootstrap_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Machine(_message.Message):
    __slots__ = ("id", "addr", "ctrl_port_agent", "data_port_agent")
    ID_FIELD_NUMBER: _ClassVar[int]
    ADDR_FIELD_NUMBER: _ClassVar[int]
    CTRL_PORT_AGENT_FIELD_NUMBER: _ClassVar[int]
    DATA_PORT_AGENT_FIELD_NUMBER: _ClassVar[int]
    id: int
    addr: str
    ctrl_port_agent: int
    data_port_agent: int
    def __init__(self, id: _Optional[int] = ..., addr: _Optional[str] = ..., ctrl_port_agent: _Optional[int] = ..., data_port_agent: _Optional[int] = ...) -> None: ...

class CppLoggingConf(_message.Message):
    __slots__ = ("log_dir", "logtostderr", "logbuflevel")
    LOG_DIR_FIELD_NUMBER: _ClassVar[int]
    LOGTOSTDERR_FIELD_NUMBER: _ClassVar[int]
    LOGBUFLEVEL_FIELD_NUMBER: _ClassVar[int]
    log_dir: str
    logtostderr: int
    logbuflevel: int
    def __init__(self, log_dir: _Optional[str] = ..., logtostderr: _Optional[int] = ..., logbuflevel: _Optional[int] = ...) -> None: ...

class EnvProto(_message.Message):
    __slots__ = ("machine", "ctrl_port", "data_port", "cpp_logging_conf", "ctrl_bootstrap_conf", "is_default_physical_env")
    MACHINE_FIELD_NUMBER: _ClassVar[int]
    CTRL_PORT_FIELD_NUMBER: _ClassVar[int]
    DATA_PORT_FIELD_NUMBER: _ClassVar[int]
    CPP_LOGGING_CONF_FIELD_NUMBER: _ClassVar[int]
    CTRL_BOOTSTRAP_CONF_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_PHYSICAL_ENV_FIELD_NUMBER: _ClassVar[int]
    machine: _containers.RepeatedCompositeFieldContainer[Machine]
    ctrl_port: int
    data_port: int
    cpp_logging_conf: CppLoggingConf
    ctrl_bootstrap_conf: _ctrl_bootstrap_pb2.BootstrapConf
    is_default_physical_env: bool
    def __init__(self, machine: _Optional[_Iterable[_Union[Machine, _Mapping]]] = ..., ctrl_port: _Optional[int] = ..., data_port: _Optional[int] = ..., cpp_logging_conf: _Optional[_Union[CppLoggingConf, _Mapping]] = ..., ctrl_bootstrap_conf: _Optional[_Union[_ctrl_bootstrap_pb2.BootstrapConf, _Mapping]] = ..., is_default_physical_env: bool = ...) -> None: ...
