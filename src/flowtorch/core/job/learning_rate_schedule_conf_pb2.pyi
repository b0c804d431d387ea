from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExponentialDecayConf(_message.Message):
    __slots__ = ("decay_batches", "decay_rate", "staircase")
    DECAY_BATCHES_FIELD_NUMBER: _ClassVar[int]
    DECAY_RATE_FIELD_NUMBER: _ClassVar[int]
    STAIRCASE_FIELD_NUMBER: _ClassVar[int]
    decay_batches: int
    decay_rate: float
    staircase: bool
    def __init__(self, decay_batches: _Optional[int] = ..., decay_rate: _Optional[float] = ..., staircase: bool = ...) -> None: ...

class InverseTimeDecayConf(_message.Message):
    __slots__ = ("decay_batches", "decay_rate", "staircase")
    DECAY_BATCHES_FIELD_NUMBER: _ClassVar[int]
    DECAY_RATE_FIELD_NUMBER: _ClassVar[int]
    STAIRCASE_FIELD_NUMBER: _ClassVar[int]
    decay_batches: int
    decay_rate: float
    staircase: bool
    def __init__(self, decay_batches: _Optional[int] = ..., decay_rate: _Optional[float] = ..., staircase: bool = ...) -> None: ...

class NaturalExpDecayConf(_message.Message):
    __slots__ = ("decay_batches", "decay_rate", "staircase")
    DECAY_BATCHES_FIELD_NUMBER: _ClassVar[int]
    DECAY_RATE_FIELD_NUMBER: _ClassVar[int]
    STAIRCASE_FIELD_NUMBER: _ClassVar[int]
    decay_batches: int
    decay_rate: float
    staircase: bool
    def __init__(self, decay_batches: _Optional[int] = ..., decay_rate: _Optional[float] = ..., staircase: bool = ...) -> None: ...

class PiecewiseConstantConf(_message.Message):
    __slots__ = ("boundaries", "values")
    BOUNDARIES_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    boundaries: _containers.RepeatedScalarFieldContainer[int]
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, boundaries: _Optional[_Iterable[int]] = ..., values: _Optional[_Iterable[float]] = ...) -> None: ...

class PolynomialDecayConf(_message.Message):
    __slots__ = ("decay_batches", "end_learning_rate", "power", "cycle")
    DECAY_BATCHES_FIELD_NUMBER: _ClassVar[int]
    END_LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    POWER_FIELD_NUMBER: _ClassVar[int]
    CYCLE_FIELD_NUMBER: _ClassVar[int]
    decay_batches: int
    end_learning_rate: float
    power: float
    cycle: bool
    def __init__(self, decay_batches: _Optional[int] = ..., end_learning_rate: _Optional[float] = ..., power: _Optional[float] = ..., cycle: bool = ...) -> None: ...

class CosineDecayConf(_message.Message):
    __slots__ = ("decay_batches", "alpha")
    DECAY_BATCHES_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    decay_batches: int
    alpha: float
    def __init__(self, decay_batches: _Optional[int] = ..., alpha: _Optional[float] = ...) -> None: ...

class LinearCosineDecayConf(_message.Message):
    __slots__ = ("decay_batches", "num_periods", "alpha", "beta")
    DECAY_BATCHES_FIELD_NUMBER: _ClassVar[int]
    NUM_PERIODS_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    decay_batches: int
    num_periods: float
    alpha: float
    beta: float
    def __init__(self, decay_batches: _Optional[int] = ..., num_periods: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ...) -> None: ...

class PiecewiseScalingConf(_message.Message):
    __slots__ = ("boundaries", "scales")
    BOUNDARIES_FIELD_NUMBER: _ClassVar[int]
    SCALES_FIELD_NUMBER: _ClassVar[int]
    boundaries: _containers.RepeatedScalarFieldContainer[int]
    scales: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, boundaries: _Optional[_Iterable[int]] = ..., scales: _Optional[_Iterable[float]] = ...) -> None: ...

class LearningRateDecayConf(_message.Message):
    __slots__ = ("exponential_conf", "inverse_time_conf", "natural_exp_conf", "piecewise_constant_conf", "polynomial_conf", "cosine_conf", "linear_cosine_conf", "piecewise_scaling_conf")
    EXPONENTIAL_CONF_FIELD_NUMBER: _ClassVar[int]
    INVERSE_TIME_CONF_FIELD_NUMBER: _ClassVar[int]
    NATURAL_EXP_CONF_FIELD_NUMBER: _ClassVar[int]
    PIECEWISE_CONSTANT_CONF_FIELD_NUMBER: _ClassVar[int]
    POLYNOMIAL_CONF_FIELD_NUMBER: _ClassVar[int]
    COSINE_CONF_FIELD_NUMBER: _ClassVar[int]
    LINEAR_COSINE_CONF_FIELD_NUMBER: _ClassVar[int]
    PIECEWISE_SCALING_CONF_FIELD_NUMBER: _ClassVar[int]
    exponential_conf: ExponentialDecayConf
    inverse_time_conf: InverseTimeDecayConf
    natural_exp_conf: NaturalExpDecayConf
    piecewise_constant_conf: PiecewiseConstantConf
    polynomial_conf: PolynomialDecayConf
    cosine_conf: CosineDecayConf
    linear_cosine_conf: LinearCosineDecayConf
    piecewise_scaling_conf: PiecewiseScalingConf
    def __init__(self, exponential_conf: _Optional[_Union[ExponentialDecayConf, _Mapping]] = ..., inverse_time_conf: _Optional[_Union[InverseTimeDecayConf, _Mapping]] = ..., natural_exp_conf: _Optional[_Union[NaturalExpDecayConf, _Mapping]] = ..., piecewise_constant_conf: _Optional[_Union[PiecewiseConstantConf, _Mapping]] = ..., polynomial_conf: _Optional[_Union[PolynomialDecayConf, _Mapping]] = ..., cosine_conf: _Optional[_Union[CosineDecayConf, _Mapping]] = ..., linear_cosine_conf: _Optional[_Union[LinearCosineDecayConf, _Mapping]] = ..., piecewise_scaling_conf: _Optional[_Union[PiecewiseScalingConf, _Mapping]] = ...) -> None: ...

class ConstantWarmupConf(_message.Message):
    __slots__ = ("warmup_batches", "multiplier")
    WARMUP_BATCHES_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    warmup_batches: int
    multiplier: float
    def __init__(self, warmup_batches: _Optional[int] = ..., multiplier: _Optional[float] = ...) -> None: ...

class LinearWarmupConf(_message.Message):
    __slots__ = ("warmup_batches", "start_multiplier")
    WARMUP_BATCHES_FIELD_NUMBER: _ClassVar[int]
    START_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    warmup_batches: int
    start_multiplier: float
    def __init__(self, warmup_batches: _Optional[int] = ..., start_multiplier: _Optional[float] = ...) -> None: ...

class WarmupConf(_message.Message):
    __slots__ = ("constant_conf", "linear_conf")
    CONSTANT_CONF_FIELD_NUMBER: _ClassVar[int]
    LINEAR_CONF_FIELD_NUMBER: _ClassVar[int]
    constant_conf: ConstantWarmupConf
    linear_conf: LinearWarmupConf
    def __init__(self, constant_conf: _Optional[_Union[ConstantWarmupConf, _Mapping]] = ..., linear_conf: _Optional[_Union[LinearWarmupConf, _Mapping]] = ...) -> None: ...
