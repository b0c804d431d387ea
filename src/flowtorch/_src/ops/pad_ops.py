"""``flow.same_padding`` and ``flow.pad_grad`` (``oneflow/python/ops/pad.py``): zero padding that keeps a
convolution's output size, and the crop that is ``flow.pad``'s gradient; v0.4.0's ``replication_pad2d``,
``constant_pad2d`` and ``zero_pad2d``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import arg_error, is_int, is_number
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.array_ops import check_pad_pairs, torch_pad_order
from flowtorch._src.ops.conv_ops import same_pads


def same_padding_kernel(x: torch.Tensor, flat: tuple[int, ...]) -> torch.Tensor:
    return F.pad(x, flat)


def pad_grad_kernel(dy: torch.Tensor, before: tuple[int, ...], after: tuple[int, ...]) -> torch.Tensor:
    return dy[tuple(slice(b, dy.shape[i] - a) for i, (b, a) in enumerate(zip(before, after)))]


def same_padding(x: Blob, padding: str, data_format: str, kernel_size: Sequence[int], strides: Sequence[int],
                 dilation_rate: Sequence[int], name: str | None = None) -> Blob:
    """``flow.same_padding(x, padding, data_format, kernel_size, strides, dilation_rate)``: zeros around the
    spatial axes so that a window of ``kernel_size`` at ``strides`` and ``dilation_rate`` keeps
    ``ceil(size / stride)`` outputs; ``"SAME_LOWER"`` puts the odd element before, ``"SAME_UPPER"`` after
    (OneFlow's ``CalcSamePadding``; ``SamePadding_<n>/y_0``). ``data_format`` starting with ``"NC"`` is channels
    first."""
    op = "same_padding"
    b = check_blob(x, op, "x")
    if not isinstance(padding, str) or padding.upper() not in ("SAME_LOWER", "SAME_UPPER"):
        raise arg_error(op, "padding", '"SAME_LOWER" or "SAME_UPPER"', padding)
    if not isinstance(data_format, str):
        raise arg_error(op, "data_format", 'a format string such as "NCHW" or "NHWC"', data_format)
    nd = b.ndim - 2
    for arg, value in (("kernel_size", kernel_size), ("strides", strides), ("dilation_rate", dilation_rate)):
        if not isinstance(value, (list, tuple)) or len(value) != nd or not all(is_int(v) and v > 0 for v in value):
            raise arg_error(op, arg, f"a list or tuple of {nd} positive ints (one per spatial axis)", value)
    first = 2 if data_format.startswith("NC") else 1
    pads = [same_pads(b.shape[first + i], int(kernel_size[i]), int(dilation_rate[i]), int(strides[i]),
                      padding.upper() == "SAME_LOWER") for i in range(nd)]
    per_axis = [(0, 0)] * b.ndim
    for i, p in enumerate(pads):
        per_axis[first + i] = p
    return apply(same_padding_kernel, b, torch_pad_order(per_axis), op_type=op, prefix="SamePadding", name=name,
                 outputs=("y",))


def pad_grad(x: Blob, paddings: Sequence[Sequence[int]], constant_value: float = 0, name: str | None = None) -> Blob:
    """``flow.pad_grad(x, paddings, constant_value=0)``: ``flow.pad``'s gradient, ``x`` cropped by ``paddings``'
    (before, after) per axis (``PadGrad_<n>/dx_0``); ``constant_value`` is accepted as OneFlow's was."""
    op = "pad_grad"
    b = check_blob(x, op, "x")
    pairs = check_pad_pairs(b, paddings, op)
    before = tuple(p[0] for p in pairs)
    after = tuple(p[1] for p in pairs)
    if any(bf + af > s for bf, af, s in zip(before, after, b.shape)):
        raise arg_error(op, "paddings", f"pairs that fit x's shape {b.shape}", paddings)
    return apply(pad_grad_kernel, b, before, after, op_type=op, prefix="PadGrad", name=name, outputs=("dx",))


# --- v0.4.0's 2-D pads (ops/pad.py): padding (left, right, top, bottom) of an NCHW blob -----------------------------
def _pad2d_amounts(x: Blob, padding: Any, op: str) -> tuple[int, int, int, int]:
    if x.ndim != 4:
        raise arg_error(op, "x", "a 4-D (NCHW) blob", f"{x.lbn} {x.shape}")
    height, width = x.shape[2], x.shape[3]
    if is_int(padding):
        amounts = [int(padding)] * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 4 and all(is_int(p) for p in padding):
        amounts = [int(p) for p in padding]
    else:
        raise arg_error(op, "padding", "an int or 4 ints (left, right, top, bottom)", padding)
    for i, (p, limit, axis) in enumerate(zip(amounts, (width, width, height, height), "WWHH")):
        if not 0 <= p < limit:  # OneFlow's wrapper asserts each padding is below its axis's size
            raise arg_error(op, f"padding[{i}]", f"in [0, {axis} = {limit}) of x {x.shape}", p)
    return amounts[0], amounts[1], amounts[2], amounts[3]


def replication_pad2d_kernel(x: torch.Tensor, pads: tuple[int, int, int, int]) -> torch.Tensor:
    return F.pad(x, pads, mode="replicate")


def constant_pad2d_kernel(x: torch.Tensor, pads: tuple[int, int, int, int], value: float) -> torch.Tensor:
    return F.pad(x, pads, mode="constant", value=value)


def replication_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """``flow.replication_pad2d(x, padding)`` (v0.4.0): the H and W axes of an NCHW blob padded with copies of
    the edge, ``padding`` an int or ``(left, right, top, bottom)`` (``Replication_Pad2d_<n>/y_0``)."""
    x = check_blob(x, "replication_pad2d", "x")
    pads = _pad2d_amounts(x, padding, "replication_pad2d")
    return apply(replication_pad2d_kernel, x, pads, op_type="replication_pad2d", prefix="Replication_Pad2d",
                 name=name, outputs=("y_0",))


def constant_pad2d(x: Blob, padding: Any, constant_value: float = 0, name: str | None = None) -> Blob:
    """``flow.constant_pad2d(x, padding, constant_value=0)`` (v0.4.0): as ``replication_pad2d`` with a constant
    (cast to an int for an integer blob, as OneFlow's ``integral_value``) (``Constant_Pad2d_<n>/y_0``)."""
    x = check_blob(x, "constant_pad2d", "x")
    pads = _pad2d_amounts(x, padding, "constant_pad2d")
    if not is_number(constant_value):
        raise arg_error("constant_pad2d", "constant_value", "a number", constant_value)
    value = float(constant_value) if x.meta.dtype.is_floating_point else int(constant_value)
    return apply(constant_pad2d_kernel, x, pads, value, op_type="constant_pad2d", prefix="Constant_Pad2d", name=name,
                 outputs=("y_0",))


def zero_pad2d(x: Blob, padding: Any, name: str | None = None) -> Blob:
    """``flow.zero_pad2d(x, padding)`` (v0.4.0): ``constant_pad2d`` with 0."""
    return constant_pad2d(x, padding, 0.0, name)
