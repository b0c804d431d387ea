"""The ``meta`` file of a OneFlow snapshot variable: ``VariableMetaInfo`` protobuf text and its data types.

A ``meta`` file reads ``shape { dim: 2 dim: 3 } data_type: kFloat``; :func:`parse_meta` accepts what protobuf's
text parser accepts for that message, :func:`format_meta` writes what protobuf's ``MessageToString`` writes,
and the ``DataType`` enum names map to numpy dtypes both ways. Numpy and protobuf's ``text_format``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

from flowtorch._src.errors import UnsupportedDataTypeError

__all__ = ["format_meta", "meta_to_numpy_dtype", "native_dtype", "numpy_dtype_to_meta", "parse_meta"]


# The `DataType` enum of oneflow/core/common/data_type.proto.
_ENUM_NAMES: dict[int, str] = dict(enumerate((
    "kInvalidDataType", "kChar", "kFloat", "kDouble", "kInt8", "kInt32", "kInt64", "kUInt8",
    "kOFRecord", "kFloat16", "kTensorBuffer",
)))  # fmt: skip
_ENUM_NUMBERS: dict[str, int] = {name: number for number, name in _ENUM_NAMES.items()}

_META_TO_NUMPY: dict[str, np.dtype] = {
    "kChar": np.dtype(np.int8),  # OneFlow maps char to np.byte, i.e. int8
    "kFloat": np.dtype(np.float32),
    "kDouble": np.dtype(np.float64),
    "kInt8": np.dtype(np.int8),
    "kInt32": np.dtype(np.int32),
    "kInt64": np.dtype(np.int64),
    "kUInt8": np.dtype(np.uint8),
    "kFloat16": np.dtype(np.float16),
}
# int8 is written as kInt8 (the type of a `flow.int8` variable), never kChar.
_NUMPY_TO_META: dict[np.dtype, str] = {
    dt: name for name, dt in _META_TO_NUMPY.items() if name != "kChar"
}


def native_dtype(dtype: np.dtype) -> np.dtype:
    """``dtype`` in native byte order (snapshots are always native)."""
    return dtype.newbyteorder("=") if dtype.byteorder not in ("=", "|") else dtype


def numpy_dtype_to_meta(dtype: np.dtype | type | str) -> str:
    """Return the ``DataType`` enum name (e.g. ``"kFloat"``) for a numpy dtype.

    Byte order is ignored (snapshots are always native); ``int8`` gives ``kInt8``.
    """
    dt = native_dtype(np.dtype(dtype))
    try:
        return _NUMPY_TO_META[dt]
    except KeyError:
        supported = ", ".join(str(d) for d in _NUMPY_TO_META)
        raise UnsupportedDataTypeError(
            f"numpy dtype {dt} cannot be stored in a OneFlow snapshot (supported: {supported})"
        ) from None


def meta_to_numpy_dtype(data_type: str | int) -> np.dtype:
    """Return the numpy dtype for a ``DataType`` enum name or number."""
    name = _ENUM_NAMES.get(data_type) if isinstance(data_type, int) else data_type
    if name is None or name not in _META_TO_NUMPY:
        known = ", ".join(_META_TO_NUMPY)
        raise UnsupportedDataTypeError(
            f"data_type {data_type!r} has no numpy equivalent (supported: {known})"
        )
    return _META_TO_NUMPY[name]


# ---------------------------------------------------------------------------
# meta text proto


def format_meta(shape: Sequence[int], data_type: str) -> str:
    """Render ``VariableMetaInfo`` exactly as protobuf's ``MessageToString`` does."""
    if data_type not in _ENUM_NUMBERS:
        raise UnsupportedDataTypeError(f"unknown data_type {data_type!r}")
    dims = "".join(f"  dim: {int(d)}\n" for d in shape)
    return f"shape {{\n{dims}}}\ndata_type: {data_type}\n"


def _meta_file() -> descriptor_pb2.FileDescriptorProto:
    """``VariableMetaInfo`` (OneFlow ``core/framework/variable_meta_info.proto``), with the ``ShapeProto`` and
    ``DataType`` it uses. Both fields are optional here, where OneFlow declared them required: a ``meta``
    without ``shape`` is a scalar's, and a missing ``data_type`` is refused by :func:`parse_meta` itself."""
    f = descriptor_pb2.FileDescriptorProto(name="flowtorch/variable_meta_info.proto", package="oneflow",
                                           syntax="proto2")
    enum = f.enum_type.add(name="DataType")
    for number, name in _ENUM_NAMES.items():
        enum.value.add(name=name, number=number)
    f.message_type.add(name="ShapeProto").field.add(name="dim", number=1, label=_F.LABEL_REPEATED,
                                                    type=_F.TYPE_INT64)
    meta = f.message_type.add(name="VariableMetaInfo")
    meta.field.add(name="shape", number=2, label=_F.LABEL_OPTIONAL, type=_F.TYPE_MESSAGE,
                   type_name=".oneflow.ShapeProto")
    meta.field.add(name="data_type", number=3, label=_F.LABEL_OPTIONAL, type=_F.TYPE_ENUM,
                   type_name=".oneflow.DataType")
    return f


_F = descriptor_pb2.FieldDescriptorProto
_POOL = descriptor_pool.DescriptorPool()  # private: a real OneFlow may register these names in the default pool
_POOL.Add(_meta_file())
_META_DESCRIPTOR = _POOL.FindMessageTypeByName("oneflow.VariableMetaInfo")
_VariableMetaInfo: Any = (message_factory.GetMessageClass(_META_DESCRIPTOR)
                          if hasattr(message_factory, "GetMessageClass")
                          else message_factory.MessageFactory(_POOL).GetPrototype(_META_DESCRIPTOR))  # protobuf < 4.22
# text_format's refusal of a DataType value the enum lacks: such a value is returned as written instead, and
# refused by meta_to_numpy_dtype as an unsupported data type (a newer OneFlow's kBFloat16, say)
_UNKNOWN_DATA_TYPE = re.compile(r'Enum type "oneflow\.DataType" has no value (?:named (\w+)|with number (-?\d+))')


def parse_meta(text: str) -> tuple[tuple[int, ...], str]:
    """Parse a ``meta`` file's text into ``(shape, data_type_name)`` with protobuf's ``text_format``.

    Accepts what protobuf's text parser accepts for this message (one-line or multi-line, ``#`` comments,
    ``:``/``<>``/``[..]`` variants, hex and octal integers, enum numbers). A missing ``shape`` means a scalar
    ``()``. ``data_type`` is returned as written when the enum lacks it (a number as its digits);
    :func:`meta_to_numpy_dtype` decides whether it is supported. Raises ``ValueError`` (with line and
    column) on malformed text, a negative dimension and a missing ``data_type``.
    """
    unknown: str | None = None
    while True:
        try:
            meta = text_format.Parse(text, _VariableMetaInfo())
            break
        except text_format.ParseError as exc:
            found = _UNKNOWN_DATA_TYPE.search(str(exc))
            if found is None or unknown is not None or exc.GetLine() is None:
                raise ValueError(str(exc)) from None
            unknown = found.group(1) or found.group(2)
            text = _replace_at(text, exc.GetLine(), exc.GetColumn(), unknown, "kInvalidDataType")
    if not meta.HasField("data_type"):
        raise ValueError("required field 'data_type' is missing")
    shape = tuple(meta.shape.dim)
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {shape} has a negative dimension")
    return shape, unknown if unknown is not None else _ENUM_NAMES[meta.data_type]


def _replace_at(text: str, line: int, column: int, old: str, new: str) -> str:
    """``text`` with the token ``old`` that starts at (1-based) ``line``/``column`` replaced by ``new``."""
    lines = text.split("\n")
    row = lines[line - 1]
    at = row.find(old, max(0, column - 1 - len(old)))
    if at < 0:
        raise ValueError(f"{line}:{column} : DataType value {old!r} not found where protobuf reported it")
    lines[line - 1] = row[:at] + new + row[at + len(old):]
    return "\n".join(lines)
