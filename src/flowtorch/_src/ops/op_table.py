"""Registry entries (``ops/op_registry.py``) for OneFlow op types whose kernels flowtorch's ``flow.*`` ops
already use: each names that kernel where it lives, so ``flow.user_op_builder(...).Op("relu")`` and
``flow.nn.relu`` run the same function. Arg names, attr types and defaults follow v0.3.4's
``oneflow/user/ops/*.cpp``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from flowtorch._src.ops import array_ops, batch_norm, hint_ops, math_ops, nn_ops, unary_ops
from flowtorch._src.ops.op_registry import Arg, AttrSpec, register

# ``math_unary_elementwise_seq.h``: op type -> the flow.math op whose kernel computes it (x -> y)
_UNARY_XY = {
    "abs": unary_ops.abs, "acos": unary_ops.acos, "acosh": unary_ops.acosh, "asin": unary_ops.asin,
    "asinh": unary_ops.asinh, "atan": unary_ops.atan, "atanh": unary_ops.atanh, "ceil": unary_ops.ceil,
    "cos": unary_ops.cos, "cosh": unary_ops.cosh, "erf": unary_ops.erf, "erfc": unary_ops.erfc,
    "exp": unary_ops.exp, "expm1": unary_ops.expm1, "floor": unary_ops.floor, "lgamma": unary_ops.lgamma,
    "log": unary_ops.log, "log1p": unary_ops.log1p, "log_sigmoid": unary_ops.log_sigmoid,
    "negative": unary_ops.negative, "reciprocal": unary_ops.reciprocal,
    "reciprocal_no_nan": unary_ops.reciprocal_no_nan, "rint": unary_ops.rint, "round": unary_ops.round,
    "rsqrt": unary_ops.rsqrt, "sigmoid_v2": unary_ops.sigmoid_v2, "sign": unary_ops.sign, "sin": unary_ops.sin,
    "sinh": unary_ops.sinh, "softplus": unary_ops.softplus, "sqrt": unary_ops.sqrt, "square": unary_ops.square,
    "tan": unary_ops.tan, "tanh": unary_ops.tanh,
}
for _type, _op in _UNARY_XY.items():
    register(_type, inputs=("x",), outputs=("y",), kernel=_op.kernel)  # type: ignore[attr-defined]

# activations with their own op (in -> out)
for _type, _op in {"sigmoid": unary_ops.sigmoid, "gelu": unary_ops.gelu, "hardsigmoid": unary_ops.hardsigmoid,
                   "hardswish": unary_ops.hardswish}.items():
    register(_type, inputs=("in",), outputs=("out",), kernel=_op.kernel)  # type: ignore[attr-defined]
register("relu", inputs=("in",), outputs=("out",), kernel=torch.relu)  # flow.nn.relu's kernel
register("leaky_relu", inputs=("x",), outputs=("y",), attrs=[AttrSpec("alpha", "float")],
         kernel=unary_ops.leaky_relu_kernel)
register("elu", inputs=("in",), outputs=("out",), attrs=[AttrSpec("alpha", "double")], kernel=unary_ops.elu_kernel)
register("hardtanh", inputs=("in",), outputs=("out",),
         attrs=[AttrSpec("min_val", "double"), AttrSpec("max_val", "double")], kernel=unary_ops.hardtanh_kernel)
register("softmax", inputs=("in",), outputs=("out",), kernel=nn_ops.softmax_kernel)
register("bias_add", inputs=("a", "b"), outputs=("out",), attrs=[AttrSpec("axis", "int32")],
         kernel=nn_ops.bias_add_kernel)


def normalization_kernel(x: torch.Tensor, moving_mean: torch.Tensor, moving_variance: torch.Tensor,
                         gamma: torch.Tensor, beta: torch.Tensor, add_to_output: torch.Tensor | None, axis: int,
                         epsilon: float, training: bool, momentum: float) -> tuple[torch.Tensor, ...]:
    """``normalization`` (``user/ops/normalization_op.cpp``): training normalises by the batch statistics and
    updates the moving ones in place (the layers' kernel); inference by the moving ones, whose mean and
    ``rsqrt(variance + epsilon)`` it gives as ``mean``/``inv_variance``."""
    if training:
        return batch_norm.bn_train_kernel(x, gamma, beta, moving_mean, moving_variance, add_to_output, axis,
                                          momentum, epsilon, False)
    y = batch_norm.bn_infer_kernel(x, gamma, beta, moving_mean, moving_variance, add_to_output, axis, epsilon, False)
    return y, moving_mean, torch.rsqrt(moving_variance + epsilon)


register("normalization", inputs=("x", "moving_mean", "moving_variance", "gamma", "beta",
                                  Arg("_add_to_output", optional=True)),
         outputs=("y", Arg("mean", optional=True), Arg("inv_variance", optional=True)),
         attrs=[AttrSpec("axis", "int32"), AttrSpec("epsilon", "float"), AttrSpec("training", "bool"),
                AttrSpec("momentum", "float")], kernel=normalization_kernel)

# arrays
_MATMUL_ATTRS = [AttrSpec("transpose_a", "bool", False), AttrSpec("transpose_b", "bool", False)]
register("matmul", inputs=("a", "b"), outputs=("out",), attrs=_MATMUL_ATTRS, kernel=array_ops.matmul_kernel)
register("batch_matmul", inputs=("a", "b"), outputs=("out",), attrs=_MATMUL_ATTRS, kernel=array_ops.matmul_kernel)
register("reshape", inputs=("in",), outputs=("out",), attrs=[AttrSpec("shape", "shape")], kernel=torch.reshape)
register("transpose", inputs=("input",), outputs=("output",),
         attrs=[AttrSpec("perm", "list_int32"), AttrSpec("batch_axis_non_change", "bool", False)],
         kernel=torch.permute, kernel_attrs=("perm",))
register("concat", inputs=(Arg("in", 2, at_least=True),), outputs=("out",),
         attrs=[AttrSpec("axis", "int64"), AttrSpec("max_dim_size", "int64")], kernel=array_ops.concat_kernel,
         kernel_attrs=("axis",))
register("cast", inputs=("in",), outputs=("out",), attrs=[AttrSpec("dtype", "dtype")], kernel=torch.Tensor.to)
register("identity", inputs=("in",), outputs=("out",), kernel=hint_ops.pass_through_kernel)

# math
register("add_n", inputs=(Arg("in", 2, at_least=True),), outputs=("out",), kernel=math_ops.add_n_kernel)
_BINARY: dict[str, Callable[..., torch.Tensor]] = {
    "broadcast_add": torch.add, "broadcast_sub": torch.sub, "broadcast_mul": torch.mul,
    "broadcast_maximum": math_ops.maximum_kernel, "broadcast_minimum": math_ops.minimum_kernel,
    "broadcast_floor_mod": math_ops.floor_mod_kernel}
for _type, _kernel in _BINARY.items():
    register(_type, inputs=("x", "y"), outputs=("z",), kernel=_kernel)
