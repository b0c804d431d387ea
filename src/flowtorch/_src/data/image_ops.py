"""Image data ops that resample or normalise into static blobs: ``flow.image.Resize`` / ``resize`` /
``image_resize``, ``image.target_resize``, ``image.CropMirrorNormalize`` / ``crop_mirror_normalize`` and
``flow.data.ImageDecoderRandomCropResize`` (OneFlow ``python/ops/user_data_ops.py``, ``data_ops.py``;
kernels ``user/kernels/image_resize_kernels.cpp``, ``image_preprocess_kernels.cpp``,
``core/kernel/image_decoder_random_crop_resize_kernel.cpp``).

The ops that keep tensor buffers (decode, random crop, flip, normalize, batch_align) live in
:mod:`flowtorch._src.data.image_buffer_ops`. Images are HWC numpy arrays; resampling follows OpenCV
(:mod:`flowtorch._src.data.resize`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from flowtorch._src import dtypes
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data import resize as rs
from flowtorch._src.data.image_decoders import check_range
from flowtorch._src.data.record_kernels import INTERPOLATIONS as INTERPOLATIONS
from flowtorch._src.data.record_kernels import check_image as check_image
from flowtorch._src.data.record_kernels import (
    crop_mirror_normalize,
    cv_mode,
    decode_crop_resize,
    resize_to_fixed,
    scale_of,
)
from flowtorch._src.data.tensor_buffer import tensor_buffer_to_tensor
from flowtorch._src.ops._checks import Desc, arg_error, check_int, is_int, is_number

log = logging.getLogger("flowtorch")

_F32 = np.float32


def check_floats(value: Any, op: str, arg: str, lengths: Sequence[int]) -> tuple[float, ...]:
    if (not isinstance(value, (list, tuple)) or len(value) not in lengths
            or not all(is_number(v) for v in value)):
        counts = " or ".join(str(n) for n in sorted(set(lengths)))
        raise arg_error(op, arg, f"a list/tuple of {counts} numbers", value)
    return tuple(float(v) for v in value)


def image_dtype(value: Any, op: str, arg: str) -> np.dtype:
    """uint8 or float32, the two dtypes OneFlow's image kernels take."""
    dt = dtypes.to_dtype(value, what=f"flow.{op}: argument {arg!r}")
    if dt not in (dtypes.uint8, dtypes.float32):
        raise arg_error(op, arg, "flow.uint8 or flow.float32", value)
    return dt.numpy_dtype


def image_buffers(x: Any, op: str, arg: str) -> db.DataBlob:
    return db.check_data_blob(x, op, arg, (db.BUFFER,))


# ---- image.Resize ---------------------------------------------------------------------------------

def keep_aspect_size(height: int, width: int, target: int, min_size: int, max_size: int,
                     resize_longer: bool) -> tuple[int, int]:
    """``(new_w, new_h)`` of a keep-aspect resize, in OneFlow's double arithmetic with ``nearbyint``
    (round half to even, as Python's ``round``)."""
    small, large = float(min(height, width)), float(max(height, width))
    ratio = small / large
    if resize_longer:
        new_large = float(target)
        new_small = float(round(new_large * ratio))
        if min_size > 0 and new_small < min_size:
            new_small = float(min_size)
            new_large = float(round(new_small / ratio))
    else:
        new_small = float(target)
        new_large = float(round(new_small / ratio))  # target / ratio, not target * large / small: OneFlow's bits
        if max_size > 0 and new_large > max_size:
            new_large = float(max_size)
            new_small = float(round(new_large * ratio))
    if width < height:
        return int(new_small), int(new_large)
    return int(new_large), int(new_small)


def resize_keep_aspect(ctx: db.OpContext, images: list[np.ndarray], target: int, min_size: int, max_size: int,
                       resize_longer: bool, interpolation: str
                       ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Each image resized keeping its aspect ratio, dtype and channels; its (w, h) size and scale."""
    out, sizes, scales = [], [], []
    for i, image in enumerate(images):
        where = f"{ctx.op_name}, sample {i}"
        check_image(image, where)
        h, w = image.shape[:2]
        new_w, new_h = keep_aspect_size(h, w, target, min_size, max_size, resize_longer)
        if new_w <= 0 or new_h <= 0:
            raise ValueError(f"{where}: a {w}x{h} image resized to target_size={target} (max_size={max_size}) "
                             f"would be {new_w}x{new_h}")
        out.append(rs.resize(image, new_w, new_h, cv_mode(interpolation, w, h, new_w, new_h)))
        sizes.append(np.array([new_w, new_h], dtype=np.int32))
        scales.append(scale_of(new_w, new_h, w, h))
    return out, sizes, scales


def _deprecated(arg: str, instead: str) -> None:
    log.warning("flow.image.Resize: %s has been deprecated; use %s instead", arg, instead,
                stacklevel=4)  # the record's place: the caller's line


def image_resize(image: db.DataBlob, target_size: int | Sequence[int] | None = None, min_size: int | None = None,
                 max_size: int | None = None, keep_aspect_ratio: bool = False, resize_side: str = "shorter",
                 channels: int = 3, dtype: Any = None, interpolation_type: str = "auto", name: str | None = None,
                 color_space: str | None = None, interp_type: str | None = None, resize_shorter: int = 0,
                 resize_x: int = 0, resize_y: int = 0) -> Any:
    """``flow.image.Resize`` / ``image.resize`` / ``image_resize``: resize a tensor buffer of HWC images.

    ``keep_aspect_ratio=False``: every image to ``target_size = (width, height)``, giving a static
    ``(N, height, width, channels)`` blob of ``dtype`` (default uint8); returns ``(image, scale, None)``.
    ``keep_aspect_ratio=True``: the ``resize_side`` ("shorter"/"longer") side of each image becomes the int
    ``target_size`` (bounded by ``max_size``/``min_size``), each image keeping its dtype and channels;
    returns ``(image buffer, scale, new_size)``. ``scale`` is float32 ``(N, 2)`` = (w, h) factors and
    ``new_size`` int32 ``(N, 2)`` = (w, h). The deprecated ``color_space``, ``interp_type``,
    ``resize_shorter`` and ``resize_x``/``resize_y`` make it return only the image blob, as in OneFlow.
    """
    return _resize("image.Resize", image, target_size, min_size, max_size, keep_aspect_ratio, resize_side,
                   channels, dtype, interpolation_type, db.op_name("ImageResize_", name), color_space,
                   interp_type, resize_shorter, resize_x, resize_y)


def _resize(op: str, image: Any, target_size: Any, min_size: Any, max_size: Any, keep_aspect_ratio: Any,
            resize_side: Any, channels: Any, dtype: Any, interpolation_type: Any, name: str, color_space: Any,
            interp_type: Any, resize_shorter: Any, resize_x: Any, resize_y: Any) -> Any:
    images = image_buffers(image, op, "image")
    deprecated = False
    # the deprecated arguments, processed in OneFlow's order (user_data_ops.py, api_image_resize)
    if color_space is not None:
        deprecated = True
        _deprecated("color_space", "channels")
        if not isinstance(color_space, str) or color_space.upper() not in ("RGB", "BGR", "GRAY"):
            raise arg_error(op, "color_space", "one of 'RGB', 'BGR', 'GRAY' (any case)", color_space)
        channels = 1 if color_space.upper() == "GRAY" else 3
    if interp_type is not None:
        deprecated = True
        _deprecated("interp_type", "interpolation_type")
        legacy = {"Linear": "bilinear", "NN": "nearest_neighbor", "Cubic": "bicubic"}
        if interp_type not in legacy:
            raise arg_error(op, "interp_type", "one of 'Linear', 'NN', 'Cubic'", interp_type)
        interpolation_type = legacy[interp_type]
    for arg, value in (("resize_shorter", resize_shorter), ("resize_x", resize_x), ("resize_y", resize_y)):
        check_int(value, op, arg, 0)
    if resize_x > 0 and resize_y > 0:
        deprecated = True
        _deprecated("resize_x and resize_y", "target_size")
        target_size, keep_aspect_ratio = (resize_x, resize_y), False
    if resize_shorter > 0:
        deprecated = True
        _deprecated("resize_shorter", "target_size")
        target_size, keep_aspect_ratio, resize_side = resize_shorter, True, "shorter"
    if interpolation_type not in INTERPOLATIONS:
        raise arg_error(op, "interpolation_type", "one of " + ", ".join(map(repr, INTERPOLATIONS)),
                        interpolation_type)
    pipe = pl.pipeline(op)
    n = images.shape
    if keep_aspect_ratio:
        if not is_int(target_size) or target_size <= 0:
            raise arg_error(op, "target_size", "a positive int when keep_aspect_ratio is True", target_size)
        lo = 0 if min_size is None else check_int(min_size, op, "min_size", 0)
        hi = 0 if max_size is None else check_int(max_size, op, "max_size", 0)
        if resize_side not in ("shorter", "longer"):
            raise arg_error(op, "resize_side", "'shorter' or 'longer'", resize_side)
        # image_resize_ops.cpp and the kernel check both bounds whichever side is resized
        if 0 < hi < target_size:
            raise arg_error(op, "max_size", f"0 (none) or >= target_size ({target_size})", max_size)
        if 0 < lo and target_size < lo:
            raise arg_error(op, "min_size", f"0 (none) or <= target_size ({target_size})", min_size)
        keep = functools.partial(resize_keep_aspect, target=int(target_size), min_size=lo, max_size=hi,
                                   resize_longer=resize_side == "longer", interpolation=interpolation_type)
        out, size_buf, scale_buf = pipe.add(name, keep, (images,), [
            ("out_0", db.meta(n, np.uint8), db.BUFFER), ("size_0", db.meta(n, np.uint8), db.BUFFER),
            ("scale_0", db.meta(n, np.uint8), db.BUFFER)])
        # OneFlow's python turns both buffers into static blobs with tensor_buffer_to_tensor, scale first
        scale = tensor_buffer_to_tensor(scale_buf, np.float32, [2])
        new_size = tensor_buffer_to_tensor(size_buf, np.int32, [2])
        return out if deprecated else (out, scale, new_size)
    if (not isinstance(target_size, (list, tuple)) or len(target_size) != 2
            or not all(is_int(s) and s > 0 for s in target_size)):
        raise arg_error(op, "target_size", "a (width, height) pair of positive ints when keep_aspect_ratio is False",
                        target_size)
    if not is_int(channels) or channels not in (1, 3):
        raise arg_error(op, "channels", "1 or 3", channels)
    out_dtype = np.dtype(np.uint8) if dtype is None else image_dtype(dtype, op, "dtype")
    width, height = int(target_size[0]), int(target_size[1])
    kernel = functools.partial(resize_to_fixed, width=width, height=height, channels=int(channels),
                               dtype=out_dtype, interpolation=interpolation_type)
    out, scale = pipe.add(name, kernel, (images,), [
        ("out_0", db.meta(n + (height, width, int(channels)), out_dtype), db.TENSOR),
        ("scale_0", db.meta(n + (2,), np.float32), db.TENSOR)])
    return out if deprecated else (out, scale, None)


def target_size_v01(height: int, width: int, target: int, max_size: int) -> tuple[int, int]:
    """``(new_h, new_w)`` of OneFlow v0.1.2's ``image_target_resize`` (``customized/kernels/
    image_target_resize_kernel.cpp``): the shorter side to ``target``, the longer one capped at ``max_size``,
    in its double arithmetic (``max / min * target`` and ``max_size * min / max``) rounded half to even."""
    small, large = float(min(height, width)), float(max(height, width))
    new_small, new_large = float(target), float(round(large / small * target))
    if new_large > max_size:
        new_large = float(max_size)
        new_small = float(round(new_large * small / large))
    if width < height:
        return int(new_large), int(new_small)
    return int(new_small), int(new_large)


def target_resize_v01(ctx: db.OpContext, images: list[np.ndarray], target: int, max_size: int
                      ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """v0.1.2's kernel: each image bilinearly resized by :func:`target_size_v01`; its new size and scale
    factors as ``(h, w)`` rows (v0.2.0 swapped both to ``(w, h)``)."""
    out = []
    sizes = np.empty((len(images), 2), np.int32)
    scales = np.empty((len(images), 2), _F32)
    for i, image in enumerate(images):
        check_image(image, f"{ctx.op_name}, sample {i}")
        h, w = image.shape[:2]
        new_h, new_w = target_size_v01(h, w, target, max_size)
        out.append(rs.resize(image, new_w, new_h, rs.LINEAR))
        sizes[i] = (new_h, new_w)
        scales[i] = (_F32(new_h) / _F32(h), _F32(new_w) / _F32(w))
    return out, sizes, scales


def _v01_max_size(target_size: Any, min_size: Any, max_size: Any, resize_side: Any,
                  interpolation_type: Any) -> int | None:
    """v0.1.2's max_size when this is its call ``image_target_resize(images, target_size, max_size[, name])``,
    else None. Its third argument lands on v0.3.4's ``min_size``, which v0.3.4 required to be <= target_size
    (``CHECK_GE(target_size, min_size)`` in ``image_resize_kernels.cpp``): a bigger one can only be v0.1.2's."""
    if (is_int(target_size) and is_int(min_size) and min_size > target_size
            and (max_size is None or isinstance(max_size, str)) and resize_side == "shorter"
            and interpolation_type == "auto"):
        return int(min_size)
    return None


def _target_resize_v01(images: Any, target_size: int, max_size: int, name: str | None) -> Any:
    op = "image.target_resize"
    buffers = image_buffers(images, op, "images")
    n = buffers.shape
    kernel = functools.partial(target_resize_v01, target=int(target_size), max_size=int(max_size))
    out, size, scale = pl.pipeline(op).add(db.op_name("ImageTargetResize_", name), kernel, (buffers,), [
        ("out_0", db.meta(n, np.uint8), db.BUFFER), ("size_0", db.meta(n + (2,), np.int32), db.TENSOR),
        ("scale_0", db.meta(n + (2,), np.float32), db.TENSOR)])
    size.height_first = scale.height_first = True
    return out, size, scale


def image_target_resize(images: db.DataBlob, target_size: int, min_size: int | None = None,
                        max_size: int | None = None, resize_side: str = "shorter",
                        interpolation_type: str = "auto", name: str | None = None) -> Any:
    """``flow.image.target_resize`` / ``image_target_resize``: the keep-aspect :func:`image_resize`,
    returning ``(image buffer, new_size, scale)`` (note the order).

    OneFlow v0.1.2's ``(images, target_size, max_size, name=None)`` is told apart by a third argument bigger
    than ``target_size`` (see :func:`_v01_max_size`) and runs v0.1.2's op: ``new_size`` and ``scale`` then come
    as ``(h, w)``, as they did before v0.2.0, and the object ops read them so. Keyword calls
    (``max_size=…``) are v0.3.4's, ``(w, h)``."""
    v01_max_size = _v01_max_size(target_size, min_size, max_size, resize_side, interpolation_type)
    if v01_max_size is not None:
        if isinstance(max_size, str):  # v0.1.2's fourth argument, its name
            if name is not None:
                raise arg_error("image.target_resize", "name", "given once (v0.1.2's fourth argument is the name)",
                                name)
            name = max_size
        return _target_resize_v01(images, int(target_size), v01_max_size, name)
    out, scale, new_size = _resize("image.target_resize", images, target_size, min_size, max_size, True,
                                   resize_side, 3, None, interpolation_type,
                                   db.op_name("ImageTargetResize_", name), None, None, 0, 0, 0)
    return out, new_size, scale


# ---- image.CropMirrorNormalize ----------------------------------------------------------------------


def CropMirrorNormalize(input_blob: db.DataBlob, mirror_blob: db.DataBlob | None = None,
                        color_space: str = "BGR", output_layout: str = "NCHW", crop_h: int = 0, crop_w: int = 0,
                        crop_pos_y: float = 0.5, crop_pos_x: float = 0.5, mean: Sequence[float] = (0.0,),
                        std: Sequence[float] = (1.0,), output_dtype: Any = dtypes.float32,
                        name: str | None = None) -> db.DataBlob:
    """``flow.image.CropMirrorNormalize`` / ``crop_mirror_normalize``: a float32 ``(N, C, crop_h, crop_w)``
    (NCHW) or ``(N, crop_h, crop_w, C)`` (NHWC) blob of ``(pixel - mean) * (1 / std)``.

    ``input_blob`` is a tensor buffer of uint8 HWC images (``crop_h`` and ``crop_w`` required) or a static
    uint8 ``(N, H, W, C)`` blob (a zero ``crop_h`` or ``crop_w`` keeps the whole image; larger crops are
    clipped to it). The window starts at ``floor((H - crop_h) * crop_pos_y)`` (likewise x; a position outside
    [0, 1] is refused, where OneFlow read past the image). Where the int8 ``mirror_blob`` (e.g.
    ``flow.random.CoinFlip``) is non-zero, the window is flipped left-right.
    ``color_space`` only sets C (3 for RGB/BGR, 1 for GRAY); ``mean``/``std`` hold 1 or C values.
    """
    op = "image.CropMirrorNormalize"
    blob = db.check_data_blob(input_blob, op, "input_blob", (db.BUFFER, db.TENSOR))
    static = db.kind_of(blob) == db.TENSOR
    if static and (blob.meta.dtype != dtypes.uint8.torch_dtype or blob.meta.ndim != 4):
        raise arg_error(op, "input_blob", "a tensor buffer of images or a static uint8 (N, H, W, C) blob",
                        Desc(f"{blob.lbn} of dtype {blob.dtype} and shape {tuple(blob.shape)}"))
    inputs = [blob]
    n = blob.shape[0]
    if mirror_blob is not None:
        mirror = db.check_data_blob(mirror_blob, op, "mirror_blob", (db.TENSOR,))
        if mirror.meta.dtype != dtypes.int8.torch_dtype or tuple(mirror.shape) != (n,):
            raise arg_error(op, "mirror_blob", f"an int8 blob of shape ({n},) (one flag per image)",
                            Desc(f"{mirror.lbn} of dtype {mirror.dtype} and shape {tuple(mirror.shape)}"))
        inputs.append(mirror)
    if color_space not in ("BGR", "RGB", "GRAY"):
        raise arg_error(op, "color_space", "one of 'BGR', 'RGB', 'GRAY'", color_space)
    channels = 1 if color_space == "GRAY" else 3
    if output_layout not in ("NCHW", "NHWC"):
        raise arg_error(op, "output_layout", "'NCHW' or 'NHWC'", output_layout)
    crop_h = check_int(crop_h, op, "crop_h", 0 if static else 1)
    crop_w = check_int(crop_w, op, "crop_w", 0 if static else 1)
    for arg, value in (("crop_pos_y", crop_pos_y), ("crop_pos_x", crop_pos_x)):
        if not is_number(value) or not 0.0 <= value <= 1.0:
            raise arg_error(op, arg, "a float in [0, 1]", value)
    mean_t = check_floats(mean, op, "mean", (1, channels))
    std_t = check_floats(std, op, "std", (1, channels))
    if dtypes.to_dtype(output_dtype, what=f"flow.{op}: argument 'output_dtype'") is not dtypes.float32:
        raise arg_error(op, "output_dtype", "flow.float32 (the only output dtype OneFlow supports)", output_dtype)
    if static:
        _, height, width, c = blob.shape
        if c != channels:
            raise arg_error(op, "input_blob", f"a (N, H, W, {channels}) blob for color_space {color_space!r}",
                            Desc(f"{blob.lbn} of shape {tuple(blob.shape)}"))
        crop_h, crop_w = (height, width) if crop_h == 0 or crop_w == 0 else (min(crop_h, height), min(crop_w, width))
    # CMNAttr: 1/std in float32, both vectors broadcast to C
    inv_std = np.broadcast_to(_F32(1) / np.asarray(std_t, dtype=_F32), (channels,)).copy()
    kernel = functools.partial(crop_mirror_normalize, channels=channels, crop=(crop_h, crop_w),
                               pos=(float(crop_pos_y), float(crop_pos_x)),
                               mean=np.broadcast_to(np.asarray(mean_t, dtype=_F32), (channels,)).copy(),
                               inv_std=inv_std, nchw=output_layout == "NCHW")
    shape = (n, channels, crop_h, crop_w) if output_layout == "NCHW" else (n, crop_h, crop_w, channels)
    (out,) = pl.pipeline(op).add(db.op_name("CropMirrorNormalize_", name), kernel, inputs,
                                 [("out_0", db.meta(shape, np.float32), db.TENSOR)])
    return out


# ---- data.ImageDecoderRandomCropResize ---------------------------------------------------------------


def ImageDecoderRandomCropResize(input_blob: db.DataBlob, target_width: int, target_height: int,
                                 num_attempts: int | None = None, seed: int | None = None,
                                 random_area: Sequence[float] | None = None,
                                 random_aspect_ratio: Sequence[float] | None = None, num_workers: int | None = None,
                                 warmup_size: int | None = None, max_num_pixels: int | None = None,
                                 name: str | None = None) -> db.DataBlob:
    """``flow.data.ImageDecoderRandomCropResize`` / ``image_decoder_random_crop_resize``: encoded images
    (e.g. ``OFRecordBytesDecoder``'s buffer) → decode, Inception-style random crop, bilinear resize to a
    static uint8 ``(N, target_height, target_width, 3)`` blob, always RGB (``ImageDecoderRandomCropResize_<n>/out``).

    ``num_workers``, ``warmup_size`` and ``max_num_pixels`` tuned OneFlow's decoder threads and GPU
    buffers; they are checked and otherwise unused (decoding runs in the loader's workers).
    """
    op = "data.ImageDecoderRandomCropResize"
    encoded = image_buffers(input_blob, op, "input_blob")
    width = check_int(target_width, op, "target_width", 1)
    height = check_int(target_height, op, "target_height", 1)
    attempts = 10 if num_attempts is None else check_int(num_attempts, op, "num_attempts", 1)
    for arg, value in (("num_workers", num_workers), ("warmup_size", warmup_size),
                       ("max_num_pixels", max_num_pixels)):
        if value is not None:
            check_int(value, op, arg, 1)
    crop = (check_range((0.08, 1.0) if random_area is None else random_area, op, "random_area", True),
            check_range((0.75, 1.333333) if random_aspect_ratio is None else random_aspect_ratio, op,
                         "random_aspect_ratio", True), attempts)
    kernel = functools.partial(decode_crop_resize, width=width, height=height, crop=crop)
    (out,) = pl.pipeline(op).add(db.op_name("ImageDecoderRandomCropResize_", name), kernel, (encoded,),
                                 [("out", db.meta(encoded.shape + (height, width, 3), np.uint8), db.TENSOR)],
                                 seed=db.draw_seed(seed, op))
    return out
