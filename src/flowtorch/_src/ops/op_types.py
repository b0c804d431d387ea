"""The one spelling of an op's identity: OneFlow's op type name (``"relu"``, ``"matmul"``, ``"normalization"``).

:func:`flowtorch._src.ops._record.apply` records it on each op's fx node (``node.meta["flowtorch_op_type"]``),
``flow.user_op_builder(...).Op("relu")`` records the registered type it was given, and the split rules
(``dist/sbp.py``'s ``RULES``) are keyed by it, so an op has the same identity however it was built. It is
not the auto-name prefix (``"Relu"`` → ``Relu_<n>/out_0``): ``apply`` takes that separately.

Each flowtorch op records the type of the op that OneFlow's Python function built for the same call (the
version whose blob names flowtorch keeps; where that version's op type is gone from v0.3.4, v0.3.4's type
for that function: ``flow.math.tanh_v2`` → ``"tanh"``, ``flow.slice_v2`` → ``"slice"``). The sets below
list every type flowtorch records; :func:`is_known` says whether a type is one of them.
"""

from __future__ import annotations

__all__ = ["FLOWTORCH_PREFIX", "ONEFLOW_OP_TYPES", "SYSTEM_OP_TYPES", "USER_OP_TYPES", "is_known"]

# OneFlow's user ops: the names of ``REGISTER_USER_OP("…")`` (or of the type sequences the registering macros
# expand, ``math_unary_elementwise_seq.h`` …) in ``oneflow/user/ops`` of v0.3.4, unless a comment says which
# later version added them.
USER_OP_TYPES: frozenset[str] = frozenset({
    # element-wise math (math_unary_elementwise_seq.h) and activations
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "erf", "erfc", "exp",
    "expm1", "floor", "lgamma", "log", "log1p", "log_sigmoid", "negative", "reciprocal", "reciprocal_no_nan",
    "rint", "round", "rsqrt", "sigmoid_v2", "sign", "sin", "sinh", "softplus", "sqrt", "square", "tan", "tanh",
    "relu", "sigmoid", "gelu", "hardsigmoid", "hardswish", "leaky_relu", "elu", "hardtanh",
    "sigmoid_grad", "gelu_grad", "softmax_grad", "tanh_grad",  # (tanh_grad: v0.2.0's flow.math.tanh_grad)
    # binary math (math_binary_broadcast_seq.h, math_binary_elementwise_seq.h) and scalar forms
    "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_maximum", "broadcast_minimum",
    "broadcast_floor_mod", "broadcast_equal", "broadcast_not_equal", "broadcast_greater", "broadcast_greater_equal",
    "broadcast_less", "broadcast_less_equal", "broadcast_logical_and", "pow", "atan2", "floordiv", "xdivy", "xlogy",
    "add_n", "multiply", "scalar_add", "scalar_mul", "scalar_pow", "scalar_add_by_tensor", "scalar_sub_by_tensor",
    "scalar_mul_by_tensor", "scalar_div_by_tensor",
    "clip_by_scalar", "clip_by_scalar_min", "clip_by_scalar_max",
    # reductions, arg ops
    "reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all", "argmax", "top_k",
    "in_top_k", "sort", "arg_sort", "l2_normalize",
    # shapes and arrays
    "reshape", "reshape_like", "flatten", "squeeze", "expand_dims", "transpose", "concat", "identity", "cast",
    "constant", "range", "pad", "pad_grad", "same_padding", "broadcast_like", "tuple_identity", "amp_white_identity",
    "matmul", "batch_matmul",
    "broadcast_matmul",  # v0.4.0: a batched a times a 2-D b
    # indexing
    "gather", "batch_gather", "gather_nd", "dim_gather", "scatter_nd", "tensor_scatter_nd_update",
    "tensor_scatter_nd_add",
    "slice", "slice_update", "logical_slice", "logical_slice_assign", "where", "one_hot", "tril",
    "unsorted_segment_sum", "unsorted_segment_sum_like", "unsorted_batch_segment_sum",
    # nn
    "softmax", "bias_add", "dropout", "random_mask_like", "normalization", "normalization_add_relu", "layer_norm",
    "prelu", "upsample", "reflection_pad2d", "conv1d", "conv2d", "conv3d", "deconv2d",
    "max_pool_1d", "max_pool_2d", "max_pool_3d", "avg_pool_1d", "avg_pool_2d", "avg_pool_3d",
    "sparse_softmax_cross_entropy", "sparse_cross_entropy", "softmax_cross_entropy", "smooth_l1_loss",
    "combined_margin_loss",
    "sparse_softmax_cross_entropy_ms",  # flow.nn.distributed_sparse_softmax_cross_entropy_with_logits (v0.5.0's API)
    # fused ops (fused_scale_tril: v0.3.4; the others v0.4.0)
    "fused_scale_tril", "fused_bias_add_gelu", "fused_bias_add_mask_scale", "fused_tril_scale_softmax_mask_scale",
    "fused_self_attention_query_mul_key_and_value",
    # dynamic shapes, state, randomness, pipelining, hints
    "argwhere", "cast_to_static_shape", "count_not_finite", "multi_count_not_finite", "assign",
    "ssp_variable_proxy", "CategoricalOrdinalEncode", "bernoulli", "generate_random_batch_permutation_indices",
    "unpack", "pack", "repeat", "acc",
    "hierarchical_parallel_cast", "nvtx_start", "nvtx_end",  # v0.4.0
    "eager_nccl_all_reduce", "distributed_partial_fc_sample", "layer_norm_grad", "layer_norm_param_grad",
    "ctc_loss", "diag", "expand", "replication_pad2d", "constant_pad2d",  # v0.4.0
})

# OneFlow's system ops (not user ops): the ``OperatorConf`` field the Python function filled, less its
# ``_conf`` (``op_conf.parallel_cast_conf`` → ``"parallel_cast"``), as ``OperatorConf::kParallelCastConf``
# names the type in C++; v0.4.0 made several of them user ops of these names.
SYSTEM_OP_TYPES: frozenset[str] = frozenset({
    "parallel_cast", "constant_like", "sigmoid_cross_entropy", "shape_elem_cnt", "sync_dynamic_resize",
    "broadcast_to_compatible_with", "unique_with_counts", "indexed_slices_reduce_sum", "decode_random",
    "distribute_split", "distribute_clone", "distribute_add", "distribute_concat", "dynamic_reshape",
    "sleep", "dim0_dynamic_to_fixed",  # (v0.1.2's Python filled their confs; its op set lacked them)
    # v0.1.2's flow.detection.* (Mask R-CNN; their operators were gone from OneFlow's C++ by v0.1.2)
    "roi_align", "maskrcnn_positive_negative_sample", "calc_iou_matrix", "box_encode", "box_decode", "level_map",
    "anchor_generate", "identify_non_small_boxes", "identify_outside_anchors", "clip_boxes_to_image",
    "extract_piece_slice_id", "non_maximum_suppression", "upsample_nearest", "maskrcnn_split",
    "masks_crop_and_resize",
    # v0.1.0's flow.copy, flow.math.naive_logical_and and flow.local_gather, and the 2020 master's
    # flow.piece_slice and flow.detection.smooth_l1 (``ops/early_ops.py``)
    "copy", "logical_and", "local_gather", "piece_slice", "smooth_l1",
})

ONEFLOW_OP_TYPES: frozenset[str] = USER_OP_TYPES | SYSTEM_OP_TYPES

# An op flowtorch records that no OneFlow op stands for would be typed ``"flowtorch.<name>"`` (none is today).
FLOWTORCH_PREFIX = "flowtorch."


def is_known(op_type: str) -> bool:
    """Whether ``op_type`` is one of OneFlow's op types that flowtorch records, or a flowtorch-only one."""
    return op_type in ONEFLOW_OP_TYPES or op_type.startswith(FLOWTORCH_PREFIX)
