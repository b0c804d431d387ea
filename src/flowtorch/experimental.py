"""``oneflow.experimental``: ``experimental.scope.config(**attrs)`` (scope attributes such as
``checkpointing=`` or ``pipeline_stage_id_hint=``)."""

from flowtorch._src import experimental_scope as scope
from flowtorch._src.capture.signature import enable_typing_check as enable_typing_check
from flowtorch._src.io.interface import get_interface_blob_value as get_interface_blob_value
from flowtorch._src.io.interface import set_interface_blob_value as set_interface_blob_value
from flowtorch._src.migrate.job_ir import get_job_set as get_job_set
from flowtorch._src.naming import name_scope as name_scope
from flowtorch._src.ops.builtin_ops import square_sum as square_sum
from flowtorch._src.ops.custom_op import CustomOpModule as custom_op_module
from flowtorch._src.ops.custom_op import OpLib as op_lib
from flowtorch._src.ops.custom_op import register_user_op as register_user_op
from flowtorch._src.ops.dynamic_ops import unique_with_counts as unique_with_counts
from flowtorch._src.ops.early_ops import broadcast_maximum as broadcast_maximum
from flowtorch._src.ops.early_ops import broadcast_minimum as broadcast_minimum
from flowtorch._src.ops.logical_slice_ops import logical_slice as logical_slice
from flowtorch._src.ops.logical_slice_ops import logical_slice_assign as logical_slice_assign
from flowtorch._src.ops.segment_ops import indexed_slices_reduce_sum as indexed_slices_reduce_sum
from flowtorch._src.ops.state_ops import eager_assign_121 as eager_assign_121
from flowtorch._src.ops.state_ops import ssp_variable_proxy as ssp_variable_proxy
from flowtorch._src.ops.unavailable_ops import dynamic_binary_concat as dynamic_binary_concat
from flowtorch._src.ops.unavailable_ops import dynamic_binary_split as dynamic_binary_split

__all__ = [
           "broadcast_maximum",
           "broadcast_minimum",
           "op_lib",
           "custom_op_module",
           "dynamic_binary_concat",
           "dynamic_binary_split",
           "eager_assign_121",
           "enable_typing_check",
           "get_interface_blob_value",
           "get_job_set",
           "indexed_slices_reduce_sum",
           "logical_slice",
           "logical_slice_assign",
           "name_scope",
           "register_user_op",
           "scope",
           "set_interface_blob_value",
           "square_sum",
           "ssp_variable_proxy",
           "unique_with_counts",
]
