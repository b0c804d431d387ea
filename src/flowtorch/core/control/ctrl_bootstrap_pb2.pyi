from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Address(_message.Message):
    __slots__ = ("host", "port")
    HOST_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    host: str
    port: int
    def __init__(self, host: _Optional[str] = ..., port: _Optional[int] = ...) -> None: ...

class ProcessCtx(_message.Message):
    __slots__ = ("ctrl_addr", "rank", "node_size")
    CTRL_ADDR_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    NODE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ctrl_addr: _containers.RepeatedCompositeFieldContainer[Address]
    rank: int
    node_size: int
    def __init__(self, ctrl_addr: _Optional[_Iterable[_Union[Address, _Mapping]]] = ..., rank: _Optional[int] = ..., node_size: _Optional[int] = ...) -> None: ...

class BootstrapConf(_message.Message):
    __slots__ = ("master_addr", "rank", "world_size", "host", "ctrl_port", "node_size", "num_process_per_node")
    MASTER_ADDR_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    WORLD_SIZE_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    CTRL_PORT_FIELD_NUMBER: _ClassVar[int]
    NODE_SIZE_FIELD_NUMBER: _ClassVar[int]
    NUM_PROCESS_PER_NODE_FIELD_NUMBER: _ClassVar[int]
    master_addr: Address
    rank: int
    world_size: int
    host: str
    ctrl_port: int
    node_size: int
    num_process_per_node: NumProcessPerNode
    def __init__(self, master_addr: _Optional[_Union[Address, _Mapping]] = ..., rank: _Optional[int] = ..., world_size: _Optional[int] = ..., host: _Optional[str] = ..., ctrl_port: _Optional[int] = ..., node_size: _Optional[int] = ..., num_process_per_node: _Optional[_Union[NumProcessPerNode, _Mapping]] = ...) -> None: ...

class NumProcessPerNode(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...
