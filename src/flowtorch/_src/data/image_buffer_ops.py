"""Image data ops on tensor buffers: ``flow.image.decode``, ``image.random_crop``, ``image.flip``,
``image.normalize`` and ``image.batch_align`` (with their ``flow.image_*`` aliases; OneFlow
``python/ops/user_data_ops.py``, kernels ``user/kernels/image_decode_kernel.cpp``,
``image_preprocess_kernels.cpp``, ``image_object_preprocess_kernels.cpp``,
``image_batch_align_kernel.cpp``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from flowtorch._src import dtypes
from flowtorch._src.capture.blob import Blob
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.image_decoders import check_color_space, check_range, crop_window
from flowtorch._src.data.image_ops import check_floats, check_image, check_int, image_buffers, image_dtype, is_int
from flowtorch._src.data.imdecode import decode_pixels
from flowtorch._src.ops._checks import Desc, arg_error, module_op_name

log = logging.getLogger("flowtorch")

FLIP_CODES = (0x00, 0x01, 0x10, 0x11)  # none, left-right, up-down, both (image_object_preprocess_kernels.cpp)


# ---- image.decode ------------------------------------------------------------------------------------

def decode_any_depth(data: bytes, color_space: str, dtype: np.dtype, op_name: str, index: int) -> np.ndarray:
    """``imdecode(IMREAD_ANYDEPTH)`` then ``convertTo`` without scaling (OneFlow's ``image_decode_kernel.cpp``):
    16-bit images keep their values, saturated to 255 as uint8; 8-bit images decode as
    ``OFRecordImageDecoder`` does."""
    pixels = decode_pixels(data, color_space, f"{op_name}, sample {index}", any_depth=True)
    if pixels.dtype == np.uint16 and dtype == np.uint8:
        _saturation_notice(op_name)
        return np.minimum(pixels, 255).astype(np.uint8)
    return pixels.astype(dtype, copy=False)


@functools.cache
def _saturation_notice(op_name: str) -> None:
    log.warning("%s: a 16-bit image decoded to uint8 saturates at 255, as OneFlow's image.decode did; decode to "
                "float32, or use OFRecordImageDecoder for 8-bit pixels (the high byte)", op_name)


def decode(ctx: db.OpContext, buffers: list[np.ndarray], color_space: str, dtype: np.dtype) -> list[np.ndarray]:
    return [decode_any_depth(np.asarray(b).tobytes(), color_space, dtype, ctx.op_name, i)
            for i, b in enumerate(buffers)]


def image_decode(images_bytes_buffer: db.DataBlob, dtype: Any = dtypes.uint8, color_space: str = "BGR",
                 name: str | None = None) -> db.DataBlob:
    """``flow.image.decode`` / ``image_decode``: a tensor buffer of encoded images (e.g. from
    ``OFRecordBytesDecoder``) → HWC images of ``dtype`` (uint8 or float32, values 0..255, not rescaled) in
    ``color_space``. Unlike ``OFRecordImageDecoder``, 16-bit PNGs keep their depth: exact as float32,
    saturated to 255 as uint8 (OneFlow's ``convertTo``; logged once per op)."""
    op = "image.decode"
    encoded = image_buffers(images_bytes_buffer, op, "images_bytes_buffer")
    out_dtype = image_dtype(dtype, op, "dtype")
    kernel = functools.partial(decode, color_space=check_color_space(color_space, op), dtype=out_dtype)
    (out,) = pl.pipeline(op).add(db.op_name("ImageDecode_", name), kernel, (encoded,),
                                 [("out_0", db.meta(encoded.shape, np.uint8), db.BUFFER)])
    return out


# ---- image.random_crop -------------------------------------------------------------------------------

def random_crop(ctx: db.OpContext, images: list[np.ndarray], area: tuple[float, float],
                aspect: tuple[float, float], num_attempts: int) -> list[np.ndarray]:
    out = []
    for i, image in enumerate(images):
        check_image(image, f"{ctx.op_name}, sample {i}")
        y, x, h, w = crop_window(image.shape[0], image.shape[1], ctx.rng, area, aspect, num_attempts)
        out.append(np.ascontiguousarray(image[y:y + h, x:x + w]))
    return out


def image_random_crop(input_blob: db.DataBlob, num_attempts: int = 10, seed: int | None = None,
                      random_area: Sequence[float] | None = None, random_aspect_ratio: Sequence[float] | None = None,
                      name: str = "ImageRandomCrop") -> db.DataBlob:
    """``flow.image.random_crop`` / ``image_random_crop``: an Inception-style random crop of each image
    (area fraction in ``random_area``, default [0.08, 1]; w/h ratio in ``random_aspect_ratio``, default
    [0.75, 1.333333]), same dtype and channels, no resize (``ImageRandomCrop/out_0``, later ones in the
    job ``ImageRandomCrop_<n>/out_0``)."""
    op = "image.random_crop"
    images = image_buffers(input_blob, op, "input_blob")
    if not isinstance(name, str):
        raise arg_error(op, "name", "a str", name)
    attempts = check_int(num_attempts, op, "num_attempts", 1)
    area = check_range([0.08, 1.0] if random_area is None else random_area, op, "random_area", True)
    aspect = check_range([0.75, 1.333333] if random_aspect_ratio is None else random_aspect_ratio, op,
                          "random_aspect_ratio", True)
    op_name = module_op_name(None if name == "ImageRandomCrop" else name, "ImageRandomCrop", "ImageRandomCrop_", op)
    kernel = functools.partial(random_crop, area=area, aspect=aspect, num_attempts=attempts)
    (out,) = pl.pipeline(op).add(op_name, kernel, (images,), [("out_0", db.meta(images.shape, np.uint8), db.BUFFER)],
                                 seed=db.draw_seed(seed, op))
    return out


# ---- image.flip ----------------------------------------------------------------------------------------

def flip(ctx: db.OpContext, images: list[np.ndarray], codes: np.ndarray | None = None, *,
         code: int = 0) -> list[np.ndarray]:
    out = []
    for i, image in enumerate(images):
        c = int(codes[i]) if codes is not None else code
        where = f"{ctx.op_name}, sample {i}"
        if c not in FLIP_CODES:
            raise ValueError(f"{where}: flip code {c} is not one of 0, 1 (left-right), 16 (up-down), 17 (both)")
        if not isinstance(image, np.ndarray) or image.ndim != 3:
            raise ValueError(f"{where}: expected an HWC image; got {getattr(image, 'shape', type(image).__name__)}")
        if c & 0x01:
            image = image[:, ::-1]
        if c & 0x10:
            image = image[::-1]
        out.append(np.ascontiguousarray(image))
    return out


def flip_code_arg(flip_code: Any, op: str, n: int) -> tuple[int, db.DataBlob | None]:
    """The flip ops' ``flip_code``: a constant code (0, 1, 16, 17) as ``(code, None)``, or an int8 data
    blob of one code per image as ``(0, blob)`` (the kernel then reads the codes from its last input)."""
    if isinstance(flip_code, Blob):
        codes = db.check_data_blob(flip_code, op, "flip_code", (db.TENSOR,))
        if codes.meta.dtype != dtypes.int8.torch_dtype or tuple(codes.shape) != (n,):
            raise arg_error(op, "flip_code", f"an int8 data blob of shape ({n},) (one code per image)",
                            Desc(f"{codes.lbn} of dtype {codes.dtype} and shape {tuple(codes.shape)}"))
        return 0, codes
    if not is_int(flip_code) or flip_code not in FLIP_CODES:
        raise arg_error(op, "flip_code", "0, 1 (left-right), 16 (up-down), 17 (both) or an int8 blob", flip_code)
    return int(flip_code), None


def image_flip(image: db.DataBlob, flip_code: int | db.DataBlob, name: str | None = None) -> db.DataBlob:
    """``flow.image.flip`` / ``image_flip``: flip each image by its code: 0 none, 1 left-right, 16 up-down,
    17 both. ``flip_code`` is one int for every image or an int8 ``(N,)`` data blob (e.g. a
    ``flow.random.CoinFlip``, whose 1s flip left-right). Any dtype; OneFlow made an int code a constant op
    (``<name>_FlipCode_``); here the kernel holds it."""
    op = "image.flip"
    images = image_buffers(image, op, "image")
    n = images.shape[0]
    inputs = [images]
    code, codes = flip_code_arg(flip_code, op, n)
    if codes is not None:
        inputs.append(codes)
    (out,) = pl.pipeline(op).add(db.op_name("ImageFlip_", name), functools.partial(flip, code=code), inputs,
                                 [("out_0", db.meta(images.shape, np.uint8), db.BUFFER)])
    return out


# ---- image.normalize -----------------------------------------------------------------------------------

def normalize(ctx: db.OpContext, images: list[np.ndarray], std: np.ndarray, mean: np.ndarray) -> list[np.ndarray]:
    out = []
    for i, image in enumerate(images):
        where = f"{ctx.op_name}, sample {i}"
        if isinstance(image, np.ndarray) and image.ndim == 3 and image.dtype == np.uint8:
            raise ValueError(f"{where}: image.normalize needs float images (OneFlow's kernel has no uint8 case); "
                             "decode with image.decode(dtype=flow.float32) or resize with dtype=flow.float32")
        check_image(image, where, len(std), (np.float32, np.float64))
        out.append(((image - mean) / std).astype(image.dtype, copy=False))
    return out


def image_normalize(image: db.DataBlob, std: Sequence[float], mean: Sequence[float],
                    name: str | None = None) -> db.DataBlob:
    """``flow.image.normalize`` / ``image_normalize`` (``std`` first): ``(x - mean[c]) / std[c]`` for each
    float image, one value per channel (no broadcasting of a single value), in the image's dtype."""
    op = "image.normalize"
    images = image_buffers(image, op, "image")
    std_t = check_floats(std, op, "std", (1, 3))
    mean_t = check_floats(mean, op, "mean", (1, 3))
    if len(std_t) != len(mean_t):
        raise arg_error(op, "mean", f"{len(std_t)} value(s), as many as std (one per channel)", mean)
    kernel = functools.partial(normalize, std=np.asarray(std_t, np.float32), mean=np.asarray(mean_t, np.float32))
    (out,) = pl.pipeline(op).add(db.op_name("ImageNormalize_", name), kernel, (images,),
                                 [("out_0", db.meta(images.shape, np.uint8), db.BUFFER)])
    return out


# ---- image.batch_align ---------------------------------------------------------------------------------

def batch_align(ctx: db.OpContext, images: list[np.ndarray], shape: tuple[int, int, int], dtype: np.dtype,
                alignment: int) -> np.ndarray:
    """Each image in the top-left corner of a zero ``(N, *shape)`` array of ``dtype``."""
    out = np.zeros((len(images),) + shape, dtype=dtype)
    for i, image in enumerate(images):
        check_image(image, f"{ctx.op_name}, sample {i}", shape[2])
    if images:  # image_batch_align_kernel.cpp checks the aligned area against the declared one
        h = -(-max(im.shape[0] for im in images) // alignment) * alignment
        w = -(-max(im.shape[1] for im in images) // alignment) * alignment
        if h * w > shape[0] * shape[1]:
            raise ValueError(f"{ctx.op_name}: the batch aligned to {alignment} is {h}x{w} (HxW), more pixels than the "
                             f"declared {shape[0]}x{shape[1]}")
    for i, image in enumerate(images):
        where = f"{ctx.op_name}, sample {i}"
        if image.shape[0] > shape[0] or image.shape[1] > shape[1]:
            raise ValueError(f"{where}: the {image.shape[1]}x{image.shape[0]} (WxH) image does not fit the declared "
                             f"shape {shape} (H, W, C)")
        if dtype == np.uint8 and image.dtype != np.uint8:
            image = np.clip(image, 0, 255)  # static_cast truncates in range; out of range saturates here
        out[i, :image.shape[0], :image.shape[1]] = image.astype(dtype)
    return out


def image_batch_align(images: db.DataBlob, shape: Sequence[int], dtype: Any, alignment: int,
                      name: str | None = None) -> db.DataBlob:
    """``flow.image.batch_align`` / ``image_batch_align``: images → one ``(N, *shape)`` blob of ``dtype``
    (uint8 or float32), each image copied to the top-left corner, the rest zero.

    OneFlow's output is dynamic: its runtime shape is ``(N, H', W', C)`` with ``H'``, ``W'`` the batch's
    largest height and width rounded up to ``alignment``. flowtorch's blobs are static, so the output always
    has the declared ``shape`` = ``(max_h, max_w, C)``, zero beyond each image (the first ``H'`` rows and
    ``W'`` columns hold what OneFlow returned). Each image must fit the declared shape; the aligned area is
    checked as OneFlow did. ``alignment`` must be a power of 2 (OneFlow accepted 0, then divided by it).
    """
    op = "image.batch_align"
    blob = image_buffers(images, op, "images")
    if (not isinstance(shape, (list, tuple)) or len(shape) != 3
            or not all(is_int(s) and s > 0 for s in shape)):
        raise arg_error(op, "shape", "(max_height, max_width, channels), three positive ints", shape)
    if shape[2] not in (1, 3):
        raise arg_error(op, "shape", "a channel count (shape[2]) of 1 or 3", shape)
    out_dtype = image_dtype(dtype, op, "dtype")
    if not is_int(alignment) or alignment <= 0 or alignment & (alignment - 1):
        raise arg_error(op, "alignment", "a power of 2 (1 for no rounding; 0 is not allowed)", alignment)
    shape_t = (int(shape[0]), int(shape[1]), int(shape[2]))
    kernel = functools.partial(batch_align, shape=shape_t, dtype=out_dtype, alignment=int(alignment))
    (out,) = pl.pipeline(op).add(db.op_name("ImageBatchAlign_", name), kernel, (blob,),
                                 [("out_0", db.meta(blob.shape + shape_t, out_dtype), db.TENSOR)])
    return out
