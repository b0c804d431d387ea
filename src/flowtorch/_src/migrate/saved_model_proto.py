"""OneFlow's saved-model messages (``oneflow/core/serving/saved_model.proto`` and what it imports, v0.4.0), the
ones :mod:`.saved_model`, :mod:`.saved_model_graph` and :mod:`.serving` read and write.

They are the generated ``flowtorch.core`` modules (``scripts/write_core_protos.py``), so a ``saved_model.pb``
written here parses in OneFlow and one written by OneFlow parses here, every op conf of OneFlow's ``op_type``
oneof included.
"""

from __future__ import annotations

from flowtorch.core.common.data_type_pb2 import DataType as DataType
from flowtorch.core.common.shape_pb2 import ShapeProto as ShapeProto
from flowtorch.core.framework.user_op_attr_pb2 import AttrValue as AttrValue
from flowtorch.core.framework.user_op_conf_pb2 import UserOpConf as UserOpConf
from flowtorch.core.job.job_conf_pb2 import JobInputDef as JobInputDef
from flowtorch.core.job.job_conf_pb2 import JobOutputDef as JobOutputDef
from flowtorch.core.job.job_conf_pb2 import JobSignatureDef as JobSignatureDef
from flowtorch.core.job.sbp_parallel_pb2 import ParallelDistribution as ParallelDistribution
from flowtorch.core.job.sbp_parallel_pb2 import SbpParallel as SbpParallel
from flowtorch.core.operator.interface_blob_conf_pb2 import InterfaceBlobConf as InterfaceBlobConf
from flowtorch.core.operator.op_conf_pb2 import OperatorConf as OperatorConf
from flowtorch.core.register.logical_blob_id_pb2 import LogicalBlobId as LogicalBlobId
from flowtorch.core.serving.saved_model_pb2 import GraphDef as GraphDef
from flowtorch.core.serving.saved_model_pb2 import SavedModel as SavedModel

__all__ = ["AttrValue", "DataType", "GraphDef", "InterfaceBlobConf", "JobInputDef", "JobOutputDef", "JobSignatureDef",
           "LogicalBlobId", "OperatorConf", "ParallelDistribution", "SavedModel", "SbpParallel", "ShapeProto",
           "UserOpConf"]
