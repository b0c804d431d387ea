from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from flowtorch.core.job import mirrored_parallel_pb2 as _mirrored_parallel_pb2
from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from flowtorch.core.job import parallel_signature_pb2 as _parallel_signature_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpNodeSignature(_message.Message):
    __slots__ = ("sbp_signature", "mirrored_signature", "logical_blob_desc_signature", "parallel_signature")
    SBP_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    MIRRORED_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    LOGICAL_BLOB_DESC_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    sbp_signature: _sbp_parallel_pb2.SbpSignature
    mirrored_signature: _mirrored_parallel_pb2.MirroredSignature
    logical_blob_desc_signature: _blob_desc_pb2.BlobDescSignature
    parallel_signature: _parallel_signature_pb2.ParallelSignature
    def __init__(self, sbp_signature: _Optional[_Union[_sbp_parallel_pb2.SbpSignature, _Mapping]] = ..., mirrored_signature: _Optional[_Union[_mirrored_parallel_pb2.MirroredSignature, _Mapping]] = ..., logical_blob_desc_signature: _Optional[_Union[_blob_desc_pb2.BlobDescSignature, _Mapping]] = ..., parallel_signature: _Optional[_Union[_parallel_signature_pb2.ParallelSignature, _Mapping]] = ...) -> None: ...
