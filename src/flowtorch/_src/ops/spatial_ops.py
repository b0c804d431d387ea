"""NCHW rearrangements of OneFlow v0.3.4: ``flow.reflection_pad2d`` (``ops/pad.py``, user op
``reflection_pad2d``) and ``flow.nn.PixelShuffle`` / ``flow.nn.PixelShufflev2`` (``ops/nn_ops.py``, built
from reshape and transpose ops).

``reflection_pad2d`` keeps v0.3.4's reading of a list ``padding``: of ``[p0, p1, p2, p3]`` only ``p2``
and ``p3`` count, ``p2`` rows above AND below, ``p3`` columns left AND right (the Python wrapper passed
``[0, 0, p2, p3]`` and the kernel pads each spatial axis symmetrically). OneFlow v0.4.0 changed this to
``(left, right, top, bottom)``; programs written for v0.3.4 and its op tests rely on the old meaning.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, is_int
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import reshape, transpose


# --- reflection_pad2d ---------------------------------------------------------------------------------------
def _reflect_index(size: int, pad: int, device: torch.device) -> torch.Tensor:
    """Source index of each output position along an axis of ``size`` padded by ``pad`` on both sides,
    mirroring about the edge elements (which are not repeated)."""
    idx = torch.arange(-pad, size + pad, device=device).abs_()
    return torch.where(idx >= size, 2 * (size - 1) - idx, idx)


def reflection_pad2d_kernel(x: torch.Tensor, pad_h: int, pad_w: int) -> torch.Tensor:
    # Gathers work for every dtype OneFlow registered (float, double, float16, int32); their backward
    # accumulates each output gradient into its source element, as reflection_pad2d_grad does.
    rows = _reflect_index(x.shape[2], pad_h, x.device)
    cols = _reflect_index(x.shape[3], pad_w, x.device)
    return x.index_select(2, rows).index_select(3, cols)


def _pad_amount(value: Any, arg: str) -> int:
    if not is_int(value) or value < 0:
        raise arg_error("reflection_pad2d", arg, "a non-negative int", value)
    return int(value)


def reflection_pad2d(x: Blob, padding: int | tuple[int, ...] | list[int], name: str | None = None) -> Blob:
    """``flow.reflection_pad2d(x, padding)``: mirror-pad the H and W axes of an NCHW blob
    (``Reflection_Pad2d<n>/y_0``). An int pads every side by it; a list/tuple ``[p0, p1, p2, p3]`` pads
    top and bottom by ``p2``, left and right by ``p3`` (v0.3.4, see the module docstring). Each must be
    less than the size of its axis."""
    op = "reflection_pad2d"
    x = check_blob(x, op, "x")
    if x.ndim != 4:
        raise arg_error(op, "x", "a 4-D (NCHW) blob", Desc(f"{x.lbn} {x.shape}"))
    height, width = x.shape[2], x.shape[3]
    if isinstance(padding, (list, tuple)):
        if len(padding) != 4:
            raise arg_error(op, "padding", "an int or a list/tuple of 4 ints (one per axis of x)", padding)
        amounts = [_pad_amount(p, f"padding[{i}]") for i, p in enumerate(padding)]
        # OneFlow's wrapper bounded p0, p1 by W and p2, p3 by H although it pads W by p3.
        for i, (p, axis) in enumerate(zip(amounts, "WWHH")):
            limit = width if axis == "W" else height
            if p >= limit:
                raise arg_error(op, f"padding[{i}]", f"less than {axis} = {limit} of x {x.shape}", p)
        pad_h, pad_w = amounts[2], amounts[3]
        if pad_w >= width:
            raise arg_error(op, "padding[3]", f"less than W = {width} of x {x.shape} (it pads the W axis)", pad_w)
    else:
        pad = _pad_amount(padding, "padding")
        if pad >= height or pad >= width:
            raise arg_error(op, "padding", f"less than H = {height} and W = {width} of x {x.shape}", pad)
        pad_h = pad_w = pad
    return apply(reflection_pad2d_kernel, x, pad_h, pad_w, op_type="reflection_pad2d",
                 op_name=naming.op_name("Reflection_Pad2d", name), outputs=("y_0",))


# --- PixelShuffle -------------------------------------------------------------------------------------------
def _factor(value: Any, op: str, arg: str) -> int:
    if not is_int(value) or value <= 0:
        raise arg_error(op, arg, "a positive int", value)
    return int(value)


def _pixel_shuffle(x: Any, h_factor: int, w_factor: int, name: str | None, op: str) -> Blob:
    x = check_blob(x, op, "input")
    if x.ndim != 4:
        raise arg_error(op, "input", "a 4-D (NCHW) blob", Desc(f"{x.lbn} {x.shape}"))
    batch, channels, height, width = x.shape
    if channels % (h_factor * w_factor):
        raise arg_error(op, "input", f"a channel count divisible by {h_factor} * {w_factor}",
                        Desc(f"{x.lbn} {x.shape}"))
    prefix = name if name is not None else naming.unique_str("PixelShufflev2")
    new_c = channels // (h_factor * w_factor)
    out = reshape(x, [batch, new_c, h_factor * w_factor, height, width], name=prefix + "_reshape1")
    out = reshape(out, [batch, new_c, h_factor, w_factor, height, width], name=prefix + "_reshape2")
    out = transpose(out, [0, 1, 4, 2, 5, 3], name=prefix + "_transpose")
    return reshape(out, [batch, new_c, height * h_factor, width * w_factor], name=prefix + "_reshape3")


def PixelShufflev2(input: Blob, h_upscale_factor: int, w_upscale_factor: int,
                   name: str | None = None) -> Blob:
    """``flow.nn.PixelShufflev2``: (N, C·h·w, H, W) → (N, C, H·h, W·w), channel ``c·h·w + i·w + j`` going
    to row offset ``i`` and column offset ``j``. Built as OneFlow did: ``<name>_reshape1``,
    ``<name>_reshape2``, ``<name>_transpose``, ``<name>_reshape3`` (name defaults to ``PixelShufflev2<n>``)."""
    op = "nn.PixelShufflev2"
    return _pixel_shuffle(input, _factor(h_upscale_factor, op, "h_upscale_factor"),
                          _factor(w_upscale_factor, op, "w_upscale_factor"), name, op)


def PixelShuffle(input: Blob, upscale_factor: int, name: str | None = None) -> Blob:
    """``flow.nn.PixelShuffle``: :func:`PixelShufflev2` with the same factor for H and W."""
    factor = _factor(upscale_factor, "nn.PixelShuffle", "upscale_factor")
    return _pixel_shuffle(input, factor, factor, name, "nn.PixelShuffle")


__all__ = ["PixelShuffle", "PixelShufflev2", "reflection_pad2d"]
