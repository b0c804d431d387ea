from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class L1L2RegularizerConf(_message.Message):
    __slots__ = ("l1", "l2")
    L1_FIELD_NUMBER: _ClassVar[int]
    L2_FIELD_NUMBER: _ClassVar[int]
    l1: float
    l2: float
    def __init__(self, l1: _Optional[float] = ..., l2: _Optional[float] = ...) -> None: ...

class RegularizerConf(_message.Message):
    __slots__ = ("l1_l2_conf",)
    L1_L2_CONF_FIELD_NUMBER: _ClassVar[int]
    l1_l2_conf: L1L2RegularizerConf
    def __init__(self, l1_l2_conf: _Optional[_Union[L1L2RegularizerConf, _Mapping]] = ...) -> None: ...
