from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from flowtorch.core.operator import op_conf_pb2 as _op_conf_pb2
from flowtorch.core.operator import arg_modifier_signature_pb2 as _arg_modifier_signature_pb2
from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from flowtorch.core.job import mirrored_parallel_pb2 as _mirrored_parallel_pb2
from flowtorch.core.job import blob_lifetime_signature_pb2 as _blob_lifetime_signature_pb2
from flowtorch.core.job import parallel_signature_pb2 as _parallel_signature_pb2
from flowtorch.core.job import parallel_conf_signature_pb2 as _parallel_conf_signature_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpAttribute(_message.Message):
    __slots__ = ("input_bns", "output_bns", "tmp_bns", "op_conf", "arg_signature", "arg_modifier_signature", "blob_last_used_signature", "blob_backward_used_signature", "sbp_signature", "mirrored_signature", "logical_blob_desc_signature", "parallel_signature", "parallel_conf_signature", "parallel_distribution_signature")
    INPUT_BNS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_BNS_FIELD_NUMBER: _ClassVar[int]
    TMP_BNS_FIELD_NUMBER: _ClassVar[int]
    OP_CONF_FIELD_NUMBER: _ClassVar[int]
    ARG_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    ARG_MODIFIER_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    BLOB_LAST_USED_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    BLOB_BACKWARD_USED_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    SBP_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    MIRRORED_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_BLOB_DESC_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CONF_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_DISTRIBUTION_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    input_bns: _containers.RepeatedScalarFieldContainer[str]
    output_bns: _containers.RepeatedScalarFieldContainer[str]
    tmp_bns: _containers.RepeatedScalarFieldContainer[str]
    op_conf: _op_conf_pb2.OperatorConf
    arg_signature: _logical_blob_id_pb2.ArgSignature
    arg_modifier_signature: _arg_modifier_signature_pb2.ArgModifierSignature
    blob_last_used_signature: _blob_lifetime_signature_pb2.BlobLastUsedSignature
    blob_backward_used_signature: _blob_lifetime_signature_pb2.BlobBackwardUsedSignature
    sbp_signature: _sbp_parallel_pb2.SbpSignature
    mirrored_signature: _mirrored_parallel_pb2.MirroredSignature
    logical_blob_desc_signature: _blob_desc_pb2.BlobDescSignature
    parallel_signature: _parallel_signature_pb2.ParallelSignature
    parallel_conf_signature: _parallel_conf_signature_pb2.ParallelConfSignature
    parallel_distribution_signature: _sbp_parallel_pb2.ParallelDistributionSignature
    def __init__(self, input_bns: _Optional[_Iterable[str]] = ..., output_bns: _Optional[_Iterable[str]] = ..., tmp_bns: _Optional[_Iterable[str]] = ..., op_conf: _Optional[_Union[_op_conf_pb2.OperatorConf, _Mapping]] = ..., arg_signature: _Optional[_Union[_logical_blob_id_pb2.ArgSignature, _Mapping]] = ..., arg_modifier_signature: _Optional[_Union[_arg_modifier_signature_pb2.ArgModifierSignature, _Mapping]] = ..., blob_last_used_signature: _Optional[_Union[_blob_lifetime_signature_pb2.BlobLastUsedSignature, _Mapping]] = ..., blob_backward_used_signature: _Optional[_Union[_blob_lifetime_signature_pb2.BlobBackwardUsedSignature, _Mapping]] = ..., sbp_signature: _Optional[_Union[_sbp_parallel_pb2.SbpSignature, _Mapping]] = ..., mirrored_signature: _Optional[_Union[_mirrored_parallel_pb2.MirroredSignature, _Mapping]] = ..., logical_blob_desc_signature: _Optional[_Union[_blob_desc_pb2.BlobDescSignature, _Mapping]] = ..., parallel_signature: _Optional[_Union[_parallel_signature_pb2.ParallelSignature, _Mapping]] = ..., parallel_conf_signature: _Optional[_Union[_parallel_conf_signature_pb2.ParallelConfSignature, _Mapping]] = ..., parallel_distribution_signature: _Optional[_Union[_sbp_parallel_pb2.ParallelDistributionSignature, _Mapping]] = ...) -> None: ...

class OpAttributeList(_message.Message):
    __slots__ = ("op_attribute",)
    OP_ATTRIBUTE_FIELD_NUMBER: _ClassVar[int]
    op_attribute: _containers.RepeatedCompositeFieldContainer[OpAttribute]
    def __init__(self, op_attribute: _Optional[_Iterable[_Union[OpAttribute, _Mapping]]] = ...) -> None: ...
from flowtorch.core.operator.op_node_signature_pb2 import OpNodeSignature as OpNodeSignature
