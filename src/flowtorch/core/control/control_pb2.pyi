from flowtorch.core.actor import act_event_pb2 as _act_event_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TryLockResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kLocked: _ClassVar[TryLockResult]
    kDone: _ClassVar[TryLockResult]
    kDoing: _ClassVar[TryLockResult]
kLocked: TryLockResult
kDone: TryLockResult
kDoing: TryLockResult

class LoadServerRequest(_message.Message):
    __slots__ = ("addr", "rank")
    ADDR_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    addr: str
    rank: int
    def __init__(self, addr: _Optional[str] = ..., rank: _Optional[int] = ...) -> None: ...

class LoadServerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BarrierRequest(_message.Message):
    __slots__ = ("name", "num")
    NAME_FIELD_NUMBER: _ClassVar[int]
    NUM_FIELD_NUMBER: _ClassVar[int]
    name: str
    num: int
    def __init__(self, name: _Optional[str] = ..., num: _Optional[int] = ...) -> None: ...

class BarrierResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TryLockRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class TryLockResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: TryLockResult
    def __init__(self, result: _Optional[_Union[TryLockResult, str]] = ...) -> None: ...

class NotifyDoneRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class NotifyDoneResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WaitUntilDoneRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class WaitUntilDoneResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PushKVRequest(_message.Message):
    __slots__ = ("key", "val")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VAL_FIELD_NUMBER: _ClassVar[int]
    key: str
    val: bytes
    def __init__(self, key: _Optional[str] = ..., val: _Optional[bytes] = ...) -> None: ...

class PushKVResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClearKVRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class ClearKVResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PullKVRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class PullKVResponse(_message.Message):
    __slots__ = ("val",)
    VAL_FIELD_NUMBER: _ClassVar[int]
    val: bytes
    def __init__(self, val: _Optional[bytes] = ...) -> None: ...

class PushActEventRequest(_message.Message):
    __slots__ = ("act_event",)
    ACT_EVENT_FIELD_NUMBER: _ClassVar[int]
    act_event: _act_event_pb2.ActEvent
    def __init__(self, act_event: _Optional[_Union[_act_event_pb2.ActEvent, _Mapping]] = ...) -> None: ...

class PushActEventResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClearRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClearResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class IncreaseCountRequest(_message.Message):
    __slots__ = ("key", "val")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VAL_FIELD_NUMBER: _ClassVar[int]
    key: str
    val: int
    def __init__(self, key: _Optional[str] = ..., val: _Optional[int] = ...) -> None: ...

class IncreaseCountResponse(_message.Message):
    __slots__ = ("val",)
    VAL_FIELD_NUMBER: _ClassVar[int]
    val: int
    def __init__(self, val: _Optional[int] = ...) -> None: ...

class EraseCountRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class EraseCountResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
