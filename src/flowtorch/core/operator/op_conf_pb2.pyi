from flowtorch.core.common import shape_pb2 as _shape_pb2
from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from flowtorch.core.common import device_type_pb2 as _device_type_pb2
from flowtorch.core.record import record_pb2 as _record_pb2
from flowtorch.core.job import resource_pb2 as _resource_pb2
from flowtorch.core.common import device_type_pb2 as _device_type_pb2_1
from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from flowtorch.core.register import tensor_slice_view_pb2 as _tensor_slice_view_pb2
from flowtorch.core.framework import user_op_conf_pb2 as _user_op_conf_pb2
from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from flowtorch.core.graph.boxing import collective_boxing_pb2 as _collective_boxing_pb2
from flowtorch.core.job import initializer_conf_pb2 as _initializer_conf_pb2
from flowtorch.core.job import regularizer_conf_pb2 as _regularizer_conf_pb2
from flowtorch.core.job import learning_rate_schedule_conf_pb2 as _learning_rate_schedule_conf_pb2
from flowtorch.core.operator import interface_blob_conf_pb2 as _interface_blob_conf_pb2
from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActivationType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kNone: _ClassVar[ActivationType]
    kTanH: _ClassVar[ActivationType]
    kSigmoid: _ClassVar[ActivationType]
    kRelu: _ClassVar[ActivationType]
kNone: ActivationType
kTanH: ActivationType
kSigmoid: ActivationType
kRelu: ActivationType

class DistributeConcatOpConf(_message.Message):
    __slots__ = ("out", "axis")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    out: str
    axis: int
    def __init__(self, out: _Optional[str] = ..., axis: _Optional[int] = ..., **kwargs) -> None: ...

class DistributeSplitOpConf(_message.Message):
    __slots__ = ("out", "axis", "is_variable_ref")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    IS_VARIABLE_REF_FIELD_NUMBER: _ClassVar[int]
    out: _containers.RepeatedScalarFieldContainer[str]
    axis: int
    is_variable_ref: bool
    def __init__(self, out: _Optional[_Iterable[str]] = ..., axis: _Optional[int] = ..., is_variable_ref: bool = ..., **kwargs) -> None: ...

class DistributeCloneOpConf(_message.Message):
    __slots__ = ("out", "is_variable_ref")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    IS_VARIABLE_REF_FIELD_NUMBER: _ClassVar[int]
    out: _containers.RepeatedScalarFieldContainer[str]
    is_variable_ref: bool
    def __init__(self, out: _Optional[_Iterable[str]] = ..., is_variable_ref: bool = ..., **kwargs) -> None: ...

class DistributeAddOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class CopyCommNetOpConf(_message.Message):
    __slots__ = ("lbi",)
    LBI_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ...) -> None: ...

class CopyHdOpConf(_message.Message):
    __slots__ = ("type", "lbi")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        H2D: _ClassVar[CopyHdOpConf.Type]
        D2H: _ClassVar[CopyHdOpConf.Type]
    H2D: CopyHdOpConf.Type
    D2H: CopyHdOpConf.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LBI_FIELD_NUMBER: _ClassVar[int]
    type: CopyHdOpConf.Type
    lbi: _logical_blob_id_pb2.LogicalBlobId
    def __init__(self, type: _Optional[_Union[CopyHdOpConf.Type, str]] = ..., lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ...) -> None: ...

class BoxConcatConf(_message.Message):
    __slots__ = ("axis",)
    AXIS_FIELD_NUMBER: _ClassVar[int]
    axis: int
    def __init__(self, axis: _Optional[int] = ...) -> None: ...

class BoxAddConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BoxSplitConf(_message.Message):
    __slots__ = ("axis", "part_num")
    AXIS_FIELD_NUMBER: _ClassVar[int]
    PART_NUM_FIELD_NUMBER: _ClassVar[int]
    axis: int
    part_num: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, axis: _Optional[int] = ..., part_num: _Optional[_Iterable[int]] = ...) -> None: ...

class BoxCloneConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BoxingOpConf(_message.Message):
    __slots__ = ("lbi", "in_num", "out_num", "concat_box", "add_box", "split_box", "clone_box")
    LBI_FIELD_NUMBER: _ClassVar[int]
    IN_NUM_FIELD_NUMBER: _ClassVar[int]
    OUT_NUM_FIELD_NUMBER: _ClassVar[int]
    CONCAT_BOX_FIELD_NUMBER: _ClassVar[int]
    ADD_BOX_FIELD_NUMBER: _ClassVar[int]
    SPLIT_BOX_FIELD_NUMBER: _ClassVar[int]
    CLONE_BOX_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    in_num: int
    out_num: int
    concat_box: BoxConcatConf
    add_box: BoxAddConf
    split_box: BoxSplitConf
    clone_box: BoxCloneConf
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., in_num: _Optional[int] = ..., out_num: _Optional[int] = ..., concat_box: _Optional[_Union[BoxConcatConf, _Mapping]] = ..., add_box: _Optional[_Union[BoxAddConf, _Mapping]] = ..., split_box: _Optional[_Union[BoxSplitConf, _Mapping]] = ..., clone_box: _Optional[_Union[BoxCloneConf, _Mapping]] = ...) -> None: ...

class DynamicReshapeOpConf(_message.Message):
    __slots__ = ("out", "shape")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    out: str
    shape: _shape_pb2.ShapeProto
    def __init__(self, out: _Optional[str] = ..., shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., **kwargs) -> None: ...

class DynamicReshapeLikeOpConf(_message.Message):
    __slots__ = ("x", "y", "like")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    LIKE_FIELD_NUMBER: _ClassVar[int]
    x: str
    y: str
    like: str
    def __init__(self, x: _Optional[str] = ..., y: _Optional[str] = ..., like: _Optional[str] = ...) -> None: ...

class InputOpConf(_message.Message):
    __slots__ = ("tick", "out", "blob_conf")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    BLOB_CONF_FIELD_NUMBER: _ClassVar[int]
    tick: str
    out: str
    blob_conf: _interface_blob_conf_pb2.InterfaceBlobConf
    def __init__(self, tick: _Optional[str] = ..., out: _Optional[str] = ..., blob_conf: _Optional[_Union[_interface_blob_conf_pb2.InterfaceBlobConf, _Mapping]] = ...) -> None: ...

class ForeignInputOpConf(_message.Message):
    __slots__ = ("tick", "out", "blob_conf", "ofblob_buffer_name")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    BLOB_CONF_FIELD_NUMBER: _ClassVar[int]
    OFBLOB_BUFFER_NAME_FIELD_NUMBER: _ClassVar[int]
    tick: str
    out: str
    blob_conf: _interface_blob_conf_pb2.InterfaceBlobConf
    ofblob_buffer_name: str
    def __init__(self, tick: _Optional[str] = ..., out: _Optional[str] = ..., blob_conf: _Optional[_Union[_interface_blob_conf_pb2.InterfaceBlobConf, _Mapping]] = ..., ofblob_buffer_name: _Optional[str] = ...) -> None: ...

class ReturnOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class OutputOpConf(_message.Message):
    __slots__ = ("out", "blob_conf")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    BLOB_CONF_FIELD_NUMBER: _ClassVar[int]
    out: str
    blob_conf: _interface_blob_conf_pb2.InterfaceBlobConf
    def __init__(self, out: _Optional[str] = ..., blob_conf: _Optional[_Union[_interface_blob_conf_pb2.InterfaceBlobConf, _Mapping]] = ..., **kwargs) -> None: ...

class ForeignOutputOpConf(_message.Message):
    __slots__ = ("ofblob_buffer_name",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OFBLOB_BUFFER_NAME_FIELD_NUMBER: _ClassVar[int]
    ofblob_buffer_name: str
    def __init__(self, ofblob_buffer_name: _Optional[str] = ..., **kwargs) -> None: ...

class ForeignWatchOpConf(_message.Message):
    __slots__ = ("handler_uuid",)
    IN_FIELD_NUMBER: _ClassVar[int]
    HANDLER_UUID_FIELD_NUMBER: _ClassVar[int]
    handler_uuid: str
    def __init__(self, handler_uuid: _Optional[str] = ..., **kwargs) -> None: ...

class VariableOpConf(_message.Message):
    __slots__ = ("tick", "out", "shape", "data_type", "initializer", "initialize_with_snapshot", "model_name", "random_seed", "regularizer", "trainable", "parallel_distribution")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    INITIALIZER_FIELD_NUMBER: _ClassVar[int]
    INITIALIZE_WITH_SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
    RANDOM_SEED_FIELD_NUMBER: _ClassVar[int]
    REGULARIZER_FIELD_NUMBER: _ClassVar[int]
    TRAINABLE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    tick: str
    out: str
    shape: _shape_pb2.ShapeProto
    data_type: _data_type_pb2.DataType
    initializer: _initializer_conf_pb2.InitializerConf
    initialize_with_snapshot: _initializer_conf_pb2.InitializeWithSnapshotConf
    model_name: str
    random_seed: int
    regularizer: _regularizer_conf_pb2.RegularizerConf
    trainable: bool
    parallel_distribution: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tick: _Optional[str] = ..., out: _Optional[str] = ..., shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., initializer: _Optional[_Union[_initializer_conf_pb2.InitializerConf, _Mapping]] = ..., initialize_with_snapshot: _Optional[_Union[_initializer_conf_pb2.InitializeWithSnapshotConf, _Mapping]] = ..., model_name: _Optional[str] = ..., random_seed: _Optional[int] = ..., regularizer: _Optional[_Union[_regularizer_conf_pb2.RegularizerConf, _Mapping]] = ..., trainable: bool = ..., parallel_distribution: _Optional[_Iterable[str]] = ...) -> None: ...

class DecodeRandomOpConf(_message.Message):
    __slots__ = ("tick", "out", "shape", "data_type", "data_initializer", "batch_size")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_INITIALIZER_FIELD_NUMBER: _ClassVar[int]
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    tick: str
    out: str
    shape: _shape_pb2.ShapeProto
    data_type: _data_type_pb2.DataType
    data_initializer: _initializer_conf_pb2.InitializerConf
    batch_size: int
    def __init__(self, tick: _Optional[str] = ..., out: _Optional[str] = ..., shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., data_initializer: _Optional[_Union[_initializer_conf_pb2.InitializerConf, _Mapping]] = ..., batch_size: _Optional[int] = ...) -> None: ...

class TickOpConf(_message.Message):
    __slots__ = ("tick", "out")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    tick: _containers.RepeatedScalarFieldContainer[str]
    out: str
    def __init__(self, tick: _Optional[_Iterable[str]] = ..., out: _Optional[str] = ...) -> None: ...

class DeviceTickOpConf(_message.Message):
    __slots__ = ("tick", "out", "time_shape")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    TIME_SHAPE_FIELD_NUMBER: _ClassVar[int]
    tick: _containers.RepeatedScalarFieldContainer[str]
    out: str
    time_shape: _shape_pb2.ShapeProto
    def __init__(self, tick: _Optional[_Iterable[str]] = ..., out: _Optional[str] = ..., time_shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ...) -> None: ...

class WaitAndSendIdsOpConf(_message.Message):
    __slots__ = ("out", "wait_buffer_name", "id_list", "data_type")
    OUT_FIELD_NUMBER: _ClassVar[int]
    WAIT_BUFFER_NAME_FIELD_NUMBER: _ClassVar[int]
    ID_LIST_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    out: str
    wait_buffer_name: str
    id_list: _containers.RepeatedCompositeFieldContainer[_record_pb2.Int64List]
    data_type: _data_type_pb2.DataType
    def __init__(self, out: _Optional[str] = ..., wait_buffer_name: _Optional[str] = ..., id_list: _Optional[_Iterable[_Union[_record_pb2.Int64List, _Mapping]]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ...) -> None: ...

class CallbackNotifyOpConf(_message.Message):
    __slots__ = ("callback_buffer_name",)
    IN_FIELD_NUMBER: _ClassVar[int]
    CALLBACK_BUFFER_NAME_FIELD_NUMBER: _ClassVar[int]
    callback_buffer_name: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, callback_buffer_name: _Optional[_Iterable[str]] = ..., **kwargs) -> None: ...

class ReentrantLockOpConf(_message.Message):
    __slots__ = ("start", "end", "out", "lock_id2intersecting_lock_ids")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    LOCK_ID2INTERSECTING_LOCK_IDS_FIELD_NUMBER: _ClassVar[int]
    start: str
    end: str
    out: str
    lock_id2intersecting_lock_ids: _containers.RepeatedCompositeFieldContainer[_record_pb2.Int64List]
    def __init__(self, start: _Optional[str] = ..., end: _Optional[str] = ..., out: _Optional[str] = ..., lock_id2intersecting_lock_ids: _Optional[_Iterable[_Union[_record_pb2.Int64List, _Mapping]]] = ...) -> None: ...

class SrcSubsetTickOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class DstSubsetTickOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class SourceTickOpConf(_message.Message):
    __slots__ = ("out",)
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ...) -> None: ...

class SinkTickOpConf(_message.Message):
    __slots__ = ("tick", "out")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    tick: _containers.RepeatedScalarFieldContainer[str]
    out: str
    def __init__(self, tick: _Optional[_Iterable[str]] = ..., out: _Optional[str] = ...) -> None: ...

class TotalLossInstanceNumOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class ShapeElemCntAxisConf(_message.Message):
    __slots__ = ("axis",)
    AXIS_FIELD_NUMBER: _ClassVar[int]
    axis: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, axis: _Optional[_Iterable[int]] = ...) -> None: ...

class ShapeElemCntRangeAxisConf(_message.Message):
    __slots__ = ("begin_axis", "end_axis")
    BEGIN_AXIS_FIELD_NUMBER: _ClassVar[int]
    END_AXIS_FIELD_NUMBER: _ClassVar[int]
    begin_axis: int
    end_axis: int
    def __init__(self, begin_axis: _Optional[int] = ..., end_axis: _Optional[int] = ...) -> None: ...

class ShapeElemCntOpConf(_message.Message):
    __slots__ = ("x", "y", "data_type", "exclude_axis_conf", "include_axis_conf", "range_axis_conf")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_AXIS_CONF_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_AXIS_CONF_FIELD_NUMBER: _ClassVar[int]
    RANGE_AXIS_CONF_FIELD_NUMBER: _ClassVar[int]
    x: str
    y: str
    data_type: _data_type_pb2.DataType
    exclude_axis_conf: ShapeElemCntAxisConf
    include_axis_conf: ShapeElemCntAxisConf
    range_axis_conf: ShapeElemCntRangeAxisConf
    def __init__(self, x: _Optional[str] = ..., y: _Optional[str] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., exclude_axis_conf: _Optional[_Union[ShapeElemCntAxisConf, _Mapping]] = ..., include_axis_conf: _Optional[_Union[ShapeElemCntAxisConf, _Mapping]] = ..., range_axis_conf: _Optional[_Union[ShapeElemCntRangeAxisConf, _Mapping]] = ...) -> None: ...

class AccTickOpConf(_message.Message):
    __slots__ = ("one", "acc", "max_acc_num")
    ONE_FIELD_NUMBER: _ClassVar[int]
    ACC_FIELD_NUMBER: _ClassVar[int]
    MAX_ACC_NUM_FIELD_NUMBER: _ClassVar[int]
    one: str
    acc: str
    max_acc_num: int
    def __init__(self, one: _Optional[str] = ..., acc: _Optional[str] = ..., max_acc_num: _Optional[int] = ...) -> None: ...

class ModelInitOpConf(_message.Message):
    __slots__ = ("tick", "out", "variable_op_name", "original_variable_conf")
    TICK_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    tick: str
    out: _containers.RepeatedScalarFieldContainer[str]
    variable_op_name: _containers.RepeatedScalarFieldContainer[str]
    original_variable_conf: _containers.RepeatedCompositeFieldContainer[VariableOpConf]
    def __init__(self, tick: _Optional[str] = ..., out: _Optional[_Iterable[str]] = ..., variable_op_name: _Optional[_Iterable[str]] = ..., original_variable_conf: _Optional[_Iterable[_Union[VariableOpConf, _Mapping]]] = ...) -> None: ...

class ModelLoadOpConf(_message.Message):
    __slots__ = ("path", "out", "variable_op_name", "original_variable_conf")
    PATH_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    path: str
    out: _containers.RepeatedScalarFieldContainer[str]
    variable_op_name: _containers.RepeatedScalarFieldContainer[str]
    original_variable_conf: _containers.RepeatedCompositeFieldContainer[VariableOpConf]
    def __init__(self, path: _Optional[str] = ..., out: _Optional[_Iterable[str]] = ..., variable_op_name: _Optional[_Iterable[str]] = ..., original_variable_conf: _Optional[_Iterable[_Union[VariableOpConf, _Mapping]]] = ...) -> None: ...

class IdentityOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class CopyOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: str
    def __init__(self, out: _Optional[str] = ..., **kwargs) -> None: ...

class CastToMirroredOpConf(_message.Message):
    __slots__ = ("out", "sbp_parallel")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    out: str
    sbp_parallel: _sbp_parallel_pb2.SbpParallel
    def __init__(self, out: _Optional[str] = ..., sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., **kwargs) -> None: ...

class CastFromMirroredOpConf(_message.Message):
    __slots__ = ("out", "sbp_parallel")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    out: str
    sbp_parallel: _sbp_parallel_pb2.SbpParallel
    def __init__(self, out: _Optional[str] = ..., sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., **kwargs) -> None: ...

class CaseOpConf(_message.Message):
    __slots__ = ("out",)
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    out: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, out: _Optional[_Iterable[str]] = ..., **kwargs) -> None: ...

class EsacOpConf(_message.Message):
    __slots__ = ("out", "data_type")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    out: str
    data_type: _data_type_pb2.DataType
    def __init__(self, out: _Optional[str] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., **kwargs) -> None: ...

class AssignOpConf(_message.Message):
    __slots__ = ("ref", "value")
    REF_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ref: str
    value: str
    def __init__(self, ref: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class ModelSaveOpConf(_message.Message):
    __slots__ = ("path", "key")
    PATH_FIELD_NUMBER: _ClassVar[int]
    IN_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    path: str
    key: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, path: _Optional[str] = ..., key: _Optional[_Iterable[str]] = ..., **kwargs) -> None: ...

class LearningRateScheduleOpConf(_message.Message):
    __slots__ = ("train_step", "out", "learning_rate", "learning_rate_decay", "warmup_conf")
    TRAIN_STEP_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_DECAY_FIELD_NUMBER: _ClassVar[int]
    WARMUP_CONF_FIELD_NUMBER: _ClassVar[int]
    train_step: str
    out: str
    learning_rate: float
    learning_rate_decay: _learning_rate_schedule_conf_pb2.LearningRateDecayConf
    warmup_conf: _learning_rate_schedule_conf_pb2.WarmupConf
    def __init__(self, train_step: _Optional[str] = ..., out: _Optional[str] = ..., learning_rate: _Optional[float] = ..., learning_rate_decay: _Optional[_Union[_learning_rate_schedule_conf_pb2.LearningRateDecayConf, _Mapping]] = ..., warmup_conf: _Optional[_Union[_learning_rate_schedule_conf_pb2.WarmupConf, _Mapping]] = ...) -> None: ...

class SliceBoxingConf(_message.Message):
    __slots__ = ("lbi", "in_slice", "out_slice", "out_shape")
    LBI_FIELD_NUMBER: _ClassVar[int]
    IN_SLICE_FIELD_NUMBER: _ClassVar[int]
    OUT_SLICE_FIELD_NUMBER: _ClassVar[int]
    OUT_SHAPE_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    in_slice: _containers.RepeatedCompositeFieldContainer[_tensor_slice_view_pb2.TensorSliceViewProto]
    out_slice: _tensor_slice_view_pb2.TensorSliceViewProto
    out_shape: _shape_pb2.ShapeProto
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., in_slice: _Optional[_Iterable[_Union[_tensor_slice_view_pb2.TensorSliceViewProto, _Mapping]]] = ..., out_slice: _Optional[_Union[_tensor_slice_view_pb2.TensorSliceViewProto, _Mapping]] = ..., out_shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ...) -> None: ...

class SliceBoxingCopyOpConf(_message.Message):
    __slots__ = ("slice_boxing_conf",)
    SLICE_BOXING_CONF_FIELD_NUMBER: _ClassVar[int]
    slice_boxing_conf: SliceBoxingConf
    def __init__(self, slice_boxing_conf: _Optional[_Union[SliceBoxingConf, _Mapping]] = ...) -> None: ...

class SliceBoxingAddOpConf(_message.Message):
    __slots__ = ("slice_boxing_conf",)
    SLICE_BOXING_CONF_FIELD_NUMBER: _ClassVar[int]
    slice_boxing_conf: SliceBoxingConf
    def __init__(self, slice_boxing_conf: _Optional[_Union[SliceBoxingConf, _Mapping]] = ...) -> None: ...

class XrtLaunchOpConf(_message.Message):
    __slots__ = ("out", "function", "engine", "input_mutability", "input_output_mapping", "sbp_signatures", "model_update", "lbn2logical_blob_desc")
    class Argument(_message.Message):
        __slots__ = ("name", "value", "device_type")
        NAME_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        DEVICE_TYPE_FIELD_NUMBER: _ClassVar[int]
        name: str
        value: str
        device_type: _device_type_pb2_1.DeviceType
        def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ..., device_type: _Optional[_Union[_device_type_pb2_1.DeviceType, str]] = ...) -> None: ...
    class Function(_message.Message):
        __slots__ = ("argument", "node")
        ARGUMENT_FIELD_NUMBER: _ClassVar[int]
        NODE_FIELD_NUMBER: _ClassVar[int]
        argument: _containers.RepeatedCompositeFieldContainer[XrtLaunchOpConf.Argument]
        node: _containers.RepeatedCompositeFieldContainer[OperatorConf]
        def __init__(self, argument: _Optional[_Iterable[_Union[XrtLaunchOpConf.Argument, _Mapping]]] = ..., node: _Optional[_Iterable[_Union[OperatorConf, _Mapping]]] = ...) -> None: ...
    class InputMutabilityEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: bool = ...) -> None: ...
    class InputOutputMappingEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class SbpSignaturesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _sbp_parallel_pb2.SbpSignature
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_sbp_parallel_pb2.SbpSignature, _Mapping]] = ...) -> None: ...
    class Lbn2logicalBlobDescEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _blob_desc_pb2.BlobDescProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_blob_desc_pb2.BlobDescProto, _Mapping]] = ...) -> None: ...
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    INPUT_MUTABILITY_FIELD_NUMBER: _ClassVar[int]
    INPUT_OUTPUT_MAPPING_FIELD_NUMBER: _ClassVar[int]
    SBP_SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    MODEL_UPDATE_FIELD_NUMBER: _ClassVar[int]
    LBN2LOGICAL_BLOB_DESC_FIELD_NUMBER: _ClassVar[int]
    out: _containers.RepeatedScalarFieldContainer[str]
    function: XrtLaunchOpConf.Function
    engine: str
    input_mutability: _containers.ScalarMap[str, bool]
    input_output_mapping: _containers.ScalarMap[str, str]
    sbp_signatures: _containers.MessageMap[str, _sbp_parallel_pb2.SbpSignature]
    model_update: bool
    lbn2logical_blob_desc: _containers.MessageMap[str, _blob_desc_pb2.BlobDescProto]
    def __init__(self, out: _Optional[_Iterable[str]] = ..., function: _Optional[_Union[XrtLaunchOpConf.Function, _Mapping]] = ..., engine: _Optional[str] = ..., input_mutability: _Optional[_Mapping[str, bool]] = ..., input_output_mapping: _Optional[_Mapping[str, str]] = ..., sbp_signatures: _Optional[_Mapping[str, _sbp_parallel_pb2.SbpSignature]] = ..., model_update: bool = ..., lbn2logical_blob_desc: _Optional[_Mapping[str, _blob_desc_pb2.BlobDescProto]] = ..., **kwargs) -> None: ...

class ModelInitV2OpConf(_message.Message):
    __slots__ = ("ref", "variable_op_name", "original_variable_conf")
    REF_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    ref: _containers.RepeatedScalarFieldContainer[str]
    variable_op_name: _containers.RepeatedScalarFieldContainer[str]
    original_variable_conf: _containers.RepeatedCompositeFieldContainer[VariableOpConf]
    def __init__(self, ref: _Optional[_Iterable[str]] = ..., variable_op_name: _Optional[_Iterable[str]] = ..., original_variable_conf: _Optional[_Iterable[_Union[VariableOpConf, _Mapping]]] = ...) -> None: ...

class ModelLoadV2OpConf(_message.Message):
    __slots__ = ("path", "ref", "variable_op_name", "original_variable_conf")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    path: str
    ref: _containers.RepeatedScalarFieldContainer[str]
    variable_op_name: _containers.RepeatedScalarFieldContainer[str]
    original_variable_conf: _containers.RepeatedCompositeFieldContainer[VariableOpConf]
    def __init__(self, path: _Optional[str] = ..., ref: _Optional[_Iterable[str]] = ..., variable_op_name: _Optional[_Iterable[str]] = ..., original_variable_conf: _Optional[_Iterable[_Union[VariableOpConf, _Mapping]]] = ...) -> None: ...

class ModelSaveV2OpConf(_message.Message):
    __slots__ = ("path", "variable_op_name", "original_variable_conf")
    PATH_FIELD_NUMBER: _ClassVar[int]
    IN_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    path: str
    variable_op_name: _containers.RepeatedScalarFieldContainer[str]
    original_variable_conf: _containers.RepeatedCompositeFieldContainer[VariableOpConf]
    def __init__(self, path: _Optional[str] = ..., variable_op_name: _Optional[_Iterable[str]] = ..., original_variable_conf: _Optional[_Iterable[_Union[VariableOpConf, _Mapping]]] = ..., **kwargs) -> None: ...

class ConstantLikeOpConf(_message.Message):
    __slots__ = ("like", "out", "data_type", "int_operand", "float_operand")
    LIKE_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    INT_OPERAND_FIELD_NUMBER: _ClassVar[int]
    FLOAT_OPERAND_FIELD_NUMBER: _ClassVar[int]
    like: str
    out: str
    data_type: _data_type_pb2.DataType
    int_operand: int
    float_operand: float
    def __init__(self, like: _Optional[str] = ..., out: _Optional[str] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., int_operand: _Optional[int] = ..., float_operand: _Optional[float] = ...) -> None: ...

class SyncDynamicResizeOpConf(_message.Message):
    __slots__ = ("size", "out", "axis", "eager")
    IN_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    EAGER_FIELD_NUMBER: _ClassVar[int]
    size: str
    out: str
    axis: int
    eager: bool
    def __init__(self, size: _Optional[str] = ..., out: _Optional[str] = ..., axis: _Optional[int] = ..., eager: bool = ..., **kwargs) -> None: ...

class BroadcastToCompatibleWithOpConf(_message.Message):
    __slots__ = ("x", "compatible", "y")
    X_FIELD_NUMBER: _ClassVar[int]
    COMPATIBLE_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    x: str
    compatible: _containers.RepeatedScalarFieldContainer[str]
    y: str
    def __init__(self, x: _Optional[str] = ..., compatible: _Optional[_Iterable[str]] = ..., y: _Optional[str] = ...) -> None: ...

class CollectiveBoxingGenericOpConf(_message.Message):
    __slots__ = ("lbi", "rank_desc")
    LBI_FIELD_NUMBER: _ClassVar[int]
    RANK_DESC_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    rank_desc: _collective_boxing_pb2.RankDesc
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., rank_desc: _Optional[_Union[_collective_boxing_pb2.RankDesc, _Mapping]] = ...) -> None: ...

class BoxingIdentityOpConf(_message.Message):
    __slots__ = ("lbi",)
    LBI_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ...) -> None: ...

class CollectiveBoxingPackOpConf(_message.Message):
    __slots__ = ("lbi", "src_sbp_parallel", "dst_sbp_parallel", "num_ranks", "logical_shape")
    LBI_FIELD_NUMBER: _ClassVar[int]
    SRC_SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    DST_SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    NUM_RANKS_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_SHAPE_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    src_sbp_parallel: _sbp_parallel_pb2.SbpParallel
    dst_sbp_parallel: _sbp_parallel_pb2.SbpParallel
    num_ranks: int
    logical_shape: _shape_pb2.ShapeProto
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., src_sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., dst_sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., num_ranks: _Optional[int] = ..., logical_shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ...) -> None: ...

class CollectiveBoxingUnpackOpConf(_message.Message):
    __slots__ = ("lbi", "src_sbp_parallel", "dst_sbp_parallel", "num_ranks", "logical_shape")
    LBI_FIELD_NUMBER: _ClassVar[int]
    SRC_SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    DST_SBP_PARALLEL_FIELD_NUMBER: _ClassVar[int]
    NUM_RANKS_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_SHAPE_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    src_sbp_parallel: _sbp_parallel_pb2.SbpParallel
    dst_sbp_parallel: _sbp_parallel_pb2.SbpParallel
    num_ranks: int
    logical_shape: _shape_pb2.ShapeProto
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., src_sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., dst_sbp_parallel: _Optional[_Union[_sbp_parallel_pb2.SbpParallel, _Mapping]] = ..., num_ranks: _Optional[int] = ..., logical_shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ...) -> None: ...

class ImageDecoderRandomCropResizeOpConf(_message.Message):
    __slots__ = ("out", "target_width", "target_height", "num_workers", "max_num_pixels", "warmup_size", "seed", "num_attempts", "random_area_min", "random_area_max", "random_aspect_ratio_min", "random_aspect_ratio_max")
    IN_FIELD_NUMBER: _ClassVar[int]
    OUT_FIELD_NUMBER: _ClassVar[int]
    TARGET_WIDTH_FIELD_NUMBER: _ClassVar[int]
    TARGET_HEIGHT_FIELD_NUMBER: _ClassVar[int]
    NUM_WORKERS_FIELD_NUMBER: _ClassVar[int]
    MAX_NUM_PIXELS_FIELD_NUMBER: _ClassVar[int]
    WARMUP_SIZE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    NUM_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    RANDOM_AREA_MIN_FIELD_NUMBER: _ClassVar[int]
    RANDOM_AREA_MAX_FIELD_NUMBER: _ClassVar[int]
    RANDOM_ASPECT_RATIO_MIN_FIELD_NUMBER: _ClassVar[int]
    RANDOM_ASPECT_RATIO_MAX_FIELD_NUMBER: _ClassVar[int]
    out: str
    target_width: int
    target_height: int
    num_workers: int
    max_num_pixels: int
    warmup_size: int
    seed: int
    num_attempts: int
    random_area_min: float
    random_area_max: float
    random_aspect_ratio_min: float
    random_aspect_ratio_max: float
    def __init__(self, out: _Optional[str] = ..., target_width: _Optional[int] = ..., target_height: _Optional[int] = ..., num_workers: _Optional[int] = ..., max_num_pixels: _Optional[int] = ..., warmup_size: _Optional[int] = ..., seed: _Optional[int] = ..., num_attempts: _Optional[int] = ..., random_area_min: _Optional[float] = ..., random_area_max: _Optional[float] = ..., random_aspect_ratio_min: _Optional[float] = ..., random_aspect_ratio_max: _Optional[float] = ..., **kwargs) -> None: ...

class BoxingZerosOpConf(_message.Message):
    __slots__ = ("lbi", "shape", "data_type")
    LBI_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    shape: _shape_pb2.ShapeProto
    data_type: _data_type_pb2.DataType
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., shape: _Optional[_Union[_shape_pb2.ShapeProto, _Mapping]] = ..., data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ...) -> None: ...

class OperatorConf(_message.Message):
    __slots__ = ("name", "device_tag", "ctrl_in_op_name", "scope_symbol_id", "stream_index_hint", "pass_tag", "decode_random_conf", "copy_hd_conf", "copy_comm_net_conf", "boxing_conf", "variable_conf", "tick_conf", "total_loss_instance_num_conf", "shape_elem_cnt_conf", "src_subset_tick_conf", "dst_subset_tick_conf", "source_tick_conf", "sink_tick_conf", "input_conf", "output_conf", "wait_and_send_ids_conf", "reentrant_lock_conf", "callback_notify_conf", "foreign_input_conf", "foreign_output_conf", "acc_tick_conf", "return_conf", "foreign_watch_conf", "distribute_concat_conf", "distribute_split_conf", "distribute_clone_conf", "distribute_add_conf", "device_tick_conf", "slice_boxing_copy_conf", "slice_boxing_add_conf", "collective_boxing_generic_conf", "boxing_identity_conf", "collective_boxing_pack_conf", "collective_boxing_unpack_conf", "boxing_zeros_conf", "user_conf", "dynamic_reshape_conf", "dynamic_reshape_like_conf", "identity_conf", "case_conf", "esac_conf", "model_init_conf", "assign_conf", "model_save_conf", "learning_rate_schedule_conf", "model_load_conf", "constant_like_conf", "sync_dynamic_resize_conf", "copy_conf", "cast_to_mirrored_conf", "cast_from_mirrored_conf", "model_init_v2_conf", "model_load_v2_conf", "model_save_v2_conf", "image_decoder_random_crop_resize_conf", "xrt_launch_conf", "broadcast_to_compatible_with_conf")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TAG_FIELD_NUMBER: _ClassVar[int]
    CTRL_IN_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPE_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    STREAM_INDEX_HINT_FIELD_NUMBER: _ClassVar[int]
    PASS_TAG_FIELD_NUMBER: _ClassVar[int]
    DECODE_RANDOM_CONF_FIELD_NUMBER: _ClassVar[int]
    COPY_HD_CONF_FIELD_NUMBER: _ClassVar[int]
    COPY_COMM_NET_CONF_FIELD_NUMBER: _ClassVar[int]
    BOXING_CONF_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LOSS_INSTANCE_NUM_CONF_FIELD_NUMBER: _ClassVar[int]
    SHAPE_ELEM_CNT_CONF_FIELD_NUMBER: _ClassVar[int]
    SRC_SUBSET_TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    DST_SUBSET_TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    SINK_TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    INPUT_CONF_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_CONF_FIELD_NUMBER: _ClassVar[int]
    WAIT_AND_SEND_IDS_CONF_FIELD_NUMBER: _ClassVar[int]
    REENTRANT_LOCK_CONF_FIELD_NUMBER: _ClassVar[int]
    CALLBACK_NOTIFY_CONF_FIELD_NUMBER: _ClassVar[int]
    FOREIGN_INPUT_CONF_FIELD_NUMBER: _ClassVar[int]
    FOREIGN_OUTPUT_CONF_FIELD_NUMBER: _ClassVar[int]
    ACC_TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    RETURN_CONF_FIELD_NUMBER: _ClassVar[int]
    FOREIGN_WATCH_CONF_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTE_CONCAT_CONF_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTE_SPLIT_CONF_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTE_CLONE_CONF_FIELD_NUMBER: _ClassVar[int]
    DISTRIBUTE_ADD_CONF_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TICK_CONF_FIELD_NUMBER: _ClassVar[int]
    SLICE_BOXING_COPY_CONF_FIELD_NUMBER: _ClassVar[int]
    SLICE_BOXING_ADD_CONF_FIELD_NUMBER: _ClassVar[int]
    COLLECTIVE_BOXING_GENERIC_CONF_FIELD_NUMBER: _ClassVar[int]
    BOXING_IDENTITY_CONF_FIELD_NUMBER: _ClassVar[int]
    COLLECTIVE_BOXING_PACK_CONF_FIELD_NUMBER: _ClassVar[int]
    COLLECTIVE_BOXING_UNPACK_CONF_FIELD_NUMBER: _ClassVar[int]
    BOXING_ZEROS_CONF_FIELD_NUMBER: _ClassVar[int]
    USER_CONF_FIELD_NUMBER: _ClassVar[int]
    DYNAMIC_RESHAPE_CONF_FIELD_NUMBER: _ClassVar[int]
    DYNAMIC_RESHAPE_LIKE_CONF_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_CONF_FIELD_NUMBER: _ClassVar[int]
    CASE_CONF_FIELD_NUMBER: _ClassVar[int]
    ESAC_CONF_FIELD_NUMBER: _ClassVar[int]
    MODEL_INIT_CONF_FIELD_NUMBER: _ClassVar[int]
    ASSIGN_CONF_FIELD_NUMBER: _ClassVar[int]
    MODEL_SAVE_CONF_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_SCHEDULE_CONF_FIELD_NUMBER: _ClassVar[int]
    MODEL_LOAD_CONF_FIELD_NUMBER: _ClassVar[int]
    CONSTANT_LIKE_CONF_FIELD_NUMBER: _ClassVar[int]
    SYNC_DYNAMIC_RESIZE_CONF_FIELD_NUMBER: _ClassVar[int]
    COPY_CONF_FIELD_NUMBER: _ClassVar[int]
    CAST_TO_MIRRORED_CONF_FIELD_NUMBER: _ClassVar[int]
    CAST_FROM_MIRRORED_CONF_FIELD_NUMBER: _ClassVar[int]
    MODEL_INIT_V2_CONF_FIELD_NUMBER: _ClassVar[int]
    MODEL_LOAD_V2_CONF_FIELD_NUMBER: _ClassVar[int]
    MODEL_SAVE_V2_CONF_FIELD_NUMBER: _ClassVar[int]
    IMAGE_DECODER_RANDOM_CROP_RESIZE_CONF_FIELD_NUMBER: _ClassVar[int]
    XRT_LAUNCH_CONF_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_TO_COMPATIBLE_WITH_CONF_FIELD_NUMBER: _ClassVar[int]
    name: str
    device_tag: str
    ctrl_in_op_name: _containers.RepeatedScalarFieldContainer[str]
    scope_symbol_id: int
    stream_index_hint: int
    pass_tag: str
    decode_random_conf: DecodeRandomOpConf
    copy_hd_conf: CopyHdOpConf
    copy_comm_net_conf: CopyCommNetOpConf
    boxing_conf: BoxingOpConf
    variable_conf: VariableOpConf
    tick_conf: TickOpConf
    total_loss_instance_num_conf: TotalLossInstanceNumOpConf
    shape_elem_cnt_conf: ShapeElemCntOpConf
    src_subset_tick_conf: SrcSubsetTickOpConf
    dst_subset_tick_conf: DstSubsetTickOpConf
    source_tick_conf: SourceTickOpConf
    sink_tick_conf: SinkTickOpConf
    input_conf: InputOpConf
    output_conf: OutputOpConf
    wait_and_send_ids_conf: WaitAndSendIdsOpConf
    reentrant_lock_conf: ReentrantLockOpConf
    callback_notify_conf: CallbackNotifyOpConf
    foreign_input_conf: ForeignInputOpConf
    foreign_output_conf: ForeignOutputOpConf
    acc_tick_conf: AccTickOpConf
    return_conf: ReturnOpConf
    foreign_watch_conf: ForeignWatchOpConf
    distribute_concat_conf: DistributeConcatOpConf
    distribute_split_conf: DistributeSplitOpConf
    distribute_clone_conf: DistributeCloneOpConf
    distribute_add_conf: DistributeAddOpConf
    device_tick_conf: DeviceTickOpConf
    slice_boxing_copy_conf: SliceBoxingCopyOpConf
    slice_boxing_add_conf: SliceBoxingAddOpConf
    collective_boxing_generic_conf: CollectiveBoxingGenericOpConf
    boxing_identity_conf: BoxingIdentityOpConf
    collective_boxing_pack_conf: CollectiveBoxingPackOpConf
    collective_boxing_unpack_conf: CollectiveBoxingUnpackOpConf
    boxing_zeros_conf: BoxingZerosOpConf
    user_conf: _user_op_conf_pb2.UserOpConf
    dynamic_reshape_conf: DynamicReshapeOpConf
    dynamic_reshape_like_conf: DynamicReshapeLikeOpConf
    identity_conf: IdentityOpConf
    case_conf: CaseOpConf
    esac_conf: EsacOpConf
    model_init_conf: ModelInitOpConf
    assign_conf: AssignOpConf
    model_save_conf: ModelSaveOpConf
    learning_rate_schedule_conf: LearningRateScheduleOpConf
    model_load_conf: ModelLoadOpConf
    constant_like_conf: ConstantLikeOpConf
    sync_dynamic_resize_conf: SyncDynamicResizeOpConf
    copy_conf: CopyOpConf
    cast_to_mirrored_conf: CastToMirroredOpConf
    cast_from_mirrored_conf: CastFromMirroredOpConf
    model_init_v2_conf: ModelInitV2OpConf
    model_load_v2_conf: ModelLoadV2OpConf
    model_save_v2_conf: ModelSaveV2OpConf
    image_decoder_random_crop_resize_conf: ImageDecoderRandomCropResizeOpConf
    xrt_launch_conf: XrtLaunchOpConf
    broadcast_to_compatible_with_conf: BroadcastToCompatibleWithOpConf
    def __init__(self, name: _Optional[str] = ..., device_tag: _Optional[str] = ..., ctrl_in_op_name: _Optional[_Iterable[str]] = ..., scope_symbol_id: _Optional[int] = ..., stream_index_hint: _Optional[int] = ..., pass_tag: _Optional[str] = ..., decode_random_conf: _Optional[_Union[DecodeRandomOpConf, _Mapping]] = ..., copy_hd_conf: _Optional[_Union[CopyHdOpConf, _Mapping]] = ..., copy_comm_net_conf: _Optional[_Union[CopyCommNetOpConf, _Mapping]] = ..., boxing_conf: _Optional[_Union[BoxingOpConf, _Mapping]] = ..., variable_conf: _Optional[_Union[VariableOpConf, _Mapping]] = ..., tick_conf: _Optional[_Union[TickOpConf, _Mapping]] = ..., total_loss_instance_num_conf: _Optional[_Union[TotalLossInstanceNumOpConf, _Mapping]] = ..., shape_elem_cnt_conf: _Optional[_Union[ShapeElemCntOpConf, _Mapping]] = ..., src_subset_tick_conf: _Optional[_Union[SrcSubsetTickOpConf, _Mapping]] = ..., dst_subset_tick_conf: _Optional[_Union[DstSubsetTickOpConf, _Mapping]] = ..., source_tick_conf: _Optional[_Union[SourceTickOpConf, _Mapping]] = ..., sink_tick_conf: _Optional[_Union[SinkTickOpConf, _Mapping]] = ..., input_conf: _Optional[_Union[InputOpConf, _Mapping]] = ..., output_conf: _Optional[_Union[OutputOpConf, _Mapping]] = ..., wait_and_send_ids_conf: _Optional[_Union[WaitAndSendIdsOpConf, _Mapping]] = ..., reentrant_lock_conf: _Optional[_Union[ReentrantLockOpConf, _Mapping]] = ..., callback_notify_conf: _Optional[_Union[CallbackNotifyOpConf, _Mapping]] = ..., foreign_input_conf: _Optional[_Union[ForeignInputOpConf, _Mapping]] = ..., foreign_output_conf: _Optional[_Union[ForeignOutputOpConf, _Mapping]] = ..., acc_tick_conf: _Optional[_Union[AccTickOpConf, _Mapping]] = ..., return_conf: _Optional[_Union[ReturnOpConf, _Mapping]] = ..., foreign_watch_conf: _Optional[_Union[ForeignWatchOpConf, _Mapping]] = ..., distribute_concat_conf: _Optional[_Union[DistributeConcatOpConf, _Mapping]] = ..., distribute_split_conf: _Optional[_Union[DistributeSplitOpConf, _Mapping]] = ..., distribute_clone_conf: _Optional[_Union[DistributeCloneOpConf, _Mapping]] = ..., distribute_add_conf: _Optional[_Union[DistributeAddOpConf, _Mapping]] = ..., device_tick_conf: _Optional[_Union[DeviceTickOpConf, _Mapping]] = ..., slice_boxing_copy_conf: _Optional[_Union[SliceBoxingCopyOpConf, _Mapping]] = ..., slice_boxing_add_conf: _Optional[_Union[SliceBoxingAddOpConf, _Mapping]] = ..., collective_boxing_generic_conf: _Optional[_Union[CollectiveBoxingGenericOpConf, _Mapping]] = ..., boxing_identity_conf: _Optional[_Union[BoxingIdentityOpConf, _Mapping]] = ..., collective_boxing_pack_conf: _Optional[_Union[CollectiveBoxingPackOpConf, _Mapping]] = ..., collective_boxing_unpack_conf: _Optional[_Union[CollectiveBoxingUnpackOpConf, _Mapping]] = ..., boxing_zeros_conf: _Optional[_Union[BoxingZerosOpConf, _Mapping]] = ..., user_conf: _Optional[_Union[_user_op_conf_pb2.UserOpConf, _Mapping]] = ..., dynamic_reshape_conf: _Optional[_Union[DynamicReshapeOpConf, _Mapping]] = ..., dynamic_reshape_like_conf: _Optional[_Union[DynamicReshapeLikeOpConf, _Mapping]] = ..., identity_conf: _Optional[_Union[IdentityOpConf, _Mapping]] = ..., case_conf: _Optional[_Union[CaseOpConf, _Mapping]] = ..., esac_conf: _Optional[_Union[EsacOpConf, _Mapping]] = ..., model_init_conf: _Optional[_Union[ModelInitOpConf, _Mapping]] = ..., assign_conf: _Optional[_Union[AssignOpConf, _Mapping]] = ..., model_save_conf: _Optional[_Union[ModelSaveOpConf, _Mapping]] = ..., learning_rate_schedule_conf: _Optional[_Union[LearningRateScheduleOpConf, _Mapping]] = ..., model_load_conf: _Optional[_Union[ModelLoadOpConf, _Mapping]] = ..., constant_like_conf: _Optional[_Union[ConstantLikeOpConf, _Mapping]] = ..., sync_dynamic_resize_conf: _Optional[_Union[SyncDynamicResizeOpConf, _Mapping]] = ..., copy_conf: _Optional[_Union[CopyOpConf, _Mapping]] = ..., cast_to_mirrored_conf: _Optional[_Union[CastToMirroredOpConf, _Mapping]] = ..., cast_from_mirrored_conf: _Optional[_Union[CastFromMirroredOpConf, _Mapping]] = ..., model_init_v2_conf: _Optional[_Union[ModelInitV2OpConf, _Mapping]] = ..., model_load_v2_conf: _Optional[_Union[ModelLoadV2OpConf, _Mapping]] = ..., model_save_v2_conf: _Optional[_Union[ModelSaveV2OpConf, _Mapping]] = ..., image_decoder_random_crop_resize_conf: _Optional[_Union[ImageDecoderRandomCropResizeOpConf, _Mapping]] = ..., xrt_launch_conf: _Optional[_Union[XrtLaunchOpConf, _Mapping]] = ..., broadcast_to_compatible_with_conf: _Optional[_Union[BroadcastToCompatibleWithOpConf, _Mapping]] = ...) -> None: ...

class OpNameRelations(_message.Message):
    __slots__ = ("src_op_name2dst_op_name",)
    class SrcOpName2dstOpNameEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SRC_OP_NAME2DST_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    src_op_name2dst_op_name: _containers.ScalarMap[str, str]
    def __init__(self, src_op_name2dst_op_name: _Optional[_Mapping[str, str]] = ...) -> None: ...

class OpNameGroups(_message.Message):
    __slots__ = ("op_name_group",)
    class OpNameGroup(_message.Message):
        __slots__ = ("op_name",)
        OP_NAME_FIELD_NUMBER: _ClassVar[int]
        op_name: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, op_name: _Optional[_Iterable[str]] = ...) -> None: ...
    OP_NAME_GROUP_FIELD_NUMBER: _ClassVar[int]
    op_name_group: _containers.RepeatedCompositeFieldContainer[OpNameGroups.OpNameGroup]
    def __init__(self, op_name_group: _Optional[_Iterable[_Union[OpNameGroups.OpNameGroup, _Mapping]]] = ...) -> None: ...
from flowtorch.core.job.job_conf_pb2 import AdamModelUpdateConf as AdamModelUpdateConf
from flowtorch.core.job.job_conf_pb2 import ClipByGlobalNormConf as ClipByGlobalNormConf
from flowtorch.core.job.job_conf_pb2 import ClipConf as ClipConf
from flowtorch.core.job.initializer_conf_pb2 import ConstantInitializerConf as ConstantInitializerConf
from flowtorch.core.job.initializer_conf_pb2 import ConstantIntInitializerConf as ConstantIntInitializerConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import ConstantWarmupConf as ConstantWarmupConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import CosineDecayConf as CosineDecayConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import ExponentialDecayConf as ExponentialDecayConf
from flowtorch.core.job.initializer_conf_pb2 import InitializeWithSnapshotConf as InitializeWithSnapshotConf
from flowtorch.core.job.initializer_conf_pb2 import InitializerConf as InitializerConf
from flowtorch.core.job.initializer_conf_pb2 import IntRangeInitializerConf as IntRangeInitializerConf
from flowtorch.core.operator.interface_blob_conf_pb2 import InterfaceBlobConf as InterfaceBlobConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import InverseTimeDecayConf as InverseTimeDecayConf
from flowtorch.core.job.regularizer_conf_pb2 import L1L2RegularizerConf as L1L2RegularizerConf
from flowtorch.core.job.job_conf_pb2 import LARSModelUpdateConf as LARSModelUpdateConf
from flowtorch.core.job.job_conf_pb2 import LambModelUpdateConf as LambModelUpdateConf
from flowtorch.core.job.job_conf_pb2 import LazyAdamModelUpdateConf as LazyAdamModelUpdateConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import LearningRateDecayConf as LearningRateDecayConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import LinearCosineDecayConf as LinearCosineDecayConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import LinearWarmupConf as LinearWarmupConf
from flowtorch.core.job.job_conf_pb2 import MomentumModelUpdateConf as MomentumModelUpdateConf
from flowtorch.core.job.initializer_conf_pb2 import MsraInitializerConf as MsraInitializerConf
from flowtorch.core.job.job_conf_pb2 import NaiveModelUpdateConf as NaiveModelUpdateConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import NaturalExpDecayConf as NaturalExpDecayConf
from flowtorch.core.job.job_conf_pb2 import NormalModelUpdateOpUserConf as NormalModelUpdateOpUserConf
from flowtorch.core.job.placement_pb2 import OpNameSet as OpNameSet
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import PiecewiseConstantConf as PiecewiseConstantConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import PiecewiseScalingConf as PiecewiseScalingConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import PolynomialDecayConf as PolynomialDecayConf
from flowtorch.core.job.job_conf_pb2 import RMSPropModelUpdateConf as RMSPropModelUpdateConf
from flowtorch.core.job.initializer_conf_pb2 import RandomDistribution as RandomDistribution
from flowtorch.core.job.initializer_conf_pb2 import RandomNormalInitializerConf as RandomNormalInitializerConf
from flowtorch.core.job.initializer_conf_pb2 import RandomUniformInitializerConf as RandomUniformInitializerConf
from flowtorch.core.job.initializer_conf_pb2 import RandomUniformIntInitializerConf as RandomUniformIntInitializerConf
from flowtorch.core.job.initializer_conf_pb2 import RangeInitializerConf as RangeInitializerConf
from flowtorch.core.job.regularizer_conf_pb2 import RegularizerConf as RegularizerConf
from flowtorch.core.job.initializer_conf_pb2 import TruncatedNormalInitializerConf as TruncatedNormalInitializerConf
from flowtorch.core.job.initializer_conf_pb2 import VarianceNorm as VarianceNorm
from flowtorch.core.job.initializer_conf_pb2 import VarianceScalingInitializerConf as VarianceScalingInitializerConf
from flowtorch.core.job.learning_rate_schedule_conf_pb2 import WarmupConf as WarmupConf
from flowtorch.core.job.job_conf_pb2 import WeightDecayConf as WeightDecayConf
from flowtorch.core.job.job_conf_pb2 import WeightDecayFilterPatternSet as WeightDecayFilterPatternSet
from flowtorch.core.job.initializer_conf_pb2 import XavierInitializerConf as XavierInitializerConf
from flowtorch.core.job.initializer_conf_pb2 import kAverage as kAverage
from flowtorch.core.job.initializer_conf_pb2 import kFanIn as kFanIn
from flowtorch.core.job.initializer_conf_pb2 import kFanOut as kFanOut
from flowtorch.core.job.initializer_conf_pb2 import kRandomNormal as kRandomNormal
from flowtorch.core.job.initializer_conf_pb2 import kRandomUniform as kRandomUniform
from flowtorch.core.job.initializer_conf_pb2 import kTruncatedNormal as kTruncatedNormal
