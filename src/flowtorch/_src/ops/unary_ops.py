"""Element-wise unary ops of ``flow.math`` / ``flow.nn`` and the activations.

Most ``flow.math`` unary ops come from one table in OneFlow (``ops/math_unary_elementwise_ops.py``):
op type ``<name>``, auto name ``<name>_<n>``, output ``y_0`` (``exp_9/y_0``). A few older ops keep their
own names: ``math.sigmoid`` → ``Sigmoid_<n>/out_0``, ``math.tanh`` → ``TanH_<n>/out_0`` (v0.1.x; v0.3.4
renamed it ``tanh_<n>/y_0``), ``math.gelu`` → ``Gelu_<n>/out_0``. Activations of ``flow.nn`` follow
``ops/nn_ops.py`` of v0.3.4 (``LeakyRelu_<n>/y_0``, ``Elu_<n>/out_0``, ``Hardtanh_<n>/out_0`` …).

Kernels are single torch calls. ``softplus`` computes OneFlow's own log(1 + exp(x)) in the blob's precision
(so it overflows to ``inf`` for large x as OneFlow did, where ``F.softplus`` would return x); ``log_sigmoid``
uses torch's numerically safer form, equal to OneFlow's to float rounding.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops._checks import check_blob, check_float_blob, check_number
from flowtorch._src.ops._record import apply


# --- kernels -----------------------------------------------------------------------------------------
def reciprocal_no_nan_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x == 0, torch.zeros_like(x), torch.reciprocal(x))


def negative_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.neg(x)


def leaky_relu_kernel(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return F.leaky_relu(x, alpha)


def elu_kernel(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return F.elu(x, alpha)


def hardtanh_kernel(x: torch.Tensor, min_val: float, max_val: float) -> torch.Tensor:
    return F.hardtanh(x, min_val, max_val)


def gelu_kernel(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x)


def softplus_kernel(x: torch.Tensor) -> torch.Tensor:
    # OneFlow's log(1 + exp(x)) in the blob's own precision (user/kernels/math_unary_elementwise_func.h,
    # SoftplusFunctor), not torch's log1p with a linear tail past 20: 0 where exp(x) vanishes next to 1, inf
    # where it overflows, as OneFlow's numbers were
    return torch.log(1 + torch.exp(x))


def log_sigmoid_kernel(x: torch.Tensor) -> torch.Tensor:
    return F.logsigmoid(x)


def hardsigmoid_kernel(x: torch.Tensor) -> torch.Tensor:
    return F.hardsigmoid(x)


def hardswish_kernel(x: torch.Tensor) -> torch.Tensor:
    return F.hardswish(x)


def _make_unary(name: str, kernel: Callable[..., torch.Tensor], float_only: bool, *, op_type: str,
                output: str, namespace: str = "math", prefix: str | None = None) -> Callable[..., Blob]:
    api = f"{namespace}.{name}"

    def op(x: Blob, name: str | None = None) -> Blob:
        x = check_float_blob(x, api, "x") if float_only else check_blob(x, api, "x")
        return apply(kernel, x, op_type=op_type, prefix=prefix, name=name, outputs=(output,))
    op.__name__ = op.__qualname__ = name
    op.kernel = kernel  # type: ignore[attr-defined]  # (a function attribute) the op registry registers it
    op.__doc__ = (f"``flow.{api}(x, name=None)``: element-wise, OneFlow op ``{op_type}``; auto name "
                  f"``{op_type if prefix is None else prefix}_<n>/{output}``.")
    return op


abs = _make_unary("abs", torch.abs, False, op_type="abs", output="y_0")  # OneFlow's name
acos = _make_unary("acos", torch.acos, True, op_type="acos", output="y_0")
acosh = _make_unary("acosh", torch.acosh, True, op_type="acosh", output="y_0")
asin = _make_unary("asin", torch.asin, True, op_type="asin", output="y_0")
asinh = _make_unary("asinh", torch.asinh, True, op_type="asinh", output="y_0")
atan = _make_unary("atan", torch.atan, True, op_type="atan", output="y_0")
atanh = _make_unary("atanh", torch.atanh, True, op_type="atanh", output="y_0")
ceil = _make_unary("ceil", torch.ceil, True, op_type="ceil", output="y_0")
cos = _make_unary("cos", torch.cos, True, op_type="cos", output="y_0")
cosh = _make_unary("cosh", torch.cosh, True, op_type="cosh", output="y_0")
erf = _make_unary("erf", torch.erf, True, op_type="erf", output="y_0")
erfc = _make_unary("erfc", torch.erfc, True, op_type="erfc", output="y_0")
exp = _make_unary("exp", torch.exp, True, op_type="exp", output="y_0")
expm1 = _make_unary("expm1", torch.expm1, True, op_type="expm1", output="y_0")
floor = _make_unary("floor", torch.floor, True, op_type="floor", output="y_0")
lgamma = _make_unary("lgamma", torch.lgamma, True, op_type="lgamma", output="y_0")
log = _make_unary("log", torch.log, True, op_type="log", output="y_0")
log1p = _make_unary("log1p", torch.log1p, True, op_type="log1p", output="y_0")
log_sigmoid = _make_unary("log_sigmoid", log_sigmoid_kernel, True, op_type="log_sigmoid", output="y_0")
negative = _make_unary("negative", negative_kernel, False, op_type="negative", output="y_0")
reciprocal = _make_unary("reciprocal", torch.reciprocal, True, op_type="reciprocal", output="y_0")
reciprocal_no_nan = _make_unary("reciprocal_no_nan", reciprocal_no_nan_kernel, True, op_type="reciprocal_no_nan",
                                output="y_0")
rint = _make_unary("rint", torch.round, True, op_type="rint", output="y_0")
round = _make_unary("round", torch.round, True, op_type="round", output="y_0")
rsqrt = _make_unary("rsqrt", torch.rsqrt, True, op_type="rsqrt", output="y_0")
sigmoid_v2 = _make_unary("sigmoid_v2", torch.sigmoid, True, op_type="sigmoid_v2", output="y_0")
sign = _make_unary("sign", torch.sign, False, op_type="sign", output="y_0")
sin = _make_unary("sin", torch.sin, True, op_type="sin", output="y_0")
sinh = _make_unary("sinh", torch.sinh, True, op_type="sinh", output="y_0")
softplus = _make_unary("softplus", softplus_kernel, True, op_type="softplus", output="y_0")
sqrt = _make_unary("sqrt", torch.sqrt, True, op_type="sqrt", output="y_0")
square = _make_unary("square", torch.square, False, op_type="square", output="y_0")
tan = _make_unary("tan", torch.tan, True, op_type="tan", output="y_0")
# v0.2's op type tanh_v2 is gone from v0.3.4, whose flow.math.tanh_v2 builds a tanh op
tanh_v2 = _make_unary("tanh_v2", torch.tanh, True, op_type="tanh", prefix="tanh_v2", output="y_0")
# Older user ops with their own names (v0.1.x ``ops/math_ops.py``).
sigmoid = _make_unary("sigmoid", torch.sigmoid, True, op_type="sigmoid", prefix="Sigmoid", output="out_0")
tanh = _make_unary("tanh", torch.tanh, True, op_type="tanh", prefix="TanH", output="out_0")
gelu = _make_unary("gelu", gelu_kernel, True, op_type="gelu", prefix="Gelu", output="out_0")
# flow.nn activations without attributes (v0.3.4 ``ops/nn_ops.py``).
hardsigmoid = _make_unary("hardsigmoid", hardsigmoid_kernel, True, op_type="hardsigmoid", prefix="HardSigmoid",
                          output="out_0", namespace="nn")
hardswish = _make_unary("hardswish", hardswish_kernel, True, op_type="hardswish", prefix="HardSwish",
                        output="out_0", namespace="nn")


# --- activations with attributes -------------------------------------------------------------------------
def leaky_relu(x: Blob, alpha: float = 0.2, name: str | None = None) -> Blob:
    """``flow.nn.leaky_relu``: x if x > 0 else alpha·x (``LeakyRelu_<n>/y_0``)."""
    x = check_float_blob(x, "nn.leaky_relu", "x")
    return apply(leaky_relu_kernel, x, check_number(alpha, "nn.leaky_relu", "alpha"), op_type="leaky_relu",
                 prefix="LeakyRelu", name=name, outputs=("y_0",))


def elu(x: Blob, alpha: float = 1.0, name: str | None = None) -> Blob:
    """``flow.nn.elu`` (``Elu_<n>/out_0``)."""
    x = check_float_blob(x, "nn.elu", "x")
    return apply(elu_kernel, x, check_number(alpha, "nn.elu", "alpha"), op_type="elu", prefix="Elu", name=name)


def hardtanh(x: Blob, min_val: float = -1.0, max_val: float = 1.0, name: str | None = None) -> Blob:
    """``flow.nn.hardtanh`` (``Hardtanh_<n>/out_0``)."""
    x = check_float_blob(x, "nn.hardtanh", "x")
    lo, hi = check_number(min_val, "nn.hardtanh", "min_val"), check_number(max_val, "nn.hardtanh", "max_val")
    if not lo < hi:
        raise ArgumentError(f"flow.nn.hardtanh: max_val should be larger than min_val; received min_val={lo}, "
                              f"max_val={hi}")
    return apply(hardtanh_kernel, x, lo, hi, op_type="hardtanh", prefix="Hardtanh", name=name)


def relu6(x: Blob, name: str | None = None) -> Blob:
    """``flow.nn.relu6``: OneFlow builds a hardtanh(0, 6) op named ``Relu6_<n>``."""
    x = check_float_blob(x, "nn.relu6", "x")
    return apply(hardtanh_kernel, x, 0.0, 6.0, op_type="hardtanh", prefix="Relu6", name=name)


def swish(x: Blob, beta: float = 1.0, name: str | None = None) -> Blob:
    """``flow.nn.swish``: x·sigmoid(beta·x), built from ops as in OneFlow (``Swish_<n>_sigmoid``)."""
    x = check_float_blob(x, "nn.swish", "x")
    prefix = name if name is not None else naming.unique_str("Swish_")
    return x * sigmoid(check_number(beta, "nn.swish", "beta") * x, name=prefix + "_sigmoid")


def mish(x: Blob, name: str | None = None) -> Blob:
    """``flow.nn.mish``: x·tanh(softplus(x)), built from ops (``Mish_<n>softplus``, ``Mish_<n>tanh``)."""
    x = check_float_blob(x, "nn.mish", "x")
    prefix = name if name is not None else naming.unique_str("Mish_")
    return x * tanh(softplus(x, name=prefix + "softplus"), name=prefix + "tanh")
