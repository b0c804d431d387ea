"""Image decoders: ``flow.data.OFRecordImageDecoder``, ``OFRecordImageDecoderRandomCrop`` and
``ofrecord_image_classification_reader`` (OneFlow ``user/kernels/ofrecord_decoder_kernels.cpp``,
``user/image/random_crop_generator.cpp``, ``user/data/ofrecord_image_classification_dataset.h``).

OneFlow decoded with OpenCV (``cv::imdecode`` with ``IMREAD_COLOR`` to BGR, then converted to the requested
color space, or ``IMREAD_GRAYSCALE``); :mod:`flowtorch._src.data.imdecode` gives the same pixels (16-bit
samples keep their high byte). A decoded image is an HWC uint8 array (C = 3 for RGB/BGR, 1 for GRAY), one per
sample in a tensor buffer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.decoders import feature, single_bytes
from flowtorch._src.data.imdecode import decode_pixels
from flowtorch._src.data.readers import open_source, parse_records
from flowtorch._src.data.record_kernels import crop_window as crop_window
from flowtorch._src.data.record_kernels import decode_records
from flowtorch._src.data.tensor_buffer import tensor_buffer_to_tensor
from flowtorch._src.ops._checks import arg_error, check_int, module_op_name
from flowtorch._src.ops.array_ops import squeeze

COLOR_SPACES = ("BGR", "RGB", "GRAY")


def check_color_space(value: Any, op: str) -> str:
    if value not in COLOR_SPACES:
        raise arg_error(op, "color_space", "one of 'BGR', 'RGB', 'GRAY'", value)
    return value


def check_range(value: Any, op: str, arg: str, positive: bool) -> tuple[float, float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            or not value[0] <= value[1] or (positive and value[0] <= 0)):
        raise arg_error(op, arg, "a [low, high] pair of numbers with 0 < low <= high", value)
    return float(value[0]), float(value[1])


def _image_op(op: str, input_blob: Any, blob_name: Any, color_space: Any) -> tuple[db.DataBlob, str]:
    records = db.check_data_blob(input_blob, op, "input_blob", (db.RECORD,))
    if not isinstance(blob_name, str):
        raise arg_error(op, "blob_name", "the feature name (str)", blob_name)
    return records, check_color_space(color_space, op)


def OFRecordImageDecoder(input_blob: db.DataBlob, blob_name: str, color_space: str = "BGR",
                         name: str | None = None) -> db.DataBlob:
    """``flow.data.OFRecordImageDecoder``: each record's encoded image as an HWC uint8 tensor buffer."""
    op = "data.OFRecordImageDecoder"
    records, color_space = _image_op(op, input_blob, blob_name, color_space)
    kernel = functools.partial(decode_records, key=blob_name, color_space=color_space, crop=None)
    (blob,) = pl.pipeline(op).add(db.op_name("OFRecordImageDecoder_", name), kernel, (records,),
                                  [("out_0", db.meta(records.shape, np.uint8), db.BUFFER)])
    return blob


def OFRecordImageDecoderRandomCrop(input_blob: db.DataBlob, blob_name: str, color_space: str = "BGR",
                                   num_attempts: int = 10, seed: int | None = None,
                                   random_area: Sequence[float] = (0.08, 1.0),
                                   random_aspect_ratio: Sequence[float] = (0.75, 1.333333),
                                   name: str = "OFRecordImageDecoderRandomCrop") -> db.DataBlob:
    """``flow.data.OFRecordImageDecoderRandomCrop``: decode, then an Inception-style random crop
    (``OFRecordImageDecoderRandomCrop/out_0``; later ones in the job take ``_<n>``)."""
    op = "data.OFRecordImageDecoderRandomCrop"
    records, color_space = _image_op(op, input_blob, blob_name, color_space)
    num_attempts = check_int(num_attempts, op, "num_attempts")
    crop = (check_range(random_area, op, "random_area", True),
            check_range(random_aspect_ratio, op, "random_aspect_ratio", True), num_attempts)
    op_name = module_op_name(None if name == "OFRecordImageDecoderRandomCrop" else name,
                             "OFRecordImageDecoderRandomCrop", "OFRecordImageDecoderRandomCrop_", op)
    kernel = functools.partial(decode_records, key=blob_name, color_space=color_space, crop=crop)
    (blob,) = pl.pipeline(op).add(op_name, kernel, (records,),
                                  [("out_0", db.meta(records.shape, np.uint8), db.BUFFER)],
                                  seed=db.draw_seed(seed, op))
    return blob


def classify(ctx: db.OpContext, image_key: str, label_key: str, color_space: str
             ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The classification reader's kernel: each record's decoded image and its int32 ``(1,)`` label."""
    images, labels = [], []
    for i, record in enumerate(parse_records(ctx)):
        data = single_bytes(record, image_key, ctx.op_name, "one encoded image")
        images.append(decode_pixels(data, color_space, f"{ctx.op_name}, sample {i}"))
        label_feat = feature(record, label_key, ctx.op_name)
        kind = label_feat.WhichOneof("kind")
        values: Sequence[int] = getattr(label_feat, kind).value if kind in ("int32_list", "int64_list") else ()
        if len(values) != 1:
            raise ValueError(f"{ctx.op_name}: label feature {label_key!r} must be an int32_list or int64_list with "
                             f"one value; it is {kind} with {len(values)} value(s)")
        labels.append(np.array([values[0]], dtype=np.int64).astype(np.int32))  # int64 truncates, as a C cast
    return images, labels


def ofrecord_image_classification_reader(
        ofrecord_dir: str, image_feature_name: str, label_feature_name: str, batch_size: int = 1,
        data_part_num: int = 1, part_name_prefix: str = "part-", part_name_suffix_length: int = -1,
        random_shuffle: bool = False, shuffle_buffer_size: int = 1024, shuffle_after_epoch: bool = False,
        color_space: str = "BGR", decode_buffer_size_per_thread: int = 32,
        num_decode_threads_per_machine: int | None = None, name: str | None = None) -> tuple[Any, Any]:
    """``flow.data.ofrecord_image_classification_reader``: ``(image, label)``; images an HWC uint8 tensor
    buffer, labels static int32 ``(batch_size,)``. The decode-thread arguments are accepted: the loader's
    worker processes do the decoding (``FLOWTORCH_DATA_WORKERS``)."""

    op = "data.ofrecord_image_classification_reader"
    if color_space not in ("BGR", "RGB"):
        raise arg_error(op, "color_space", "'BGR' or 'RGB' (OneFlow's classification reader has no GRAY)",
                        color_space)
    for arg, value in (("image_feature_name", image_feature_name), ("label_feature_name", label_feature_name)):
        if not isinstance(value, str):
            raise arg_error(op, arg, "a feature name (str)", value)
    pipe = pl.pipeline(op)
    source = open_source(op, ofrecord_dir, batch_size, data_part_num, part_name_prefix, part_name_suffix_length,
                         random_shuffle, shuffle_buffer_size, shuffle_after_epoch, -1)
    n = source.batch_size
    kernel = functools.partial(classify, image_key=image_feature_name, label_key=label_feature_name,
                               color_space=color_space)
    image, label = pipe.add(db.op_name("OFRecordImageClassificationReader_", name), kernel, (),
                            [("image_0", db.meta((n,), np.uint8), db.BUFFER),
                             ("label_0", db.meta((n,), np.uint8), db.BUFFER)], source=source)
    label = tensor_buffer_to_tensor(label, dtype=np.int32, instance_shape=[1])
    return image, squeeze(label, axis=[-1])
