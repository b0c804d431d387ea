"""The ops OneFlow exports at the top level (``flow.concat``, ``flow.gather`` …), gathered for
``flowtorch/__init__.py`` to re-export: ``from flowtorch._src.ops.toplevel import <name> as <name>`` for
every name of ``__all__``."""

from flowtorch._src.ops.array_ops import broadcast_like as broadcast_like
from flowtorch._src.ops.array_ops import cast as cast
from flowtorch._src.ops.array_ops import concat as concat
from flowtorch._src.ops.array_ops import constant as constant
from flowtorch._src.ops.array_ops import constant_like as constant_like
from flowtorch._src.ops.array_ops import expand_dims as expand_dims
from flowtorch._src.ops.array_ops import flatten as flatten
from flowtorch._src.ops.array_ops import identity as identity
from flowtorch._src.ops.array_ops import matmul as matmul
from flowtorch._src.ops.array_ops import ones as ones
from flowtorch._src.ops.array_ops import ones_like as ones_like
from flowtorch._src.ops.array_ops import pad as pad
from flowtorch._src.ops.array_ops import range_op as range  # noqa: A004 - OneFlow's name
from flowtorch._src.ops.array_ops import reshape as reshape
from flowtorch._src.ops.array_ops import reshape_like as reshape_like
from flowtorch._src.ops.array_ops import squeeze as squeeze
from flowtorch._src.ops.array_ops import stack as stack
from flowtorch._src.ops.array_ops import transpose as transpose
from flowtorch._src.ops.array_ops import zeros as zeros
from flowtorch._src.ops.array_ops import zeros_like as zeros_like
from flowtorch._src.ops.dynamic_ops import argwhere as argwhere
from flowtorch._src.ops.dynamic_ops import cast_to_static_shape as cast_to_static_shape
from flowtorch._src.ops.identity_ops import identity_n as identity_n
from flowtorch._src.ops.identity_ops import parallel_cast as parallel_cast
from flowtorch._src.ops.index_ops import argsort as argsort
from flowtorch._src.ops.index_ops import broadcast_to_compatible_with as broadcast_to_compatible_with
from flowtorch._src.ops.index_ops import dim_gather as dim_gather
from flowtorch._src.ops.index_ops import gather as gather
from flowtorch._src.ops.index_ops import gather_nd as gather_nd
from flowtorch._src.ops.index_ops import masked_fill as masked_fill
from flowtorch._src.ops.index_ops import one_hot as one_hot
from flowtorch._src.ops.index_ops import reverse as reverse
from flowtorch._src.ops.index_ops import slice as slice  # noqa: A004 - OneFlow's name
from flowtorch._src.ops.index_ops import slice_v2 as slice_v2
from flowtorch._src.ops.index_ops import sort as sort
from flowtorch._src.ops.index_ops import tensor_scatter_nd_add as tensor_scatter_nd_add
from flowtorch._src.ops.index_ops import tensor_scatter_nd_update as tensor_scatter_nd_update
from flowtorch._src.ops.index_ops import where as where
from flowtorch._src.ops.math_ops import clip_by_value as clamp
from flowtorch._src.ops.math_ops import clip_by_value as clip
from flowtorch._src.ops.math_ops import clip_by_value as clip_by_scalar
from flowtorch._src.ops.math_ops import clip_by_value as clip_by_value
from flowtorch._src.ops.math_ops import in_top_k as in_top_k

__all__ = [
    "argsort", "argwhere", "broadcast_like", "broadcast_to_compatible_with", "cast", "cast_to_static_shape", "clamp",
    "clip", "clip_by_scalar", "clip_by_value", "concat", "constant", "constant_like", "dim_gather", "expand_dims",
    "flatten", "gather", "gather_nd", "identity", "identity_n", "in_top_k", "masked_fill", "matmul", "one_hot",
    "ones", "ones_like", "pad", "parallel_cast", "range", "reshape", "reshape_like", "reverse", "slice", "slice_v2",
    "sort", "squeeze", "stack", "tensor_scatter_nd_add", "tensor_scatter_nd_update", "transpose", "where", "zeros",
    "zeros_like",
]
