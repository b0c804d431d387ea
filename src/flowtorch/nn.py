"""``oneflow.nn``: neural-network ops."""

from flowtorch._src.norm_layers import GroupNorm as GroupNorm
from flowtorch._src.norm_layers import InstanceNorm1d as InstanceNorm1d
from flowtorch._src.norm_layers import InstanceNorm2d as InstanceNorm2d
from flowtorch._src.norm_layers import InstanceNorm3d as InstanceNorm3d
from flowtorch._src.ops.conv_ops import avg_pool1d as avg_pool1d
from flowtorch._src.ops.conv_ops import avg_pool2d as avg_pool2d
from flowtorch._src.ops.conv_ops import avg_pool3d as avg_pool3d
from flowtorch._src.ops.conv_ops import compat_conv2d as compat_conv2d
from flowtorch._src.ops.conv_ops import conv1d as conv1d
from flowtorch._src.ops.conv_ops import conv2d as conv2d
from flowtorch._src.ops.conv_ops import conv2d_transpose as conv2d_transpose
from flowtorch._src.ops.conv_ops import conv3d as conv3d
from flowtorch._src.ops.conv_ops import max_pool1d as max_pool1d
from flowtorch._src.ops.conv_ops import max_pool2d as max_pool2d
from flowtorch._src.ops.conv_ops import max_pool3d as max_pool3d
from flowtorch._src.ops.conv_ops import torch_conv2d_transpose as torch_conv2d_transpose
from flowtorch._src.ops.extra_math_ops import tril as tril
from flowtorch._src.ops.fused_ops import fused_bias_add_dropout as fused_bias_add_dropout
from flowtorch._src.ops.fused_ops import fused_bias_add_gelu as fused_bias_add_gelu
from flowtorch._src.ops.fused_ops import fused_scale_tril as fused_scale_tril
from flowtorch._src.ops.fused_ops import fused_scale_tril_softmax_dropout as fused_scale_tril_softmax_dropout
from flowtorch._src.ops.fused_ops import (
    fused_self_attention_query_mul_key_and_value as fused_self_attention_query_mul_key_and_value,
)
from flowtorch._src.ops.fused_ops import layer_norm as layer_norm
from flowtorch._src.ops.grad_ops import softmax_grad as softmax_grad
from flowtorch._src.ops.loss_ops import BCELoss as BCELoss
from flowtorch._src.ops.loss_ops import BCEWithLogitsLoss as BCEWithLogitsLoss
from flowtorch._src.ops.loss_ops import L1Loss as L1Loss
from flowtorch._src.ops.loss_ops import MarginRankingLoss as MarginRankingLoss
from flowtorch._src.ops.loss_ops import MSELoss as MSELoss
from flowtorch._src.ops.margin_losses import TripletMarginLoss as TripletMarginLoss
from flowtorch._src.ops.nn_ops import batch_normalization as batch_normalization
from flowtorch._src.ops.nn_ops import bias_add as bias_add
from flowtorch._src.ops.nn_ops import (
    distributed_sparse_softmax_cross_entropy_with_logits as distributed_sparse_softmax_cross_entropy_with_logits,
)
from flowtorch._src.ops.nn_ops import dropout as dropout
from flowtorch._src.ops.nn_ops import logsoftmax as logsoftmax
from flowtorch._src.ops.nn_ops import relu as relu
from flowtorch._src.ops.nn_ops import sigmoid_cross_entropy_with_logits as sigmoid_cross_entropy_with_logits
from flowtorch._src.ops.nn_ops import softmax as softmax
from flowtorch._src.ops.nn_ops import softmax_cross_entropy_with_logits as softmax_cross_entropy_with_logits
from flowtorch._src.ops.nn_ops import sparse_cross_entropy as sparse_cross_entropy
from flowtorch._src.ops.nn_ops import (
    sparse_softmax_cross_entropy_with_logits as sparse_softmax_cross_entropy_with_logits,
)
from flowtorch._src.ops.pointwise_losses import KLDivLoss as KLDivLoss
from flowtorch._src.ops.random_ops import random_mask_like as random_mask_like
from flowtorch._src.ops.reduce_ops import moments as moments
from flowtorch._src.ops.spatial_ops import PixelShuffle as PixelShuffle
from flowtorch._src.ops.spatial_ops import PixelShufflev2 as PixelShufflev2
from flowtorch._src.ops.unary_ops import elu as elu
from flowtorch._src.ops.unary_ops import hardsigmoid as hardsigmoid
from flowtorch._src.ops.unary_ops import hardswish as hardswish
from flowtorch._src.ops.unary_ops import hardtanh as hardtanh
from flowtorch._src.ops.unary_ops import leaky_relu as leaky_relu
from flowtorch._src.ops.unary_ops import mish as mish
from flowtorch._src.ops.unary_ops import relu6 as relu6
from flowtorch._src.ops.unary_ops import swish as swish
from flowtorch._src.ops.user_op_module import Module as Module

__all__ = [
    "Module", "softmax_grad", "tril", "torch_conv2d_transpose",
    "BCELoss", "BCEWithLogitsLoss", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "KLDivLoss", "L1Loss", "MSELoss", "MarginRankingLoss", "PixelShuffle", "PixelShufflev2", "TripletMarginLoss",
    "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "batch_normalization", "bias_add", "compat_conv2d", "conv1d", "conv2d", "conv2d_transpose",
    "conv3d", "distributed_sparse_softmax_cross_entropy_with_logits", "dropout", "elu", "fused_bias_add_dropout",
    "fused_bias_add_gelu", "fused_scale_tril", "fused_scale_tril_softmax_dropout",
    "fused_self_attention_query_mul_key_and_value", "hardsigmoid", "hardswish", "hardtanh", "layer_norm",
    "leaky_relu", "logsoftmax", "max_pool1d",
    "max_pool2d", "max_pool3d", "mish", "moments", "random_mask_like", "relu", "relu6",
    "sigmoid_cross_entropy_with_logits", "softmax", "softmax_cross_entropy_with_logits", "sparse_cross_entropy",
    "sparse_softmax_cross_entropy_with_logits", "swish",
]
