"""The per-batch kernels of the OFRecord data ops, with numpy, torch and Pillow alone (no flowtorch import:
``flowtorch.export`` copies this file verbatim into an export's ``data/`` package, so the export's loader runs
the very code the job's loader ran).

A kernel is ``kernel(ctx, *inputs, **params)``: ``ctx`` an :class:`OpContext`, the inputs the values of earlier
ops (a list of parsed records, a list of HWC images, a static array), the params what the data op was given.
The ops that check those params and record the kernels live in ``decoders``, ``image_decoders``,
``image_ops``, ``random_source`` and ``tensor_buffer``. :func:`parse_ofrecord` reads a serialized
``oneflow.OFRecord`` without protobuf into objects with the message's reading API (``record.feature[key]``,
``feature.WhichOneof("kind")``, ``feature.int32_list.value`` …), so the kernels take either.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from . import resize as rs
from .imdecode import decode_pixels

# record.proto's Feature oneof, by field number; numeric lists as (numpy dtype of a packed run, wire type)
_KINDS = {1: "bytes_list", 2: "float_list", 3: "double_list", 4: "int32_list", 5: "int64_list"}
_PACKED = {"float_list": "<f4", "double_list": "<f8"}


class _Values:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Feature:
    """One ``oneflow.Feature``, as parsed by :func:`parse_ofrecord`."""

    __slots__ = ("kind", "bytes_list", "float_list", "double_list", "int32_list", "int64_list")

    def __init__(self, kind: str | None, values: Any) -> None:
        self.kind = kind
        for name in _KINDS.values():
            setattr(self, name, _Values(values if name == kind else []))

    def WhichOneof(self, group: str) -> str | None:
        return self.kind


class Record:
    """One ``oneflow.OFRecord``: ``feature`` maps each key to its :class:`Feature`."""

    __slots__ = ("feature",)

    def __init__(self, feature: dict[str, Feature]) -> None:
        self.feature = feature


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("a varint runs past the end of the message")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """``(field number, wire type, value)`` of a message: an int for varints, bytes otherwise."""
    out: list[tuple[int, int, Any]] = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
            if pos > len(data):
                raise ValueError(f"field {number} runs past the end of the message")
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, pos = data[pos:pos + width], pos + width
        else:
            raise ValueError(f"field {number} has wire type {wire}, which record.proto does not use")
        out.append((number, wire, value))
    return out


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _list_values(kind: str, data: bytes) -> Any:
    values: list[Any] = []
    for number, wire, value in _fields(data):
        if number != 1:
            continue
        if kind == "bytes_list":
            values.append(bytes(value))
        elif kind in _PACKED:
            fmt = _PACKED[kind]
            values.extend(np.frombuffer(value, fmt).tolist() if wire == 2 else struct.unpack(fmt, value))
        elif wire == 2:  # packed varints
            pos = 0
            while pos < len(value):
                v, pos = _varint(value, pos)
                values.append(_signed(v))
        else:
            values.append(_signed(value))
    if kind == "int32_list":
        values = [(v + (1 << 31)) % (1 << 32) - (1 << 31) for v in values]
    return values


def parse_ofrecord(data: bytes) -> Record:
    """A serialized ``oneflow.OFRecord`` (record.proto: ``map<string, Feature> feature = 1``)."""
    features: dict[str, Feature] = {}
    for number, wire, entry in _fields(data):
        if number != 1 or wire != 2:
            continue
        key, feature = "", Feature(None, [])
        for n, w, value in _fields(entry):
            if n == 1 and w == 2:
                key = bytes(value).decode("utf-8")
            elif n == 2 and w == 2:
                for kn, kw, kv in _fields(value):
                    if kn in _KINDS and kw == 2:  # the oneof's last field wins, as protobuf's parse keeps it
                        feature = Feature(_KINDS[kn], _list_values(_KINDS[kn], kv))
        features[key] = feature
    return Record(features)


def parse_records(ctx: OpContext) -> list[Record]:
    """A reader's kernel without protobuf: this batch's records (``ctx.records``) parsed."""
    out = []
    for data, path, number in ctx.records or ():
        try:
            out.append(parse_ofrecord(data))
        except Exception as exc:
            raise ValueError(f"OFRecord file {path!r}: record #{number} ({len(data)} bytes) is not a valid "
                             f"OFRecord message ({exc}); the file is corrupt") from exc
    return out


@dataclass
class OpContext:
    """What a kernel may use besides its inputs: the op's random stream for this batch and, for a source op,
    what its source's ``fetch`` read for this batch (OFRecord readers: ``(data, file path, record number)``
    per record)."""

    op_name: str
    step: int
    seed: int | None
    records: Any = None
    _rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The op's generator for this batch: a function of (seed, batch number) only, so a batch is the
        same whichever worker makes it."""
        if self._rng is None:
            if self.seed is None:
                raise RuntimeError(f"data op {self.op_name} asked for randomness but was built without a seed")
            self._rng = np.random.default_rng([self.seed, self.step])
        return self._rng


_LIST_KINDS = ("float_list", "double_list", "int32_list", "int64_list")


def feature(record: Any, key: str, op: str) -> Any:
    """Feature ``key`` of one parsed OFRecord (a clear error, with the keys it has, when missing)."""
    if key not in record.feature:
        raise KeyError(f"{op}: OFRecord has no feature {key!r} (its features: {sorted(record.feature)})")
    return record.feature[key]


def single_bytes(record: Any, key: str, op: str, what: str = "one value") -> bytes:
    """Feature ``key`` of one parsed OFRecord as the single bytes value it must hold (an encoded image …)."""
    feat = feature(record, key, op)
    kind = feat.WhichOneof("kind")
    if kind != "bytes_list" or len(feat.bytes_list.value) != 1:
        count = len(feat.bytes_list.value) if kind == "bytes_list" else 0
        raise ValueError(f"{op}: feature {key!r} must be a bytes_list holding {what}; it is {kind} with {count} "
                         "bytes value(s)")
    return feat.bytes_list.value[0]


def raw_values(feat: Any, key: str) -> np.ndarray:
    """A feature's values as a 1-D array: numeric lists as stored; a bytes feature as signed int8 bytes,
    as OneFlow copied them (one value only)."""
    kind = feat.WhichOneof("kind")
    if kind == "bytes_list":
        if len(feat.bytes_list.value) != 1:
            raise ValueError(f"feature {key!r}: a raw-decoded bytes_list must hold exactly one value; it holds "
                             f"{len(feat.bytes_list.value)}")
        return np.frombuffer(feat.bytes_list.value[0], dtype=np.int8)
    if kind in _LIST_KINDS:
        return np.asarray(getattr(feat, kind).value)
    raise ValueError(f"feature {key!r} holds no list (an empty Feature)")


def decode_raw(ctx: OpContext, records: list[Any], key: str, shape: tuple[int, ...], dtype: np.dtype,
               varying: bool) -> np.ndarray:
    """Each record's feature ``key`` as ``shape``/``dtype`` (values converted as C casts do)."""
    count = int(np.prod(shape))
    out = np.zeros((len(records), count), dtype=dtype)
    for i, record in enumerate(records):
        values = raw_values(feature(record, key, ctx.op_name), key)
        n = len(values)
        if values.dtype == np.int8:
            n = min(n, count)  # bytes: OneFlow copies what fits
        elif n > count or (n < count and not varying):
            raise ValueError(
                f"{ctx.op_name}: feature {key!r} of record {i} in the batch holds {n} values; shape {shape} needs "
                f"{count}" + ("" if varying else " (set auto_zero_padding=True to zero-pad shorter lists)"))
        with np.errstate(invalid="ignore", over="ignore"):
            out[i, :n] = values[:n].astype(dtype, copy=False)
    return out.reshape((len(records),) + shape)


def decode_bytes(ctx: OpContext, records: list[Any], key: str) -> list[np.ndarray]:
    """Each record's bytes feature ``key`` as a 1-D int8 array (a tensor buffer)."""
    return [np.frombuffer(single_bytes(record, key, ctx.op_name), dtype=np.int8) for record in records]


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


def decode_records(ctx: OpContext, records: list[Any], key: str, color_space: str,
                   crop: tuple[tuple[float, float], tuple[float, float], int] | None) -> list[np.ndarray]:
    out = []
    for i, record in enumerate(records):
        data = single_bytes(record, key, ctx.op_name, "one encoded image")
        image = decode_pixels(data, color_space, f"{ctx.op_name}, sample {i}")
        if crop is not None:
            y, x, h, w = crop_window(image.shape[0], image.shape[1], ctx.rng, *crop)
            image = np.ascontiguousarray(image[y:y + h, x:x + w])
        out.append(image)
    return out


_F32 = np.float32


# OneFlow's interpolation_type values and the OpenCV flag each selects ("auto" decides per image)
INTERPOLATIONS = {"bilinear": rs.LINEAR, "nearest_neighbor": rs.NEAREST, "nn": rs.NEAREST, "bicubic": rs.CUBIC,
                  "area": rs.AREA, "auto": None}


def check_image(image: Any, where: str, channels: int | None = None,
                kinds: Sequence[Any] = (np.uint8, np.float32)) -> np.ndarray:
    """A runtime check of one tensor-buffer element: an HWC image of the wanted dtype and channels."""
    ok = isinstance(image, np.ndarray) and image.ndim == 3 and image.dtype in kinds
    if ok and channels is not None:
        ok = image.shape[2] == channels
    elif ok:
        ok = image.shape[2] in (1, 3)
    if not ok:
        want = f"{channels}" if channels is not None else "1 or 3"
        names = "/".join(np.dtype(k).name for k in kinds)
        got = (f"{image.dtype} {image.shape}" if isinstance(image, np.ndarray) else type(image).__name__)
        raise ValueError(f"{where}: expected an HWC {names} image with {want} channel(s); got {got}")
    return image


def cv_mode(interpolation: str, src_w: int, src_h: int, dst_w: int, dst_h: int) -> str:
    """OneFlow's ``GetCvInterpolationFlag`` (``user/image/image_util.cpp``)."""
    mode = INTERPOLATIONS[interpolation]
    return mode if mode is not None else rs.auto_mode(src_w, src_h, dst_w, dst_h)


def scale_of(new_w: int, new_h: int, w: int, h: int) -> np.ndarray:
    return np.array([_F32(new_w) / _F32(w), _F32(new_h) / _F32(h)], dtype=_F32)


def resize_to_fixed(ctx: OpContext, images: list[np.ndarray], width: int, height: int, channels: int,
                    dtype: np.dtype, interpolation: str) -> tuple[np.ndarray, np.ndarray]:
    """Every image to ``height``×``width`` in its own dtype, then converted to ``dtype``; and the
    (w, h) scales."""
    # NHWC as OneFlow has it, in NCHW memory: the resampler works in CHW, and so does the usual next op
    # (CropMirrorNormalize to NCHW), so both copies stay contiguous
    out = np.empty((len(images), channels, height, width), dtype=dtype).transpose(0, 2, 3, 1)
    scale = np.empty((len(images), 2), dtype=_F32)
    for i, image in enumerate(images):
        check_image(image, f"{ctx.op_name}, sample {i}", channels)
        h, w = image.shape[:2]
        resized = rs.resize(image, width, height, cv_mode(interpolation, w, h, width, height))
        out[i] = rs.to_dtype(resized, dtype)
        scale[i] = scale_of(width, height, w, h)
    return out, scale


def _window(size: int, crop: int, pos: float, flip: bool) -> slice | np.ndarray:
    """The source indices of one crop axis, as a slice when they are consecutive (they are unless float32
    rounding says otherwise): ``int(float(size - crop) * pos + k)`` for output index ``k``, reversed when
    ``flip`` (image_preprocess_kernels.cpp computes each index this way, truncating toward zero)."""
    k = np.arange(crop, dtype=_F32)
    idx = (_F32(size - crop) * _F32(pos) + (k[::-1] if flip else k)).astype(np.int64)
    step = -1 if flip else 1
    if np.array_equal(idx, np.arange(idx[0], idx[0] + step * crop, step)):
        stop = int(idx[-1]) + step
        return slice(int(idx[0]), stop if stop >= 0 else None, step)
    return idx


def crop_mirror_normalize(ctx: OpContext, images: Any, mirror: np.ndarray | None = None, *, channels: int,
                          crop: tuple[int, int], pos: tuple[float, float], mean: np.ndarray,
                          inv_std: np.ndarray, nchw: bool) -> np.ndarray:
    """Crop each image at ``pos``, flip the window when ``mirror[i]``, and ``(px - mean) * inv_std``."""
    n = len(images)
    crop_h, crop_w = crop
    # the uint8 crops go straight into the output layout (an image resized by this module is a view of
    # CHW memory, so its NCHW copy is contiguous)
    batch = np.empty((n, channels, crop_h, crop_w) if nchw else (n, crop_h, crop_w, channels), dtype=np.uint8)
    for i in range(n):
        where = f"{ctx.op_name}, sample {i}"
        image = check_image(images[i], where, channels, (np.uint8,))
        h, w = image.shape[:2]
        if h < crop_h or w < crop_w:
            raise ValueError(f"{where}: the {w}x{h} image is smaller than the {crop_w}x{crop_h} crop")
        rows = _window(h, crop_h, pos[0], False)
        cols = _window(w, crop_w, pos[1], mirror is not None and bool(mirror[i]))
        window = image[rows][:, cols]
        batch[i] = window.transpose(2, 0, 1) if nchw else window
    # one float32 pass over the batch: (px - mean) * inv_std, as the kernel computes it
    shape = (channels, 1, 1) if nchw else (channels,)
    values = torch.from_numpy(batch).to(torch.float32)
    values.sub_(torch.from_numpy(mean).view(shape)).mul_(torch.from_numpy(inv_std).view(shape))
    return values.numpy()


def decode_crop_resize(ctx: OpContext, buffers: list[np.ndarray], width: int, height: int,
                       crop: tuple[tuple[float, float], tuple[float, float], int]) -> np.ndarray:
    """Decode each encoded image to RGB, take a random crop window, resize it bilinearly."""
    out = np.empty((len(buffers), height, width, 3), dtype=np.uint8)
    for i, data in enumerate(buffers):
        where = f"{ctx.op_name}, sample {i}"
        image = decode_pixels(np.asarray(data).tobytes(), "RGB", where)
        y, x, h, w = crop_window(image.shape[0], image.shape[1], ctx.rng, *crop)
        out[i] = rs.resize(np.ascontiguousarray(image[y:y + h, x:x + w]), width, height, rs.LINEAR)
    return out


def flip(ctx: OpContext, batch_size: int, probability: float) -> np.ndarray:
    return (ctx.rng.random(batch_size) < probability).astype(np.int8)


def to_tensor(ctx: OpContext, items: list[np.ndarray], shape: tuple[int, ...], dtype: np.dtype,
              instance_shape: tuple[int, ...]) -> np.ndarray:
    out = np.empty((len(items),) + instance_shape, dtype=dtype)
    for i, item in enumerate(items):
        if item.shape != instance_shape or item.dtype != dtype:
            raise ValueError(f"{ctx.op_name}: element {i} is {item.shape} {item.dtype}; instance_shape "
                             f"{instance_shape} "
                             f"{dtype} expected (tensor_buffer_to_tensor neither converts nor pads)")
        out[i] = item
    return out.reshape(shape + instance_shape)
