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
from flowtorch._src.ops._checks import arg_error, check_shape

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


def decode_raw(ctx: db.OpContext, records: list[Any], key: str, shape: tuple[int, ...], dtype: np.dtype,
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


def decode_bytes(ctx: db.OpContext, records: list[Any], key: str) -> list[np.ndarray]:
    """Each record's bytes feature ``key`` as a 1-D int8 array (a tensor buffer)."""
    return [np.frombuffer(single_bytes(record, key, ctx.op_name), dtype=np.int8) for record in records]


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

