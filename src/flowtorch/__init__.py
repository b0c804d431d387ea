"""flowtorch: OneFlow 0.x's lazy ``global_function`` API on PyTorch.

``import flowtorch as flow`` gives OneFlow's names; ``python -m flowtorch script.py`` runs an unedited
``import oneflow`` program. Everything public is re-exported from ``flowtorch._src`` by ``flowtorch._facade``,
which the first use of a name loads (PEP 562): ``import flowtorch`` alone imports no torch, so
``flowtorch check`` and the command line start fast.
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

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


def _load_facade() -> _Any:  # (importing it sets ``flowtorch._facade`` to the module)
    return _importlib.import_module("flowtorch._facade")


def __getattr__(name: str) -> _Any:
    if name.startswith("__") or name == "_facade":
        raise AttributeError(f"module 'flowtorch' has no attribute {name!r}")
    facade = _load_facade()
    try:
        value = getattr(facade, name)
    except AttributeError:  # not a flowtorch name (or asked while the facade itself is loading)
        raise AttributeError(f"module 'flowtorch' has no attribute {name!r}") from None
    if getattr(facade, "LOADED", False):
        globals().update({k: getattr(facade, k) for k in _public(facade)})
    return value


__getattr__.lazy_facade = True  # type: ignore[attr-defined]  # flowtorch check's name index: not an open namespace


def _public(facade: _Any) -> set[str]:
    return {k for k in vars(facade) if not k.startswith("_") and k != "LOADED"}


def __dir__() -> list[str]:
    return sorted(set(globals()) | _public(_load_facade()))
