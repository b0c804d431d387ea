"""Encoded images → pixels as OpenCV's ``cv::imdecode`` gave them to OneFlow's decoders.

Pillow decodes; the conversions are OpenCV's and libpng's (OpenCV ``imgcodecs/src/grfmt_png.cpp``,
``grfmt_jpeg.cpp``, ``utils.cpp``; libpng ``pngrtran.c``), checked pixel for pixel against OpenCV 4.8:

* ``IMREAD_COLOR`` gives 3 channels, ``IMREAD_GRAYSCALE`` 1; alpha is dropped, never composited.
* 16-bit samples become 8-bit by keeping their high byte (libpng's ``png_set_strip_16``), unless
  ``IMREAD_ANYDEPTH`` keeps them (``image.decode``).
* Colour → gray: libpng's ``rgb_to_gray`` for PNG (15-bit weights, in linear light when the file has a
  gamma), libjpeg's own luma for JPEG, OpenCV's rounded 14-bit weights for CMYK JPEG and other formats.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from PIL import Image, ImageFile

# libpng's rgb_to_gray weights for the (0.299, 0.587) OpenCV asks for, in libpng's 15-bit fixed point
# (png_set_rgb_to_gray_fixed truncates; blue takes the rest of 32768).
_PNG_GRAY = (9797, 19234, 32768 - 9797 - 19234)
# OpenCV's own BGR→gray and CMYK→gray weights (utils.cpp): 14-bit fixed point, rounded.
_CV_GRAY = (4899, 9617, (1 << 14) - 4899 - 9617)


def decode_pixels(data: bytes, color_space: str, where: str, any_depth: bool = False) -> np.ndarray:
    """Encoded bytes → a writable HWC array in ``color_space`` ('BGR', 'RGB' or 'GRAY'): uint8, or uint16 for
    a 16-bit image with ``any_depth``. ``where`` names the op and sample in the error for undecodable bytes."""
    from PIL import Image  # noqa: PLC0415 - decoding runs in loader workers; `import oneflow` loads no Pillow

    gray = color_space == "GRAY"
    try:
        image = Image.open(io.BytesIO(data))
        if image.format == "PNG":
            pixels = _png_pixels(image, data, gray, any_depth)
        elif image.format == "JPEG":
            pixels = _jpeg_pixels(image, gray)
        else:
            pixels = _other_pixels(image, gray)
    except Exception as exc:  # Pillow raises several types for undecodable data
        raise ValueError(f"{where}: cannot decode the image ({len(data)} bytes): {exc}") from exc
    if pixels.dtype == np.uint16 and not any_depth:
        pixels = (pixels >> 8).astype(np.uint8)
    if color_space == "BGR":
        pixels = pixels[:, :, ::-1]
    return np.array(pixels, order="C", copy=True)  # writable: torch refuses read-only arrays


def _png_pixels(image: ImageFile.ImageFile, data: bytes, gray: bool, any_depth: bool) -> np.ndarray:
    """A PNG's samples as libpng handed them to OpenCV: RGB (a palette expanded) or gray."""
    rawmode = image.tile[0][3] if image.tile else ""
    samples: np.ndarray
    if rawmode == "I;16B":  # 16-bit gray
        samples = np.asarray(image).astype(np.uint16)[:, :, None]
    elif rawmode in ("RGB;16B", "RGBA;16B"):
        # Pillow keeps only the high byte of 16-bit colour; the little-endian raw mode reads the low bytes
        high = np.asarray(image)[:, :, :3].astype(np.uint16)
        low = _png_reread(data, rawmode.replace(";16B", ";16L"))[:, :, :3]
        samples = (high << 8) | low
    elif rawmode == "LA;16B":  # 16-bit gray + alpha, read as 8-bit RGBA: the 4 bytes of each pixel
        pixel_bytes = _png_reread(data, "RGBA").astype(np.uint16)
        samples = (pixel_bytes[:, :, :1] << 8) | pixel_bytes[:, :, 1:2]
    elif image.mode in ("1", "L", "LA"):
        samples = np.asarray(image.convert("L"))[:, :, None]
    else:  # palette, RGB, RGBA
        samples = _rgb(image)
    if not gray:
        return np.repeat(samples, 3, axis=2) if samples.shape[2] == 1 else samples
    if samples.shape[2] == 1:
        return samples
    gamma = _png_gamma(image.info)
    if gamma is None:
        return _weighted_gray(samples, _PNG_GRAY, 15, rounded=samples.dtype == np.uint16)
    if samples.dtype == np.uint16 and not any_depth:
        return _png_gray_stripped(samples, gamma)
    return _png_gray_linear(samples, gamma)


def _png_reread(data: bytes, rawmode: str) -> np.ndarray:
    """The PNG's pixel data unpacked with another Pillow raw mode of the same bits per pixel."""
    from PIL import Image  # noqa: PLC0415 - as in decode_pixels

    image = Image.open(io.BytesIO(data))
    tiles: list[Any] = [(tile[0], tile[1], tile[2], rawmode) for tile in image.tile]  # Pillow < 11: plain tuples
    image.tile = tiles
    return np.asarray(image)


def _png_gamma(info: Mapping[Any, Any]) -> int | None:
    """The file gamma (libpng's fixed point, x100000) when it makes libpng's rgb_to_gray work in linear light:
    a gAMA chunk (sRGB's is 45455) whose value or reciprocal is further than 0.05 from 1."""
    gamma = 45455 if "srgb" in info else round(info["gamma"] * 100000) if "gamma" in info else None
    if gamma is None or gamma <= 0:
        return None
    return gamma if _significant(gamma) or _significant(_reciprocal(gamma)) else None


def _significant(fixed: int) -> bool:
    return abs(fixed - 100000) > 5000  # png_gamma_significant


def _reciprocal(fixed: int) -> int:
    return math.floor(1e10 / fixed + 0.5)  # png_reciprocal


def _gamma_curve(ratio: np.ndarray, exponent_fixed: int, top: int) -> np.ndarray:
    """A libpng gamma table's entries (png_gamma_8bit_correct, png_build_16bit_table) for inputs ``ratio``;
    an exponent within 0.05 of 1 gives the identity table."""
    exponent = exponent_fixed * 1e-5 if _significant(exponent_fixed) else 1.0
    return np.floor(top * ratio ** exponent + 0.5).astype(np.int64)


def _png_gray_linear(rgb: np.ndarray, gamma: int) -> np.ndarray:
    """libpng's rgb_to_gray with a file gamma: each sample through the gamma_to_1 table, the weighted sum
    (rounded, unlike without gamma), back through gamma_from_1 (the reciprocal of the screen gamma, itself
    1/gamma); gray pixels (r == g == b) pass unchanged."""
    top = 65535 if rgb.dtype == np.uint16 else 255
    wide = rgb.astype(np.int64)
    linear = _gamma_curve(wide / top, _reciprocal(gamma), top)
    out = _gamma_curve(_png_weighted_sum(linear) / top, _reciprocal(_reciprocal(gamma)), top)
    return np.where(_flat(wide), wide[:, :, 0], out).astype(rgb.dtype)[:, :, None]


def _png_gray_stripped(rgb: np.ndarray, gamma: int) -> np.ndarray:
    """As :func:`_png_gray_linear` for 16-bit samples stripped to 8 bits: libpng's tables then take the top
    11 bits of a sample (gamma_shift 5), and gray pixels go through its 16-to-8 table, whose entries round
    to the nearest 8-bit value (png_build_16to8_table)."""
    wide = rgb.astype(np.int64)
    linear = _gamma_curve((wide >> 5) / 2047, _reciprocal(gamma), 65535)
    out = _gamma_curve((_png_weighted_sum(linear) >> 5) / 2047, _reciprocal(_reciprocal(gamma)), 65535) >> 8
    bounds = (((np.arange(255) * 257 + 128) * 2047 + 32768) // 65535) + 1  # first 11-bit input of 1 … 255
    flat_out = np.searchsorted(bounds, wide[:, :, 0] >> 5, side="right")
    return np.where(_flat(wide), flat_out, out).astype(np.uint8)[:, :, None]


def _png_weighted_sum(linear: np.ndarray) -> np.ndarray:
    weights = _PNG_GRAY
    return (linear[:, :, 0] * weights[0] + linear[:, :, 1] * weights[1] + linear[:, :, 2] * weights[2]
            + 16384) >> 15


def _flat(wide: np.ndarray) -> np.ndarray:
    return (wide[:, :, 0] == wide[:, :, 1]) & (wide[:, :, 1] == wide[:, :, 2])


def _jpeg_pixels(image: Image.Image, gray: bool) -> np.ndarray:
    if image.mode == "CMYK":
        # OpenCV took libjpeg's stored (Adobe, inverted) values; Pillow inverts them on load ("CMYK;I")
        stored = 255 - np.asarray(image).astype(np.int32)
        k = stored[:, :, 3:]
        rgb = k - (((255 - stored[:, :, :3]) * k) >> 8)  # icvCvt_CMYK2BGR: C→R, M→G, Y→B
        return _weighted_gray(rgb, _CV_GRAY, 14, rounded=True) if gray else rgb.astype(np.uint8)
    if gray:
        image.draft("L", image.size)  # libjpeg's own grayscale output (the luma), as OpenCV asked for
        return np.asarray(image.convert("L"))[:, :, None]
    return _rgb(image)


def _other_pixels(image: Image.Image, gray: bool) -> np.ndarray:
    if image.mode.startswith("I;16"):  # a 16-bit gray TIFF …
        samples = np.asarray(image).astype(np.uint16)[:, :, None]
    elif image.mode in ("1", "L", "LA"):
        samples = np.asarray(image.convert("L"))[:, :, None]
    else:
        rgb = _rgb(image)
        return _weighted_gray(rgb, _CV_GRAY, 14, rounded=True) if gray else rgb
    return samples if gray else np.repeat(samples, 3, axis=2)


def _rgb(image: Image.Image) -> np.ndarray:
    """RGB samples, alpha dropped (a palette with transparency goes through RGBA: Pillow warns on RGB)."""
    if image.mode in ("P", "PA"):
        return np.asarray(image.convert("RGBA"))[:, :, :3]
    return np.asarray(image if image.mode == "RGB" else image.convert("RGB"))


def _weighted_gray(rgb: np.ndarray, weights: tuple[int, int, int], bits: int, rounded: bool) -> np.ndarray:
    """HWC RGB → HW1 gray by fixed-point ``weights`` (red, green, blue) summing to ``1 << bits``."""
    wide = rgb.astype(np.uint32)  # 65535 * 2**15 + 2**14 still fits
    total = wide[:, :, 0] * np.uint32(weights[0])
    total += wide[:, :, 1] * np.uint32(weights[1])
    total += wide[:, :, 2] * np.uint32(weights[2])
    if rounded:
        total += np.uint32(1 << (bits - 1))
    total >>= np.uint32(bits)
    return total.astype(np.uint16 if rgb.dtype == np.uint16 else np.uint8)[:, :, None]
