"""OFRecord decoders: ``flow.data.OFRecordRawDecoder`` and ``OFRecordBytesDecoder``
(OneFlow ``user/kernels/ofrecord_decoder_kernels.cpp``, ``user/ops/ofrecord_decoder_ops.cpp``).

Image decoders live in :mod:`flowtorch._src.data.image_decoders`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from flowtorch._src import dtypes
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.record_kernels import decode_bytes, decode_raw
from flowtorch._src.data.record_kernels import feature as feature
from flowtorch._src.data.record_kernels import single_bytes as single_bytes
from flowtorch._src.ops._checks import arg_error, check_shape


def OFRecordRawDecoder(input_blob: db.DataBlob, blob_name: str, shape: Sequence[int], dtype: Any,
                       dim1_varying_length: bool = False, auto_zero_padding: bool = False,
                       name: str | None = None) -> db.DataBlob:
    """``flow.data.OFRecordRawDecoder``: feature ``blob_name`` of each record as a ``(batch, *shape)`` blob.

    A list shorter than ``shape`` needs ``auto_zero_padding`` or ``dim1_varying_length`` and is zero-padded.
    (OneFlow's kernel passed those two flags to its helper in swapped order, so with only
    ``auto_zero_padding`` the tail kept stale memory; zeros are what the flag promises.)
    """
    op = "data.OFRecordRawDecoder"
    records = db.check_data_blob(input_blob, op, "input_blob", (db.RECORD,))
    if not isinstance(blob_name, str):
        raise arg_error(op, "blob_name", "the feature name (str)", blob_name)
    shape_t = check_shape(shape, op, "shape", "a list/tuple of positive ints (the shape of one sample; () for a "
                          "scalar)")
    dt = dtypes.to_dtype(dtype, what=f"flow.{op}: dtype")
    pipe = pl.pipeline(op)
    kernel = functools.partial(decode_raw, key=blob_name, shape=shape_t, dtype=dt.numpy_dtype,
                               varying=bool(dim1_varying_length or auto_zero_padding))
    (blob,) = pipe.add(db.op_name("OFRecordRawDecoder_", name), kernel, (records,),
                       [("out_0", db.meta(records.shape + shape_t, dt), db.TENSOR)])
    return blob


def OFRecordBytesDecoder(input_blob: db.DataBlob, blob_name: str, name: str | None = None
                         ) -> db.DataBlob:
    """``flow.data.OFRecordBytesDecoder``: each record's bytes feature as a tensor buffer of int8."""
    op = "data.OFRecordBytesDecoder"
    records = db.check_data_blob(input_blob, op, "input_blob", (db.RECORD,))
    if not isinstance(blob_name, str):
        raise arg_error(op, "blob_name", "the feature name (str)", blob_name)
    pipe = pl.pipeline(op)
    (blob,) = pipe.add(db.op_name("OFRecordBytesDecoder_", name),
                       functools.partial(decode_bytes, key=blob_name), (records,),
                       [("out_0", db.meta(records.shape, np.uint8), db.BUFFER)])
    return blob

