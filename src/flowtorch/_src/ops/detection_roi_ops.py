"""OneFlow v0.1.2's Mask R-CNN feature-map ops (``flow.detection.roi_align``, ``masks_crop_and_resize``,
``upsample_nearest``; ``oneflow/python/ops/detection.py``).

As for :mod:`.detection_ops`, v0.1.2's C++ had dropped these operators; the math follows their last CUDA
kernels (``roi_align_kernel.cu``, ``masks_crop_and_resize_kernel.cu``, ``upsample_nearest_kernel.cu``
before OneFlow commit 4722dfff). ``roi_align`` and ``upsample_nearest`` have gradients in OneFlow
(``job_completer/roi_align_grad.cpp``, ``upsample_nearest_grad.cpp``): each output element's gradient is
scattered back, with the forward's weights, to the input elements it was read from. Both kernels here are
gathers with those weights, so torch's autograd of the gather is that scatter-add.
"""

from __future__ import annotations

import numpy as np
import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_float_blob, check_int, check_number, is_int
from flowtorch._src.ops._record import apply

__all__ = ["masks_crop_and_resize", "roi_align", "upsample_nearest"]


def _meta(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    return torch.empty(shape, dtype=dtype, device="meta")


# --- roi_align ----------------------------------------------------------------------------------------------
def _corners(pos: torch.Tensor, size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                                                       torch.Tensor]:
    """The two neighbours along one axis of each sample position and their weights, as OneFlow's
    ``BilinearInterpolate``: a position in [-1, 0) keeps its value with ``low = 0``, so its weights
    extrapolate (torchvision clamps it to 0 instead); one past the last pixel reads the last pixel only;
    outside [-1, size] the sample is zero (``valid`` false)."""
    valid = (pos >= -1.0) & (pos <= size)
    low = torch.where(pos <= 0, torch.zeros_like(pos), pos).to(torch.int64)  # truncates, as the int cast
    at_edge = low >= size - 1
    low = torch.where(at_edge, torch.full_like(low, size - 1), low)
    high = torch.where(at_edge, low, low + 1)
    pos = torch.where(at_edge, low.to(pos.dtype), pos)
    frac = pos - low.to(pos.dtype)
    return low, high, 1 - frac, frac, valid


def _sample_positions(start: torch.Tensor, bin_size: torch.Tensor, pooled: int, grid: torch.Tensor,
                      max_grid: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample positions (R, pooled, max_grid) along one axis, and which of them the roi's own grid has."""
    cell = torch.arange(pooled, device=start.device)
    step = torch.arange(max_grid, dtype=torch.float32, device=start.device).add_(0.5).to(start.dtype)
    # roi_start + cell·bin + (i + 0.5)·bin / grid, evaluated in the kernel's order
    pos = ((start[:, None] + cell[None, :] * bin_size[:, None])[:, :, None]
           + step[None, None, :] * bin_size[:, None, None] / grid[:, None, None].to(start.dtype))
    used = torch.arange(max_grid, device=start.device)[None, None, :] < grid[:, None, None]
    return pos, used


def roi_align_kernel(x: torch.Tensor, rois: torch.Tensor, pooled_h: int, pooled_w: int, spatial_scale: float,
                     sampling_ratio: int) -> torch.Tensor:
    n, c, h, w = x.shape
    r = rois.detach()  # OneFlow gives rois no gradient
    num = r.shape[0]
    batch = r[:, 0].to(torch.int64)
    start_w, start_h = r[:, 1] * spatial_scale, r[:, 2] * spatial_scale
    roi_w = (r[:, 3] * spatial_scale - start_w).clamp_min(1.0)
    roi_h = (r[:, 4] * spatial_scale - start_h).clamp_min(1.0)
    bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
    if sampling_ratio > 0:
        grid_h = torch.full((num,), sampling_ratio, dtype=torch.int64, device=r.device)
        grid_w = grid_h
        max_h = max_w = sampling_ratio
    else:  # adaptive: ceil(roi size / pooled size) samples per bin, per roi
        grid_h = torch.ceil(roi_h / pooled_h).to(torch.int64)
        grid_w = torch.ceil(roi_w / pooled_w).to(torch.int64)
        max_h = int(grid_h.max()) if num else 1
        max_w = int(grid_w.max()) if num else 1
    ys, used_y = _sample_positions(start_h, bin_h, pooled_h, grid_h, max_h)  # (R, ph, gh)
    xs, used_x = _sample_positions(start_w, bin_w, pooled_w, grid_w, max_w)  # (R, pw, gw)
    y_low, y_high, y_w_low, y_w_high, y_ok = _corners(ys, h)
    x_low, x_high, x_w_low, x_w_high, x_ok = _corners(xs, w)
    keep = ((y_ok & used_y)[:, :, :, None, None] & (x_ok & used_x)[:, None, None, :, :]).to(x.dtype)
    base = (batch * (h * w))[:, None, None, None, None]
    index, weight = [], []
    for yi, yw in ((y_low, y_w_low), (y_high, y_w_high)):
        for xi, xw in ((x_low, x_w_low), (x_high, x_w_high)):
            index.append(base + (yi * w)[:, :, :, None, None] + xi[:, None, None, :, :])  # (R, ph, gh, pw, gw)
            weight.append(yw[:, :, :, None, None] * xw[:, None, None, :, :] * keep)
    # one bag per output cell of its samples' four neighbours: (R·ph·pw, gh·gw·4)
    bags, taps = num * pooled_h * pooled_w, max_h * max_w * 4
    index_t = torch.stack(index, -1).permute(0, 1, 3, 2, 4, 5).reshape(bags, taps)
    weight_t = torch.stack(weight, -1).permute(0, 1, 3, 2, 4, 5).reshape(bags, taps).to(x.dtype)
    rows = x.permute(0, 2, 3, 1).reshape(n * h * w, c)
    # the weighted sum of gathered rows; its gradient scatters dy·weight back, as RoiAlignBackward does
    out = torch.nn.functional.embedding_bag(index_t, rows, per_sample_weights=weight_t, mode="sum")
    count = (grid_h * grid_w).to(x.dtype)[:, None, None, None]
    return (out.reshape(num, pooled_h, pooled_w, c) / count).permute(0, 3, 1, 2)


def roi_align(x: Blob, rois: Blob, pooled_h: int, pooled_w: int, name: str | None = None,
              spatial_scale: float = 0.0625, sampling_ratio: int = 2) -> Blob:
    """``flow.detection.roi_align(x, rois, pooled_h, pooled_w, spatial_scale=0.0625, sampling_ratio=2)``:
    (R, C, pooled_h, pooled_w) features of ``x`` (N, C, H, W) under each roi (R, 5: batch index, x1, y1, x2,
    y2 in image pixels, scaled by ``spatial_scale``). OneFlow's (Detectron's) unaligned RoIAlign: no half-pixel
    shift, rois at least 1×1 on the feature map, each bin the mean of ``sampling_ratio``² bilinear samples
    (``sampling_ratio <= 0``: ``ceil(roi size / pooled size)`` per axis). ``x`` gets a gradient, ``rois``
    none (``RoiAlign_<n>/out``)."""
    op = "detection.roi_align"
    feat = check_float_blob(x, op, "x")
    boxes = check_float_blob(rois, op, "rois")
    if feat.ndim != 4:
        raise arg_error(op, "x", "a blob of shape (N, C, H, W)", Desc(f"{feat.lbn} {feat.shape}"))
    if boxes.ndim != 2 or boxes.shape[1] != 5:
        raise arg_error(op, "rois", "a blob of shape (R, 5)", Desc(f"{boxes.lbn} {boxes.shape}"))
    if boxes.meta.dtype != feat.meta.dtype:
        raise arg_error(op, "rois", f"of x's dtype {feat.dtype}", Desc(f"{boxes.lbn} of dtype {boxes.dtype}"))
    ph, pw = check_int(pooled_h, op, "pooled_h"), check_int(pooled_w, op, "pooled_w")
    scale = float(np.float32(check_number(spatial_scale, op, "spatial_scale")))
    if not is_int(sampling_ratio):
        raise arg_error(op, "sampling_ratio", "an int (<= 0: adaptive)", sampling_ratio)
    return apply(roi_align_kernel, feat, boxes, ph, pw, scale, int(sampling_ratio), op_type="roi_align",
                 prefix="RoiAlign", name=name, outputs=("out",),
                 meta=_meta((boxes.shape[0], feat.shape[1], ph, pw), feat.meta.dtype))


# --- masks_crop_and_resize ----------------------------------------------------------------------------------
def _mask_axis(start: torch.Tensor, end: torch.Tensor, out_size: int,
               size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Neighbours and weights along one axis of the (R, out_size) output pixel centres."""
    bin_size = (end - start) / out_size
    centre = torch.arange(out_size, dtype=torch.float32, device=start.device).add_(0.5).to(start.dtype)
    pos = (start[:, None] + (centre[None, :] * bin_size[:, None] - 0.5)).clamp_min(0)
    # OneFlow asserted that every roi lies inside its mask; the clamp only keeps a stray roi in bounds
    low = torch.floor(pos).to(torch.int64).clamp(max=size - 1)
    high = torch.where(low < size - 1, low + 1, low)
    frac = pos - low.to(pos.dtype)
    return low, high, 1 - frac, frac


def masks_crop_and_resize_kernel(masks: torch.Tensor, rois: torch.Tensor, mask_h: int, mask_w: int) -> torch.Tensor:
    num, c, h, w = masks.shape
    r = torch.round(rois.detach())  # rint: half to even
    y_low, y_high, y_w_low, y_w_high = _mask_axis(r[:, 1], r[:, 3], mask_h, h)
    x_low, x_high, x_w_low, x_w_high = _mask_axis(r[:, 0], r[:, 2], mask_w, w)
    flat = masks.reshape(num, c, h * w).to(r.dtype)

    def read(yi: torch.Tensor, xi: torch.Tensor) -> torch.Tensor:
        index = (yi[:, :, None] * w + xi[:, None, :]).reshape(num, 1, mask_h * mask_w).expand(num, c, -1)
        return torch.gather(flat, 2, index).reshape(num, c, mask_h, mask_w)

    yl, yh = y_w_low[:, None, :, None], y_w_high[:, None, :, None]
    xl, xh = x_w_low[:, None, None, :], x_w_high[:, None, None, :]
    return (yl * (xl * read(y_low, x_low) + xh * read(y_low, x_high))
            + yh * (xl * read(y_high, x_low) + xh * read(y_high, x_high)))


def masks_crop_and_resize(masks: Blob, rois: Blob, mask_h: int, mask_w: int, name: str | None = None) -> Blob:
    """``flow.detection.masks_crop_and_resize(masks, rois, mask_h, mask_w)``: each int8 mask (N, C, H, W)
    cropped to its roi (N, 4: x1, y1, x2, y2, rounded half to even) and resized bilinearly to
    (mask_h, mask_w), sampling at the output pixel centres; dtype of ``rois``, no gradient
    (``masks_crop_and_resize_<n>/out``)."""
    op = "detection.masks_crop_and_resize"
    m = check_blob(masks, op, "masks")
    boxes = check_float_blob(rois, op, "rois")
    if m.ndim != 4 or m.meta.dtype != torch.int8:
        raise arg_error(op, "masks", "an int8 blob of shape (N, C, H, W)", Desc(f"{m.lbn} {m.shape} {m.dtype}"))
    if boxes.ndim != 2 or boxes.shape[1] != 4 or boxes.shape[0] != m.shape[0]:
        raise arg_error(op, "rois", f"a blob of shape ({m.shape[0]}, 4)", Desc(f"{boxes.lbn} {boxes.shape}"))
    mh, mw = check_int(mask_h, op, "mask_h"), check_int(mask_w, op, "mask_w")
    return apply(masks_crop_and_resize_kernel, m, boxes, mh, mw, op_type="masks_crop_and_resize",
                 prefix="masks_crop_and_resize", name=name, outputs=("out",),
                 meta=_meta((m.shape[0], m.shape[1], mh, mw), boxes.meta.dtype))


# --- upsample_nearest ---------------------------------------------------------------------------------------
def _nearest_index(size: int, scale: int, device: torch.device) -> torch.Tensor:
    # floorf(i · (1.f / scale)) in float32, as the kernel computes the source row/column
    inverse = float(np.float32(1.0) / np.float32(scale))
    pos = torch.arange(size * scale, dtype=torch.float32, device=device) * inverse
    return torch.floor(pos).to(torch.int64).clamp(max=size - 1)


def upsample_nearest_kernel(x: torch.Tensor, scale: int) -> torch.Tensor:
    rows = _nearest_index(x.shape[2], scale, x.device)
    cols = _nearest_index(x.shape[3], scale, x.device)
    return x.index_select(2, rows).index_select(3, cols)


def upsample_nearest(inputs: Blob, scale: int, data_format: str, name: str | None = None) -> Blob:
    """``flow.detection.upsample_nearest(inputs, scale, data_format)``: every pixel of an NCHW blob repeated
    ``scale``×``scale`` (an int > 1; ``data_format`` must be ``"channels_first"``); the gradient sums each
    block back (``UpsampleNearest_<n>/out``)."""
    op = "detection.upsample_nearest"
    x = check_float_blob(inputs, op, "inputs")
    k = check_int(scale, op, "scale", minimum=2)
    if data_format != "channels_first":
        raise arg_error(op, "data_format", '"channels_first" (OneFlow supported NCHW only)', data_format)
    if x.ndim != 4:
        raise arg_error(op, "inputs", "a blob of shape (N, C, H, W)", Desc(f"{x.lbn} {x.shape}"))
    n, c, h, w = x.shape
    return apply(upsample_nearest_kernel, x, k, op_type="upsample_nearest", prefix="UpsampleNearest", name=name,
                 outputs=("out",), meta=_meta((n, c, h * k, w * k), x.meta.dtype))
