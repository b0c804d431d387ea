from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SplitParallel(_message.Message):
    __slots__ = ("axis",)
    AXIS_FIELD_NUMBER: _ClassVar[int]
    axis: int
    def __init__(self, axis: _Optional[int] = ...) -> None: ...

class BroadcastParallel(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PartialSumParallel(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SbpParallel(_message.Message):
    __slots__ = ("split_parallel", "broadcast_parallel", "partial_sum_parallel")
    SPLIT_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_SUM_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    split_parallel: SplitParallel
    broadcast_parallel: BroadcastParallel
    partial_sum_parallel: PartialSumParallel
    def __init__(self, split_parallel: _Optional[_Union[SplitParallel, _Mapping]] = ..., broadcast_parallel: _Optional[_Union[BroadcastParallel, _Mapping]] = ..., partial_sum_parallel: _Optional[_Union[PartialSumParallel, _Mapping]] = ...) -> None: ...

class SbpSignature(_message.Message):
    __slots__ = ("bn_in_op2sbp_parallel",)
    class BnInOp2sbpParallelEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SbpParallel
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SbpParallel, _Mapping]] = ...) -> None: ...
    BN_IN_OP2SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2sbp_parallel: _containers.MessageMap[str, SbpParallel]
    def __init__(self, bn_in_op2sbp_parallel: _Optional[_Mapping[str, SbpParallel]] = ...) -> None: ...

class ParallelDistribution(_message.Message):
    __slots__ = ("sbp_parallel",)
    SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    sbp_parallel: _containers.RepeatedCompositeFieldContainer[SbpParallel]
    def __init__(self, sbp_parallel: _Optional[_Iterable[_Union[SbpParallel, _Mapping]]] = ...) -> None: ...

class ParallelDistributionSignature(_message.Message):
    __slots__ = ("bn_in_op2parallel_distribution",)
    class BnInOp2parallelDistributionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ParallelDistribution
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ParallelDistribution, _Mapping]] = ...) -> None: ...
    BN_IN_OP2PARALLEL_DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2parallel_distribution: _containers.MessageMap[str, ParallelDistribution]
    def __init__(self, bn_in_op2parallel_distribution: _Optional[_Mapping[str, ParallelDistribution]] = ...) -> None: ...

class SbpSignatureList(_message.Message):
    __slots__ = ("sbp_signature",)
    SBP_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    sbp_signature: _containers.RepeatedCompositeFieldContainer[SbpSignature]
    def __init__(self, sbp_signature: _Optional[_Iterable[_Union[SbpSignature, _Mapping]]] = ...) -> None: ...
