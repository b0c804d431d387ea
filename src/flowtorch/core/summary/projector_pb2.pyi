from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MetaData(_message.Message):
    __slots__ = ("type", "content")
    class ProjectorType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        EMBEDDING: _ClassVar[MetaData.ProjectorType]
        EXCEPTION: _ClassVar[MetaData.ProjectorType]
    EMBEDDING: MetaData.ProjectorType
    EXCEPTION: MetaData.ProjectorType
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    type: MetaData.ProjectorType
    content: str
    def __init__(self, type: _Optional[_Union[MetaData.ProjectorType, str]] = ..., content: _Optional[str] = ...) -> None: ...

class Tensor(_message.Message):
    __slots__ = ("dtype", "shape", "content")
    class TensorShape(_message.Message):
        __slots__ = ("dim",)
        class Dim(_message.Message):
            __slots__ = ("size", "name")
            SIZE_FIELD_NUMBER: _ClassVar[int]
            NAME_FIELD_NUMBER: _ClassVar[int]
            size: int
            name: str
            def __init__(self, size: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
        DIM_FIELD_NUMBER: _ClassVar[int]
        dim: _containers.RepeatedCompositeFieldContainer[Tensor.TensorShape.Dim]
        def __init__(self, dim: _Optional[_Iterable[_Union[Tensor.TensorShape.Dim, _Mapping]]] = ...) -> None: ...
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    dtype: str
    shape: Tensor.TensorShape
    content: bytes
    def __init__(self, dtype: _Optional[str] = ..., shape: _Optional[_Union[Tensor.TensorShape, _Mapping]] = ..., content: _Optional[bytes] = ...) -> None: ...

class Sample(_message.Message):
    __slots__ = ("name", "type", "X")
    class SampleType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        IMAGE: _ClassVar[Sample.SampleType]
        AUDIO: _ClassVar[Sample.SampleType]
        TEXT: _ClassVar[Sample.SampleType]
    IMAGE: Sample.SampleType
    AUDIO: Sample.SampleType
    TEXT: Sample.SampleType
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: Sample.SampleType
    X: Tensor
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[Sample.SampleType, str]] = ..., X: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...

class Projector(_message.Message):
    __slots__ = ("tag", "step", "WALL_TIME", "value", "label")
    TAG_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    tag: str
    step: int
    WALL_TIME: float
    value: Tensor
    label: Tensor
    def __init__(self, tag: _Optional[str] = ..., step: _Optional[int] = ..., WALL_TIME: _Optional[float] = ..., value: _Optional[_Union[Tensor, _Mapping]] = ..., label: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...

class SummaryProjector(_message.Message):
    __slots__ = ("metadata", "sample", "projector")
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_FIELD_NUMBER: _ClassVar[int]
    PROJECTOR_FIELD_NUMBER: _ClassVar[int]
    metadata: MetaData
    sample: Sample
    projector: _containers.RepeatedCompositeFieldContainer[Projector]
    def __init__(self, metadata: _Optional[_Union[MetaData, _Mapping]] = ..., sample: _Optional[_Union[Sample, _Mapping]] = ..., projector: _Optional[_Iterable[_Union[Projector, _Mapping]]] = ...) -> None: ...
