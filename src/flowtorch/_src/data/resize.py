"""An image resampler with OpenCV's ``cv::resize`` geometry, for HWC uint8/float32 numpy images.

OneFlow's image ops resize with OpenCV (``user/image/image_util.cpp``: ``GetCvInterpolationFlag``);
flowtorch does not depend on OpenCV, so this module rebuilds its sampling grids (OpenCV 3.x
``imgproc/src/resize.cpp``, ``resizeGeneric_``, ``computeResizeAreaTab``, ``resizeNN``) per axis, applied
width first, then height, in float32: 2-tap grids as two gathers and a weighted sum, the others as a
weight matrix and a matmul. uint8 results are rounded half
to even and saturated to [0, 255], as ``saturate_cast`` does.

Modes (the names are OneFlow's flags):

* ``linear``: half-pixel centres, 2 taps, clamped borders, no antialiasing;
* ``cubic``: Keys' cubic with a = -0.75, 4 taps, half-pixel centres, clamped borders;
* ``nearest``: source index ``floor(dst * src / dst_size)``;
* ``area``: when both axes shrink, each output pixel is the mean of the source cells it covers
  (fractional overlaps weighted); otherwise OpenCV's area-flavoured 2-tap linear grid.

For uint8 images OpenCV computes ``linear``/``cubic`` (and ``area`` when it enlarges) in 11-bit fixed
point; the weights here are rounded to the same 1/2048 steps. uint8 ``linear`` and enlarging ``area``
repeat OpenCV's integer arithmetic (``VResizeLinearVec_32s8u``: the vertical pass multiplies the
horizontal sums shifted right by 4 and keeps the high 16 bits of each product), so they match it
exactly (OpenCV 3.x rounded the last few values of a row in scalar code instead: ±1 there). Float images
match OpenCV's own code to float32 rounding and ``nearest`` exactly; Intel IPP, which pip's OpenCV uses
for float32 ``linear``, differs by up to 5e-4 (OneFlow built OpenCV without IPP). uint8 ``cubic`` and
shrinking ``area`` match it on all but about 0.05 % of pixels (±1). Pillow's resize is no substitute: it
antialiases when shrinking.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
import torch

NEAREST, LINEAR, CUBIC, AREA = "nearest", "linear", "cubic", "area"
MODES = (NEAREST, LINEAR, CUBIC, AREA)

_BLOCK = 32  # output rows per matmul: each block multiplies only the source span its weights touch
_COEF_SCALE = 2048.0  # INTER_RESIZE_COEF_SCALE: OpenCV's fixed-point weight step for uint8 images
_F32 = np.float32


class Weights(NamedTuple):
    """One axis's ``(dst, src)`` float32 weight matrix and its non-zero blocks ``(row0, row1, col0, col1)``."""

    matrix: torch.Tensor
    blocks: tuple[tuple[int, int, int, int], ...]


def _weights(w: np.ndarray) -> Weights:
    blocks = []
    for r0 in range(0, w.shape[0], _BLOCK):
        r1 = min(r0 + _BLOCK, w.shape[0])
        cols = np.flatnonzero(w[r0:r1].any(axis=0))
        c0, c1 = (int(cols[0]), int(cols[-1]) + 1) if len(cols) else (0, 0)
        blocks.append((r0, r1, c0, c1))
    return Weights(torch.from_numpy(w), tuple(blocks))


def auto_mode(src_w: int, src_h: int, dst_w: int, dst_h: int) -> str:
    """OneFlow's ``"auto"``: linear unless the pixel count shrinks, then area."""
    return LINEAR if dst_w * dst_h >= src_w * src_h else AREA


def _linear_taps(src: int, dst: int, area_mode: bool, vertical: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OpenCV's 2-tap grid: both source indices and the float32 fraction per output index."""
    inv_scale = dst / src
    scale = 1.0 / inv_scale  # OpenCV keeps 1/(dst/src), which can differ from src/dst in the last bit
    d = np.arange(dst, dtype=np.float64)
    if area_mode:
        sx = np.floor(d * scale)
        fx = ((d + 1) - (sx + 1) * inv_scale).astype(_F32)
        fx = np.where(fx <= 0, _F32(0), fx - np.floor(fx)).astype(_F32)
    else:
        f = ((d + 0.5) * scale - 0.5).astype(_F32)
        sx = np.floor(f)
        fx = (f - sx).astype(_F32)
    sx = sx.astype(np.int64)
    if vertical:  # rows: OpenCV clamps both rows and keeps the weights (resize.cpp, ResizeInvoker)
        return np.clip(sx, 0, src - 1), np.clip(sx + 1, 0, src - 1), fx
    # columns: OpenCV moves an index past a border onto it and drops the fraction
    low, high = sx < 0, sx >= src - 1
    fx = np.where(low | high, _F32(0), fx)
    sx = np.clip(sx, 0, src - 1)
    return sx, np.minimum(sx + 1, src - 1), fx


def _cubic_coeffs(x: np.ndarray) -> np.ndarray:
    """``interpolateCubic`` (A = -0.75), in float32: ``(n, 4)`` weights for taps ``sx-1 .. sx+2``."""
    a = _F32(-0.75)
    one = _F32(1)
    c0 = ((a * (x + one) - _F32(5) * a) * (x + one) + _F32(8) * a) * (x + one) - _F32(4) * a
    c1 = ((a + _F32(2)) * x - (a + _F32(3))) * x * x + one
    c2 = ((a + _F32(2)) * (one - x) - (a + _F32(3))) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], axis=1).astype(_F32)


def _quantize(w: np.ndarray) -> np.ndarray:
    # saturate_cast<short>(w * 2048) rounds half to even, like np.rint
    return (np.rint(w * _F32(_COEF_SCALE)) / _F32(_COEF_SCALE)).astype(_F32)


def _area_table(src: int, dst: int) -> np.ndarray:
    """``computeResizeAreaTab``: each output cell's fractional overlap with the source cells."""
    scale = 1.0 / (dst / src)
    w = np.zeros((dst, src), dtype=_F32)
    for d in range(dst):
        f1 = d * scale
        f2 = f1 + scale
        cell = min(scale, src - f1)
        s1, s2 = math.ceil(f1), math.floor(f2)
        s2 = min(s2, src - 1)
        s1 = min(s1, s2)
        if s1 - f1 > 1e-3:
            w[d, s1 - 1] += _F32((s1 - f1) / cell)
        for s in range(s1, s2):
            w[d, s] += _F32(1.0 / cell)
        if f2 - s2 > 1e-3:
            w[d, s2] += _F32(min(min(f2 - s2, 1.0), cell) / cell)
    return w


@functools.lru_cache(maxsize=256)
def axis_weights(src: int, dst: int, mode: str, fixed_point: bool = False) -> Weights:
    """The ``(dst, src)`` float32 matrix that resamples one axis (cached: do not modify it).

    ``mode`` is ``cubic``, ``nearest`` or ``area-table`` (the shrinking area table; 2-tap grids use
    :func:`linear_taps`); ``fixed_point`` rounds the weights to OpenCV's 1/2048 steps (uint8 images)."""
    w = np.zeros((dst, src), dtype=_F32)
    rows = np.arange(dst)
    if mode == NEAREST:
        sx = np.floor(np.arange(dst, dtype=np.float64) * (1.0 / (dst / src))).astype(np.int64)
        w[rows, np.minimum(sx, src - 1)] = 1
    elif mode == CUBIC:
        f = ((np.arange(dst, dtype=np.float64) + 0.5) * (1.0 / (dst / src)) - 0.5).astype(_F32)
        sx = np.floor(f)
        taps = _cubic_coeffs((f - sx).astype(_F32))
        if fixed_point:
            taps = _quantize(taps)
        for k in range(4):  # replicated borders: clamp each tap's index
            np.add.at(w, (rows, np.clip(sx.astype(np.int64) + k - 1, 0, src - 1)), taps[:, k])
    elif mode == "area-table":
        w = _area_table(src, dst)
    else:
        raise ValueError(f"resize: unknown mode {mode!r}")
    return _weights(w)


def _is_integer_scale(src: int, dst: int) -> int:
    """OpenCV's ``is_area_fast`` test for one axis: the integer factor, or 0."""
    scale = 1.0 / (dst / src)
    k = round(scale)
    return k if abs(scale - k) < np.finfo(np.float64).eps else 0


def resize(image: np.ndarray, width: int, height: int, mode: str) -> np.ndarray:
    """``cv::resize(image, (width, height), flag)`` for an HWC uint8 or float32 image, in its own dtype."""
    if image.ndim != 3 or image.dtype not in (np.uint8, np.float32):
        raise ValueError(f"resize: expected an HWC uint8 or float32 image; got shape {image.shape} {image.dtype}")
    if mode not in MODES:
        raise ValueError(f"resize: mode must be one of {MODES}; received {mode!r}")
    if width <= 0 or height <= 0:
        raise ValueError(f"resize: the output size must be positive; received {width}x{height}")
    src_h, src_w = image.shape[:2]
    if (src_h, src_w) == (height, width):
        return image.copy()
    uint8 = image.dtype == np.uint8
    kx, ky = _is_integer_scale(src_w, width), _is_integer_scale(src_h, height)
    if mode == LINEAR and kx == ky == 2:
        mode = AREA  # OpenCV takes its area path for an exact 2x shrink (the same 2x2 mean)
    shrinks = width <= src_w and height <= src_h
    if mode == AREA and shrinks and kx and ky:
        # integer factors: block sums (exact in float32), times float32 1/area, as resizeAreaFast_ does;
        # its uint8 2x2 SIMD code rounds halves up
        out = _apply(image, _block(src_w, width, kx), _block(src_h, height, ky)) * float(_F32(1.0 / (kx * ky)))
        return _to_image(out, uint8, half_up=kx == ky == 2)
    if mode == AREA and shrinks:
        wx, wy = axis_weights(src_w, width, "area-table"), axis_weights(src_h, height, "area-table")
    elif mode in (AREA, LINEAR):  # two taps per axis: gathered, not multiplied by a mostly-zero matrix
        area_mode = mode == AREA
        tx = linear_taps(src_w, width, uint8, area_mode)
        ty = linear_taps(src_h, height, uint8, area_mode, vertical=True)
        if uint8:
            return _apply_taps_fixed(image, tx, ty).permute(1, 2, 0).numpy()
        return _to_image(_apply_taps(image, tx, ty), uint8)
    else:
        fixed = uint8 and mode != NEAREST
        wx, wy = axis_weights(src_w, width, mode, fixed), axis_weights(src_h, height, mode, fixed)
    return _to_image(_apply(image, wx, wy), uint8)


@functools.lru_cache(maxsize=64)
def _block(src: int, dst: int, k: int) -> Weights:
    w = np.zeros((dst, src), dtype=_F32)
    for d in range(dst):
        w[d, d * k:(d + 1) * k] = 1
    return _weights(w)


def _chw_float(image: np.ndarray) -> torch.Tensor:
    if not image.flags.writeable:  # torch.from_numpy warns on read-only memory (e.g. np.frombuffer)
        image = image.copy()
    return torch.from_numpy(image).permute(2, 0, 1).to(torch.float32, memory_format=torch.contiguous_format)


def _apply(image: np.ndarray, wx: Weights, wy: Weights) -> torch.Tensor:
    """Width pass, then height pass (OpenCV's order), as float32 matmuls: a ``(C, H', W')`` tensor."""
    x = _chw_float(image)
    tmp = x.new_empty(x.shape[:2] + (wx.matrix.shape[0],))
    for r0, r1, c0, c1 in wx.blocks:
        tmp[:, :, r0:r1] = x[:, :, c0:c1] @ wx.matrix[r0:r1, c0:c1].T
    out = x.new_empty((x.shape[0], wy.matrix.shape[0], tmp.shape[2]))
    for r0, r1, c0, c1 in wy.blocks:
        out[:, r0:r1] = wy.matrix[r0:r1, c0:c1] @ tmp[:, c0:c1]
    return out


class Taps(NamedTuple):
    """One axis's 2-tap grid: source indices and float32 weights per output index."""

    first: torch.Tensor
    second: torch.Tensor
    w_first: torch.Tensor
    w_second: torch.Tensor


@functools.lru_cache(maxsize=256)
def linear_taps(src: int, dst: int, fixed_point: bool, area_mode: bool, vertical: bool = False) -> Taps:
    """OpenCV's 2-tap grid (``linear``, or the area-flavoured one when ``area_mode``) as gather indices and
    float32 weights (cached); ``vertical`` gives the grid of rows, whose borders OpenCV treats otherwise."""
    first, second, fx = _linear_taps(src, dst, area_mode, vertical)
    w = np.stack([_F32(1) - fx, fx], axis=1).astype(_F32)
    if fixed_point:
        w = _quantize(w)
    return Taps(torch.from_numpy(first), torch.from_numpy(second),
                torch.from_numpy(np.ascontiguousarray(w[:, 0])), torch.from_numpy(np.ascontiguousarray(w[:, 1])))


def _apply_taps(image: np.ndarray, tx: Taps, ty: Taps) -> torch.Tensor:
    """:func:`_apply` for 2-tap grids: width pass, then height pass, each two gathers and a weighted sum."""
    x = _chw_float(image)
    x = torch.index_select(x, 2, tx.first).mul_(tx.w_first).add_(torch.index_select(x, 2, tx.second).mul_(tx.w_second))
    return (torch.index_select(x, 1, ty.first).mul_(ty.w_first.view(-1, 1))
            .add_(torch.index_select(x, 1, ty.second).mul_(ty.w_second.view(-1, 1))))


def _apply_taps_fixed(image: np.ndarray, tx: Taps, ty: Taps) -> torch.Tensor:
    """A uint8 CHW result of 2-tap grids in OpenCV's integer arithmetic: the width pass sums pixels times
    weights in 1/2048 steps; the height pass takes ``((a >> 4) * b0 >> 16) + ((c >> 4) * b1 >> 16)`` of two
    such sums, then ``(v + 2) >> 2``, saturated (``VResizeLinearVec_32s8u``)."""
    x = torch.from_numpy(image).permute(2, 0, 1).to(torch.int32)
    ax0, ax1 = ((w * _COEF_SCALE).round().to(torch.int32) for w in (tx.w_first, tx.w_second))
    by0, by1 = ((w * _COEF_SCALE).round().to(torch.int32).view(-1, 1) for w in (ty.w_first, ty.w_second))
    rows = torch.index_select(x, 2, tx.first) * ax0 + torch.index_select(x, 2, tx.second) * ax1
    top = (torch.index_select(rows, 1, ty.first) >> 4) * by0 >> 16
    bottom = (torch.index_select(rows, 1, ty.second) >> 4) * by1 >> 16
    return ((top + bottom + 2) >> 2).clamp_(0, 255).to(torch.uint8)


def _to_image(out: torch.Tensor, uint8: bool, half_up: bool = False) -> np.ndarray:
    """CHW float32 → an HWC numpy view of it (no copy: the next op usually wants CHW again); for uint8,
    rounded (half to even unless ``half_up``) and saturated."""
    if uint8:
        out = (out.add_(0.5).floor_() if half_up else out.round_()).clamp_(0, 255).to(torch.uint8)
    return out.permute(1, 2, 0).numpy()


def to_dtype(image: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``Mat::convertTo`` without scaling: uint8 → float32 exactly; float32 → uint8 rounded half to even and
    saturated."""
    if image.dtype == dtype:
        return image
    if dtype == np.uint8:
        return np.clip(np.rint(image), 0, 255).astype(np.uint8)
    return image.astype(dtype)
