from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpcodeType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    kInvalidCompareType: _ClassVar[OpcodeType]
    kEq: _ClassVar[OpcodeType]
    kNe: _ClassVar[OpcodeType]
    kGt: _ClassVar[OpcodeType]
    kGe: _ClassVar[OpcodeType]
    kLt: _ClassVar[OpcodeType]
    kLe: _ClassVar[OpcodeType]
kInvalidCompareType: OpcodeType
kEq: OpcodeType
kNe: OpcodeType
kGt: OpcodeType
kGe: OpcodeType
kLt: OpcodeType
kLe: OpcodeType

class FieldValue(_message.Message):
    __slots__ = ("field", "value")
    FIELD_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    field: str
    value: str
    def __init__(self, field: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class OneFieldAssertError(_message.Message):
    __slots__ = ("compare_type", "left", "right_value")
    COMPARE_TYPE_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    RIGHT_VALUE_FIELD_NUMBER: _ClassVar[int]
    compare_type: OpcodeType
    left: FieldValue
    right_value: str
    def __init__(self, compare_type: _Optional[_Union[OpcodeType, str]] = ..., left: _Optional[_Union[FieldValue, _Mapping]] = ..., right_value: _Optional[str] = ...) -> None: ...

class TwoFieldAssertError(_message.Message):
    __slots__ = ("compare_type", "left", "right")
    COMPARE_TYPE_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    RIGHT_FIELD_NUMBER: _ClassVar[int]
    compare_type: OpcodeType
    left: FieldValue
    right: FieldValue
    def __init__(self, compare_type: _Optional[_Union[OpcodeType, str]] = ..., left: _Optional[_Union[FieldValue, _Mapping]] = ..., right: _Optional[_Union[FieldValue, _Mapping]] = ...) -> None: ...

class ConfigAssertFailedError(_message.Message):
    __slots__ = ("one_field_assert_error", "two_field_assert_error")
    ONE_FIELD_ASSERT_ERROR_FIELD_NUMBER: _ClassVar[int]
    TWO_FIELD_ASSERT_ERROR_FIELD_NUMBER: _ClassVar[int]
    one_field_assert_error: OneFieldAssertError
    two_field_assert_error: TwoFieldAssertError
    def __init__(self, one_field_assert_error: _Optional[_Union[OneFieldAssertError, _Mapping]] = ..., two_field_assert_error: _Optional[_Union[TwoFieldAssertError, _Mapping]] = ...) -> None: ...

class ConfigResourceUnavailableError(_message.Message):
    __slots__ = ("field_value",)
    FIELD_VALUE_FIELD_NUMBER: _ClassVar[int]
    field_value: FieldValue
    def __init__(self, field_value: _Optional[_Union[FieldValue, _Mapping]] = ...) -> None: ...

class JobSetEmptyError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeviceTagNotFoundError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobNameExistError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobNameEmptyError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobNameNotEqualError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class NoJobBuildAndInferCtxError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobConfFrozenError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobConfNotSetError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobConfRepeatedSetError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class JobTypeNotSetError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LogicalBlobNameNotExistError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LogicalBlobNameExistError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LogicalBlobNameInvalidError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OpNameExistError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OpConfDeviceTagNoSetError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PlacementError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BlobSplitAxisInferError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnknownJobBuildAndInferError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ProtoParseFailedError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CheckFailedError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TodoError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnimplementedError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BoxingNotSupportedError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GradientFunctionNotFoundError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OpKernelNotFoundError(_message.Message):
    __slots__ = ("op_kernels_not_found_debug_str",)
    OP_KERNELS_NOT_FOUND_DEBUG_STR_FIELD_NUMBER: _ClassVar[int]
    op_kernels_not_found_debug_str: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, op_kernels_not_found_debug_str: _Optional[_Iterable[str]] = ...) -> None: ...

class MultipleOpKernelsMatchedError(_message.Message):
    __slots__ = ("matched_op_kernels_debug_str",)
    MATCHED_OP_KERNELS_DEBUG_STR_FIELD_NUMBER: _ClassVar[int]
    matched_op_kernels_debug_str: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, matched_op_kernels_debug_str: _Optional[_Iterable[str]] = ...) -> None: ...

class MemoryZoneOutOfMemoryError(_message.Message):
    __slots__ = ("machine_id", "mem_zone_id", "device_tag", "required", "available")
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    MEM_ZONE_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TAG_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    machine_id: _containers.RepeatedScalarFieldContainer[str]
    mem_zone_id: _containers.RepeatedScalarFieldContainer[str]
    device_tag: _containers.RepeatedScalarFieldContainer[str]
    required: _containers.RepeatedScalarFieldContainer[str]
    available: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, machine_id: _Optional[_Iterable[str]] = ..., mem_zone_id: _Optional[_Iterable[str]] = ..., device_tag: _Optional[_Iterable[str]] = ..., required: _Optional[_Iterable[str]] = ..., available: _Optional[_Iterable[str]] = ...) -> None: ...

class LossBlobNotFoundError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RwMutexedObjectNotFoundError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnknownError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CompileOptionWrongError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InputDeviceNotMatchError(_message.Message):
    __slots__ = ("info",)
    INFO_FIELD_NUMBER: _ClassVar[int]
    info: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, info: _Optional[_Iterable[str]] = ...) -> None: ...

class ErrorStackFrame(_message.Message):
    __slots__ = ("location", "function", "error_msg")
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    FUNCTION_FIELD_NUMBER: _ClassVar[int]
    ERROR_MSG_FIELD_NUMBER: _ClassVar[int]
    location: str
    function: str
    error_msg: str
    def __init__(self, location: _Optional[str] = ..., function: _Optional[str] = ..., error_msg: _Optional[str] = ...) -> None: ...

class SymbolIdUninitializedError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ValueError(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ErrorProto(_message.Message):
    __slots__ = ("error_summary", "msg", "stack_frame", "config_assert_failed_error", "config_resource_unavailable_error", "proto_parse_failed_error", "check_failed_error", "todo_error", "unimplemented_error", "boxing_not_supported_error", "gradient_function_not_found_error", "op_kernel_not_found_error", "multiple_op_kernels_matched_error", "memory_zone_out_of_memory_error", "loss_blob_not_found_error", "job_set_empty_error", "device_tag_not_found_error", "value_error", "job_name_exist_error", "job_name_empty_error", "job_name_not_equal_error", "no_job_build_and_infer_ctx_error", "job_conf_frozen_error", "job_conf_not_set_error", "job_conf_repeated_set_error", "job_type_not_set_error", "logical_blob_name_not_exist_error", "logical_blob_name_exist_error", "logical_blob_name_invalid_error", "op_name_exist_error", "op_conf_device_tag_no_set_error", "placement_error", "blob_split_axis_infer_error", "unknown_job_build_and_infer_error", "rw_mutexed_object_not_found_error", "symbol_id_uninitialized_error", "unknown_error", "compile_option_wrong_error", "input_device_not_match_error")
    ERROR_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    MSG_FIELD_NUMBER: _ClassVar[int]
    STACK_FRAME_FIELD_NUMBER: _ClassVar[int]
    CONFIG_ASSERT_FAILED_ERROR_FIELD_NUMBER: _ClassVar[int]
    CONFIG_RESOURCE_UNAVAILABLE_ERROR_FIELD_NUMBER: _ClassVar[int]
    PROTO_PARSE_FAILED_ERROR_FIELD_NUMBER: _ClassVar[int]
    CHECK_FAILED_ERROR_FIELD_NUMBER: _ClassVar[int]
    TODO_ERROR_FIELD_NUMBER: _ClassVar[int]
    UNIMPLEMENTED_ERROR_FIELD_NUMBER: _ClassVar[int]
    BOXING_NOT_SUPPORTED_ERROR_FIELD_NUMBER: _ClassVar[int]
    GRADIENT_FUNCTION_NOT_FOUND_ERROR_FIELD_NUMBER: _ClassVar[int]
    OP_KERNEL_NOT_FOUND_ERROR_FIELD_NUMBER: _ClassVar[int]
    MULTIPLE_OP_KERNELS_MATCHED_ERROR_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ZONE_OUT_OF_MEMORY_ERROR_FIELD_NUMBER: _ClassVar[int]
    LOSS_BLOB_NOT_FOUND_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_SET_EMPTY_ERROR_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TAG_NOT_FOUND_ERROR_FIELD_NUMBER: _ClassVar[int]
    VALUE_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_NAME_EXIST_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_NAME_EMPTY_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_NAME_NOT_EQUAL_ERROR_FIELD_NUMBER: _ClassVar[int]
    NO_JOB_BUILD_AND_INFER_CTX_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_CONF_FROZEN_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_CONF_NOT_SET_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_CONF_REPEATED_SET_ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_TYPE_NOT_SET_ERROR_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_BLOB_NAME_NOT_EXIST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_BLOB_NAME_EXIST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_BLOB_NAME_INVALID_ERROR_FIELD_NUMBER: _ClassVar[int]
    OP_NAME_EXIST_ERROR_FIELD_NUMBER: _ClassVar[int]
    OP_CONF_DEVICE_TAG_NO_SET_ERROR_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_ERROR_FIELD_NUMBER: _ClassVar[int]
    BLOB_SPLIT_AXIS_INFER_ERROR_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_JOB_BUILD_AND_INFER_ERROR_FIELD_NUMBER: _ClassVar[int]
    RW_MUTEXED_OBJECT_NOT_FOUND_ERROR_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_ID_UNINITIALIZED_ERROR_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_ERROR_FIELD_NUMBER: _ClassVar[int]
    COMPILE_OPTION_WRONG_ERROR_FIELD_NUMBER: _ClassVar[int]
    INPUT_DEVICE_NOT_MATCH_ERROR_FIELD_NUMBER: _ClassVar[int]
    error_summary: str
    msg: str
    stack_frame: _containers.RepeatedCompositeFieldContainer[ErrorStackFrame]
    config_assert_failed_error: ConfigAssertFailedError
    config_resource_unavailable_error: ConfigResourceUnavailableError
    proto_parse_failed_error: ProtoParseFailedError
    check_failed_error: CheckFailedError
    todo_error: TodoError
    unimplemented_error: UnimplementedError
    boxing_not_supported_error: BoxingNotSupportedError
    gradient_function_not_found_error: GradientFunctionNotFoundError
    op_kernel_not_found_error: OpKernelNotFoundError
    multiple_op_kernels_matched_error: MultipleOpKernelsMatchedError
    memory_zone_out_of_memory_error: MemoryZoneOutOfMemoryError
    loss_blob_not_found_error: LossBlobNotFoundError
    job_set_empty_error: JobSetEmptyError
    device_tag_not_found_error: DeviceTagNotFoundError
    value_error: ValueError
    job_name_exist_error: JobNameExistError
    job_name_empty_error: JobNameEmptyError
    job_name_not_equal_error: JobNameNotEqualError
    no_job_build_and_infer_ctx_error: NoJobBuildAndInferCtxError
    job_conf_frozen_error: JobConfFrozenError
    job_conf_not_set_error: JobConfNotSetError
    job_conf_repeated_set_error: JobConfRepeatedSetError
    job_type_not_set_error: JobTypeNotSetError
    logical_blob_name_not_exist_error: LogicalBlobNameNotExistError
    logical_blob_name_exist_error: LogicalBlobNameExistError
    logical_blob_name_invalid_error: LogicalBlobNameInvalidError
    op_name_exist_error: OpNameExistError
    op_conf_device_tag_no_set_error: OpConfDeviceTagNoSetError
    placement_error: PlacementError
    blob_split_axis_infer_error: BlobSplitAxisInferError
    unknown_job_build_and_infer_error: UnknownJobBuildAndInferError
    rw_mutexed_object_not_found_error: RwMutexedObjectNotFoundError
    symbol_id_uninitialized_error: SymbolIdUninitializedError
    unknown_error: UnknownError
    compile_option_wrong_error: CompileOptionWrongError
    input_device_not_match_error: InputDeviceNotMatchError
    def __init__(self, error_summary: _Optional[str] = ..., msg: _Optional[str] = ..., stack_frame: _Optional[_Iterable[_Union[ErrorStackFrame, _Mapping]]] = ..., config_assert_failed_error: _Optional[_Union[ConfigAssertFailedError, _Mapping]] = ..., config_resource_unavailable_error: _Optional[_Union[ConfigResourceUnavailableError, _Mapping]] = ..., proto_parse_failed_error: _Optional[_Union[ProtoParseFailedError, _Mapping]] = ..., check_failed_error: _Optional[_Union[CheckFailedError, _Mapping]] = ..., todo_error: _Optional[_Union[TodoError, _Mapping]] = ..., unimplemented_error: _Optional[_Union[UnimplementedError, _Mapping]] = ..., boxing_not_supported_error: _Optional[_Union[BoxingNotSupportedError, _Mapping]] = ..., gradient_function_not_found_error: _Optional[_Union[GradientFunctionNotFoundError, _Mapping]] = ..., op_kernel_not_found_error: _Optional[_Union[OpKernelNotFoundError, _Mapping]] = ..., multiple_op_kernels_matched_error: _Optional[_Union[MultipleOpKernelsMatchedError, _Mapping]] = ..., memory_zone_out_of_memory_error: _Optional[_Union[MemoryZoneOutOfMemoryError, _Mapping]] = ..., loss_blob_not_found_error: _Optional[_Union[LossBlobNotFoundError, _Mapping]] = ..., job_set_empty_error: _Optional[_Union[JobSetEmptyError, _Mapping]] = ..., device_tag_not_found_error: _Optional[_Union[DeviceTagNotFoundError, _Mapping]] = ..., value_error: _Optional[_Union[ValueError, _Mapping]] = ..., job_name_exist_error: _Optional[_Union[JobNameExistError, _Mapping]] = ..., job_name_empty_error: _Optional[_Union[JobNameEmptyError, _Mapping]] = ..., job_name_not_equal_error: _Optional[_Union[JobNameNotEqualError, _Mapping]] = ..., no_job_build_and_infer_ctx_error: _Optional[_Union[NoJobBuildAndInferCtxError, _Mapping]] = ..., job_conf_frozen_error: _Optional[_Union[JobConfFrozenError, _Mapping]] = ..., job_conf_not_set_error: _Optional[_Union[JobConfNotSetError, _Mapping]] = ..., job_conf_repeated_set_error: _Optional[_Union[JobConfRepeatedSetError, _Mapping]] = ..., job_type_not_set_error: _Optional[_Union[JobTypeNotSetError, _Mapping]] = ..., logical_blob_name_not_exist_error: _Optional[_Union[LogicalBlobNameNotExistError, _Mapping]] = ..., logical_blob_name_exist_error: _Optional[_Union[LogicalBlobNameExistError, _Mapping]] = ..., logical_blob_name_invalid_error: _Optional[_Union[LogicalBlobNameInvalidError, _Mapping]] = ..., op_name_exist_error: _Optional[_Union[OpNameExistError, _Mapping]] = ..., op_conf_device_tag_no_set_error: _Optional[_Union[OpConfDeviceTagNoSetError, _Mapping]] = ..., placement_error: _Optional[_Union[PlacementError, _Mapping]] = ..., blob_split_axis_infer_error: _Optional[_Union[BlobSplitAxisInferError, _Mapping]] = ..., unknown_job_build_and_infer_error: _Optional[_Union[UnknownJobBuildAndInferError, _Mapping]] = ..., rw_mutexed_object_not_found_error: _Optional[_Union[RwMutexedObjectNotFoundError, _Mapping]] = ..., symbol_id_uninitialized_error: _Optional[_Union[SymbolIdUninitializedError, _Mapping]] = ..., unknown_error: _Optional[_Union[UnknownError, _Mapping]] = ..., compile_option_wrong_error: _Optional[_Union[CompileOptionWrongError, _Mapping]] = ..., input_device_not_match_error: _Optional[_Union[InputDeviceNotMatchError, _Mapping]] = ...) -> None: ...
