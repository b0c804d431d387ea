from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from flowtorch.core.job import placement_pb2 as _placement_pb2
from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from flowtorch.core.framework import user_op_attr_pb2 as _user_op_attr_pb2
from flowtorch.core.job import initializer_conf_pb2 as _initializer_conf_pb2
from flowtorch.core.job import learning_rate_schedule_conf_pb2 as _learning_rate_schedule_conf_pb2
from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from flowtorch.core.operator import interface_blob_conf_pb2 as _interface_blob_conf_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NaiveModelUpdateConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MomentumModelUpdateConf(_message.Message):
    __slots__ = ("beta",)
    BETA_FIELD_NUMBER: _ClassVar[int]
    beta: float
    def __init__(self, beta: _Optional[float] = ...) -> None: ...

class RMSPropModelUpdateConf(_message.Message):
    __slots__ = ("decay_rate", "epsilon", "centered")
    DECAY_RATE_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    CENTERED_FIELD_NUMBER: _ClassVar[int]
    decay_rate: float
    epsilon: float
    centered: bool
    def __init__(self, decay_rate: _Optional[float] = ..., epsilon: _Optional[float] = ..., centered: bool = ...) -> None: ...

class LARSModelUpdateConf(_message.Message):
    __slots__ = ("momentum_beta", "epsilon", "lars_coefficient")
    MOMENTUM_BETA_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    LARS_COEFFICIENT_FIELD_NUMBER: _ClassVar[int]
    momentum_beta: float
    epsilon: float
    lars_coefficient: float
    def __init__(self, momentum_beta: _Optional[float] = ..., epsilon: _Optional[float] = ..., lars_coefficient: _Optional[float] = ...) -> None: ...

class AdamModelUpdateConf(_message.Message):
    __slots__ = ("beta1", "beta2", "epsilon", "do_bias_correction")
    BETA1_FIELD_NUMBER: _ClassVar[int]
    BETA2_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    DO_BIAS_CORRECTION_FIELD_NUMBER: _ClassVar[int]
    beta1: float
    beta2: float
    epsilon: float
    do_bias_correction: bool
    def __init__(self, beta1: _Optional[float] = ..., beta2: _Optional[float] = ..., epsilon: _Optional[float] = ..., do_bias_correction: bool = ...) -> None: ...

class LazyAdamModelUpdateConf(_message.Message):
    __slots__ = ("beta1", "beta2", "epsilon")
    BETA1_FIELD_NUMBER: _ClassVar[int]
    BETA2_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    beta1: float
    beta2: float
    epsilon: float
    def __init__(self, beta1: _Optional[float] = ..., beta2: _Optional[float] = ..., epsilon: _Optional[float] = ...) -> None: ...

class LambModelUpdateConf(_message.Message):
    __slots__ = ("beta1", "beta2", "epsilon")
    BETA1_FIELD_NUMBER: _ClassVar[int]
    BETA2_FIELD_NUMBER: _ClassVar[int]
    EPSILON_FIELD_NUMBER: _ClassVar[int]
    beta1: float
    beta2: float
    epsilon: float
    def __init__(self, beta1: _Optional[float] = ..., beta2: _Optional[float] = ..., epsilon: _Optional[float] = ...) -> None: ...

class ClipByGlobalNormConf(_message.Message):
    __slots__ = ("clip_norm", "global_norm")
    CLIP_NORM_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_NORM_FIELD_NUMBER: _ClassVar[int]
    clip_norm: float
    global_norm: float
    def __init__(self, clip_norm: _Optional[float] = ..., global_norm: _Optional[float] = ...) -> None: ...

class ClipConf(_message.Message):
    __slots__ = ("clip_by_global_norm",)
    CLIP_BY_GLOBAL_NORM_FIELD_NUMBER: _ClassVar[int]
    clip_by_global_norm: ClipByGlobalNormConf
    def __init__(self, clip_by_global_norm: _Optional[_Union[ClipByGlobalNormConf, _Mapping]] = ...) -> None: ...

class WeightDecayFilterPatternSet(_message.Message):
    __slots__ = ("pattern",)
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    pattern: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, pattern: _Optional[_Iterable[str]] = ...) -> None: ...

class WeightDecayConf(_message.Message):
    __slots__ = ("weight_decay_rate", "includes", "excludes")
    WEIGHT_DECAY_RATE_FIELD_NUMBER: _ClassVar[int]
    INCLUDES_FIELD_NUMBER: _ClassVar[int]
    EXCLUDES_FIELD_NUMBER: _ClassVar[int]
    weight_decay_rate: float
    includes: WeightDecayFilterPatternSet
    excludes: WeightDecayFilterPatternSet
    def __init__(self, weight_decay_rate: _Optional[float] = ..., includes: _Optional[_Union[WeightDecayFilterPatternSet, _Mapping]] = ..., excludes: _Optional[_Union[WeightDecayFilterPatternSet, _Mapping]] = ...) -> None: ...

class OptimizerConf(_message.Message):
    __slots__ = ("variable_op_names", "base_learning_rate", "warmup_conf", "learning_rate_decay", "learning_rate_lbn", "clip_conf", "weight_decay_conf", "naive_conf", "momentum_conf", "rmsprop_conf", "lars_conf", "adam_conf", "lazy_adam_conf", "lamb_conf")
    VARIABLE_OP_NAMES_FIELD_NUMBER: _ClassVar[int]
    BASE_LEARNING_RATE_FIELD_NUMBER: _ClassVar[int]
    WARMUP_CONF_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_DECAY_FIELD_NUMBER: _ClassVar[int]
    LEARNING_RATE_LBN_FIELD_NUMBER: _ClassVar[int]
    CLIP_CONF_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_DECAY_CONF_FIELD_NUMBER: _ClassVar[int]
    NAIVE_CONF_FIELD_NUMBER: _ClassVar[int]
    MOMENTUM_CONF_FIELD_NUMBER: _ClassVar[int]
    RMSPROP_CONF_FIELD_NUMBER: _ClassVar[int]
    LARS_CONF_FIELD_NUMBER: _ClassVar[int]
    ADAM_CONF_FIELD_NUMBER: _ClassVar[int]
    LAZY_ADAM_CONF_FIELD_NUMBER: _ClassVar[int]
    LAMB_CONF_FIELD_NUMBER: _ClassVar[int]
    variable_op_names: _containers.RepeatedScalarFieldContainer[str]
    base_learning_rate: float
    warmup_conf: _learning_rate_schedule_conf_pb2.WarmupConf
    learning_rate_decay: _learning_rate_schedule_conf_pb2.LearningRateDecayConf
    learning_rate_lbn: str
    clip_conf: ClipConf
    weight_decay_conf: WeightDecayConf
    naive_conf: NaiveModelUpdateConf
    momentum_conf: MomentumModelUpdateConf
    rmsprop_conf: RMSPropModelUpdateConf
    lars_conf: LARSModelUpdateConf
    adam_conf: AdamModelUpdateConf
    lazy_adam_conf: LazyAdamModelUpdateConf
    lamb_conf: LambModelUpdateConf
    def __init__(self, variable_op_names: _Optional[_Iterable[str]] = ..., base_learning_rate: _Optional[float] = ..., warmup_conf: _Optional[_Union[_learning_rate_schedule_conf_pb2.WarmupConf, _Mapping]] = ..., learning_rate_decay: _Optional[_Union[_learning_rate_schedule_conf_pb2.LearningRateDecayConf, _Mapping]] = ..., learning_rate_lbn: _Optional[str] = ..., clip_conf: _Optional[_Union[ClipConf, _Mapping]] = ..., weight_decay_conf: _Optional[_Union[WeightDecayConf, _Mapping]] = ..., naive_conf: _Optional[_Union[NaiveModelUpdateConf, _Mapping]] = ..., momentum_conf: _Optional[_Union[MomentumModelUpdateConf, _Mapping]] = ..., rmsprop_conf: _Optional[_Union[RMSPropModelUpdateConf, _Mapping]] = ..., lars_conf: _Optional[_Union[LARSModelUpdateConf, _Mapping]] = ..., adam_conf: _Optional[_Union[AdamModelUpdateConf, _Mapping]] = ..., lazy_adam_conf: _Optional[_Union[LazyAdamModelUpdateConf, _Mapping]] = ..., lamb_conf: _Optional[_Union[LambModelUpdateConf, _Mapping]] = ...) -> None: ...

class NormalModelUpdateOpUserConf(_message.Message):
    __slots__ = ("learning_rate_decay", "warmup_conf", "clip_conf", "weight_decay_conf", "naive_conf", "momentum_conf", "rmsprop_conf", "lars_conf", "adam_conf", "lazy_adam_conf", "lamb_conf")
    LEARNING_RATE_DECAY_FIELD_NUMBER: _ClassVar[int]
    WARMUP_CONF_FIELD_NUMBER: _ClassVar[int]
    CLIP_CONF_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_DECAY_CONF_FIELD_NUMBER: _ClassVar[int]
    NAIVE_CONF_FIELD_NUMBER: _ClassVar[int]
    MOMENTUM_CONF_FIELD_NUMBER: _ClassVar[int]
    RMSPROP_CONF_FIELD_NUMBER: _ClassVar[int]
    LARS_CONF_FIELD_NUMBER: _ClassVar[int]
    ADAM_CONF_FIELD_NUMBER: _ClassVar[int]
    LAZY_ADAM_CONF_FIELD_NUMBER: _ClassVar[int]
    LAMB_CONF_FIELD_NUMBER: _ClassVar[int]
    learning_rate_decay: _learning_rate_schedule_conf_pb2.LearningRateDecayConf
    warmup_conf: _learning_rate_schedule_conf_pb2.WarmupConf
    clip_conf: ClipConf
    weight_decay_conf: WeightDecayConf
    naive_conf: NaiveModelUpdateConf
    momentum_conf: MomentumModelUpdateConf
    rmsprop_conf: RMSPropModelUpdateConf
    lars_conf: LARSModelUpdateConf
    adam_conf: AdamModelUpdateConf
    lazy_adam_conf: LazyAdamModelUpdateConf
    lamb_conf: LambModelUpdateConf
    def __init__(self, learning_rate_decay: _Optional[_Union[_learning_rate_schedule_conf_pb2.LearningRateDecayConf, _Mapping]] = ..., warmup_conf: _Optional[_Union[_learning_rate_schedule_conf_pb2.WarmupConf, _Mapping]] = ..., clip_conf: _Optional[_Union[ClipConf, _Mapping]] = ..., weight_decay_conf: _Optional[_Union[WeightDecayConf, _Mapping]] = ..., naive_conf: _Optional[_Union[NaiveModelUpdateConf, _Mapping]] = ..., momentum_conf: _Optional[_Union[MomentumModelUpdateConf, _Mapping]] = ..., rmsprop_conf: _Optional[_Union[RMSPropModelUpdateConf, _Mapping]] = ..., lars_conf: _Optional[_Union[LARSModelUpdateConf, _Mapping]] = ..., adam_conf: _Optional[_Union[AdamModelUpdateConf, _Mapping]] = ..., lazy_adam_conf: _Optional[_Union[LazyAdamModelUpdateConf, _Mapping]] = ..., lamb_conf: _Optional[_Union[LambModelUpdateConf, _Mapping]] = ...) -> None: ...

class DynamicLossScalePolicy(_message.Message):
    __slots__ = ("initial_loss_scale", "increment_period", "multiplier")
    INITIAL_LOSS_SCALE_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_PERIOD_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    initial_loss_scale: float
    increment_period: float
    multiplier: float
    def __init__(self, initial_loss_scale: _Optional[float] = ..., increment_period: _Optional[float] = ..., multiplier: _Optional[float] = ...) -> None: ...

class TrainConf(_message.Message):
    __slots__ = ("optimizer_conf", "loss_lbn", "train_step_lbn", "loss_scale_factor", "dynamic_loss_scale_policy", "model_update_conf", "primary_lr", "secondary_lr", "primary_lr_lbn", "secondary_lr_lbn")
    OPTIMIZER_CONF_FIELD_NUMBER: _ClassVar[int]
    LOSS_LBN_FIELD_NUMBER: _ClassVar[int]
    TRAIN_STEP_LBN_FIELD_NUMBER: _ClassVar[int]
    LOSS_SCALE_FACTOR_FIELD_NUMBER: _ClassVar[int]
    DYNAMIC_LOSS_SCALE_POLICY_FIELD_NUMBER: _ClassVar[int]
    MODEL_UPDATE_CONF_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_LR_FIELD_NUMBER: _ClassVar[int]
    SECONDARY_LR_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_LR_LBN_FIELD_NUMBER: _ClassVar[int]
    SECONDARY_LR_LBN_FIELD_NUMBER: _ClassVar[int]
    optimizer_conf: _containers.RepeatedCompositeFieldContainer[OptimizerConf]
    loss_lbn: _containers.RepeatedScalarFieldContainer[str]
    train_step_lbn: str
    loss_scale_factor: float
    dynamic_loss_scale_policy: DynamicLossScalePolicy
    model_update_conf: NormalModelUpdateOpUserConf
    primary_lr: float
    secondary_lr: float
    primary_lr_lbn: str
    secondary_lr_lbn: str
    def __init__(self, optimizer_conf: _Optional[_Iterable[_Union[OptimizerConf, _Mapping]]] = ..., loss_lbn: _Optional[_Iterable[str]] = ..., train_step_lbn: _Optional[str] = ..., loss_scale_factor: _Optional[float] = ..., dynamic_loss_scale_policy: _Optional[_Union[DynamicLossScalePolicy, _Mapping]] = ..., model_update_conf: _Optional[_Union[NormalModelUpdateOpUserConf, _Mapping]] = ..., primary_lr: _Optional[float] = ..., secondary_lr: _Optional[float] = ..., primary_lr_lbn: _Optional[str] = ..., secondary_lr_lbn: _Optional[str] = ...) -> None: ...

class PredictConf(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MemoryAllocationAlgorithmConf(_message.Message):
    __slots__ = ("use_mem_size_first_algo", "use_mutual_exclusion_first_algo", "use_time_line_algo")
    USE_MEM_SIZE_FIRST_ALGO_FIELD_NUMBER: _ClassVar[int]
    USE_MUTUAL_EXCLUSION_FIRST_ALGO_FIELD_NUMBER: _ClassVar[int]
    USE_TIME_LINE_ALGO_FIELD_NUMBER: _ClassVar[int]
    use_mem_size_first_algo: bool
    use_mutual_exclusion_first_algo: bool
    use_time_line_algo: bool
    def __init__(self, use_mem_size_first_algo: bool = ..., use_mutual_exclusion_first_algo: bool = ..., use_time_line_algo: bool = ...) -> None: ...

class XrtConfig(_message.Message):
    __slots__ = ("use_xla_jit", "use_tensorrt", "xla_config", "tensorrt_config")
    class XlaConfig(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class TensorRTConfig(_message.Message):
        __slots__ = ("use_fp16", "use_int8", "int8_calibration")
        USE_FP16_FIELD_NUMBER: _ClassVar[int]
        USE_INT8_FIELD_NUMBER: _ClassVar[int]
        INT8_CALIBRATION_FIELD_NUMBER: _ClassVar[int]
        use_fp16: bool
        use_int8: bool
        int8_calibration: str
        def __init__(self, use_fp16: bool = ..., use_int8: bool = ..., int8_calibration: _Optional[str] = ...) -> None: ...
    USE_XLA_JIT_FIELD_NUMBER: _ClassVar[int]
    USE_TENSORRT_FIELD_NUMBER: _ClassVar[int]
    XLA_CONFIG_FIELD_NUMBER: _ClassVar[int]
    TENSORRT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    use_xla_jit: bool
    use_tensorrt: bool
    xla_config: XrtConfig.XlaConfig
    tensorrt_config: XrtConfig.TensorRTConfig
    def __init__(self, use_xla_jit: bool = ..., use_tensorrt: bool = ..., xla_config: _Optional[_Union[XrtConfig.XlaConfig, _Mapping]] = ..., tensorrt_config: _Optional[_Union[XrtConfig.TensorRTConfig, _Mapping]] = ...) -> None: ...

class QatConfig(_message.Message):
    __slots__ = ("per_channel_weight_quantization", "symmetric", "moving_min_max_momentum", "moving_min_max_stop_update_after_iters", "target_backend")
    PER_CHANNEL_WEIGHT_QUANTIZATION_FIELD_NUMBER: _ClassVar[int]
    SYMMETRIC_FIELD_NUMBER: _ClassVar[int]
    MOVING_MIN_MAX_MOMENTUM_FIELD_NUMBER: _ClassVar[int]
    MOVING_MIN_MAX_STOP_UPDATE_AFTER_ITERS_FIELD_NUMBER: _ClassVar[int]
    TARGET_BACKEND_FIELD_NUMBER: _ClassVar[int]
    per_channel_weight_quantization: bool
    symmetric: bool
    moving_min_max_momentum: float
    moving_min_max_stop_update_after_iters: int
    target_backend: str
    def __init__(self, per_channel_weight_quantization: bool = ..., symmetric: bool = ..., moving_min_max_momentum: _Optional[float] = ..., moving_min_max_stop_update_after_iters: _Optional[int] = ..., target_backend: _Optional[str] = ...) -> None: ...

class IndexedSlicesOptimizerConf(_message.Message):
    __slots__ = ("enable", "include_op_names")
    ENABLE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_OP_NAMES_FIELD_NUMBER: _ClassVar[int]
    enable: bool
    include_op_names: _placement_pb2.OpNameSet
    def __init__(self, enable: bool = ..., include_op_names: _Optional[_Union[_placement_pb2.OpNameSet, _Mapping]] = ...) -> None: ...

class ParallelBlobConf(_message.Message):
    __slots__ = ("logical_blob_desc_conf", "parallel_conf", "parallel_distribution")
    LOGICAL_BLOB_DESC_CONF_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CONF_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_DISTRIBUTION_FIELD_NUMBER: _ClassVar[int]
    logical_blob_desc_conf: _blob_desc_pb2.BlobDescProto
    parallel_conf: _placement_pb2.ParallelConf
    parallel_distribution: _sbp_parallel_pb2.ParallelDistribution
    def __init__(self, logical_blob_desc_conf: _Optional[_Union[_blob_desc_pb2.BlobDescProto, _Mapping]] = ..., parallel_conf: _Optional[_Union[_placement_pb2.ParallelConf, _Mapping]] = ..., parallel_distribution: _Optional[_Union[_sbp_parallel_pb2.ParallelDistribution, _Mapping]] = ...) -> None: ...

class JobInputDef(_message.Message):
    __slots__ = ("lbi", "blob_conf")
    LBI_FIELD_NUMBER: _ClassVar[int]
    BLOB_CONF_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    blob_conf: _interface_blob_conf_pb2.InterfaceBlobConf
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ..., blob_conf: _Optional[_Union[_interface_blob_conf_pb2.InterfaceBlobConf, _Mapping]] = ...) -> None: ...

class JobOutputDef(_message.Message):
    __slots__ = ("lbi",)
    LBI_FIELD_NUMBER: _ClassVar[int]
    lbi: _logical_blob_id_pb2.LogicalBlobId
    def __init__(self, lbi: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobId, _Mapping]] = ...) -> None: ...

class JobSignatureDef(_message.Message):
    __slots__ = ("inputs", "outputs")
    class InputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: JobInputDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[JobInputDef, _Mapping]] = ...) -> None: ...
    class OutputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: JobOutputDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[JobOutputDef, _Mapping]] = ...) -> None: ...
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    inputs: _containers.MessageMap[str, JobInputDef]
    outputs: _containers.MessageMap[str, JobOutputDef]
    def __init__(self, inputs: _Optional[_Mapping[str, JobInputDef]] = ..., outputs: _Optional[_Mapping[str, JobOutputDef]] = ...) -> None: ...

class JobConfigProto(_message.Message):
    __slots__ = ("job_name", "train_conf", "predict_conf", "default_data_type", "default_initializer_conf", "default_initialize_with_snapshot_path", "memory_allocation_algorithm_conf", "xrt_config", "indexed_slices_optimizer_conf", "enable_fuse_model_update_ops", "enable_gradients_stats_aggregation", "optimizer_placement_optimization_mode", "optimizer_placement_optimization_threshold", "qat_config", "enable_cudnn", "cudnn_buf_limit_mbyte", "cudnn_conv_force_fwd_algo", "cudnn_conv_force_bwd_data_algo", "cudnn_conv_force_bwd_filter_algo", "cudnn_conv_heuristic_search_algo", "cudnn_conv_use_deterministic_algo_only", "enable_cudnn_fused_normalization_add_relu", "enable_fuse_add_to_output", "enable_fuse_cast_scale", "num_gradient_accumulation_steps", "enable_reuse_mem", "enable_inplace", "enable_inplace_in_reduce_struct", "do_parallel_cast_before_widening_type_cast", "prune_parallel_cast_ops", "prune_cast_to_static_shape_ops", "prune_amp_white_identity_ops", "cudnn_conv_enable_pseudo_half", "enable_auto_mixed_precision", "enable_quantization_aware_training", "concurrency_width", "flag_name2flag_value", "logical_object_id", "signature")
    class FlagName2flagValueEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _user_op_attr_pb2.AttrValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_user_op_attr_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIN_CONF_FIELD_NUMBER: _ClassVar[int]
    PREDICT_CONF_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INITIALIZER_CONF_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_INITIALIZE_WITH_SNAPSHOT_PATH_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ALLOCATION_ALGORITHM_CONF_FIELD_NUMBER: _ClassVar[int]
    XRT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    INDEXED_SLICES_OPTIMIZER_CONF_FIELD_NUMBER: _ClassVar[int]
    ENABLE_FUSE_MODEL_UPDATE_OPS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_GRADIENTS_STATS_AGGREGATION_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_PLACEMENT_OPTIMIZATION_MODE_FIELD_NUMBER: _ClassVar[int]
    OPTIMIZER_PLACEMENT_OPTIMIZATION_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    QAT_CONFIG_FIELD_NUMBER: _ClassVar[int]
    ENABLE_CUDNN_FIELD_NUMBER: _ClassVar[int]
    CUDNN_BUF_LIMIT_MBYTE_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_FORCE_FWD_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_FORCE_BWD_DATA_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_FORCE_BWD_FILTER_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_HEURISTIC_SEARCH_ALGO_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_USE_DETERMINISTIC_ALGO_ONLY_FIELD_NUMBER: _ClassVar[int]
    ENABLE_CUDNN_FUSED_NORMALIZATION_ADD_RELU_FIELD_NUMBER: _ClassVar[int]
    ENABLE_FUSE_ADD_TO_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ENABLE_FUSE_CAST_SCALE_FIELD_NUMBER: _ClassVar[int]
    NUM_GRADIENT_ACCUMULATION_STEPS_FIELD_NUMBER: _ClassVar[int]
    ENABLE_REUSE_MEM_FIELD_NUMBER: _ClassVar[int]
    ENABLE_INPLACE_FIELD_NUMBER: _ClassVar[int]
    ENABLE_INPLACE_IN_REDUCE_STRUCT_FIELD_NUMBER: _ClassVar[int]
    DO_PARALLEL_CAST_BEFORE_WIDENING_TYPE_CAST_FIELD_NUMBER: _ClassVar[int]
    PRUNE_PARALLEL_CAST_OPS_FIELD_NUMBER: _ClassVar[int]
    PRUNE_CAST_TO_STATIC_SHAPE_OPS_FIELD_NUMBER: _ClassVar[int]
    PRUNE_AMP_WHITE_IDENTITY_OPS_FIELD_NUMBER: _ClassVar[int]
    CUDNN_CONV_ENABLE_PSEUDO_HALF_FIELD_NUMBER: _ClassVar[int]
    ENABLE_AUTO_MIXED_PRECISION_FIELD_NUMBER: _ClassVar[int]
    ENABLE_QUANTIZATION_AWARE_TRAINING_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_WIDTH_FIELD_NUMBER: _ClassVar[int]
    FLAG_NAME2FLAG_VALUE_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    job_name: str
    train_conf: TrainConf
    predict_conf: PredictConf
    default_data_type: _data_type_pb2.DataType
    default_initializer_conf: _initializer_conf_pb2.InitializerConf
    default_initialize_with_snapshot_path: str
    memory_allocation_algorithm_conf: MemoryAllocationAlgorithmConf
    xrt_config: XrtConfig
    indexed_slices_optimizer_conf: IndexedSlicesOptimizerConf
    enable_fuse_model_update_ops: bool
    enable_gradients_stats_aggregation: bool
    optimizer_placement_optimization_mode: str
    optimizer_placement_optimization_threshold: int
    qat_config: QatConfig
    enable_cudnn: bool
    cudnn_buf_limit_mbyte: int
    cudnn_conv_force_fwd_algo: int
    cudnn_conv_force_bwd_data_algo: int
    cudnn_conv_force_bwd_filter_algo: int
    cudnn_conv_heuristic_search_algo: bool
    cudnn_conv_use_deterministic_algo_only: bool
    enable_cudnn_fused_normalization_add_relu: bool
    enable_fuse_add_to_output: bool
    enable_fuse_cast_scale: bool
    num_gradient_accumulation_steps: int
    enable_reuse_mem: bool
    enable_inplace: bool
    enable_inplace_in_reduce_struct: bool
    do_parallel_cast_before_widening_type_cast: bool
    prune_parallel_cast_ops: bool
    prune_cast_to_static_shape_ops: bool
    prune_amp_white_identity_ops: bool
    cudnn_conv_enable_pseudo_half: bool
    enable_auto_mixed_precision: bool
    enable_quantization_aware_training: bool
    concurrency_width: int
    flag_name2flag_value: _containers.MessageMap[str, _user_op_attr_pb2.AttrValue]
    logical_object_id: int
    signature: JobSignatureDef
    def __init__(self, job_name: _Optional[str] = ..., train_conf: _Optional[_Union[TrainConf, _Mapping]] = ..., predict_conf: _Optional[_Union[PredictConf, _Mapping]] = ..., default_data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., default_initializer_conf: _Optional[_Union[_initializer_conf_pb2.InitializerConf, _Mapping]] = ..., default_initialize_with_snapshot_path: _Optional[str] = ..., memory_allocation_algorithm_conf: _Optional[_Union[MemoryAllocationAlgorithmConf, _Mapping]] = ..., xrt_config: _Optional[_Union[XrtConfig, _Mapping]] = ..., indexed_slices_optimizer_conf: _Optional[_Union[IndexedSlicesOptimizerConf, _Mapping]] = ..., enable_fuse_model_update_ops: bool = ..., enable_gradients_stats_aggregation: bool = ..., optimizer_placement_optimization_mode: _Optional[str] = ..., optimizer_placement_optimization_threshold: _Optional[int] = ..., qat_config: _Optional[_Union[QatConfig, _Mapping]] = ..., enable_cudnn: bool = ..., cudnn_buf_limit_mbyte: _Optional[int] = ..., cudnn_conv_force_fwd_algo: _Optional[int] = ..., cudnn_conv_force_bwd_data_algo: _Optional[int] = ..., cudnn_conv_force_bwd_filter_algo: _Optional[int] = ..., cudnn_conv_heuristic_search_algo: bool = ..., cudnn_conv_use_deterministic_algo_only: bool = ..., enable_cudnn_fused_normalization_add_relu: bool = ..., enable_fuse_add_to_output: bool = ..., enable_fuse_cast_scale: bool = ..., num_gradient_accumulation_steps: _Optional[int] = ..., enable_reuse_mem: bool = ..., enable_inplace: bool = ..., enable_inplace_in_reduce_struct: bool = ..., do_parallel_cast_before_widening_type_cast: bool = ..., prune_parallel_cast_ops: bool = ..., prune_cast_to_static_shape_ops: bool = ..., prune_amp_white_identity_ops: bool = ..., cudnn_conv_enable_pseudo_half: bool = ..., enable_auto_mixed_precision: bool = ..., enable_quantization_aware_training: bool = ..., concurrency_width: _Optional[int] = ..., flag_name2flag_value: _Optional[_Mapping[str, _user_op_attr_pb2.AttrValue]] = ..., logical_object_id: _Optional[int] = ..., signature: _Optional[_Union[JobSignatureDef, _Mapping]] = ...) -> None: ...
