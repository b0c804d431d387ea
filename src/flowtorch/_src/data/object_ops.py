"""Detection-target ops on tensor buffers: ``flow.object_bbox_flip``, ``object_bbox_scale``,
``object_segmentation_polygon_flip``, ``object_segmentation_polygon_scale`` and
``object_segmentation_polygon_to_mask`` (also under ``flow.detection``; OneFlow
``python/ops/user_data_ops.py``, kernels ``user/kernels/image_object_preprocess_kernels.cpp``).

Each image of the batch has one buffer element: boxes ``(n, 4)`` as ``x1, y1, x2, y2`` or polygon points
``(n, 2)`` as ``x, y``, float32 or float64. ``image_size`` is an int32 ``(N, 2)`` blob of ``(width,
height)``; ``scale`` a float32 ``(N, 2)`` blob of ``(w, h)`` factors, as ``flow.image.target_resize``
gives them (v0.1.2's call of it gives both as ``(h, w)``, and they are read so, as v0.1.2's kernels
did). Like other data ops they run in the loader, or in the job graph when an input comes from there
(e.g. boxes fed through a ``tp.ListListNumpy`` input).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from flowtorch._src import dtypes, modes
from flowtorch._src.capture.blob import Blob
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.fill_poly import fill_poly
from flowtorch._src.data.image_buffer_ops import flip_code_arg
from flowtorch._src.ops._checks import Desc, arg_error

_HORIZONTAL, _VERTICAL = 0x01, 0x10


def _element(item: Any, columns: int, where: str, what: str) -> np.ndarray:
    if (not isinstance(item, np.ndarray) or item.ndim != 2 or item.shape[1] != columns
            or item.dtype not in (np.float32, np.float64)):
        got = f"{item.dtype} {item.shape}" if isinstance(item, np.ndarray) else type(item).__name__
        raise ValueError(f"{where}: expected float32 or float64 {what} of shape (n, {columns}); got {got}")
    return item


def _per_image(values: np.ndarray, n: int, where: str, arg: str) -> np.ndarray:
    if len(values) != n:
        raise ValueError(f"{where}: {arg} has {len(values)} rows for {n} images")
    return values


def flip_points(ctx: db.OpContext, items: list[np.ndarray], image_size: np.ndarray, codes: np.ndarray | None = None,
                *, code: int = 0, boxes: bool, height_first: bool = False) -> list[np.ndarray]:
    """Boxes: ``x1, x2 = w - x2 - 1, w - x1 - 1`` (and y likewise); points: ``x = w - x``. In the element's
    dtype, as the kernel's ``T`` arithmetic. ``height_first``: ``image_size`` rows are v0.1.2's ``(h, w)``."""
    _per_image(image_size, len(items), ctx.op_name, "image_size")
    image_size = image_size[:, ::-1] if height_first else image_size
    out = []
    for i, item in enumerate(items):
        item = _element(item, 4 if boxes else 2, f"{ctx.op_name}, sample {i}", "boxes" if boxes else "points")
        c = int(codes[i]) if codes is not None else code
        t = item.dtype.type
        w, h = t(image_size[i, 0]), t(image_size[i, 1])
        flipped = item.copy()
        if c & _HORIZONTAL:
            if boxes:
                flipped[:, 0], flipped[:, 2] = w - item[:, 2] - t(1), w - item[:, 0] - t(1)
            else:
                flipped[:, 0] = w - item[:, 0]
        if c & _VERTICAL:
            if boxes:
                flipped[:, 1], flipped[:, 3] = h - item[:, 3] - t(1), h - item[:, 1] - t(1)
            else:
                flipped[:, 1] = h - item[:, 1]
        out.append(flipped)
    return out


def scale_points(ctx: db.OpContext, items: list[np.ndarray], scale: np.ndarray, *, boxes: bool,
                 height_first: bool = False) -> list[np.ndarray]:
    """Each x times the image's float32 w factor, each y times its h factor (in the element's dtype).
    ``height_first``: ``scale`` rows are v0.1.2's ``(h, w)``."""
    _per_image(scale, len(items), ctx.op_name, "scale")
    scale = scale[:, ::-1] if height_first else scale
    out = []
    for i, item in enumerate(items):
        item = _element(item, 4 if boxes else 2, f"{ctx.op_name}, sample {i}", "boxes" if boxes else "points")
        factors = scale[i].astype(item.dtype)
        out.append(item * np.tile(factors, item.shape[1] // 2))
    return out


def polygons_to_masks(ctx: db.OpContext, polys: list[np.ndarray], indexes: list[np.ndarray],
                      image_size: np.ndarray, *, height_first: bool = False) -> list[np.ndarray]:
    """Each image's ``(segments, h, w)`` int8 masks: point ``k`` of ``polys`` (rounded half to even) is
    point ``index[k, 0]`` of polygon ``index[k, 1]`` of segment ``index[k, 2]``, in that order.
    ``height_first``: ``image_size`` rows are v0.1.2's ``(h, w)``."""
    n = len(polys)
    if len(indexes) != n:
        raise ValueError(f"{ctx.op_name}: poly has {n} images, poly_index {len(indexes)}")
    _per_image(image_size, n, ctx.op_name, "image_size")
    image_size = image_size[:, ::-1] if height_first else image_size
    out = []
    for i in range(n):
        where = f"{ctx.op_name}, sample {i}"
        points = _element(polys[i], 2, where, "polygon points")
        index = indexes[i]
        if (not isinstance(index, np.ndarray) or index.shape != (len(points), 3)
                or index.dtype not in (np.int32, np.int64)):
            got = f"{index.dtype} {index.shape}" if isinstance(index, np.ndarray) else type(index).__name__
            raise ValueError(f"{where}: poly_index must be int32 or int64 of shape ({len(points)}, 3) (one row per "
                             f"point); got {got}")
        width, height = int(image_size[i, 0]), int(image_size[i, 1])
        segments = _segments(np.rint(points).astype(np.int64), index.astype(np.int64), where)
        masks = np.zeros((len(segments), height, width), np.int8)
        for s, polygons in enumerate(segments):
            masks[s] = fill_poly(height, width, polygons)
        out.append(masks)
    return out


def _segments(points: np.ndarray, index: np.ndarray, where: str) -> list[list[np.ndarray]]:
    """Points grouped into segments of polygons. As the kernel, a segment ends where the segment index
    changes, and every row must be the next point of its polygon, the next polygon of its segment or the
    next segment."""
    segments: list[list[list[int]]] = []
    current: list[list[int]] = []  # the polygons (point rows) of the segment being read
    for k, (pt, poly, seg) in enumerate(index.tolist()):
        if seg != len(segments) and current:
            segments.append(current)
            current = []
        if poly == len(current):
            current.append([])
        if seg != len(segments) or poly != len(current) - 1 or pt != len(current[-1]):
            raise ValueError(f"{where}: poly_index row {k} is (point {pt}, polygon {poly}, segment {seg}); rows must "
                             "count points within a polygon, polygons within a segment and segments from 0, in order")
        current[-1].append(k)
    if not current:
        raise ValueError(f"{where}: no polygon points (each image needs at least one segment)")
    segments.append(current)
    return [[points[rows] for rows in polygons] for polygons in segments]


# ---- the ops ---------------------------------------------------------------------------------------------

def _buffers(x: Any, op: str, arg: str) -> Any:
    return db.check_data_blob(x, op, arg, (db.BUFFER,))


def _static(x: Any, op: str, arg: str, dtype: dtypes.DType, n: int) -> Any:
    """A static ``(n, 2)`` blob of ``dtype`` (a data blob, or a blob of the job graph)."""
    blob = db.check_data_blob(x, op, arg, (db.TENSOR,))
    if blob.meta.dtype != dtype.torch_dtype or tuple(blob.shape) != (n, 2):
        raise arg_error(op, arg, f"a {dtype.name} blob of shape ({n}, 2)",
                        Desc(f"{blob.lbn} of dtype {blob.dtype} and shape {tuple(blob.shape)}"))
    return blob


def _height_first(blob: Any) -> bool:
    """Whether ``blob`` holds ``(h, w)`` rows for v0.1.2's kernels: a size or scale of v0.1.2's call of
    ``image_target_resize``, or the image size of v0.1.2's call of ``data.coco_reader``. v0.1.2's kernels read
    ``(h, w)`` and v0.2.0's ``(w, h)`` (``image_object_preprocess_kernels.cpp``); a size or scale from
    anywhere else (an input, ``image.Resize``) is taken as ``(w, h)``, unless the program says it is v0.1's
    (``FLOWTORCH_ONEFLOW_VERSION=0.1``, :func:`modes.oneflow_v01`)."""
    return bool(getattr(blob, "height_first", False)) or modes.oneflow_v01()


def _flip(op: str, prefix: str, items: Any, image_size: Any, flip_code: Any, name: str | None, boxes: bool,
          arg: str) -> db.DataBlob:
    buffers = _buffers(items, op, arg)
    n = buffers.shape[0]
    size = _static(image_size, op, "image_size", dtypes.int32, n)
    inputs = [buffers, size]
    code, codes = flip_code_arg(flip_code, op, n)
    if codes is not None:
        inputs.append(codes)
    kernel = functools.partial(flip_points, code=code, boxes=boxes, height_first=_height_first(size))
    (out,) = pl.pipeline(op).add(db.op_name(prefix, name), kernel, inputs,
                                 [("out_0", db.meta(buffers.shape, np.uint8), db.BUFFER)])
    return out


def _scale(op: str, prefix: str, items: Any, scale: Any, name: str | None, boxes: bool, arg: str) -> db.DataBlob:
    buffers = _buffers(items, op, arg)
    factors = _static(scale, op, "scale", dtypes.float32, buffers.shape[0])
    kernel = functools.partial(scale_points, boxes=boxes, height_first=_height_first(factors))
    (out,) = pl.pipeline(op).add(db.op_name(prefix, name), kernel, (buffers, factors),
                                 [("out_0", db.meta(buffers.shape, np.uint8), db.BUFFER)])
    return out


def object_bbox_flip(bbox: db.DataBlob, image_size: Blob, flip_code: int | Blob,
                     name: str | None = None) -> db.DataBlob:
    """``flow.object_bbox_flip`` / ``detection.object_bbox_flip``: flip each image's ``(n, 4)`` boxes by its
    code (1 left-right, 16 up-down, 17 both, 0 none): ``x1' = w - x2 - 1``, ``x2' = w - x1 - 1`` (y alike
    with ``h``). ``flip_code`` is one int or an int8 ``(N,)`` blob (``ObjectBboxFlip_<n>/out_0``)."""
    return _flip("object_bbox_flip", "ObjectBboxFlip_", bbox, image_size, flip_code, name, True, "bbox")


def object_bbox_scale(bbox: db.DataBlob, scale: Blob, name: str | None = None) -> db.DataBlob:
    """``flow.object_bbox_scale`` / ``detection.object_bbox_scale``: each image's boxes times its
    ``(w, h)`` factors (``ObjectBboxScale_<n>/out_0``)."""
    return _scale("object_bbox_scale", "ObjectBboxScale_", bbox, scale, name, True, "bbox")


def object_segm_poly_flip(poly: db.DataBlob, image_size: Blob, flip_code: int | Blob,
                          name: str | None = None) -> db.DataBlob:
    """``flow.object_segmentation_polygon_flip``: each image's ``(n, 2)`` points flipped, ``x' = w - x``
    and/or ``y' = h - y`` (OneFlow's name prefix ``ObjectSegmPolyFilp_``, sic)."""
    return _flip("object_segmentation_polygon_flip", "ObjectSegmPolyFilp_", poly, image_size, flip_code, name,
                 False, "poly")


def object_segm_poly_scale(poly: db.DataBlob, scale: Blob, name: str | None = None) -> db.DataBlob:
    """``flow.object_segmentation_polygon_scale``: each image's points times its ``(w, h)`` factors (named
    ``ObjectSegmPolyFilp_<n>`` as in OneFlow)."""
    return _scale("object_segmentation_polygon_scale", "ObjectSegmPolyFilp_", poly, scale, name, False, "poly")


def object_segm_poly_to_mask(poly: db.DataBlob, poly_index: db.DataBlob, image_size: Blob,
                             name: str | None = None) -> db.DataBlob:
    """``flow.object_segmentation_polygon_to_mask``: each image's segments as int8 ``(segments, h, w)``
    masks of its ``image_size`` ``(w, h)``; points rounded half to even, each segment's polygons filled
    even-odd with their outlines, as OpenCV 3.4's ``fillPoly`` (:mod:`flowtorch._src.data.fill_poly`).
    ``poly_index`` rows are ``(point, polygon, segment)`` as ``flow.data.coco_reader`` gives them."""
    op = "object_segmentation_polygon_to_mask"
    polys = _buffers(poly, op, "poly")
    index = _buffers(poly_index, op, "poly_index")
    n = polys.shape[0]
    if index.shape[0] != n:
        raise arg_error(op, "poly_index", f"a tensor buffer of {n} elements (as poly)", Desc(f"{index.lbn} of shape "
                                                                                           f"{index.shape}"))
    size = _static(image_size, op, "image_size", dtypes.int32, n)
    kernel = functools.partial(polygons_to_masks, height_first=_height_first(size))
    (out,) = pl.pipeline(op).add(db.op_name("ObjectSegmPolyToMask_", name), kernel, (polys, index, size),
                                 [("out_0", db.meta(polys.shape, np.uint8), db.BUFFER)])
    return out
