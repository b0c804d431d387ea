"""``flow.math`` arithmetic with OneFlow's op choice and names (``framework``/``ops/math_ops.py``).

OneFlow picks a different kernel, and so a different auto name, for blob∘blob of the same shape,
blob∘scalar, blob∘(1,)-blob and broadcasting; results keep the blob's dtype for scalar operands.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob, set_operators
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import array_ops
from flowtorch._src.ops._checks import Desc, arg_error, check_blobs, norm_axis
from flowtorch._src.ops._record import apply, check_blob, is_scalar
from flowtorch._src.ops.unary_ops import square


# --- kernels (plain torch, run at every step) --------------------------------------------------------
def _keep_dtype(out: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return out if out.dtype == like.dtype else out.to(like.dtype)


def scalar_add_kernel(x: torch.Tensor, c: float) -> torch.Tensor:
    return _keep_dtype(torch.add(x, c), x)


def scalar_mul_kernel(x: torch.Tensor, c: float) -> torch.Tensor:
    return _keep_dtype(torch.mul(x, c), x)


def reciprocal_no_nan_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x == 0, torch.zeros_like(x), torch.reciprocal(x))


def full_reduce_shape(out: torch.Tensor) -> torch.Tensor:
    """OneFlow has no 0-d blobs: a full reduction is shape (1,)."""
    return out.reshape(1) if out.dim() == 0 else out


def reduce_sum_kernel(x: torch.Tensor, axis: tuple[int, ...] | None, keepdims: bool) -> torch.Tensor:
    # dtype=x.dtype: OneFlow keeps the input's dtype (torch would widen int32 sums to int64); a float16 sum on the
    # CPU adds in float32, as OneFlow's GPU reduce did (torch's CPU half sum rounds as it goes)
    acc = torch.float32 if x.dtype == torch.float16 and x.device.type == "cpu" else x.dtype
    if axis is None:
        out = torch.sum(x, dtype=acc).to(x.dtype)
        return out.reshape([1] * x.dim()) if keepdims else out.reshape(1)
    return full_reduce_shape(torch.sum(x, dim=axis, keepdim=keepdims, dtype=acc).to(x.dtype))


def _axes(axis: Any, ndim: int, op: str) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    for a in axes:
        if not isinstance(a, int) or not -ndim <= a < max(ndim, 1):
            raise ValueError(f"flow.math.{op}: axis {a!r} is out of range for a blob of rank {ndim}")
    if len(axes) == 0:
        return None
    return tuple(a % ndim for a in axes)


# --- binary arithmetic ----------------------------------------------------------------------------
def add(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        return apply(scalar_add_kernel, check_blob(y, "math.add", "y"), x, op_type="scalar_add", prefix="ScalarAdd",
                     name=name)
    x = check_blob(x, "math.add", "x")
    if is_scalar(y):
        return apply(scalar_add_kernel, x, y, op_type="scalar_add", prefix="ScalarAdd", name=name)
    y = check_blob(y, "math.add", "y")
    if x.shape == y.shape:
        return apply(torch.add, x, y, op_type="add_n", prefix="AddN", name=name)
    if x.shape == (1,):
        return apply(torch.add, y, x, op_type="scalar_add_by_tensor", prefix="ScalarAddByTensor",
                     name=name, outputs=("y_0",))
    if y.shape == (1,):
        return apply(torch.add, x, y, op_type="scalar_add_by_tensor", prefix="ScalarAddByTensor",
                     name=name, outputs=("y_0",))
    return apply(torch.add, x, y, op_type="broadcast_add", name=name, outputs=("z_0",))


def subtract(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        return add(multiply(check_blob(y, "math.subtract", "y"), -1), x, name=name)
    x = check_blob(x, "math.subtract", "x")
    if is_scalar(y):
        return apply(scalar_add_kernel, x, -y, op_type="scalar_add", prefix="ScalarAdd", name=name)
    y = check_blob(y, "math.subtract", "y")
    if x.shape != y.shape and y.shape == (1,):
        return apply(torch.sub, x, y, op_type="scalar_sub_by_tensor", prefix="ScalarSubByTensor",
                     name=name, outputs=("y_0",))
    return apply(torch.sub, x, y, op_type="broadcast_sub", name=name, outputs=("z_0",))


def multiply(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        return apply(scalar_mul_kernel, check_blob(y, "math.multiply", "y"), x, op_type="scalar_mul",
                     prefix="ScalarMul", name=name)
    x = check_blob(x, "math.multiply", "x")
    if is_scalar(y):
        return apply(scalar_mul_kernel, x, y, op_type="scalar_mul", prefix="ScalarMul", name=name)
    y = check_blob(y, "math.multiply", "y")
    if x.shape == y.shape:
        return apply(torch.mul, x, y, op_type="multiply", prefix="ElementWiseMul", name=name)
    if x.shape == (1,) or y.shape == (1,):
        return apply(torch.mul, x, y, op_type="scalar_mul_by_tensor", prefix="ScalarMulByTensor",
                     name=name, outputs=("y_0",))
    return apply(torch.mul, x, y, op_type="broadcast_mul", name=name, outputs=("z_0",))


def div_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if x.dtype.is_floating_point or y.dtype.is_floating_point:
        return torch.div(x, y)
    # OneFlow divides integers with C++'s ``/`` (``BinaryFuncDiv``): the quotient is truncated toward zero
    return torch.div(x, y, rounding_mode="trunc")


def divide(x: Any, y: Any, name: str | None = None) -> Blob:
    if is_scalar(x):
        y = check_blob(y, "math.divide", "y")
        recip = apply(reciprocal_no_nan_kernel, y, op_type="reciprocal_no_nan", outputs=("y_0",))
        return apply(scalar_mul_kernel, recip, x, op_type="scalar_mul", prefix="ScalarMul", name=name)
    x = check_blob(x, "math.divide", "x")
    if is_scalar(y):
        return apply(scalar_mul_kernel, x, 0.0 if y == 0 else 1.0 / float(y), op_type="scalar_mul", prefix="ScalarMul",
                     name=name)
    y = check_blob(y, "math.divide", "y")
    if x.shape != y.shape and y.shape == (1,):
        return apply(div_kernel, x, y, op_type="scalar_div_by_tensor", prefix="ScalarDivByTensor",
                     name=name, outputs=("y_0",))
    return apply(div_kernel, x, y, op_type="broadcast_div", name=name, outputs=("z_0",))


def _compare(kernel: Any, op: str, x: Any, y: Any, name: str | None) -> Blob:
    x = check_blob(x, f"math.{op}", "x")
    if is_scalar(y):
        return apply(kernel, x, y, op_type=f"broadcast_{op}", name=name, outputs=("z_0",))
    y = check_blob(y, f"math.{op}", "y")
    return apply(kernel, x, y, op_type=f"broadcast_{op}", name=name, outputs=("z_0",))


def _cmp_kernel(fn: Any) -> Any:
    def kernel(x: torch.Tensor, y: Any) -> torch.Tensor:
        # OneFlow's comparison ops return int8 blobs.
        return fn(x, y).to(torch.int8)
    kernel.__name__ = f"{fn.__name__}_int8"
    return kernel


_eq, _ne = _cmp_kernel(torch.eq), _cmp_kernel(torch.ne)
_lt, _le = _cmp_kernel(torch.lt), _cmp_kernel(torch.le)
_gt, _ge = _cmp_kernel(torch.gt), _cmp_kernel(torch.ge)


def equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_eq, "equal", x, y, name)


def not_equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_ne, "not_equal", x, y, name)


def less(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_lt, "less", x, y, name)


def less_equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_le, "less_equal", x, y, name)


def greater(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_gt, "greater", x, y, name)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Blob:
    return _compare(_ge, "greater_equal", x, y, name)


# --- reductions ---------------------------------------------------------------------------------------
def reduce_sum(input_tensor: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    x = check_blob(input_tensor, "math.reduce_sum", "input_tensor")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return x  # OneFlow (``ops/reduce_ops.py``): an empty axis list reduces nothing
    axes = _axes(axis, x.ndim, "reduce_sum")
    return apply(reduce_sum_kernel, x, axes, keepdims, op_type="reduce_sum", prefix="ReduceSum", name=name,
                 outputs=("output_tensor_0",))


def reduce_mean(input_blob: Blob, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Blob:
    """OneFlow builds reduce_mean as reduce_sum × (1/count) (``ops/reduce_mean.py``), hence its names."""
    x = check_blob(input_blob, "math.reduce_mean", "input_blob")
    axes = _axes(axis, x.ndim, "reduce_mean")
    total = reduce_sum(x, axis=axis, keepdims=keepdims, name=name)
    count = 1
    for i in (range(x.ndim) if axes is None else axes):
        count *= x.shape[i]
    return multiply(total, 1.0 / count)


# --- more binary ops (v0.1.2 ``ops/math_ops.py``, ``math_binary_elementwise_ops.py``) ----------------
def add_n_kernel(inputs: list[torch.Tensor]) -> torch.Tensor:
    out = torch.add(inputs[0], inputs[1])
    for t in inputs[2:]:
        out = torch.add(out, t)
    return out


def add_n(inputs: Any, name: str | None = None) -> Blob:
    """``flow.math.add_n``: element-wise sum of same-shaped blobs; more than 8 inputs are summed in
    chunks of 8 as OneFlow's kernel limit made it (``AddN_<n>/out_0``)."""
    blobs = check_blobs(inputs, "math.add_n", "inputs")
    for b in blobs[1:]:
        if b.shape != blobs[0].shape or b.meta.dtype != blobs[0].meta.dtype:
            raise arg_error("math.add_n", "inputs", f"blobs of one shape and dtype ({blobs[0].lbn}: "
                            f"{blobs[0].shape} {blobs[0].dtype})", Desc(f"{b.lbn}: {b.shape} {b.dtype}"))
    if len(blobs) == 1:
        return blobs[0]
    if len(blobs) <= 8:
        return apply(add_n_kernel, blobs, op_type="add_n", prefix="AddN", name=name)
    rest = blobs[8:]
    rest.append(add_n(blobs[:8]))
    return add_n(rest, name=name)


def maximum_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # OneFlow's backward sends the gradient of ties to y (``elementwise_maximum_minimum_kernel.cpp``).
    return torch.where(x > y, x, y)


def minimum_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x < y, x, y)


def _binary_blobs(x: Any, y: Any, op: str) -> tuple[Blob, Blob]:
    x = check_blob(x, f"math.{op}", "x")
    y = check_blob(y, f"math.{op}", "y")
    try:
        torch.broadcast_shapes(x.shape, y.shape)
    except RuntimeError:
        raise ValueError(f"flow.math.{op}: shapes of x {x.shape} ({x.lbn}) and y {y.shape} ({y.lbn}) cannot be "
                         "broadcast together") from None
    return x, y


def maximum(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``flow.math.maximum`` (v0.1.x op ``broadcast_maximum_<n>/z_0``)."""
    x, y = _binary_blobs(x, y, "maximum")
    return apply(maximum_kernel, x, y, op_type="broadcast_maximum", name=name, outputs=("z_0",))


def minimum(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``flow.math.minimum`` (v0.1.x op ``broadcast_minimum_<n>/z_0``)."""
    x, y = _binary_blobs(x, y, "minimum")
    return apply(minimum_kernel, x, y, op_type="broadcast_minimum", name=name, outputs=("z_0",))


def scalar_pow_kernel(x: torch.Tensor, exponent: float) -> torch.Tensor:
    return torch.pow(x, exponent)


def pow(x: Blob, y: Any, name: str | None = None) -> Blob:  # OneFlow's name
    """``flow.math.pow``: blob exponent → ``pow_<n>/z_0``; number exponent → ``Pow_<n>/out_0``
    (``scalar_pow``, v0.3.4)."""
    if is_scalar(y):
        x = check_blob(x, "math.pow", "x")
        return apply(scalar_pow_kernel, x, float(y), op_type="scalar_pow", prefix="Pow", name=name)
    x, y = _binary_blobs(x, y, "pow")
    return apply(torch.pow, x, y, op_type="pow", name=name, outputs=("z_0",))


def _elementwise_binary(kernel: Any, op_type: str, doc: str) -> Any:
    def op(x: Blob, y: Blob, name: str | None = None) -> Blob:
        x, y = _binary_blobs(x, y, op_type)
        return apply(kernel, x, y, op_type=op_type, name=name, outputs=("z_0",))
    op.__name__ = op.__qualname__ = op_type
    op.__doc__ = doc
    return op


def xdivy_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x == 0, torch.zeros_like(x), x / y)


def floordiv_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # OneFlow's FloordivFunctor: floor(x / y), with zero gradients for x and y
    # (``user/kernels/math_binary_elementwise_func.h``); torch's floor_divide has no derivative at all.
    if x.is_floating_point():
        return torch.floor(torch.div(x, y))
    return torch.floor_divide(x, y)


def floor_mod_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.remainder(x, y)


def logical_and_kernel(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.logical_and(x, y).to(torch.int8)


atan2 = _elementwise_binary(torch.atan2, "atan2", "``flow.math.atan2`` (``atan2_<n>/z_0``).")
floordiv = _elementwise_binary(floordiv_kernel, "floordiv", "``flow.math.floordiv`` (``floordiv_<n>/z_0``).")
xdivy = _elementwise_binary(xdivy_kernel, "xdivy", "``flow.math.xdivy``: 0 where x == 0 else x / y.")
xlogy = _elementwise_binary(torch.xlogy, "xlogy", "``flow.math.xlogy``: 0 where x == 0 else x·log(y).")


def mod(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``flow.math.mod``: floor modulo of two blobs (``broadcast_floor_mod_<n>/z_0``)."""
    if is_scalar(x) or is_scalar(y):
        raise NotImplementedError("flow.math.mod: OneFlow supports blob % blob only; received a number")
    x, y = _binary_blobs(x, y, "mod")
    return apply(floor_mod_kernel, x, y, op_type="broadcast_floor_mod", name=name, outputs=("z_0",))


def logical_and(x: Blob, y: Blob, name: str | None = None) -> Blob:
    """``flow.math.logical_and`` → int8 (``broadcast_logical_and_<n>/z_0``)."""
    x, y = _binary_blobs(x, y, "logical_and")
    return apply(logical_and_kernel, x, y, op_type="broadcast_logical_and", name=name, outputs=("z_0",))


def squared_difference(x: Any, y: Any, name: str | None = None) -> Blob:
    """``flow.math.squared_difference``: square(subtract(x, y)), two ops as in OneFlow
    (named ``<name>_subtract`` / ``<name>_square`` when ``name`` is given)."""
    sub_name, sq_name = (None, None) if name is None else (name + "_subtract", name + "_square")
    return square(subtract(x, y, sub_name), sq_name)


# --- clip, argmax, top_k ------------------------------------------------------------------------------------
def clip_kernel(x: torch.Tensor, lo: Any, hi: Any) -> torch.Tensor:
    return torch.clamp(x, lo, hi)


def clip_by_value(values: Blob, min_value: Any = None, max_value: Any = None, name: str | None = None) -> Blob:
    """``flow.clip_by_value`` / ``flow.math.clip_by_value`` / ``flow.clip`` / ``flow.clamp``
    (``ClipByValue_<n>/y_0``); the bound is cast to the blob's kind (int or float) as OneFlow's attrs were."""
    x = check_blob(values, "clip_by_value", "values")
    if min_value is None and max_value is None:
        raise ArgumentError("flow.clip_by_value: min_value and max_value cannot be None at the same time")
    for arg, v in (("min_value", min_value), ("max_value", max_value)):
        if v is not None and not is_scalar(v):
            raise ArgumentError(f"flow.clip_by_value: argument {arg!r} must be a number or None; received {v!r}")
    cast = float if x.meta.dtype.is_floating_point else int
    lo = None if min_value is None else cast(min_value)
    hi = None if max_value is None else cast(max_value)
    op_type = "clip_by_scalar" if lo is not None and hi is not None else "clip_by_scalar_min" if lo is not None \
        else "clip_by_scalar_max"  # OneFlow's op for the bounds given
    return apply(clip_kernel, x, lo, hi, op_type=op_type, prefix="ClipByValue", name=name, outputs=("y_0",))


def argmax_kernel(x: torch.Tensor) -> torch.Tensor:
    out = torch.argmax(x, dim=-1).to(torch.int32)
    return out.reshape(1) if x.dim() == 1 else out  # user/ops/argmax_op.cpp: a 1-D input gives shape (1,)


def _perm_to_last(ndim: int, axis: int) -> list[int]:
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def argmax(input: Blob, axis: int = -1, name: str | None = None) -> Blob:
    """``flow.math.argmax`` → int32 indices of the first maximum (``ArgMax_<n>/out_0``). A non-last
    axis is moved last and back with transposes named ``<name>_transpose`` … as in v0.3.4."""
    x = check_blob(input, "math.argmax", "input")
    if x.ndim == 0:
        raise ValueError("flow.math.argmax: input must have at least one axis")
    axis = norm_axis(axis, x.ndim, "math.argmax")
    if axis == x.ndim - 1:
        return apply(argmax_kernel, x, op_type="argmax", prefix="ArgMax", name=name)
    name = name if name is not None else naming.unique_str("ArgMax_")
    perm = _perm_to_last(x.ndim, axis)
    t = array_ops.transpose(x, perm, name=name + "_transpose")
    t = apply(argmax_kernel, t, op_type="argmax", prefix="ArgMax", name=name)
    t = array_ops.expand_dims(t, -1, name=name + "_expand_dims")
    t = array_ops.transpose(t, perm, name=name + "_inverse_transpose")
    return array_ops.squeeze(t, [axis], name=name + "_squeeze")


def top_k_kernel(x: torch.Tensor, k: int, sorted: bool) -> torch.Tensor:
    # equal values in index order, as OneFlow's comparator (user/kernels/top_k_kernel.cpp); torch.topk breaks
    # ties arbitrarily. k is capped again here: a dynamic (mirrored) input may be shorter than its static shape
    order = torch.sort(x, dim=-1, descending=True, stable=True).indices
    return order[..., :min(k, x.shape[-1])].to(torch.int32)


def _top_k_args(ndim: int, axis: Any, k: Any, sorted: Any, name: Any) -> tuple[Any, Any, Any, Any]:
    """``(axis, k, sorted, name)`` of a v0.3.4 call ``(input, axis=-1, k=1, sorted=True, name=None)`` or a v0.1.2
    one ``(input, k=1, sorted=True, name=None)`` (no axis: v0.3.4 inserted it second). A bool in k's place is
    v0.1.2's sorted, so the second argument is its k (and a non-bool fourth its name); an int second argument
    outside the input's axes, k left at 1, can only be v0.1.2's k (v0.3.4 asserted ``0 <= axis < ndim``)."""
    if isinstance(k, bool):
        if not isinstance(sorted, bool):
            if name is not None:
                raise arg_error("math.top_k", "name", "given once (v0.1.2's fourth argument is the name)", name)
            name = sorted
        return -1, axis, k, name
    if k == 1 and isinstance(axis, int) and not isinstance(axis, bool) and not -ndim <= axis < ndim:
        return -1, axis, sorted, name
    return axis, k, sorted, name


def top_k(input: Blob, axis: int = -1, k: int = 1, sorted: bool = True,
          name: str | None = None) -> Blob:
    """``flow.math.top_k``: OneFlow returns the int32 *indices* of the k largest values along ``axis``
    (k is capped at the axis size); ``TopK_<n>/out_0``. v0.1.2's ``top_k(input, k, sorted, name)`` works too
    (see :func:`_top_k_args`)."""
    x = check_blob(input, "math.top_k", "input")
    if x.ndim == 0:
        raise ValueError("flow.math.top_k: input must have at least one axis")
    axis, k, sorted, name = _top_k_args(x.ndim, axis, k, sorted, name)
    axis = norm_axis(axis, x.ndim, "math.top_k")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise arg_error("math.top_k", "k", "a positive int", k)
    k = min(k, x.shape[axis])
    if axis == x.ndim - 1:
        return apply(top_k_kernel, x, k, bool(sorted), op_type="top_k", prefix="TopK", name=name)
    name = name if name is not None else naming.unique_str("TopK_")
    perm = _perm_to_last(x.ndim, axis)
    t = array_ops.transpose(x, perm, name=name + "_transpose")
    t = apply(top_k_kernel, t, k, bool(sorted), op_type="top_k", prefix="TopK", name=name)
    return array_ops.transpose(t, perm, name=name + "_inverse_transpose")


def in_top_k_kernel(targets: torch.Tensor, predictions: torch.Tensor, k: int) -> torch.Tensor:
    if targets.shape[0] != predictions.shape[0]:  # dynamic inputs: their run-time sizes must agree
        raise ArgumentError(f"flow.math.in_top_k: {targets.shape[0]} targets for {predictions.shape[0]} rows of "
                            "predictions; they must be as many")
    # in_top_k_kernel_util.cpp: a row with a non-finite prediction, or a target out of the classes, is 0
    index = targets.long()
    classes = predictions.shape[1]
    known = (index >= 0) & (index < classes) & torch.isfinite(predictions).all(dim=1)
    target_value = predictions.gather(1, index.clamp(0, max(classes - 1, 0)).unsqueeze(1))
    return (known & (predictions > target_value).sum(dim=1).lt(k)).to(torch.int8)


def in_top_k(targets: Blob, predictions: Blob, k: int, name: str | None = None) -> Blob:
    """``flow.math.in_top_k``: int8, 1 where the target's score is among the k largest
    (``InTopK_<n>/out_0``)."""
    t = check_blob(targets, "math.in_top_k", "targets")
    p = check_blob(predictions, "math.in_top_k", "predictions")
    # user/ops/in_top_k_op.cpp: a dynamic (mirrored ListNumpy) pair's static shapes are upper bounds, so only
    # their ranks are checked here; their run-time sizes must agree (the kernel checks). Out: targets' shape.
    dynamic = t.is_dynamic or p.is_dynamic
    rows_match = dynamic or t.shape == (p.shape[0],)
    if p.ndim != 2 or t.ndim != 1 or not rows_match or t.meta.dtype not in (torch.int32, torch.int64):
        raise arg_error("math.in_top_k", "targets", f"int32/int64 of shape ({p.shape[0]},) for predictions of "
                        "shape (N, C)", Desc(f"{t.lbn}: {t.shape} {t.dtype} with predictions {p.shape}"))
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise arg_error("math.in_top_k", "k", "a positive int", k)
    meta = torch.empty(t.shape, dtype=torch.int8, device="meta")
    return apply(in_top_k_kernel, t, p, k, op_type="in_top_k", prefix="InTopK", name=name, meta=meta,
                 dynamic=dynamic)


set_operators({"add": add, "subtract": subtract, "multiply": multiply, "divide": divide, "mod": mod, "equal": equal,
               "not_equal": not_equal, "less": less, "less_equal": less_equal, "greater": greater,
               "greater_equal": greater_equal})
