"""OneFlow v0.1.2's Mask R-CNN box ops (``flow.detection.*``, ``oneflow/python/ops/detection.py``): IoU,
box encoding and decoding, FPN level mapping, anchors, box filters, NMS, and the samplers and splitters of
dynamic index blobs.

v0.1.2 still exported these functions, but its C++ had dropped their operators; the math below follows the
kernels and operators as OneFlow last had them (``oneflow/core/kernel/*_kernel.{cpp,cu}`` and
``oneflow/core/operator/*_op.cpp`` before commit 4722dfff, December 2019). Boxes are ``(x1, y1, x2, y2)`` in
pixels with Detectron's "+1" convention: a box spans ``x2 - x1 + 1`` pixels. None of these ops has a
gradient in OneFlow (their inputs were enrolled without diffs), so their kernels read their inputs detached.
Float attributes are rounded to float32 first, as OneFlow's protos stored them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blobs, check_float_blob, check_number, is_int, is_number
from flowtorch._src.ops._record import apply, check_blob

__all__ = ["anchor_generate", "box_decode", "box_encode", "calc_iou_matrix", "clip_to_image",
           "extract_piece_slice_id", "identify_non_small_boxes", "identify_outside_anchors", "level_map",
           "maskrcnn_split", "nms", "pos_neg_sampler"]

_INDEX_DTYPES = (torch.int8, torch.int32, torch.int64)
_WEIGHT_KEYS = ("weight_x", "weight_y", "weight_w", "weight_h")


def _f32(value: float) -> float:
    """``value`` as OneFlow's float proto field held it."""
    return float(np.float32(value))


def _meta(shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
    return torch.empty(tuple(shape), dtype=dtype, device="meta")


def _boxes(x: Any, op: str, arg: str, *, n_axes: int | None = 2) -> Blob:
    """A floating-point blob of boxes: ``(N, 4)`` (``n_axes=2``) or any shape ending in 4 (``None``)."""
    b = check_float_blob(x, op, arg)
    if b.ndim == 0 or b.shape[-1] != 4 or (n_axes is not None and b.ndim != n_axes):
        what = "a blob of shape (N, 4)" if n_axes == 2 else "a blob whose last axis has 4 elements"
        raise arg_error(op, arg, what, Desc(f"{b.lbn} {b.shape}"))
    return b


def _image_size(x: Any, op: str) -> Blob:
    size = check_blob(x, op, "image_size")
    if size.shape != (2,) or size.meta.dtype != torch.int32:
        raise arg_error(op, "image_size", "an int32 blob of shape (2,) holding (height, width)",
                        Desc(f"{size.lbn} {size.shape} {size.dtype}"))
    return size


def _same_dtype(a: Blob, b: Blob, op: str, arg: str) -> None:
    if a.meta.dtype != b.meta.dtype:
        raise arg_error(op, arg, f"of dtype {a.dtype} (as {a.lbn})", Desc(f"{b.lbn} of dtype {b.dtype}"))


# --- IoU ----------------------------------------------------------------------------------------------------
def iou_kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """IoU of every box of ``a`` (M, 4) with every box of ``b`` (G, 4), in the boxes' dtype, with +1 sizes."""
    iw = (torch.minimum(a[:, None, 2], b[None, :, 2]) - torch.maximum(a[:, None, 0], b[None, :, 0]) + 1)
    ih = (torch.minimum(a[:, None, 3], b[None, :, 3]) - torch.maximum(a[:, None, 1], b[None, :, 1]) + 1)
    area_a = (a[:, 3] - a[:, 1] + 1) * (a[:, 2] - a[:, 0] + 1)
    area_b = (b[:, 3] - b[:, 1] + 1) * (b[:, 2] - b[:, 0] + 1)
    inter = iw * ih
    iou = inter / (area_a[:, None] + area_b[None, :] - inter)
    return torch.where((iw > 0) & (ih > 0), iou, torch.zeros_like(iou))


def calc_iou_matrix_kernel(boxes1: torch.Tensor, boxes2: torch.Tensor) -> torch.Tensor:
    return iou_kernel(boxes1.detach(), boxes2.detach()).to(torch.float32)


def calc_iou_matrix(boxes1: Blob, boxes2: Blob, name: str | None = None) -> Blob:
    """``flow.detection.calc_iou_matrix(boxes1, boxes2)``: the (M, G) float32 IoU matrix of boxes1 (M, 4) and
    boxes2 (G, 4); boxes that do not overlap have IoU 0 (``CalcIoUMatrix_<n>/iou_matrix``)."""
    op = "detection.calc_iou_matrix"
    a, b = _boxes(boxes1, op, "boxes1"), _boxes(boxes2, op, "boxes2")
    _same_dtype(a, b, op, "boxes2")
    return apply(calc_iou_matrix_kernel, a, b, op_type="calc_iou_matrix", prefix="CalcIoUMatrix", name=name,
                 outputs=("iou_matrix",), meta=_meta((a.shape[0], b.shape[0]), torch.float32))


# --- box encode / decode ------------------------------------------------------------------------------------
def _weights(regression_weights: Any, op: str) -> tuple[float, float, float, float]:
    if not isinstance(regression_weights, Mapping) or not all(
            k in regression_weights and is_number(regression_weights[k]) for k in _WEIGHT_KEYS):
        raise arg_error(op, "regression_weights", "a dict of numbers with keys " + ", ".join(_WEIGHT_KEYS),
                        regression_weights)
    wx, wy, ww, wh = (_f32(regression_weights[k]) for k in _WEIGHT_KEYS)
    return wx, wy, ww, wh


def box_encode_kernel(ref_boxes: torch.Tensor, boxes: torch.Tensor,
                      weights: tuple[float, float, float, float]) -> torch.Tensor:
    wx, wy, ww, wh = weights
    ref, box = ref_boxes.detach(), boxes.detach()
    ref_w, ref_h = ref[:, 2] - ref[:, 0] + 1, ref[:, 3] - ref[:, 1] + 1
    box_w, box_h = box[:, 2] - box[:, 0] + 1, box[:, 3] - box[:, 1] + 1
    # the CUDA kernel's 0.5 is a double: the centre offsets are computed in double, the log ratios in T
    d = torch.float64
    dx = wx * ((ref[:, 0].to(d) + 0.5 * ref_w.to(d)) - (box[:, 0].to(d) + 0.5 * box_w.to(d))) / box_w.to(d)
    dy = wy * ((ref[:, 1].to(d) + 0.5 * ref_h.to(d)) - (box[:, 1].to(d) + 0.5 * box_h.to(d))) / box_h.to(d)
    return torch.stack([dx.to(ref.dtype), dy.to(ref.dtype), ww * torch.log(ref_w / box_w),
                        wh * torch.log(ref_h / box_h)], dim=1)


def box_encode(ref_boxes: Blob, boxes: Blob, regression_weights: Mapping[str, float], name: str | None = None) -> Blob:
    """``flow.detection.box_encode(ref_boxes, boxes, regression_weights)``: the regression targets that move
    each box (N, 4) onto its ref box (N, 4): ``(wx·(cx_ref − cx)/w, wy·(cy_ref − cy)/h, ww·log(w_ref/w),
    wh·log(h_ref/h))`` with ``w = x2 − x1 + 1`` (``BoxEncode_<n>/boxes_delta``). ``regression_weights`` is a
    dict with keys ``weight_x``, ``weight_y``, ``weight_w``, ``weight_h``."""
    op = "detection.box_encode"
    ref, box = _boxes(ref_boxes, op, "ref_boxes"), _boxes(boxes, op, "boxes")
    if ref.shape != box.shape:
        raise arg_error(op, "boxes", f"the shape of ref_boxes {ref.shape}", Desc(f"{box.lbn} {box.shape}"))
    _same_dtype(ref, box, op, "boxes")
    weights = _weights(regression_weights, op)
    return apply(box_encode_kernel, ref, box, weights, op_type="box_encode", prefix="BoxEncode", name=name,
                 outputs=("boxes_delta",), meta=_meta(ref.shape, ref.meta.dtype))


def box_decode_kernel(ref_boxes: torch.Tensor, boxes_delta: torch.Tensor,
                      weights: tuple[float, float, float, float]) -> torch.Tensor:
    wx, wy, ww, wh = weights
    ref = ref_boxes.detach()
    delta = boxes_delta.detach().reshape(ref.shape[0], -1, 4)  # M deltas per ref box
    t, d = ref.dtype, torch.float64
    ref_w, ref_h = (ref[:, 2] - ref[:, 0] + 1)[:, None], (ref[:, 3] - ref[:, 1] + 1)[:, None]
    ctr_x = (ref[:, 0, None].to(d) + 0.5 * ref_w.to(d)).to(t)
    ctr_y = (ref[:, 1, None].to(d) + 0.5 * ref_h.to(d)).to(t)
    pred_x = delta[..., 0] / wx * ref_w + ctr_x
    pred_y = delta[..., 1] / wy * ref_h + ctr_y
    pred_w = (torch.exp(delta[..., 2] / ww) * ref_w).to(d)
    pred_h = (torch.exp(delta[..., 3] / wh) * ref_h).to(d)
    px, py = pred_x.to(d), pred_y.to(d)
    out = torch.stack([px - 0.5 * pred_w, py - 0.5 * pred_h, px + 0.5 * pred_w - 1.0, py + 0.5 * pred_h - 1.0],
                      dim=-1)
    return out.to(t).reshape(boxes_delta.shape)


def box_decode(ref_boxes: Blob, boxes_delta: Blob, regression_weights: Mapping[str, float],
               name: str | None = None) -> Blob:
    """``flow.detection.box_decode(ref_boxes, boxes_delta, regression_weights)``: the boxes that the deltas
    (N, 4·M; M per ref box, e.g. one per class) describe relative to ref_boxes (N, 4), the inverse of
    ``box_encode``; ``x2 = cx + w/2 − 1``, no clamp on the size deltas (``BoxDecode_<n>/boxes``)."""
    op = "detection.box_decode"
    ref = _boxes(ref_boxes, op, "ref_boxes")
    delta = check_float_blob(boxes_delta, op, "boxes_delta")
    if delta.ndim != 2 or delta.shape[0] != ref.shape[0] or delta.shape[1] % 4:
        raise arg_error(op, "boxes_delta", f"a blob of shape ({ref.shape[0]}, 4·M)", Desc(f"{delta.lbn} {delta.shape}"))
    _same_dtype(ref, delta, op, "boxes_delta")
    weights = _weights(regression_weights, op)
    return apply(box_decode_kernel, ref, delta, weights, op_type="box_decode", prefix="BoxDecode", name=name,
                 outputs=("boxes",), meta=_meta(delta.shape, ref.meta.dtype))


# --- FPN level of each box ----------------------------------------------------------------------------------
def level_map_kernel(boxes: torch.Tensor, min_level: int, max_level: int, canonical_level: int,
                     canonical_scale: float, epsilon: float) -> torch.Tensor:
    b = boxes.detach()
    scale = torch.sqrt((b[..., 2] - b[..., 0] + 1) * (b[..., 3] - b[..., 1] + 1))
    level = torch.floor(canonical_level + torch.log2(scale / canonical_scale + epsilon))
    # a degenerate box (log of a non-positive number) goes to the lowest level instead of an undefined cast
    level = torch.nan_to_num(level, nan=float(min_level)).clamp(min_level, max_level)
    return level.to(torch.int32) - min_level


def level_map(inputs: Blob, min_level: int = 2, max_level: int = 5, canonical_level: int = 4,
              canonical_scale: float = 224, epsilon: float = 1e-6, name: str | None = None) -> Blob:
    """``flow.detection.level_map(inputs, min_level=2, max_level=5, canonical_level=4, canonical_scale=224,
    epsilon=1e-6)``: the FPN level of each box (the last axis holds the 4 coordinates), counted from
    ``min_level``: ``clip(floor(canonical_level + log2(sqrt(w·h)/canonical_scale + epsilon)), min_level,
    max_level) − min_level`` with +1 sizes; int32 of ``inputs.shape[:-1]`` (``LevelMap_<n>/out``)."""
    op = "detection.level_map"
    b = _boxes(inputs, op, "inputs", n_axes=None)
    levels = [v for v in (min_level, max_level, canonical_level) if not is_int(v)]
    if levels:
        raise arg_error(op, "min_level/max_level/canonical_level", "ints", levels[0])
    if min_level > max_level:
        raise arg_error(op, "max_level", f"an int >= min_level ({min_level})", max_level)
    scale, eps = _f32(check_number(canonical_scale, op, "canonical_scale")), _f32(check_number(epsilon, op, "epsilon"))
    return apply(level_map_kernel, b, int(min_level), int(max_level), int(canonical_level), scale, eps,
                 op_type="level_map", prefix="LevelMap", name=name, outputs=("out",),
                 meta=_meta(b.shape[:-1], torch.int32))


# --- anchors ------------------------------------------------------------------------------------------------
def base_anchors(stride: int, aspect_ratios: Sequence[float],
                 anchor_scales: Sequence[float]) -> tuple[tuple[float, float, float, float], ...]:
    """The anchors of the cell at the origin, ratio-major (for each ratio, each scale), as OneFlow's CPU
    kernel computed them: float32 sizes rounded half to even, then truncated after scaling."""
    s = np.float32(stride)
    ctr = 0.5 * (float(s) - 1)
    out: list[tuple[float, float, float, float]] = []
    for ratio in aspect_ratios:
        r = np.float32(ratio)
        wr = int(np.rint(np.sqrt(s * s / r)))
        hr = int(np.rint(np.float32(wr) * r))
        for anchor_scale in anchor_scales:
            k = np.float32(anchor_scale) / s
            ws, hs = int(np.float32(wr) * k), int(np.float32(hr) * k)
            out.append((ctr - 0.5 * (ws - 1), ctr - 0.5 * (hs - 1), ctr + 0.5 * (ws - 1), ctr + 0.5 * (hs - 1)))
    return tuple(out)  # plain floats: the fx graph keeps them as a literal


def anchor_grid_size(height: int, width: int, stride: int) -> tuple[int, int]:
    s = np.float32(stride)
    return math.ceil(np.float32(height) / s), math.ceil(np.float32(width) / s)


def anchor_generate_kernel(images: torch.Tensor, stride: int,
                           base: tuple[tuple[float, float, float, float], ...]) -> torch.Tensor:
    fh, fw = anchor_grid_size(images.shape[1], images.shape[2], stride)
    dtype, dev = images.dtype, images.device
    cell = torch.as_tensor(base, dtype=dtype, device=dev)
    # the shifts are float32 products (int · float stride) in the kernel, added in T
    sx = (torch.arange(fw, dtype=torch.float32, device=dev) * float(stride)).to(dtype)
    sy = (torch.arange(fh, dtype=torch.float32, device=dev) * float(stride)).to(dtype)
    shift = torch.stack([sx[None, :].expand(fh, fw), sy[:, None].expand(fh, fw)] * 2, dim=-1)  # (fh, fw, 4)
    return (shift[:, :, None, :] + cell).reshape(-1, 4)


def _float_list(value: Any, op: str, arg: str) -> list[float]:
    if not isinstance(value, (list, tuple)) or not value or not all(is_number(v) and v > 0 for v in value):
        raise arg_error(op, arg, "a non-empty list/tuple of positive numbers", value)
    return [float(v) for v in value]


def anchor_generate(images: Blob, feature_map_stride: int, aspect_ratios: Sequence[float],
                    anchor_scales: float | Sequence[float], name: str | None = None) -> Blob:
    """``flow.detection.anchor_generate(images, feature_map_stride, aspect_ratios, anchor_scales)``: the
    anchors (x1, y1, x2, y2) of every cell of a feature map of stride ``feature_map_stride`` over ``images``
    (N, H, W, C): ``ceil(H/stride)·ceil(W/stride)`` cells in row-major order, each with
    ``len(aspect_ratios)·len(anchor_scales)`` anchors (ratio-major) centred on ``(stride − 1)/2`` plus the
    cell's offset; dtype of ``images`` (``AnchorGenerate_<n>/anchors``)."""
    op = "detection.anchor_generate"
    img = check_float_blob(images, op, "images")
    if img.ndim != 4:
        raise arg_error(op, "images", "a blob of shape (N, H, W, C)", Desc(f"{img.lbn} {img.shape}"))
    if not is_int(feature_map_stride) or feature_map_stride <= 0:
        raise arg_error(op, "feature_map_stride", "a positive int", feature_map_stride)
    if not isinstance(aspect_ratios, (list, tuple)):  # (OneFlow asserted a list here, but took a bare scale)
        raise arg_error(op, "aspect_ratios", "a list or tuple", aspect_ratios)
    ratios = _float_list(aspect_ratios, op, "aspect_ratios")
    scales = _float_list(anchor_scales if isinstance(anchor_scales, (list, tuple)) else [anchor_scales], op,
                         "anchor_scales")
    stride = int(feature_map_stride)
    base = base_anchors(stride, ratios, scales)
    fh, fw = anchor_grid_size(img.shape[1], img.shape[2], stride)
    return apply(anchor_generate_kernel, img, stride, base, op_type="anchor_generate", prefix="AnchorGenerate",
                 name=name, outputs=("anchors",), meta=_meta((fh * fw * len(base), 4), img.meta.dtype))


# --- box filters --------------------------------------------------------------------------------------------
def identify_non_small_boxes_kernel(boxes: torch.Tensor, min_size: float) -> torch.Tensor:
    b = boxes.detach()
    return ((b[:, 2] - b[:, 0] >= min_size) & (b[:, 3] - b[:, 1] >= min_size)).to(torch.int8)


def identify_non_small_boxes(inputs: Blob, min_size: float = 0.0, name: str | None = None) -> Blob:
    """``flow.detection.identify_non_small_boxes(inputs, min_size=0.0)``: int8 (N,), 1 where both
    ``x2 − x1`` and ``y2 − y1`` (no +1 here) are at least ``min_size`` (``IdentifyNonSmallBoxes_<n>/out``)."""
    op = "detection.identify_non_small_boxes"
    b = _boxes(inputs, op, "inputs")
    size = _f32(check_number(min_size, op, "min_size"))
    return apply(identify_non_small_boxes_kernel, b, size, op_type="identify_non_small_boxes",
                 prefix="IdentifyNonSmallBoxes", name=name, outputs=("out",), meta=_meta((b.shape[0],), torch.int8))


def identify_outside_anchors_kernel(anchors: torch.Tensor, image_size: torch.Tensor,
                                    tolerance: float) -> torch.Tensor:
    a = anchors.detach()
    # the kernel compares with image_size + tolerance computed in float32
    limit = (image_size.to(torch.float32) + tolerance).to(a.dtype)
    outside = (a[:, 0] < -tolerance) | (a[:, 1] < -tolerance) | (a[:, 2] >= limit[1]) | (a[:, 3] >= limit[0])
    return outside.to(torch.int8)


def identify_outside_anchors(anchors: Blob, image_size: Blob, tolerance: float = 0.0, name: str | None = None) -> Blob:
    """``flow.detection.identify_outside_anchors(anchors, image_size, tolerance=0.0)``: int8 (R,), 1 for each
    anchor that crosses the image (``x1 < −tol``, ``y1 < −tol``, ``x2 >= width + tol`` or
    ``y2 >= height + tol``); ``image_size`` is int32 (height, width) (``IdentifyOutsideAnchors_<n>/out``)."""
    op = "detection.identify_outside_anchors"
    a = _boxes(anchors, op, "anchors")
    size = _image_size(image_size, op)
    tol = _f32(check_number(tolerance, op, "tolerance"))
    return apply(identify_outside_anchors_kernel, a, size, tol, op_type="identify_outside_anchors",
                 prefix="IdentifyOutsideAnchors", name=name, outputs=("out",), meta=_meta((a.shape[0],), torch.int8),
                 dynamic=a.is_dynamic)


def clip_to_image_kernel(boxes: torch.Tensor, image_size: torch.Tensor) -> torch.Tensor:
    b = boxes.detach().reshape(-1, 4)
    size = image_size.to(b.dtype) - 1
    hi = torch.stack([size[1], size[0], size[1], size[0]])
    return torch.minimum(b.clamp_min(0), hi).reshape(boxes.shape)


def clip_to_image(boxes: Blob, image_size: Blob, name: str | None = None) -> Blob:
    """``flow.detection.clip_to_image(boxes, image_size)``: every box (any shape of 4-coordinate rows)
    clipped to ``[0, width − 1] × [0, height − 1]``; ``image_size`` is int32 (height, width)
    (``ClipBoxesToImage_<n>/out``)."""
    op = "detection.clip_to_image"
    b = check_float_blob(boxes, op, "boxes")
    if b.ndim == 0 or math.prod(b.shape) % 4:
        raise arg_error(op, "boxes", "a blob whose element count divides by 4", Desc(f"{b.lbn} {b.shape}"))
    size = _image_size(image_size, op)
    return apply(clip_to_image_kernel, b, size, op_type="clip_boxes_to_image", prefix="ClipBoxesToImage",
                 name=name, outputs=("out",), meta=_meta(b.shape, b.meta.dtype), dynamic=b.is_dynamic)


# --- NMS ----------------------------------------------------------------------------------------------------
def nms_kernel(boxes: torch.Tensor, threshold: float, top_n: int) -> torch.Tensor:
    n = boxes.shape[0]
    keep = np.zeros(n, np.int8)
    if n:
        b = boxes.detach()
        over = torch.triu(iou_kernel(b, b) > threshold, diagonal=1).cpu().numpy()
        removed = np.zeros(n, bool)
        limit = n if top_n <= 0 else min(n, top_n)
        kept = 0
        for i in range(n):  # greedy, in the given order (the boxes come sorted by score)
            if removed[i]:
                continue
            keep[i] = 1
            kept += 1
            if kept == limit:
                break
            removed |= over[i]
    return torch.from_numpy(keep).to(boxes.device)


def nms(inputs: Blob, nms_iou_threshold: float = 0.7, post_nms_top_n: int = 1000, name: str | None = None) -> Blob:
    """``flow.detection.nms(inputs, nms_iou_threshold=0.7, post_nms_top_n=1000)``: greedy non-maximum
    suppression of boxes (N, 4) already sorted by score: an int8 (N,) keep mask where box i is kept unless a
    kept box before it has IoU (+1 sizes) greater than the threshold with it; at most ``post_nms_top_n`` boxes
    are kept (all with ``post_nms_top_n <= 0``) (``NonMaximumSuppression_<n>/out``). OneFlow's GPU kernel
    counted ``post_nms_top_n`` per block of 64 boxes, so only a limit below 64 acted there; flowtorch keeps
    the first ``post_nms_top_n`` boxes that survive, as the option says."""
    op = "detection.nms"
    b = _boxes(inputs, op, "inputs")
    threshold = _f32(check_number(nms_iou_threshold, op, "nms_iou_threshold"))
    if not is_int(post_nms_top_n):
        raise arg_error(op, "post_nms_top_n", "an int (<= 0: no limit)", post_nms_top_n)
    return apply(nms_kernel, b, threshold, int(post_nms_top_n), op_type="non_maximum_suppression",
                 prefix="NonMaximumSuppression", name=name, outputs=("out",), meta=_meta((b.shape[0],), torch.int8))


# --- per-image ids, sampling and splitting of dynamic blobs ---------------------------------------------------
def extract_piece_slice_id_kernel(*inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return tuple(torch.full((x.shape[0],), i, dtype=torch.int32, device=x.device) for i, x in enumerate(inputs))


def extract_piece_slice_id(inputs: Sequence[Blob], name: str | None = None) -> tuple[Blob, ...]:
    """``flow.detection.extract_piece_slice_id(inputs)``: for the i-th blob of ``inputs`` (one per image), an
    int32 (len,) blob filled with i, dynamic as that blob (``ExtractPieceSliceId_<n>/out_<i>``)."""
    op = "detection.extract_piece_slice_id"
    blobs = check_blobs(inputs, op, "inputs")
    for b in blobs[1:]:
        _same_dtype(blobs[0], b, op, "inputs")
    for i, b in enumerate(blobs):
        if b.ndim == 0:
            raise arg_error(op, f"inputs[{i}]", "a blob of rank >= 1", Desc(f"{b.lbn} {b.shape}"))
    metas = tuple(_meta((b.shape[0],), torch.int32) for b in blobs)
    out = apply(extract_piece_slice_id_kernel, *blobs, op_type="extract_piece_slice_id", prefix="ExtractPieceSliceId",
                name=name, outputs=tuple(f"out_{i}" for i in range(len(blobs))), meta=metas,
                dynamic=tuple(b.is_dynamic for b in blobs))
    return out if isinstance(out, tuple) else (out,)


def pos_neg_sampler_kernel(pos: torch.Tensor, neg: torch.Tensor, max_pos: int,
                           total: int) -> tuple[torch.Tensor, torch.Tensor]:
    num_pos = min(max_pos, pos.shape[0])
    return pos[:num_pos], neg[:min(total - num_pos, neg.shape[0])]


def pos_neg_sampler(pos_inds: Blob, neg_inds: Blob, total_subsample_num: int, pos_fraction: float,
                    name: str | None = None) -> list[Blob]:
    """``flow.detection.pos_neg_sampler`` (also ``maskrcnn_positive_negative_sample``)``(pos_inds, neg_inds,
    total_subsample_num, pos_fraction)``: the first ``min(int(total·fraction), len(pos))`` positive indices
    and the first ``min(total − that, len(neg))`` negative ones (shuffle them before to sample at random), as
    dynamic blobs of static shapes ``(int(total·fraction),)`` and ``(total,)``
    (``MaskrcnnPositiveNegativeSample_<n>/{sampled_pos_inds,sampled_neg_inds}``)."""
    op = "detection.pos_neg_sampler"
    pos, neg = check_blob(pos_inds, op, "pos_inds"), check_blob(neg_inds, op, "neg_inds")
    for arg, b in (("pos_inds", pos), ("neg_inds", neg)):
        if b.ndim != 1 or b.meta.dtype not in _INDEX_DTYPES:
            raise arg_error(op, arg, "a 1-D int8/int32/int64 blob", Desc(f"{b.lbn} {b.shape} {b.dtype}"))
    if not is_int(total_subsample_num) or total_subsample_num < 0:
        raise arg_error(op, "total_subsample_num", "a non-negative int", total_subsample_num)
    fraction = check_number(pos_fraction, op, "pos_fraction")
    if not 0.0 <= fraction <= 1.0:
        raise arg_error(op, "pos_fraction", "a number in [0, 1]", pos_fraction)
    total = int(total_subsample_num)
    max_pos = int(np.float32(total) * np.float32(fraction))
    metas = (_meta((max_pos,), pos.meta.dtype), _meta((total,), neg.meta.dtype))
    out = apply(pos_neg_sampler_kernel, pos, neg, max_pos, total, op_type="maskrcnn_positive_negative_sample",
                prefix="MaskrcnnPositiveNegativeSample", name=name, outputs=("sampled_pos_inds", "sampled_neg_inds"),
                meta=metas, dynamic=True)
    return list(out)


def maskrcnn_split_kernel(x: torch.Tensor, *segms: torch.Tensor) -> tuple[torch.Tensor, ...]:
    sizes = [s.shape[0] for s in segms]
    if sum(sizes) != x.shape[0]:
        raise RuntimeError(f"flow.detection.maskrcnn_split: the segms have {sum(sizes)} rows in this step "
                           f"({sizes}), the input {x.shape[0]}; they must be equal")
    return tuple(torch.split(x.detach(), sizes))


def maskrcnn_split(input: Blob, segms: Sequence[Blob], name: str | None = None) -> list[Blob]:
    """``flow.detection.maskrcnn_split(input, segms)``: ``input`` cut along axis 0 into parts as long as each
    blob of ``segms`` is (at run time; they must add up to ``input``'s length), each part dynamic as its segm
    (``MaskrcnnSplit_<n>/out_<i>``)."""
    op = "detection.maskrcnn_split"
    x = check_blob(input, op, "input")
    parts = check_blobs(segms, op, "segms")
    if x.ndim == 0 or any(s.ndim == 0 for s in parts):
        raise arg_error(op, "input/segms", "blobs of rank >= 1", Desc(f"{x.lbn} {x.shape}"))
    metas = tuple(_meta((s.shape[0],) + x.shape[1:], x.meta.dtype) for s in parts)
    out = apply(maskrcnn_split_kernel, x, *parts, op_type="maskrcnn_split", prefix="MaskrcnnSplit", name=name,
                outputs=tuple(f"out_{i}" for i in range(len(parts))), meta=metas,
                dynamic=tuple(s.is_dynamic for s in parts))
    return list(out) if isinstance(out, tuple) else [out]
