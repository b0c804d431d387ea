from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AvailableMemDescOfMachine(_message.Message):
    __slots__ = ("zone_size",)
    ZONE_SIZE_FIELD_NUMBER: _ClassVar[int]
    zone_size: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, zone_size: _Optional[_Iterable[int]] = ...) -> None: ...

class AvailableMemDesc(_message.Message):
    __slots__ = ("machine_amd",)
    MACHINE_AMD_FIELD_NUMBER: _ClassVar[int]
    machine_amd: _containers.RepeatedCompositeFieldContainer[AvailableMemDescOfMachine]
    def __init__(self, machine_amd: _Optional[_Iterable[_Union[AvailableMemDescOfMachine, _Mapping]]] = ...) -> None: ...
