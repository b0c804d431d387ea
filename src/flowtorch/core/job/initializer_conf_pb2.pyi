from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VarianceNorm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kFanIn: _ClassVar[VarianceNorm]
    kFanOut: _ClassVar[VarianceNorm]
    kAverage: _ClassVar[VarianceNorm]

class RandomDistribution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kRandomUniform: _ClassVar[RandomDistribution]
    kRandomNormal: _ClassVar[RandomDistribution]
    kTruncatedNormal: _ClassVar[RandomDistribution]
kFanIn: VarianceNorm
kFanOut: VarianceNorm
kAverage: VarianceNorm
kRandomUniform: RandomDistribution
kRandomNormal: RandomDistribution
kTruncatedNormal: RandomDistribution

class ConstantInitializerConf(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: float
    def __init__(self, value: _Optional[float] = ...) -> None: ...

class ConstantIntInitializerConf(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class RandomUniformInitializerConf(_message.Message):
    __slots__ = ("min", "max")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    min: float
    max: float
    def __init__(self, min: _Optional[float] = ..., max: _Optional[float] = ...) -> None: ...

class RandomUniformIntInitializerConf(_message.Message):
    __slots__ = ("min", "max")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    min: int
    max: int
    def __init__(self, min: _Optional[int] = ..., max: _Optional[int] = ...) -> None: ...

class RandomNormalInitializerConf(_message.Message):
    __slots__ = ("mean", "std")
    MEAN_FIELD_NUMBER: _ClassVar[int]
    STD_FIELD_NUMBER: _ClassVar[int]
    mean: float
    std: float
    def __init__(self, mean: _Optional[float] = ..., std: _Optional[float] = ...) -> None: ...

class TruncatedNormalInitializerConf(_message.Message):
    __slots__ = ("mean", "std")
    MEAN_FIELD_NUMBER: _ClassVar[int]
    STD_FIELD_NUMBER: _ClassVar[int]
    mean: float
    std: float
    def __init__(self, mean: _Optional[float] = ..., std: _Optional[float] = ...) -> None: ...

class XavierInitializerConf(_message.Message):
    __slots__ = ("variance_norm", "data_format")
    VARIANCE_NORM_FIELD_NUMBER: _ClassVar[int]
    DATA_FORMAT_FIELD_NUMBER: _ClassVar[int]
    variance_norm: VarianceNorm
    data_format: str
    def __init__(self, variance_norm: _Optional[_Union[VarianceNorm, str]] = ..., data_format: _Optional[str] = ...) -> None: ...

class MsraInitializerConf(_message.Message):
    __slots__ = ("variance_norm", "data_format")
    VARIANCE_NORM_FIELD_NUMBER: _ClassVar[int]
    DATA_FORMAT_FIELD_NUMBER: _ClassVar[int]
    variance_norm: VarianceNorm
    data_format: str
    def __init__(self, variance_norm: _Optional[_Union[VarianceNorm, str]] = ..., data_format: _Optional[str] = ...) -> None: ...

class RangeInitializerConf(_message.Message):
    __slots__ = ("start", "stride", "axis")
    START_FIELD_NUMBER: _ClassVar[int]
    STRIDE_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    start: float
    stride: float
    axis: int
    def __init__(self, start: _Optional[float] = ..., stride: _Optional[float] = ..., axis: _Optional[int] = ...) -> None: ...

class IntRangeInitializerConf(_message.Message):
    __slots__ = ("start", "stride", "axis")
    START_FIELD_NUMBER: _ClassVar[int]
    STRIDE_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    start: int
    stride: int
    axis: int
    def __init__(self, start: _Optional[int] = ..., stride: _Optional[int] = ..., axis: _Optional[int] = ...) -> None: ...

class VarianceScalingInitializerConf(_message.Message):
    __slots__ = ("scale", "variance_norm", "distribution", "data_format")
    SCALE_FIELD_NUMBER: _ClassVar[int]
    VARIANCE_NORM_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    DATA_FORMAT_FIELD_NUMBER: _ClassVar[int]
    scale: float
    variance_norm: VarianceNorm
    distribution: RandomDistribution
    data_format: str
    def __init__(self, scale: _Optional[float] = ..., variance_norm: _Optional[_Union[VarianceNorm, str]] = ..., distribution: _Optional[_Union[RandomDistribution, str]] = ..., data_format: _Optional[str] = ...) -> None: ...

class EmptyInitializerConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InitializerConf(_message.Message):
    __slots__ = ("constant_conf", "constant_int_conf", "random_uniform_conf", "random_uniform_int_conf", "random_normal_conf", "truncated_normal_conf", "xavier_conf", "msra_conf", "range_conf", "int_range_conf", "variance_scaling_conf", "empty_conf")
    CONSTANT_CONF_FIELD_NUMBER: _ClassVar[int]
    CONSTANT_INT_CONF_FIELD_NUMBER: _ClassVar[int]
    RANDOM_UNIFORM_CONF_FIELD_NUMBER: _ClassVar[int]
    RANDOM_UNIFORM_INT_CONF_FIELD_NUMBER: _ClassVar[int]
    RANDOM_NORMAL_CONF_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_NORMAL_CONF_FIELD_NUMBER: _ClassVar[int]
    XAVIER_CONF_FIELD_NUMBER: _ClassVar[int]
    MSRA_CONF_FIELD_NUMBER: _ClassVar[int]
    RANGE_CONF_FIELD_NUMBER: _ClassVar[int]
    INT_RANGE_CONF_FIELD_NUMBER: _ClassVar[int]
    VARIANCE_SCALING_CONF_FIELD_NUMBER: _ClassVar[int]
    EMPTY_CONF_FIELD_NUMBER: _ClassVar[int]
    constant_conf: ConstantInitializerConf
    constant_int_conf: ConstantIntInitializerConf
    random_uniform_conf: RandomUniformInitializerConf
    random_uniform_int_conf: RandomUniformIntInitializerConf
    random_normal_conf: RandomNormalInitializerConf
    truncated_normal_conf: TruncatedNormalInitializerConf
    xavier_conf: XavierInitializerConf
    msra_conf: MsraInitializerConf
    range_conf: RangeInitializerConf
    int_range_conf: IntRangeInitializerConf
    variance_scaling_conf: VarianceScalingInitializerConf
    empty_conf: EmptyInitializerConf
    def __init__(self, constant_conf: _Optional[_Union[ConstantInitializerConf, _Mapping]] = ..., constant_int_conf: _Optional[_Union[ConstantIntInitializerConf, _Mapping]] = ..., random_uniform_conf: _Optional[_Union[RandomUniformInitializerConf, _Mapping]] = ..., random_uniform_int_conf: _Optional[_Union[RandomUniformIntInitializerConf, _Mapping]] = ..., random_normal_conf: _Optional[_Union[RandomNormalInitializerConf, _Mapping]] = ..., truncated_normal_conf: _Optional[_Union[TruncatedNormalInitializerConf, _Mapping]] = ..., xavier_conf: _Optional[_Union[XavierInitializerConf, _Mapping]] = ..., msra_conf: _Optional[_Union[MsraInitializerConf, _Mapping]] = ..., range_conf: _Optional[_Union[RangeInitializerConf, _Mapping]] = ..., int_range_conf: _Optional[_Union[IntRangeInitializerConf, _Mapping]] = ..., variance_scaling_conf: _Optional[_Union[VarianceScalingInitializerConf, _Mapping]] = ..., empty_conf: _Optional[_Union[EmptyInitializerConf, _Mapping]] = ...) -> None: ...

class InitializeWithSnapshotConf(_message.Message):
    __slots__ = ("path", "key")
    PATH_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    path: str
    key: str
    def __init__(self, path: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...
