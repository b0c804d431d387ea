"""flowtorch: OneFlow 0.x's lazy ``global_function`` API on PyTorch.

``import flowtorch as flow`` gives OneFlow's names; ``python -m flowtorch script.py`` runs an unedited
``import oneflow`` program. Everything public is re-exported here from ``flowtorch._src``.
"""

from flowtorch import checkpoint as checkpoint
from flowtorch import config as config
from flowtorch import core as core
from flowtorch import data as data
from flowtorch import detection as detection
from flowtorch import distribute as distribute
from flowtorch import env as env
from flowtorch import image as image
from flowtorch import experimental as experimental
from flowtorch import layers as layers
from flowtorch import linalg as linalg
from flowtorch import losses as losses
from flowtorch import math as math
from flowtorch import nn as nn
from flowtorch import optimizer as optimizer
from flowtorch import profiler as profiler
from flowtorch import random as random
from flowtorch import regularizers as regularizers
from flowtorch import scope as scope
from flowtorch import typing as typing
from flowtorch import train as train
from flowtorch import unittest as unittest
from flowtorch._src.dtypes import char as char
from flowtorch._src.dtypes import all_dtypes as dtypes
from flowtorch._src.dtypes import convert_oneflow_dtype_to_numpy_dtype as convert_oneflow_dtype_to_numpy_dtype
from flowtorch._src.dtypes import double as double
from flowtorch._src.dtypes import float as float  # noqa: A004
from flowtorch._src.dtypes import float16 as float16
from flowtorch._src.dtypes import float32 as float32
from flowtorch._src.dtypes import float64 as float64
from flowtorch._src.dtypes import int8 as int8
from flowtorch._src.dtypes import int32 as int32
from flowtorch._src.dtypes import int64 as int64
from flowtorch._src.dtypes import uint8 as uint8
from flowtorch._src.data.image_buffer_ops import image_batch_align as image_batch_align
from flowtorch._src.data.image_buffer_ops import image_decode as image_decode
from flowtorch._src.data.image_buffer_ops import image_flip as image_flip
from flowtorch._src.data.image_buffer_ops import image_normalize as image_normalize
from flowtorch._src.data.image_buffer_ops import image_random_crop as image_random_crop
from flowtorch._src.data.image_ops import image_resize as image_resize
from flowtorch._src.data.image_ops import image_target_resize as image_target_resize
from flowtorch._src.data.pipeline import tensor_buffer as tensor_buffer
from flowtorch._src.data.pipeline import ofrecord as record
from flowtorch._src.data.tensor_buffer import gen_tensor_buffer as gen_tensor_buffer
from flowtorch._src.data.tensor_buffer import tensor_buffer_to_list_of_tensors as tensor_buffer_to_list_of_tensors
from flowtorch._src.data.tensor_buffer import tensor_buffer_to_tensor as tensor_buffer_to_tensor
from flowtorch._src.data.tensor_buffer import tensor_list_split as tensor_list_split
from flowtorch._src.data.tensor_buffer import tensor_to_tensor_buffer as tensor_to_tensor_buffer
from flowtorch._src.data.tensor_buffer import tensor_buffer_to_tensor_list as tensor_buffer_to_tensor_list
from flowtorch._src.data.tensor_buffer import tensor_list_to_tensor_buffer as tensor_list_to_tensor_buffer
from flowtorch._src.data.object_ops import object_bbox_flip as object_bbox_flip
from flowtorch._src.data.object_ops import object_bbox_scale as object_bbox_scale
from flowtorch._src.data.object_ops import object_segm_poly_flip as object_segmentation_polygon_flip
from flowtorch._src.data.object_ops import object_segm_poly_scale as object_segmentation_polygon_scale
from flowtorch._src.data.object_ops import object_segm_poly_to_mask as object_segmentation_polygon_to_mask
from flowtorch._src.function_config import FunctionConfig as FunctionConfig
from flowtorch._src.function_config import function_config as function_config
from flowtorch._src.initializers import constant_initializer as constant_initializer
from flowtorch._src.initializers import empty_initializer as empty_initializer
from flowtorch._src.initializers import glorot_normal_initializer as glorot_normal_initializer
from flowtorch._src.initializers import glorot_uniform_initializer as glorot_uniform_initializer
from flowtorch._src.initializers import kaiming_initializer as kaiming_initializer
from flowtorch._src.initializers import ones_initializer as ones_initializer
from flowtorch._src.initializers import random_normal_initializer as random_normal_initializer
from flowtorch._src.initializers import random_uniform_initializer as random_uniform_initializer
from flowtorch._src.initializers import truncated_normal as truncated_normal
from flowtorch._src.initializers import truncated_normal_initializer as truncated_normal_initializer
from flowtorch._src.initializers import variance_scaling_initializer as variance_scaling_initializer
from flowtorch._src.initializers import xavier_normal_initializer as xavier_normal_initializer
from flowtorch._src.initializers import xavier_uniform_initializer as xavier_uniform_initializer
from flowtorch._src.initializers import zeros_initializer as zeros_initializer
from flowtorch._src.io.checkpoint import get_all_variables as get_all_variables
from flowtorch._src.io.checkpoint import load_variables as load_variables
from flowtorch._src.job.losses import current_global_function_desc as current_global_function_desc
from flowtorch._src.job.typing_defs import FixedTensorDef as FixedTensorDef
from flowtorch._src.job.typing_defs import MirroredTensorDef as MirroredTensorDef
from flowtorch._src.job.typing_defs import MirroredTensorListDef as MirroredTensorListDef
from flowtorch._src.modes import enable_eager_execution as enable_eager_execution
from flowtorch._src.modes import eager_execution_enabled as eager_execution_enabled
from flowtorch._src.naming import namespace as name_scope
from flowtorch._src.ops.dynamic_ops import sync_dynamic_resize as sync_dynamic_resize
from flowtorch._src.ops.extra_math_ops import count_not_finite as count_not_finite
from flowtorch._src.ops.extra_math_ops import multi_count_not_finite as multi_count_not_finite
from flowtorch._src.ops.hint_ops import amp_white_identity as amp_white_identity
from flowtorch._src.ops.pipeline_ops import acc as acc
from flowtorch._src.ops.pipeline_ops import pack as pack
from flowtorch._src.ops.pipeline_ops import repeat as repeat
from flowtorch._src.ops.pipeline_ops import unpack as unpack
from flowtorch._src.ops.segment_ops import unsorted_batch_segment_sum as unsorted_batch_segment_sum
from flowtorch._src.ops.segment_ops import unsorted_segment_sum as unsorted_segment_sum
from flowtorch._src.ops.segment_ops import unsorted_segment_sum_like as unsorted_segment_sum_like
from flowtorch._src.ops.state_ops import assign as assign
from flowtorch._src.ops.state_ops import categorical_ordinal_encode as categorical_ordinal_encode
from flowtorch._src.ops.hint_ops import hierarchical_parallel_cast as hierarchical_parallel_cast
from flowtorch._src.ops.margin_losses import combined_margin_loss as combined_margin_loss
from flowtorch._src.ops.pointwise_losses import smooth_l1_loss as smooth_l1_loss
from flowtorch._src.ops.spatial_ops import reflection_pad2d as reflection_pad2d
from flowtorch._src.ops.toplevel import argsort as argsort
from flowtorch._src.ops.user_op_builder import consistent_user_op_builder as consistent_user_op_builder
from flowtorch._src.ops.user_op_builder import consistent_user_op_module_builder as consistent_user_op_module_builder
from flowtorch._src.ops.user_op_builder import user_op_builder as user_op_builder
from flowtorch._src.ops.user_op_builder import user_op_module_builder as user_op_module_builder
from flowtorch._src.ops.user_op_module import find_or_create_module as find_or_create_module
from flowtorch._src.ops.identity_ops import cast_to_current_logical_view as cast_to_current_logical_view
from flowtorch._src.ops.toplevel import argwhere as argwhere
from flowtorch._src.ops.toplevel import cast_to_static_shape as cast_to_static_shape
from flowtorch._src.ops.toplevel import identity_n as identity_n
from flowtorch._src.ops.toplevel import parallel_cast as parallel_cast
from flowtorch._src.ops.toplevel import tensor_scatter_nd_add as tensor_scatter_nd_add
from flowtorch._src.ops.toplevel import tensor_scatter_nd_update as tensor_scatter_nd_update
from flowtorch._src.ops.toplevel import broadcast_like as broadcast_like
from flowtorch._src.ops.toplevel import broadcast_to_compatible_with as broadcast_to_compatible_with
from flowtorch._src.ops.toplevel import cast as cast
from flowtorch._src.ops.toplevel import clamp as clamp
from flowtorch._src.ops.toplevel import clip as clip
from flowtorch._src.ops.toplevel import clip_by_scalar as clip_by_scalar
from flowtorch._src.ops.toplevel import clip_by_value as clip_by_value
from flowtorch._src.ops.toplevel import concat as concat
from flowtorch._src.ops.toplevel import constant as constant
from flowtorch._src.ops.toplevel import constant_like as constant_like
from flowtorch._src.ops.toplevel import dim_gather as dim_gather
from flowtorch._src.ops.toplevel import expand_dims as expand_dims
from flowtorch._src.ops.toplevel import flatten as flatten
from flowtorch._src.ops.toplevel import gather as gather
from flowtorch._src.ops.toplevel import gather_nd as gather_nd
from flowtorch._src.ops.toplevel import identity as identity
from flowtorch._src.ops.toplevel import in_top_k as in_top_k
from flowtorch._src.ops.toplevel import masked_fill as masked_fill
from flowtorch._src.ops.toplevel import matmul as matmul
from flowtorch._src.ops.toplevel import one_hot as one_hot
from flowtorch._src.ops.toplevel import ones as ones
from flowtorch._src.ops.toplevel import ones_like as ones_like
from flowtorch._src.ops.toplevel import pad as pad
from flowtorch._src.ops.toplevel import range as range
from flowtorch._src.ops.toplevel import reshape as reshape
from flowtorch._src.ops.toplevel import reshape_like as reshape_like
from flowtorch._src.ops.toplevel import reverse as reverse
from flowtorch._src.ops.toplevel import slice as slice
from flowtorch._src.ops.toplevel import slice_v2 as slice_v2
from flowtorch._src.ops.index_ops import slice_update as slice_update
from flowtorch._src.ops.toplevel import sort as sort
from flowtorch._src.ops.toplevel import squeeze as squeeze
from flowtorch._src.ops.toplevel import stack as stack
from flowtorch._src.ops.toplevel import transpose as transpose
from flowtorch._src.ops.toplevel import where as where
from flowtorch._src.ops.toplevel import zeros as zeros
from flowtorch._src.ops.toplevel import zeros_like as zeros_like
from flowtorch._src.placement import current_scope as current_scope
from flowtorch._src.placement import fixed_placement as fixed_placement
from flowtorch._src.placement import device_prior_placement as device_prior_placement
from flowtorch._src.session import clear_default_session as clear_default_session
from flowtorch._src.session import global_function as global_function
from flowtorch._src.session import sync_default_session as sync_default_session
from flowtorch._src.variables import get_variable as get_variable
from flowtorch._src.watch.api import watch as watch
from flowtorch._src.watch.api import watch_diff as watch_diff
from flowtorch._src.watch.watch_scope import watch_scope as watch_scope
from flowtorch._src.migrate.export import export as export

__version__ = "0.1.0"

__all__ = [
    "cast_to_current_logical_view", "convert_oneflow_dtype_to_numpy_dtype", "device_prior_placement", "dtypes",
    "record", "slice_update", "tensor_list_split",
    "amp_white_identity", "argsort", "argwhere", "broadcast_like", "broadcast_to_compatible_with", "cast",
    "cast_to_static_shape", "char", "checkpoint", "clamp", "clear_default_session", "clip", "clip_by_scalar",
    "clip_by_value", "concat", "config", "constant", "constant_initializer", "constant_like", "core",
    "current_global_function_desc", "current_scope", "data", "dim_gather", "distribute", "double",
    "eager_execution_enabled", "empty_initializer", "enable_eager_execution", "env", "expand_dims", "experimental",
    "fixed_placement", "FixedTensorDef", "flatten", "float", "float16", "float32", "float64", "function_config",
    "FunctionConfig", "gather", "gather_nd", "gen_tensor_buffer", "get_all_variables", "get_variable",
    "global_function", "glorot_normal_initializer", "glorot_uniform_initializer", "hierarchical_parallel_cast",
    "identity", "identity_n", "image", "image_batch_align", "image_decode", "image_flip", "image_normalize",
    "image_random_crop", "image_resize", "image_target_resize", "in_top_k", "int32", "int64", "int8",
    "kaiming_initializer", "layers", "linalg", "load_variables", "losses", "masked_fill", "math", "matmul",
    "MirroredTensorDef", "MirroredTensorListDef", "name_scope", "nn", "one_hot", "ones", "ones_initializer",
    "ones_like", "optimizer", "pad", "parallel_cast", "profiler", "random", "random_normal_initializer",
    "random_uniform_initializer", "range", "regularizers", "reshape", "reshape_like", "reverse", "scope", "slice",
    "slice_v2", "sort", "squeeze", "stack", "sync_default_session", "tensor_buffer",
    "tensor_buffer_to_list_of_tensors", "tensor_buffer_to_tensor", "tensor_scatter_nd_add",
    "tensor_scatter_nd_update", "tensor_to_tensor_buffer", "train", "transpose", "truncated_normal",
    "truncated_normal_initializer", "typing", "uint8", "unittest", "variance_scaling_initializer", "watch",
    "watch_diff", "watch_scope", "where", "xavier_normal_initializer", "xavier_uniform_initializer", "zeros",
    "zeros_initializer", "zeros_like",
    "acc", "assign", "categorical_ordinal_encode", "count_not_finite", "multi_count_not_finite", "pack", "repeat",
    "sync_dynamic_resize", "unpack", "unsorted_batch_segment_sum", "unsorted_segment_sum", "unsorted_segment_sum_like",
    "combined_margin_loss", "reflection_pad2d", "smooth_l1_loss",
    "detection", "object_bbox_flip", "object_bbox_scale", "object_segmentation_polygon_flip",
    "object_segmentation_polygon_scale", "object_segmentation_polygon_to_mask", "tensor_buffer_to_tensor_list",
    "tensor_list_to_tensor_buffer",
    "consistent_user_op_builder", "consistent_user_op_module_builder", "find_or_create_module", "user_op_builder",
    "user_op_module_builder",
]
