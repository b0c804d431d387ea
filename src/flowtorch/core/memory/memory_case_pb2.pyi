from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CudaPinnedMemory(_message.Message):
    __slots__ = ("device_id",)
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    device_id: int
    def __init__(self, device_id: _Optional[int] = ...) -> None: ...

class HostMemory(_message.Message):
    __slots__ = ("cuda_pinned_mem", "used_by_network")
    CUDA_PINNED_MEM_FIELD_NUMBER: _ClassVar[int]
    USED_BY_NETWORK_FIELD_NUMBER: _ClassVar[int]
    cuda_pinned_mem: CudaPinnedMemory
    used_by_network: bool
    def __init__(self, cuda_pinned_mem: _Optional[_Union[CudaPinnedMemory, _Mapping]] = ..., used_by_network: bool = ...) -> None: ...

class DeviceCudaMemory(_message.Message):
    __slots__ = ("device_id",)
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    device_id: int
    def __init__(self, device_id: _Optional[int] = ...) -> None: ...

class MemoryCase(_message.Message):
    __slots__ = ("host_mem", "device_cuda_mem")
    HOST_MEM_FIELD_NUMBER: _ClassVar[int]
    DEVICE_CUDA_MEM_FIELD_NUMBER: _ClassVar[int]
    host_mem: HostMemory
    device_cuda_mem: DeviceCudaMemory
    def __init__(self, host_mem: _Optional[_Union[HostMemory, _Mapping]] = ..., device_cuda_mem: _Optional[_Union[DeviceCudaMemory, _Mapping]] = ...) -> None: ...
