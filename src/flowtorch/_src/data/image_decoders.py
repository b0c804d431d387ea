"""Image decoders: ``flow.data.OFRecordImageDecoder``, ``OFRecordImageDecoderRandomCrop`` and
``ImageDecoderRandomCropResize`` (OneFlow ``user/kernels/ofrecord_decoder_kernels.cpp``,
``user/image/random_crop_generator.cpp``, ``core/kernel/image_decoder_random_crop_resize_kernel.cpp``).

OneFlow decoded with OpenCV (``cv::imdecode`` to BGR, then converted to the requested color space);
flowtorch decodes with Pillow. Both use libjpeg's integer IDCT, so decoded pixels agree up to libjpeg
version differences. A decoded image is an HWC uint8 array (C = 3 for RGB/BGR, 1 for GRAY), one per sample
in a tensor buffer.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.decoders import feature
from flowtorch._src.ops._checks import arg_error, module_op_name

COLOR_SPACES = ("BGR", "RGB", "GRAY")


def check_color_space(value: Any, op: str) -> str:
    if value not in COLOR_SPACES:
        raise arg_error(op, "color_space", "one of 'BGR', 'RGB', 'GRAY'", value)
    return value


def decode_image(data: bytes, color_space: str, where: str) -> Image.Image:
    """Encoded bytes → a Pillow image in RGB (for RGB/BGR) or L (GRAY) mode."""
    try:
        image = Image.open(io.BytesIO(data))
        return image.convert("L" if color_space == "GRAY" else "RGB")
    except Exception as exc:  # noqa: BLE001 - Pillow raises several types for undecodable data
        raise ValueError(f"{where}: cannot decode the image ({len(data)} bytes): {exc}") from exc


def to_array(image: Image.Image, color_space: str) -> np.ndarray:
    """A Pillow image → HWC uint8 in ``color_space``."""
    array = np.asarray(image, dtype=np.uint8)
    if array.ndim == 2:
        return array[:, :, None]
    return np.ascontiguousarray(array[:, :, ::-1]) if color_space == "BGR" else array


def crop_window(height: int, width: int, rng: np.random.Generator, area: tuple[float, float],
                aspect: tuple[float, float], num_attempts: int) -> tuple[int, int, int, int]:
    """``(y, x, h, w)``: an Inception-style random crop of an ``height``×``width`` image, by OneFlow's
    RandomCropGenerator: up to ``num_attempts`` draws of area fraction ~ U(area) and w/h ratio ~
    log-uniform(aspect); a draw that fits is kept, else the whole image clamped to the ratio range and
    the largest area; the anchor is uniform over the positions where the window fits."""
    f32 = np.float32
    min_ratio, max_ratio = f32(aspect[0]), f32(aspect[1])
    min_area = f32(width * height) * f32(area[0])
    max_w = max(1, int(f32(height) * max_ratio))
    max_h = max(1, int(f32(width) * (f32(1) / min_ratio)))
    if height * max_w < min_area:
        h, w = height, max_w
    elif width * max_h < min_area:
        h, w = max_h, width
    else:
        for _ in range(num_attempts):
            target = f32(rng.uniform(area[0], area[1])) * f32(height * width)
            ratio = f32(math.exp(rng.uniform(math.log(aspect[0]), math.log(aspect[1]))))
            w = max(1, int(np.round(np.sqrt(f32(target * ratio)))))
            h = max(1, int(np.round(np.sqrt(f32(target / ratio)))))
            r = f32(w) / f32(h)
            if w <= width and h <= height and min_ratio <= r <= max_ratio:
                break
        else:
            ratio = f32(width) / f32(height)
            if ratio > max_ratio:
                h, w = height, max_w
            elif ratio < min_ratio:
                h, w = max_h, width
            else:
                h, w = height, width
            scale = min(f32(1), f32(area[1]) * f32(width * height) / f32(h * w))
            h = max(1, int(h * math.sqrt(scale)))
            w = max(1, int(w * math.sqrt(scale)))
    y = int(rng.integers(0, height - h + 1))
    x = int(rng.integers(0, width - w + 1))
    return y, x, h, w


def decode_records(ctx: pl.OpContext, records: list[Any], key: str, color_space: str,
                   crop: tuple[tuple[float, float], tuple[float, float], int] | None) -> list[np.ndarray]:
    out = []
    for i, record in enumerate(records):
        feat = feature(record, key, ctx.op_name)
        if feat.WhichOneof("kind") != "bytes_list" or len(feat.bytes_list.value) != 1:
            raise ValueError(f"{ctx.op_name}: feature {key!r} must be a bytes_list holding one encoded image; "
                             f"it is {feat.WhichOneof('kind')}")
        image = decode_image(feat.bytes_list.value[0], color_space, f"{ctx.op_name}, sample {i}")
        if crop is not None:
            y, x, h, w = crop_window(image.height, image.width, ctx.rng, *crop)
            image = image.crop((x, y, x + w, y + h))
        out.append(to_array(image, color_space))
    return out


def _check_range(value: Any, op: str, arg: str, positive: bool) -> tuple[float, float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            or not value[0] <= value[1] or (positive and value[0] <= 0)):
        raise arg_error(op, arg, "a [low, high] pair of numbers with 0 < low <= high", value)
    return float(value[0]), float(value[1])


def _image_op(op: str, input_blob: Any, blob_name: Any, color_space: Any) -> tuple[pl.DataBlob, str]:
    records = pl.check_data_blob(input_blob, op, "input_blob", (pl.RECORD,))
    if not isinstance(blob_name, str):
        raise arg_error(op, "blob_name", "the feature name (str)", blob_name)
    return records, check_color_space(color_space, op)


def OFRecordImageDecoder(input_blob: pl.DataBlob, blob_name: str, color_space: str = "BGR",  # noqa: N802
                         name: str | None = None) -> pl.DataBlob:
    """``flow.data.OFRecordImageDecoder``: each record's encoded image as an HWC uint8 tensor buffer."""
    op = "data.OFRecordImageDecoder"
    records, color_space = _image_op(op, input_blob, blob_name, color_space)
    kernel = functools.partial(decode_records, key=blob_name, color_space=color_space, crop=None)
    (blob,) = pl.pipeline(op).add(pl.op_name("OFRecordImageDecoder_", name), kernel, (records,),
                                  [("out_0", pl.meta(records.shape, np.uint8), pl.BUFFER)])
    return blob


def OFRecordImageDecoderRandomCrop(input_blob: pl.DataBlob, blob_name: str, color_space: str = "BGR",  # noqa: N802
                                   num_attempts: int = 10, seed: int | None = None,
                                   random_area: Sequence[float] = (0.08, 1.0),
                                   random_aspect_ratio: Sequence[float] = (0.75, 1.333333),
                                   name: str = "OFRecordImageDecoderRandomCrop") -> pl.DataBlob:
    """``flow.data.OFRecordImageDecoderRandomCrop``: decode, then an Inception-style random crop
    (``OFRecordImageDecoderRandomCrop/out_0``; later ones in the job take ``_<n>``)."""
    op = "data.OFRecordImageDecoderRandomCrop"
    records, color_space = _image_op(op, input_blob, blob_name, color_space)
    if not isinstance(num_attempts, int) or isinstance(num_attempts, bool) or num_attempts < 1:
        raise arg_error(op, "num_attempts", "a positive int", num_attempts)
    crop = (_check_range(random_area, op, "random_area", True),
            _check_range(random_aspect_ratio, op, "random_aspect_ratio", True), num_attempts)
    op_name = module_op_name(None if name == "OFRecordImageDecoderRandomCrop" else name,
                             "OFRecordImageDecoderRandomCrop", "OFRecordImageDecoderRandomCrop_", op)
    kernel = functools.partial(decode_records, key=blob_name, color_space=color_space, crop=crop)
    (blob,) = pl.pipeline(op).add(op_name, kernel, (records,),
                                  [("out_0", pl.meta(records.shape, np.uint8), pl.BUFFER)],
                                  seed=pl.draw_seed(seed, op))
    return blob
