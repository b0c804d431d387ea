from flowtorch.core.common import data_type_pb2 as _data_type_pb2
from flowtorch.core.common import dtype_signature_pb2 as _dtype_signature_pb2
from flowtorch.core.operator import op_attribute_pb2 as _op_attribute_pb2
from flowtorch.core.job import placement_pb2 as _placement_pb2
from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecodeRandomKernelConf(_message.Message):
    __slots__ = ("random_seed",)
    RANDOM_SEED_FIELD_NUMBER: _ClassVar[int]
    random_seed: int
    def __init__(self, random_seed: _Optional[int] = ...) -> None: ...

class VariableKernelConf(_message.Message):
    __slots__ = ("is_fw_inplace", "is_bw_inplace")
    IS_FW_INPLACE_FIELD_NUMBER: _ClassVar[int]
    IS_BW_INPLACE_FIELD_NUMBER: _ClassVar[int]
    is_fw_inplace: bool
    is_bw_inplace: bool
    def __init__(self, is_fw_inplace: bool = ..., is_bw_inplace: bool = ...) -> None: ...

class ShapeElemCntKernelConf(_message.Message):
    __slots__ = ("axis",)
    AXIS_FIELD_NUMBER: _ClassVar[int]
    axis: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, axis: _Optional[_Iterable[int]] = ...) -> None: ...

class UserKernelConf(_message.Message):
    __slots__ = ("bn_in_op2blob_desc",)
    class BnInOp2blobDescEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _blob_desc_pb2.BlobDescProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_blob_desc_pb2.BlobDescProto, _Mapping]] = ...) -> None: ...
    BN_IN_OP2BLOB_DESC_FIELD_NUMBER: _ClassVar[int]
    bn_in_op2blob_desc: _containers.MessageMap[str, _blob_desc_pb2.BlobDescProto]
    def __init__(self, bn_in_op2blob_desc: _Optional[_Mapping[str, _blob_desc_pb2.BlobDescProto]] = ...) -> None: ...

class XrtLaunchKernelConf(_message.Message):
    __slots__ = ("parallel_ctx",)
    PARALLEL_CTX_FIELD_NUMBER: _ClassVar[int]
    parallel_ctx: _placement_pb2.ParallelContext
    def __init__(self, parallel_ctx: _Optional[_Union[_placement_pb2.ParallelContext, _Mapping]] = ...) -> None: ...

class SyncDynamicResizeKernelConf(_message.Message):
    __slots__ = ("size_data_type",)
    SIZE_DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    size_data_type: _data_type_pb2.DataType
    def __init__(self, size_data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ...) -> None: ...

class BroadcastToCompatibleWithKernelConf(_message.Message):
    __slots__ = ("broadcast_axes",)
    BROADCAST_AXES_FIELD_NUMBER: _ClassVar[int]
    broadcast_axes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, broadcast_axes: _Optional[_Iterable[int]] = ...) -> None: ...

class ImageDecoderRandomCropResizeKernelConf(_message.Message):
    __slots__ = ("seed", "batch_size")
    SEED_FIELD_NUMBER: _ClassVar[int]
    BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    seed: int
    batch_size: int
    def __init__(self, seed: _Optional[int] = ..., batch_size: _Optional[int] = ...) -> None: ...

class KernelConf(_message.Message):
    __slots__ = ("data_type", "need_do_shape", "dtype_signature", "parallel_ctx", "op_attribute", "op_attribute_ref", "user_conf", "decode_random_conf", "xrt_launch_conf", "sync_dynamic_resize_conf", "variable_conf", "shape_elem_cnt_conf", "broadcast_to_compatible_with_conf", "image_decoder_random_crop_resize_conf")
    DATA_TYPE_FIELD_NUMBER: _ClassVar[int]
    NEED_DO_SHAPE_FIELD_NUMBER: _ClassVar[int]
    DTYPE_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CTX_FIELD_NUMBER: _ClassVar[int]
    OP_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    OP_ATTRIBUTE_REF_FIELD_NUMBER: _ClassVar[int]
    USER_CONF_FIELD_NUMBER: _ClassVar[int]
    DECODE_RANDOM_CONF_FIELD_NUMBER: _ClassVar[int]
    XRT_LAUNCH_CONF_FIELD_NUMBER: _ClassVar[int]
    SYNC_DYNAMIC_RESIZE_CONF_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_CONF_FIELD_NUMBER: _ClassVar[int]
    SHAPE_ELEM_CNT_CONF_FIELD_NUMBER: _ClassVar[int]
    BROADCAST_TO_COMPATIBLE_WITH_CONF_FIELD_NUMBER: _ClassVar[int]
    IMAGE_DECODER_RANDOM_CROP_RESIZE_CONF_FIELD_NUMBER: _ClassVar[int]
    data_type: _data_type_pb2.DataType
    need_do_shape: bool
    dtype_signature: _dtype_signature_pb2.DTypeSignature
    parallel_ctx: _placement_pb2.ParallelContext
    op_attribute: _op_attribute_pb2.OpAttribute
    op_attribute_ref: str
    user_conf: UserKernelConf
    decode_random_conf: DecodeRandomKernelConf
    xrt_launch_conf: XrtLaunchKernelConf
    sync_dynamic_resize_conf: SyncDynamicResizeKernelConf
    variable_conf: VariableKernelConf
    shape_elem_cnt_conf: ShapeElemCntKernelConf
    broadcast_to_compatible_with_conf: BroadcastToCompatibleWithKernelConf
    image_decoder_random_crop_resize_conf: ImageDecoderRandomCropResizeKernelConf
    def __init__(self, data_type: _Optional[_Union[_data_type_pb2.DataType, str]] = ..., need_do_shape: bool = ..., dtype_signature: _Optional[_Union[_dtype_signature_pb2.DTypeSignature, _Mapping]] = ..., parallel_ctx: _Optional[_Union[_placement_pb2.ParallelContext, _Mapping]] = ..., op_attribute: _Optional[_Union[_op_attribute_pb2.OpAttribute, _Mapping]] = ..., op_attribute_ref: _Optional[str] = ..., user_conf: _Optional[_Union[UserKernelConf, _Mapping]] = ..., decode_random_conf: _Optional[_Union[DecodeRandomKernelConf, _Mapping]] = ..., xrt_launch_conf: _Optional[_Union[XrtLaunchKernelConf, _Mapping]] = ..., sync_dynamic_resize_conf: _Optional[_Union[SyncDynamicResizeKernelConf, _Mapping]] = ..., variable_conf: _Optional[_Union[VariableKernelConf, _Mapping]] = ..., shape_elem_cnt_conf: _Optional[_Union[ShapeElemCntKernelConf, _Mapping]] = ..., broadcast_to_compatible_with_conf: _Optional[_Union[BroadcastToCompatibleWithKernelConf, _Mapping]] = ..., image_decoder_random_crop_resize_conf: _Optional[_Union[ImageDecoderRandomCropResizeKernelConf, _Mapping]] = ...) -> None: ...
