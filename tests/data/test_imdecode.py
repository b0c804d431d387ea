"""Decoded pixels per image kind, against references written here in numpy from OpenCV's rules (what OneFlow's
decoders got from ``cv::imdecode``; the rules were checked pixel for pixel against OpenCV 4.8):

* 16-bit samples → 8 bits: the high byte (libpng's strip_16); ``IMREAD_ANYDEPTH`` (``image.decode``) keeps them.
* PNG colour → gray: libpng's rgb_to_gray, weights (9797, 19234, 3737) / 2^15, truncated for 8-bit samples,
  rounded for 16-bit ones; in linear light when the file has a gamma.
* Alpha is dropped, never composited; a palette is looked up; JPEG gray is libjpeg's luma.
"""

from __future__ import annotations

import io
import logging
import math
import struct
import zlib

import numpy as np
import pytest
from helpers.data import bytes_feature, png_gray, write_dataset
from PIL import Image

import flowtorch as flow
import flowtorch.image
import flowtorch.typing as tp
from flowtorch._src.data.imdecode import decode_pixels
from flowtorch.core.record import record_pb2

pytestmark = pytest.mark.usefixtures("in_process")

H, W = 9, 13
RNG = np.random.default_rng(7)
GRAY16 = RNG.integers(0, 65536, (H, W, 1), dtype=np.uint16)
RGB16 = RNG.integers(0, 65536, (H, W, 3), dtype=np.uint16)
ALPHA16 = RNG.integers(0, 65536, (H, W, 1), dtype=np.uint16)
RGB8 = RNG.integers(0, 256, (H, W, 3), dtype=np.uint8)
ALPHA8 = RNG.integers(0, 256, (H, W, 1), dtype=np.uint8)
# the 7 Adam7 passes: (first row, first column, row step, column step)
ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1))


def png(samples: np.ndarray, color_type: int, interlaced: bool = False, sub_filter: bool = False,
        chunks: tuple[tuple[bytes, bytes], ...] = ()) -> bytes:
    """A PNG written by hand (Pillow writes no 16-bit colour): HWC uint8 or uint16 samples, big-endian rows,
    optionally Adam7-interlaced or with every row Sub-filtered; ``chunks`` go before IDAT."""
    big = samples.astype(">u2") if samples.dtype == np.uint16 else samples
    pixel_bytes = samples.shape[2] * samples.itemsize

    def rows(image: np.ndarray) -> bytes:
        out = b""
        for row in image:
            raw = np.frombuffer(row.tobytes(), dtype=np.uint8).astype(np.int64)
            if sub_filter:
                raw[pixel_bytes:] = (raw[pixel_bytes:] - raw[:-pixel_bytes]) % 256
            out += bytes([1 if sub_filter else 0]) + raw.astype(np.uint8).tobytes()
        return out

    if interlaced:
        data = b"".join(rows(big[y::dy, x::dx]) for y, x, dy, dx in ADAM7 if big[y::dy, x::dx].size)
    else:
        data = rows(big)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", samples.shape[1], samples.shape[0], samples.itemsize * 8, color_type, 0, 0,
                         int(interlaced))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + b"".join(chunk(k, b) for k, b in chunks)
            + chunk(b"IDAT", zlib.compress(data)) + chunk(b"IEND", b""))


def pillow_bytes(image: Image.Image, fmt: str, **kwargs) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


def gray16_of(rgb: np.ndarray) -> np.ndarray:
    """libpng's rgb_to_gray of 16-bit samples (rounded), HW1 uint16."""
    r, g, b = (rgb[:, :, c].astype(np.int64) for c in range(3))
    return ((9797 * r + 19234 * g + 3737 * b + 16384) >> 15).astype(np.uint16)[:, :, None]


def high_byte(samples: np.ndarray) -> np.ndarray:
    return (samples >> 8).astype(np.uint8)


def as_color(gray: np.ndarray) -> np.ndarray:
    return np.repeat(gray, 3, axis=2)


def cv_gray(rgb: np.ndarray) -> np.ndarray:
    """OpenCV's own colour → gray (utils.cpp): weights (4899, 9617, 1868) / 2^14, rounded."""
    r, g, b = (rgb[:, :, c].astype(np.int64) for c in range(3))
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)[:, :, None]


PALETTE = RNG.integers(0, 256, (16, 3), dtype=np.uint8)
INDICES = RNG.integers(0, 16, (H, W), dtype=np.uint8)
BITS = RNG.integers(0, 2, (H, W)).astype(bool)


def palette_png(transparency: bool) -> bytes:
    image = Image.fromarray(INDICES, "P")
    image.putpalette(PALETTE.tobytes())
    return pillow_bytes(image, "PNG", **({"transparency": bytes(range(0, 256, 16))} if transparency else {}))


# kind → (encoded bytes, expected RGB uint8, expected gray uint8 HW1)
KINDS = {
    "png16_gray": (png(GRAY16, 0), as_color(high_byte(GRAY16)), high_byte(GRAY16)),
    "png16_rgb": (png(RGB16, 2), high_byte(RGB16), high_byte(gray16_of(RGB16))),
    "png16_rgb_sub_filtered": (png(RGB16, 2, sub_filter=True), high_byte(RGB16), high_byte(gray16_of(RGB16))),
    "png16_rgb_interlaced": (png(RGB16, 2, interlaced=True), high_byte(RGB16), high_byte(gray16_of(RGB16))),
    "png16_gray_alpha": (png(np.concatenate([GRAY16, ALPHA16], 2), 4), as_color(high_byte(GRAY16)),
                         high_byte(GRAY16)),
    "png16_gray_alpha_interlaced": (png(np.concatenate([GRAY16, ALPHA16], 2), 4, interlaced=True),
                                    as_color(high_byte(GRAY16)), high_byte(GRAY16)),
    "png16_rgba": (png(np.concatenate([RGB16, ALPHA16], 2), 6), high_byte(RGB16), high_byte(gray16_of(RGB16))),
    "png8_rgb": (png(RGB8, 2), RGB8, png_gray(RGB8)),
    "png8_rgba": (pillow_bytes(Image.fromarray(np.concatenate([RGB8, ALPHA8], 2)), "PNG"), RGB8, png_gray(RGB8)),
    "png8_gray_alpha": (pillow_bytes(Image.fromarray(np.concatenate([RGB8[:, :, :1], ALPHA8], 2), "LA"), "PNG"),
                        as_color(RGB8[:, :, :1]), RGB8[:, :, :1]),
    "png_palette": (palette_png(False), PALETTE[INDICES], png_gray(PALETTE[INDICES])),
    "png_palette_transparent": (palette_png(True), PALETTE[INDICES], png_gray(PALETTE[INDICES])),
    "png_1bit": (pillow_bytes(Image.fromarray(BITS), "PNG"), as_color(BITS[:, :, None] * np.uint8(255)),
                 BITS[:, :, None] * np.uint8(255)),
    "gif": (pillow_bytes(Image.fromarray(PALETTE[INDICES]), "GIF"), PALETTE[INDICES], cv_gray(PALETTE[INDICES])),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_image_kind_decodes_as_opencv_did(kind):
    data, rgb, gray = KINDS[kind]
    np.testing.assert_array_equal(decode_pixels(data, "RGB", kind), rgb)
    np.testing.assert_array_equal(decode_pixels(data, "BGR", kind), rgb[:, :, ::-1])
    np.testing.assert_array_equal(decode_pixels(data, "GRAY", kind), gray)


def test_any_depth_keeps_16_bit_samples():
    both = np.concatenate([RGB16, ALPHA16], 2)
    for data, rgb in ((png(RGB16, 2), RGB16), (png(both, 6, interlaced=True), RGB16), (png(GRAY16, 0),
                                                                                      as_color(GRAY16))):
        np.testing.assert_array_equal(decode_pixels(data, "RGB", "x", any_depth=True), rgb)
        np.testing.assert_array_equal(decode_pixels(data, "BGR", "x", any_depth=True), rgb[:, :, ::-1])
    np.testing.assert_array_equal(decode_pixels(png(RGB16, 2), "GRAY", "x", any_depth=True), gray16_of(RGB16))
    gray_alpha = png(np.concatenate([GRAY16, ALPHA16], 2), 4)
    np.testing.assert_array_equal(decode_pixels(gray_alpha, "GRAY", "x", any_depth=True), GRAY16)


def test_a_png_gamma_makes_gray_a_linear_light_mix():
    # libpng linearises through 8-bit tables (gamma_to_1: exponent 1/gamma), mixes with rounding, and encodes
    # back (gamma_from_1); gray pixels pass unchanged
    rgb = RGB8.copy()
    rgb[0, :4] = rgb[0, :4, :1]

    def table(exponent: float) -> np.ndarray:
        return np.floor(255 * (np.arange(256) / 255) ** exponent + 0.5).astype(np.int64)

    to_linear, from_linear = table(math.floor(1e10 / 45455 + 0.5) / 1e5), table(0.45455)
    r, g, b = (to_linear[rgb[:, :, c]] for c in range(3))
    expected = from_linear[(9797 * r + 19234 * g + 3737 * b + 16384) >> 15]
    expected[0, :4] = rgb[0, :4, 0]
    for chunk in ((b"gAMA", struct.pack(">I", 45455)), (b"sRGB", b"\0")):
        data = png(rgb, 2, chunks=(chunk,))
        np.testing.assert_array_equal(decode_pixels(data, "GRAY", "x")[:, :, 0], expected)
        np.testing.assert_array_equal(decode_pixels(data, "RGB", "x"), rgb)  # colour is not gamma-corrected
    near_one = png(rgb, 2, chunks=((b"gAMA", struct.pack(">I", 97000)),))  # within libpng's 0.05: no correction
    np.testing.assert_array_equal(decode_pixels(near_one, "GRAY", "x"), png_gray(rgb))


def smooth_rgb() -> np.ndarray:
    y, x = np.mgrid[0:16, 0:24]
    return np.stack([x * 10, y * 15, (x + y) * 6], axis=-1).astype(np.uint8)


@pytest.mark.parametrize("progressive", [False, True])
def test_jpeg_colour_and_libjpeg_luma(progressive):
    data = pillow_bytes(Image.fromarray(smooth_rgb()), "JPEG", quality=90, progressive=progressive)
    rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))  # libjpeg's colour conversion
    ycc = Image.open(io.BytesIO(data))
    ycc.draft("YCbCr", ycc.size)  # the decoded components before colour conversion
    np.testing.assert_array_equal(decode_pixels(data, "RGB", "x"), rgb)
    np.testing.assert_array_equal(decode_pixels(data, "BGR", "x"), rgb[:, :, ::-1])
    np.testing.assert_array_equal(decode_pixels(data, "GRAY", "x"), np.asarray(ycc)[:, :, :1])
    gray_jpeg = pillow_bytes(Image.fromarray(smooth_rgb()[:, :, 1]), "JPEG", quality=90, progressive=progressive)
    luma = np.asarray(Image.open(io.BytesIO(gray_jpeg)))[:, :, None]
    np.testing.assert_array_equal(decode_pixels(gray_jpeg, "GRAY", "x"), luma)
    np.testing.assert_array_equal(decode_pixels(gray_jpeg, "RGB", "x"), as_color(luma))


def test_cmyk_jpeg_converts_as_opencv():
    cmyk = np.concatenate([smooth_rgb(), np.full((16, 24, 1), 40, np.uint8)], axis=2)
    data = pillow_bytes(Image.fromarray(cmyk, "CMYK"), "JPEG", quality=95)
    # OpenCV reads the stored (Adobe, inverted) samples s and computes k - ((255 - s) * k >> 8), k the stored
    # black; Pillow's decode gives 255 - s
    stored = 255 - np.asarray(Image.open(io.BytesIO(data))).astype(np.int64)
    k = stored[:, :, 3:]
    rgb = (k - (((255 - stored[:, :, :3]) * k) >> 8)).astype(np.uint8)
    np.testing.assert_array_equal(decode_pixels(data, "RGB", "x"), rgb)
    np.testing.assert_array_equal(decode_pixels(data, "GRAY", "x"), cv_gray(rgb))
    ideal = (255 - smooth_rgb().astype(int)) * (255 - 40) / 255  # cyan, magenta, yellow inks over 40 black
    assert np.abs(rgb - ideal).max() <= 8


def test_undecodable_bytes_name_the_sample():
    with pytest.raises(ValueError, match=r"op_x, sample 3: cannot decode the image \(4 bytes\)"):
        decode_pixels(b"\x89PNx", "RGB", "op_x, sample 3")


# ---- through the ops -------------------------------------------------------------------------------------

SIXTEEN = [png(GRAY16, 0), png(RGB16, 2), png(np.concatenate([GRAY16, ALPHA16], 2), 4),
           png(np.concatenate([RGB16, ALPHA16], 2), 6)]
SIXTEEN_RGB = [GRAY16 * np.ones(3, np.uint16), RGB16, GRAY16 * np.ones(3, np.uint16), RGB16]
SIXTEEN_GRAY = [GRAY16, gray16_of(RGB16), GRAY16, gray16_of(RGB16)]


@pytest.fixture
def sixteen_bit(tmp_path):
    records = [record_pb2.OFRecord(feature={"img": bytes_feature(data)}) for data in SIXTEEN]
    return str(write_dataset(tmp_path / "ds", [records]))


def test_ofrecord_image_decoder_scales_16_bit_pngs_to_8_bits(sixteen_bit):
    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        records = flow.data.ofrecord_reader(sixteen_bit, batch_size=4)
        out = [flow.data.OFRecordImageDecoder(records, "img", color_space=space) for space in ("RGB", "BGR", "GRAY")]
        return tuple(flow.image.batch_align(im, (H, W, 1 if i == 2 else 3), flow.uint8, 1)
                     for i, im in enumerate(out))

    rgb, bgr, gray = job()
    np.testing.assert_array_equal(rgb, np.stack([high_byte(a) for a in SIXTEEN_RGB]))
    np.testing.assert_array_equal(bgr, rgb[:, :, :, ::-1])
    np.testing.assert_array_equal(gray, np.stack([high_byte(a) for a in SIXTEEN_GRAY]))


def test_image_decode_keeps_16_bits_as_float_and_saturates_uint8(sixteen_bit, caplog):
    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        data = flow.data.OFRecordBytesDecoder(flow.data.ofrecord_reader(sixteen_bit, batch_size=4), "img")
        as_float = flowtorch.image.decode(data, dtype=flow.float, color_space="RGB")
        gray = flowtorch.image.decode(data, dtype=flow.float, color_space="GRAY")
        as_uint8 = flowtorch.image.decode(data)  # BGR uint8
        return (flow.image.batch_align(as_float, (H, W, 3), flow.float, 1),
                flow.image.batch_align(gray, (H, W, 1), flow.float, 1),
                flow.image.batch_align(as_uint8, (H, W, 3), flow.uint8, 1))

    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        as_float, gray, as_uint8 = job()
    np.testing.assert_array_equal(as_float, np.stack(SIXTEEN_RGB).astype(np.float32))
    np.testing.assert_array_equal(gray, np.stack(SIXTEEN_GRAY).astype(np.float32))
    # OneFlow's convertTo(CV_8U) without a scale: saturated
    np.testing.assert_array_equal(as_uint8, np.minimum(np.stack(SIXTEEN_RGB), 255)[:, :, :, ::-1])
    assert "16-bit image decoded to uint8 saturates at 255" in caplog.text
