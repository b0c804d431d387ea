from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from flowtorch.core.common import shape_pb2 as _shape_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ParallelContext(_message.Message):
    __slots__ = ("parallel_id", "parallel_num")
    PARALLEL_ID_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_NUM_FIELD_NUMBER: _ClassVar[int]
    parallel_id: int
    parallel_num: int
    def __init__(self, parallel_id: _Optional[int] = ..., parallel_num: _Optional[int] = ...) -> None: ...

class ParallelConf(_message.Message):
    __slots__ = ("device_name", "device_tag", "hierarchy")
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TAG_FIELD_NUMBER: _ClassVar[int]
    HIERARCHY_FIELD_NUMBER: _ClassVar[int]
    device_name: _containers.RepeatedScalarFieldContainer[str]
    device_tag: str
    hierarchy: _shape_pb2.ShapeProto
    def __init__(self, device_name: _Optional[_Iterable[str]] = ..., device_tag: _Optional[str] = ..., hierarchy: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ...) -> None: ...

class OpNameSet(_message.Message):
    __slots__ = ("op_name",)
    OP_NAME_FIELD_NUMBER: _ClassVar[int]
    op_name: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, op_name: _Optional[_Iterable[str]] = ...) -> None: ...

class PlacementGroup(_message.Message):
    __slots__ = ("op_set", "parallel_conf")
    OP_SET_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CONF_FIELD_NUMBER: _ClassVar[int]
    op_set: OpNameSet
    parallel_conf: ParallelConf
    def __init__(self, op_set: _Optional[_Union[OpNameSet, _Mapping]] = ..., parallel_conf: _Optional[_Union[ParallelConf, _Mapping]] = ...) -> None: ...

class BlobPlacementGroup(_message.Message):
    __slots__ = ("lbi", "parallel_conf")
    LBI_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CONF_FIELD_NUMBER: _ClassVar[int]
    lbi: _containers.RepeatedCompositeFieldContainer[_logical_blob_id_pb2.LogicalBlobId]
    parallel_conf: ParallelConf
    def __init__(self, lbi: _Optional[_Iterable[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]]] = ..., parallel_conf: _Optional[_Union[ParallelConf, _Mapping]] = ...) -> None: ...

class Placement(_message.Message):
    __slots__ = ("placement_group", "blob_placement_group")
    PLACEMENT_GROUP_FIELD_NUMBER: _ClassVar[int]
    BLOB_PLACEMENT_GROUP_FIELD_NUMBER: _ClassVar[int]
    placement_group: _containers.RepeatedCompositeFieldContainer[PlacementGroup]
    blob_placement_group: _containers.RepeatedCompositeFieldContainer[BlobPlacementGroup]
    def __init__(self, placement_group: _Optional[_Iterable[_Union[PlacementGroup, _Mapping]]] = ..., blob_placement_group: _Optional[_Iterable[_Union[BlobPlacementGroup, _Mapping]]] = ...) -> None: ...
