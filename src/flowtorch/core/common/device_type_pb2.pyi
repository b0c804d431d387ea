from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class DeviceType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kInvalidDevice: _ClassVar[DeviceType]
    kCPU: _ClassVar[DeviceType]
    kGPU: _ClassVar[DeviceType]
kInvalidDevice: DeviceType
kCPU: DeviceType
kGPU: DeviceType
