from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class WorkerProcessInfo(_message.Message):
    __slots__ = ("rank", "port", "host")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PORT_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    rank: int
    port: int
    host: str
    def __init__(self, rank: _Optional[int] = ..., port: _Optional[int] = ..., host: _Optional[str] = ...) -> None: ...
