"""``oneflow.math``: arithmetic, element-wise math and reductions."""

from flowtorch._src.ops.early_ops import naive_logical_and as naive_logical_and
from flowtorch._src.ops.extra_math_ops import polyval as polyval
from flowtorch._src.ops.extra_math_ops import reduced_shape_elem_cnt as reduced_shape_elem_cnt
from flowtorch._src.ops.extra_math_ops import tril as tril
from flowtorch._src.ops.fused_ops import fused_scale_tril as fused_scale_tril
from flowtorch._src.ops.fused_ops import fused_scale_tril_softmax_dropout as fused_scale_tril_softmax_dropout
from flowtorch._src.ops.grad_ops import gelu_grad as gelu_grad
from flowtorch._src.ops.grad_ops import sigmoid_grad as sigmoid_grad
from flowtorch._src.ops.grad_ops import tanh_grad as tanh_grad
from flowtorch._src.ops.grad_ops import two_stage_reduce_max as two_stage_reduce_max
from flowtorch._src.ops.grad_ops import two_stage_reduce_min as two_stage_reduce_min
from flowtorch._src.ops.index_ops import broadcast_to_compatible_with as broadcast_to_compatible_with
from flowtorch._src.ops.math_ops import add as add
from flowtorch._src.ops.math_ops import add_n as add_n
from flowtorch._src.ops.math_ops import argmax as argmax
from flowtorch._src.ops.math_ops import atan2 as atan2
from flowtorch._src.ops.math_ops import clip_by_value as clip_by_value
from flowtorch._src.ops.math_ops import divide as divide
from flowtorch._src.ops.math_ops import equal as equal
from flowtorch._src.ops.math_ops import floordiv as floordiv
from flowtorch._src.ops.math_ops import greater as greater
from flowtorch._src.ops.math_ops import greater_equal as greater_equal
from flowtorch._src.ops.math_ops import in_top_k as in_top_k
from flowtorch._src.ops.math_ops import less as less
from flowtorch._src.ops.math_ops import less_equal as less_equal
from flowtorch._src.ops.math_ops import logical_and as logical_and
from flowtorch._src.ops.math_ops import maximum as maximum
from flowtorch._src.ops.math_ops import minimum as minimum
from flowtorch._src.ops.math_ops import mod as mod
from flowtorch._src.ops.math_ops import multiply as multiply
from flowtorch._src.ops.math_ops import not_equal as not_equal
from flowtorch._src.ops.math_ops import pow as pow
from flowtorch._src.ops.math_ops import reduce_mean as reduce_mean
from flowtorch._src.ops.math_ops import reduce_sum as reduce_sum
from flowtorch._src.ops.math_ops import squared_difference as squared_difference
from flowtorch._src.ops.math_ops import subtract as subtract
from flowtorch._src.ops.math_ops import top_k as top_k
from flowtorch._src.ops.math_ops import xdivy as xdivy
from flowtorch._src.ops.math_ops import xlogy as xlogy
from flowtorch._src.ops.nn_ops import relu as relu
from flowtorch._src.ops.reduce_ops import l2_normalize as l2_normalize
from flowtorch._src.ops.reduce_ops import reduce_all as reduce_all
from flowtorch._src.ops.reduce_ops import reduce_any as reduce_any
from flowtorch._src.ops.reduce_ops import reduce_euclidean_norm as reduce_euclidean_norm
from flowtorch._src.ops.reduce_ops import reduce_logsumexp as reduce_logsumexp
from flowtorch._src.ops.reduce_ops import reduce_max as reduce_max
from flowtorch._src.ops.reduce_ops import reduce_min as reduce_min
from flowtorch._src.ops.reduce_ops import reduce_prod as reduce_prod
from flowtorch._src.ops.reduce_ops import reduce_std as reduce_std
from flowtorch._src.ops.reduce_ops import reduce_variance as reduce_variance
from flowtorch._src.ops.segment_ops import unsorted_batch_segment_sum as unsorted_batch_segment_sum
from flowtorch._src.ops.segment_ops import unsorted_segment_sum as unsorted_segment_sum
from flowtorch._src.ops.segment_ops import unsorted_segment_sum_like as unsorted_segment_sum_like
from flowtorch._src.ops.unary_ops import abs as abs
from flowtorch._src.ops.unary_ops import acos as acos
from flowtorch._src.ops.unary_ops import acosh as acosh
from flowtorch._src.ops.unary_ops import asin as asin
from flowtorch._src.ops.unary_ops import asinh as asinh
from flowtorch._src.ops.unary_ops import atan as atan
from flowtorch._src.ops.unary_ops import atanh as atanh
from flowtorch._src.ops.unary_ops import ceil as ceil
from flowtorch._src.ops.unary_ops import cos as cos
from flowtorch._src.ops.unary_ops import cosh as cosh
from flowtorch._src.ops.unary_ops import erf as erf
from flowtorch._src.ops.unary_ops import erfc as erfc
from flowtorch._src.ops.unary_ops import exp as exp
from flowtorch._src.ops.unary_ops import expm1 as expm1
from flowtorch._src.ops.unary_ops import floor as floor
from flowtorch._src.ops.unary_ops import gelu as gelu
from flowtorch._src.ops.unary_ops import lgamma as lgamma
from flowtorch._src.ops.unary_ops import log as log
from flowtorch._src.ops.unary_ops import log1p as log1p
from flowtorch._src.ops.unary_ops import log_sigmoid as log_sigmoid
from flowtorch._src.ops.unary_ops import mish as mish  # (v0.3.2–v0.3.3's flow.math.mish; flow.nn.mish from v0.3.4)
from flowtorch._src.ops.unary_ops import negative as negative
from flowtorch._src.ops.unary_ops import reciprocal as reciprocal
from flowtorch._src.ops.unary_ops import reciprocal_no_nan as reciprocal_no_nan
from flowtorch._src.ops.unary_ops import rint as rint
from flowtorch._src.ops.unary_ops import round as round
from flowtorch._src.ops.unary_ops import rsqrt as rsqrt
from flowtorch._src.ops.unary_ops import sigmoid as sigmoid
from flowtorch._src.ops.unary_ops import sigmoid_v2 as sigmoid_v2
from flowtorch._src.ops.unary_ops import sign as sign
from flowtorch._src.ops.unary_ops import sin as sin
from flowtorch._src.ops.unary_ops import sinh as sinh
from flowtorch._src.ops.unary_ops import softplus as softplus
from flowtorch._src.ops.unary_ops import sqrt as sqrt
from flowtorch._src.ops.unary_ops import square as square
from flowtorch._src.ops.unary_ops import tan as tan
from flowtorch._src.ops.unary_ops import tanh as tanh
from flowtorch._src.ops.unary_ops import tanh_v2 as tanh_v2

__all__ = [
    "mish", "naive_logical_and",
    "abs", "acos", "acosh", "add", "add_n", "argmax", "asin", "asinh", "atan", "atan2", "atanh",
    "broadcast_to_compatible_with", "ceil", "clip_by_value", "cos", "cosh", "divide", "equal", "erf", "erfc", "exp",
    "expm1", "floor", "floordiv", "fused_scale_tril", "fused_scale_tril_softmax_dropout", "gelu", "greater",
    "greater_equal", "in_top_k", "l2_normalize", "less",
    "less_equal", "lgamma", "log", "log1p", "log_sigmoid", "logical_and", "maximum", "minimum", "mod", "multiply",
    "negative", "not_equal", "pow", "reciprocal", "reciprocal_no_nan", "reduce_all", "reduce_any",
    "reduce_euclidean_norm", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_std", "reduce_sum", "reduce_variance", "relu", "rint", "round", "rsqrt", "sigmoid", "sigmoid_v2",
    "sign", "sin", "sinh", "softplus", "sqrt", "square", "squared_difference", "subtract", "tan", "tanh", "tanh_v2",
    "top_k", "xdivy", "xlogy",
    "gelu_grad", "sigmoid_grad", "tanh_grad", "two_stage_reduce_max", "two_stage_reduce_min",
    "polyval", "reduced_shape_elem_cnt", "tril", "unsorted_batch_segment_sum", "unsorted_segment_sum",
    "unsorted_segment_sum_like",
]
