from flowtorch.core.job import dlnet_conf_pb2 as _dlnet_conf_pb2
from flowtorch.core.job import placement_pb2 as _placement_pb2
from flowtorch.core.job import job_conf_pb2 as _job_conf_pb2
from flowtorch.core.register import logical_blob_id_pb2 as _logical_blob_id_pb2
from flowtorch.core.register import op_blob_arg_pb2 as _op_blob_arg_pb2
from flowtorch.core.register import blob_desc_pb2 as _blob_desc_pb2
from flowtorch.core.operator import op_conf_pb2 as _op_conf_pb2
from flowtorch.core.job import sbp_parallel_pb2 as _sbp_parallel_pb2
from flowtorch.core.job import lbi_diff_watcher_info_pb2 as _lbi_diff_watcher_info_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JobParallelViewConf(_message.Message):
    __slots__ = ("op_name2sbp_signature_conf", "op_name2is_mirrored_parallel_view", "op_name2parallel_distribution_signature_conf")
    class OpName2sbpSignatureConfEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _sbp_parallel_pb2.SbpSignature
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_sbp_parallel_pb2.SbpSignature, _Mapping]] = ...) -> None: ...
    class OpName2isMirroredParallelViewEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bool
        def __init__(self, key: _Optional[str] = ..., value: bool = ...) -> None: ...
    class OpName2parallelDistributionSignatureConfEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _sbp_parallel_pb2.ParallelDistributionSignature
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_sbp_parallel_pb2.ParallelDistributionSignature, _Mapping]] = ...) -> None: ...
    OP_NAME2SBP_SIGNATURE_CONF_FIELD_NUMBER: _ClassVar[int]
    OP_NAME2IS_MIRRORED_PARALLEL_VIEW_FIELD_NUMBER: _ClassVar[int]
    OP_NAME2PARALLEL_DISTRIBUTION_SIGNATURE_CONF_FIELD_NUMBER: _ClassVar[int]
    op_name2sbp_signature_conf: _containers.MessageMap[str, _sbp_parallel_pb2.SbpSignature]
    op_name2is_mirrored_parallel_view: _containers.ScalarMap[str, bool]
    op_name2parallel_distribution_signature_conf: _containers.MessageMap[str, _sbp_parallel_pb2.ParallelDistributionSignature]
    def __init__(self, op_name2sbp_signature_conf: _Optional[_Mapping[str, _sbp_parallel_pb2.SbpSignature]] = ..., op_name2is_mirrored_parallel_view: _Optional[_Mapping[str, bool]] = ..., op_name2parallel_distribution_signature_conf: _Optional[_Mapping[str, _sbp_parallel_pb2.ParallelDistributionSignature]] = ...) -> None: ...

class JobHelperConf(_message.Message):
    __slots__ = ("tag2lbi_relations", "tag2op_name_relations", "lbn2logical_blob_desc", "lbn2logical_object_id", "lbi_diff_watcher_info", "op_name2arg_signature")
    class Tag2lbiRelationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _logical_blob_id_pb2.LogicalBlobIdPairs
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_logical_blob_id_pb2.LogicalBlobIdPairs, _Mapping]] = ...) -> None: ...
    class Tag2opNameRelationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _op_conf_pb2.OpNameRelations
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_op_conf_pb2.OpNameRelations, _Mapping]] = ...) -> None: ...
    class Lbn2logicalBlobDescEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _blob_desc_pb2.BlobDescProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_blob_desc_pb2.BlobDescProto, _Mapping]] = ...) -> None: ...
    class Lbn2logicalObjectIdEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class OpName2argSignatureEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _logical_blob_id_pb2.ArgSignature
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_logical_blob_id_pb2.ArgSignature, _Mapping]] = ...) -> None: ...
    TAG2LBI_RELATIONS_FIELD_NUMBER: _ClassVar[int]
    TAG2OP_NAME_RELATIONS_FIELD_NUMBER: _ClassVar[int]
    LBN2LOGICAL_BLOB_DESC_FIELD_NUMBER: _ClassVar[int]
    LBN2LOGICAL_OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    LBI_DIFF_WATCHER_INFO_FIELD_NUMBER: _ClassVar[int]
    OP_NAME2ARG_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    tag2lbi_relations: _containers.MessageMap[str, _logical_blob_id_pb2.LogicalBlobIdPairs]
    tag2op_name_relations: _containers.MessageMap[str, _op_conf_pb2.OpNameRelations]
    lbn2logical_blob_desc: _containers.MessageMap[str, _blob_desc_pb2.BlobDescProto]
    lbn2logical_object_id: _containers.ScalarMap[str, int]
    lbi_diff_watcher_info: _lbi_diff_watcher_info_pb2.LbiDiffWatcherInfo
    op_name2arg_signature: _containers.MessageMap[str, _logical_blob_id_pb2.ArgSignature]
    def __init__(self, tag2lbi_relations: _Optional[_Mapping[str, _logical_blob_id_pb2.LogicalBlobIdPairs]] = ..., tag2op_name_relations: _Optional[_Mapping[str, _op_conf_pb2.OpNameRelations]] = ..., lbn2logical_blob_desc: _Optional[_Mapping[str, _blob_desc_pb2.BlobDescProto]] = ..., lbn2logical_object_id: _Optional[_Mapping[str, int]] = ..., lbi_diff_watcher_info: _Optional[_Union[_lbi_diff_watcher_info_pb2.LbiDiffWatcherInfo, _Mapping]] = ..., op_name2arg_signature: _Optional[_Mapping[str, _logical_blob_id_pb2.ArgSignature]] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ("net", "placement", "job_conf", "job_parallel_view_conf", "helper")
    NET_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    JOB_CONF_FIELD_NUMBER: _ClassVar[int]
    JOB_PARALLEL_VIEW_CONF_FIELD_NUMBER: _ClassVar[int]
    HELPER_FIELD_NUMBER: _ClassVar[int]
    net: _dlnet_conf_pb2.DLNetConf
    placement: _placement_pb2.Placement
    job_conf: _job_conf_pb2.JobConfigProto
    job_parallel_view_conf: JobParallelViewConf
    helper: JobHelperConf
    def __init__(self, net: _Optional[_Union[_dlnet_conf_pb2.DLNetConf, _Mapping]] = ..., placement: _Optional[_Union[_placement_pb2.Placement, _Mapping]] = ..., job_conf: _Optional[_Union[_job_conf_pb2.JobConfigProto, _Mapping]] = ..., job_parallel_view_conf: _Optional[_Union[JobParallelViewConf, _Mapping]] = ..., helper: _Optional[_Union[JobHelperConf, _Mapping]] = ...) -> None: ...
from flowtorch.core.job.job_conf_pb2 import IndexedSlicesOptimizerConf as IndexedSlicesOptimizerConf
from flowtorch.core.job.job_conf_pb2 import JobConfigProto as JobConfigProto
from flowtorch.core.job.job_conf_pb2 import MemoryAllocationAlgorithmConf as MemoryAllocationAlgorithmConf
from flowtorch.core.job.job_conf_pb2 import ParallelBlobConf as ParallelBlobConf
from flowtorch.core.job.job_conf_pb2 import PredictConf as PredictConf
from flowtorch.core.job.job_conf_pb2 import TrainConf as TrainConf
from flowtorch.core.job.job_conf_pb2 import XrtConfig as XrtConfig
