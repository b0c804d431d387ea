"""The v0.1 data API: ``flow.data.decode_ofrecord`` with ``BlobConf`` and its codecs and preprocessors, and
``flow.data.ofrecord_loader`` (OneFlow v0.1.2 ``python/ops/data_ops.py``, ``core/record/*`` decoders).

One ``decode_ofrecord`` call reads one batch of records and decodes every ``BlobConf`` from it, as
OneFlow's single ``decode_ofrecord`` op did; its blobs are named ``<name>/<blob conf name>``
(``decode/input_ids``). Numbers follow v0.1.2, where those programs came from: preprocessors in list order,
images BGR unless ``bgr2rgb``, ``(x − mean) / std``. Where v0.1.2 aborted, flowtorch does what v0.4.0's
re-implementation did instead: an image whose size differs from the ``BlobConf`` shape is resized to it
("auto" interpolation), and ``channels_first`` normalisation transposes HWC to CHW.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from flowtorch._src import dtypes, naming
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.decoders import decode_raw, feature
from flowtorch._src.data.imdecode import decode_pixels
from flowtorch._src.data.readers import ofrecord_reader
from flowtorch._src.data.resize import auto_mode, resize
from flowtorch._src.ops._checks import arg_error, check_int, check_shape


class ImagePreprocessor:
    """``flow.data.ImagePreprocessor("bgr2rgb" | "mirror")`` (mirror: a horizontal flip with probability ½)."""

    def __init__(self, preprocessor: str) -> None:
        if not isinstance(preprocessor, str) or preprocessor.lower() not in ("bgr2rgb", "mirror"):
            raise ValueError(f"flow.data.ImagePreprocessor: preprocessor must be 'bgr2rgb' or 'mirror'; received "
                             f"{preprocessor!r}")
        self.preprocessor = preprocessor.lower()

    def is_rgb(self) -> bool:
        return self.preprocessor == "bgr2rgb"

    def is_mirror(self) -> bool:
        return self.preprocessor == "mirror"


class ImageResizePreprocessor:
    """``flow.data.ImageResizePreprocessor(width, height)``: bilinear resize (OpenCV INTER_LINEAR)."""

    def __init__(self, width: int, height: int) -> None:
        self.width = check_int(width, "data.ImageResizePreprocessor", "width")
        self.height = check_int(height, "data.ImageResizePreprocessor", "height")


class ImageCodec:
    """``flow.data.ImageCodec(image_preprocessors=None)``: the feature holds one encoded image."""

    def __init__(self, image_preprocessors: Sequence[Any] | None = None) -> None:
        steps = list(image_preprocessors or ())
        for i, p in enumerate(steps):
            if not isinstance(p, (ImagePreprocessor, ImageResizePreprocessor)):
                raise arg_error("data.ImageCodec", f"image_preprocessors[{i}]",
                                "a flow.data.ImagePreprocessor or ImageResizePreprocessor", p)
        self.image_preprocessors = steps


class RawCodec:
    """``flow.data.RawCodec(auto_zero_padding=False)``: the feature's list as the blob's values."""

    def __init__(self, auto_zero_padding: bool = False) -> None:
        self.auto_zero_padding = bool(auto_zero_padding)


class BytesListCodec:
    """``flow.data.BytesListCodec()``: each bytes value of the feature fills one row (int8/char blobs)."""


class NormByChannelPreprocessor:
    """``flow.data.NormByChannelPreprocessor(mean_values, std_values=(1, 1, 1), data_format="channels_last")``."""

    def __init__(self, mean_values: Sequence[float], std_values: Sequence[float] = (1.0, 1.0, 1.0),
                 data_format: str = "channels_last") -> None:
        op = "data.NormByChannelPreprocessor"
        if not isinstance(data_format, str):  # OneFlow's Python asserted a str and left the value to the decoder
            raise arg_error(op, "data_format", "a str ('channels_last', 'channels_first', 'NCHW' …)", data_format)
        self.mean_values = tuple(float(v) for v in mean_values)
        self.std_values = tuple(float(v) for v in std_values) or (1.0,) * len(self.mean_values)
        if len(self.std_values) != len(self.mean_values):
            raise arg_error(op, "std_values", f"{len(self.mean_values)} values (as many as mean_values)", std_values)
        self.data_format = data_format


class BlobConf:
    """``flow.data.BlobConf(name, shape, dtype, codec, preprocessors=None)``: one blob of decode_ofrecord."""

    def __init__(self, name: str, shape: Sequence[int], dtype: Any, codec: Any,
                 preprocessors: Sequence[Any] | None = None) -> None:
        op = "data.BlobConf"
        if not isinstance(name, str):
            raise arg_error(op, "name", "the feature name (str)", name)
        shape = check_shape(shape, op, "shape")
        if not isinstance(codec, (ImageCodec, RawCodec, BytesListCodec)):
            raise arg_error(op, "codec", "flow.data.ImageCodec, RawCodec or BytesListCodec", codec)
        preprocessors = list(preprocessors or ())
        for i, p in enumerate(preprocessors):
            if not isinstance(p, NormByChannelPreprocessor):
                raise arg_error(op, f"preprocessors[{i}]", "a flow.data.NormByChannelPreprocessor (image "
                                "preprocessors go in ImageCodec([...]))", p)
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtypes.to_dtype(dtype, what=f"flow.{op}({name!r}): dtype")
        self.codec = codec
        self.preprocessors = preprocessors


@dataclass(frozen=True)
class _Plan:
    """What the decode kernel needs of one BlobConf (plain data, so it pickles)."""

    key: str
    kind: str  # raw | bytes | image
    shape: tuple[int, ...]  # the BlobConf shape, one sample
    out_shape: tuple[int, ...]  # one sample of the output (an image: CHW unless normalised channels_last)
    dtype: np.dtype
    padding: bool = False
    steps: tuple[tuple[Any, ...], ...] = ()  # image preprocessors: ("resize", w, h) | ("bgr2rgb",) | ("mirror",)
    norms: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...] = ()


_RAW_FORMATS = ("channels_last", "channels_first", "no_channel")


def _plan(conf: BlobConf) -> _Plan:
    norms = tuple((p.data_format, p.mean_values, p.std_values) for p in conf.preprocessors)
    out_shape = conf.shape
    if isinstance(conf.codec, ImageCodec):
        if len(conf.shape) != 3 or conf.shape[2] not in (1, 3):
            raise arg_error("data.decode_ofrecord", f"BlobConf({conf.name!r}).shape", "(height, width, channels) "
                            "with 1 or 3 channels for an ImageCodec", conf.shape)
        # v0.4.0's NormByChannelPreprocessor.output_layout: "channels_last" keeps NHWC, any other value
        # ("channels_first", "NCHW" …) normalises per channel into NCHW (image.crop_mirror_normalize)
        norms = tuple(("channels_last" if fmt == "channels_last" else "channels_first", m, s) for fmt, m, s in norms)
        if any(fmt == "channels_first" for fmt, _, _ in norms):
            out_shape = (conf.shape[2], conf.shape[0], conf.shape[1])
        steps = tuple(("resize", p.width, p.height) if isinstance(p, ImageResizePreprocessor) else (p.preprocessor,)
                      for p in conf.codec.image_preprocessors)
        return _Plan(conf.name, "image", conf.shape, out_shape, conf.dtype.numpy_dtype, steps=steps, norms=norms)
    for fmt, _, _ in norms:
        if fmt not in _RAW_FORMATS:  # ofrecord_decoder.cpp: any other value stopped the kernel (UNIMPLEMENTED)
            raise arg_error("data.decode_ofrecord", f"BlobConf({conf.name!r}): NormByChannelPreprocessor.data_format",
                            "'channels_last', 'channels_first' or 'no_channel' for a raw blob (the values OneFlow's "
                            "decoder reads)", fmt)
    if isinstance(conf.codec, BytesListCodec):
        if conf.dtype.name not in ("int8", "char"):
            raise arg_error("data.decode_ofrecord", f"BlobConf({conf.name!r}).dtype", "flow.int8 or flow.char for "
                            "a BytesListCodec", conf.dtype)
        return _Plan(conf.name, "bytes", conf.shape, out_shape, conf.dtype.numpy_dtype, norms=norms)
    return _Plan(conf.name, "raw", conf.shape, out_shape, conf.dtype.numpy_dtype, padding=conf.codec.auto_zero_padding,
                 norms=norms)


def _normalize(x: np.ndarray, norms: Sequence[tuple[str, tuple[float, ...], tuple[float, ...]]], key: str
               ) -> np.ndarray:
    """NormByChannel over a batch ``(N, *sample)`` (``core/record/ofrecord_decoder.cpp``)."""
    for fmt, mean, std in norms:
        m, s = np.asarray(mean, np.float32), np.asarray(std, np.float32)
        if fmt == "no_channel":
            if len(mean) != 1:
                raise ValueError(f"{key}: no_channel normalisation takes one mean value; {len(mean)} given")
            x = (x - m[0]) / s[0]
        elif fmt == "channels_last":
            if x.shape[-1] != len(mean):
                raise ValueError(f"{key}: channels_last normalisation has {len(mean)} means for {x.shape[-1]} channels")
            x = (x - m) / s
        else:
            if x.shape[1] != len(mean):
                raise ValueError(f"{key}: channels_first normalisation has {len(mean)} means for {x.shape[1]} channels")
            shape = (1, len(mean)) + (1,) * (x.ndim - 2)
            x = (x - m.reshape(shape)) / s.reshape(shape)
    return x


def _decode_image(ctx: db.OpContext, data: bytes, plan: _Plan, index: int) -> np.ndarray:
    # OpenCV's BGR order until a bgr2rgb step
    image = decode_pixels(data, "GRAY" if plan.shape[2] == 1 else "BGR", f"{ctx.op_name}/{plan.key}, sample {index}")
    for step in plan.steps:
        if step[0] == "resize":
            image = resize(image, step[1], step[2], "linear")
        elif step[0] == "bgr2rgb" and image.shape[2] == 3:
            image = np.ascontiguousarray(image[:, :, ::-1])
        elif step[0] == "mirror" and ctx.rng.random() < 0.5:
            image = np.ascontiguousarray(image[:, ::-1])
    height, width, channels = plan.shape
    if image.shape[:2] != (height, width):
        image = resize(image, width, height, auto_mode(image.shape[1], image.shape[0], width, height))
    if image.shape[2] != channels:  # BGR2GRAY / GRAY2BGR
        image = (np.repeat(image, 3, axis=2) if channels == 3 else
                 np.rint(image.astype(np.float32) @ np.array([[0.114], [0.587], [0.299]], np.float32)).astype(np.uint8))
    return image


def decode_all(ctx: db.OpContext, records: list[Any], plans: tuple[_Plan, ...]) -> tuple[np.ndarray, ...]:
    outs = []
    for plan in plans:
        if plan.kind == "raw":
            x = decode_raw(ctx, records, plan.key, plan.shape, plan.dtype, plan.padding)
        elif plan.kind == "bytes":
            x = np.zeros((len(records),) + plan.shape, plan.dtype)
            rows = x.reshape(len(records), plan.shape[0], -1)
            for i, record in enumerate(records):
                values = feature(record, plan.key, ctx.op_name).bytes_list.value
                for r, value in enumerate(values[:plan.shape[0]]):
                    chunk = np.frombuffer(value, np.int8)[:rows.shape[2]]
                    rows[i, r, :len(chunk)] = chunk
        else:
            images = []
            for i, record in enumerate(records):
                feat = feature(record, plan.key, ctx.op_name)
                if feat.WhichOneof("kind") != "bytes_list" or not feat.bytes_list.value:
                    raise ValueError(f"{ctx.op_name}: feature {plan.key!r} must be a bytes_list holding an encoded "
                                     "image")
                images.append(_decode_image(ctx, feat.bytes_list.value[0], plan, i))
            x = np.stack(images)
            if any(fmt == "channels_first" for fmt, _, _ in plan.norms):
                x = x.transpose(0, 3, 1, 2)
        if plan.norms:
            x = _normalize(x.astype(np.float32), plan.norms, plan.key)
        with np.errstate(invalid="ignore", over="ignore"):
            outs.append(np.ascontiguousarray(x.astype(plan.dtype, copy=False)))
    return tuple(outs)


def decode_ofrecord(ofrecord_dir: str, blobs: Sequence[BlobConf], batch_size: int = 1, data_part_num: int = 1,
                    part_name_prefix: str = "part-", part_name_suffix_length: int = -1, shuffle: bool = False,
                    buffer_size: int = 1024, name: str | None = None) -> tuple[db.DataBlob, ...]:
    """``flow.data.decode_ofrecord``: one blob per ``BlobConf``, all from the same records."""
    op = "data.decode_ofrecord"
    if not isinstance(blobs, (list, tuple)) or not blobs or not all(isinstance(b, BlobConf) for b in blobs):
        raise arg_error(op, "blobs", "a non-empty list/tuple of flow.data.BlobConf", blobs)
    base = name if name is not None else naming.unique_str("Decode_")
    reader = ofrecord_reader(ofrecord_dir, batch_size, data_part_num, part_name_prefix, part_name_suffix_length,
                             random_shuffle=shuffle, shuffle_buffer_size=buffer_size, name=f"{base}-record_load")
    op_name = naming.scoped(base)
    plans = tuple(_plan(b) for b in blobs)
    outputs = [(p.key, db.meta(reader.shape + p.out_shape, p.dtype), db.TENSOR) for p in plans]
    seed = db.draw_seed(None, op) if any(("mirror",) in p.steps for p in plans) else None
    return tuple(pl.pipeline(op).add(op_name, functools.partial(decode_all, plans=plans), (reader,), outputs,
                                     seed=seed))


def ofrecord_loader(ofrecord_dir: str, batch_size: int = 1, data_part_num: int = 1, part_name_prefix: str = "part-",
                    part_name_suffix_length: int = -1, shuffle: bool = False, shuffle_buffer_size: int = 1024,
                    name: str | None = None) -> db.DataBlob:
    """``flow.data.ofrecord_loader``: the v0.1 name of :func:`ofrecord_reader` (``shuffle`` = ``random_shuffle``)."""
    return ofrecord_reader(ofrecord_dir, batch_size, data_part_num, part_name_prefix, part_name_suffix_length,
                           random_shuffle=shuffle, shuffle_buffer_size=shuffle_buffer_size, name=name)
