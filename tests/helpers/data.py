"""Helpers for data tests: small OFRecord datasets written the way OneFlow's tools wrote them (an int64
length, then the serialized record), and JPEG images made with Pillow."""

from __future__ import annotations

import io
import struct
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from flowtorch.core.record import record_pb2


def int_feature(*values: int) -> Any:
    return record_pb2.Feature(int32_list=record_pb2.Int32List(value=list(values)))


def int64_feature(*values: int) -> Any:
    return record_pb2.Feature(int64_list=record_pb2.Int64List(value=list(values)))


def float_feature(*values: float) -> Any:
    return record_pb2.Feature(float_list=record_pb2.FloatList(value=list(values)))


def double_feature(*values: float) -> Any:
    return record_pb2.Feature(double_list=record_pb2.DoubleList(value=list(values)))


def bytes_feature(*values: bytes) -> Any:
    return record_pb2.Feature(bytes_list=record_pb2.BytesList(value=list(values)))


def write_part(path: Path, records: Sequence[Any]) -> None:
    with open(path, "wb") as f:
        for record in records:
            data = record.SerializeToString()
            f.write(struct.pack("<q", len(data)))
            f.write(data)


def write_dataset(directory: Path, parts: Sequence[Sequence[Any]], prefix: str = "part-", suffix_length: int = -1
                  ) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for i, records in enumerate(parts):
        write_part(directory / f"{prefix}{str(i).zfill(max(suffix_length, 0))}", records)
    return directory


def numbered_dataset(directory: Path, sizes: Sequence[int], make: Callable[[int], Any] | None = None) -> Path:
    """Parts of ``sizes`` records; record ``k`` (counting across parts) has int32 feature ``id`` = k and
    float feature ``x`` = [k, k / 2]."""
    make = make or (lambda k: record_pb2.OFRecord(feature={"id": int_feature(k), "x": float_feature(k, k / 2)}))
    parts, k = [], 0
    for size in sizes:
        parts.append([make(k + i) for i in range(size)])
        k += size
    return write_dataset(directory, parts)


def jpeg_bytes(array: np.ndarray, quality: int = 95) -> bytes:
    """HWC uint8 RGB (or HW gray) → JPEG bytes."""
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def png_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="PNG")
    return buf.getvalue()


def png_gray(rgb: np.ndarray) -> np.ndarray:
    """HWC uint8 RGB → HW1 gray as OpenCV's IMREAD_GRAYSCALE reads an RGB PNG: libpng's rgb_to_gray with the
    (0.299, 0.587) weights in 15-bit fixed point (9797, 19234, 3737), truncated."""
    r, g, b = (rgb[:, :, c].astype(np.int64) for c in range(3))
    return ((9797 * r + 19234 * g + 3737 * b) >> 15).astype(np.uint8)[:, :, None]


def gradient_image(height: int, width: int, seed: int = 0) -> np.ndarray:
    """A smooth RGB test image (JPEG keeps smooth images close to their pixels)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = rng.uniform(0, 1, 3)
    img = np.stack([(x / max(width - 1, 1)) * 200 + base[0] * 50, (y / max(height - 1, 1)) * 200 + base[1] * 50,
                    ((x + y) / max(height + width - 2, 1)) * 200 + base[2] * 50], axis=-1)
    return img.astype(np.uint8)


def image_dataset(directory: Path, images: Sequence[np.ndarray], encode: Callable[[np.ndarray], bytes] = png_bytes
                  ) -> Path:
    """One part file; record k holds feature ``img`` = ``encode(images[k])`` and ``raw`` = its HWC pixels as
    bytes (for OFRecordRawDecoder with dtype uint8)."""
    records = [record_pb2.OFRecord(feature={"img": bytes_feature(encode(a)), "raw": bytes_feature(a.tobytes())})
               for a in images]
    return write_dataset(directory, [records])


def noise_image(height: int, width: int, channels: int = 3, seed: int = 0) -> np.ndarray:
    """Random uint8 pixels, HWC (HW for one channel, as Pillow wants)."""
    img = np.random.default_rng(seed).integers(0, 256, (height, width, channels), dtype=np.uint8)
    return img[:, :, 0] if channels == 1 else img
