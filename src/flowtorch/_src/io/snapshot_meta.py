"""The ``meta`` file of a OneFlow snapshot variable: ``VariableMetaInfo`` protobuf text and its data types.

A ``meta`` file reads ``shape { dim: 2 dim: 3 } data_type: kFloat``; :func:`parse_meta` accepts what protobuf's
text parser accepts for that message, :func:`format_meta` writes what protobuf's ``MessageToString`` writes,
and the ``DataType`` enum names map to numpy dtypes both ways. Pure Python and numpy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NoReturn

import numpy as np

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


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<int>[-+]?(?:0[xX][0-9a-fA-F]+|[0-9]+)(?![\w.]))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<sym>[{}<>:\[\],;])
    """,
    re.VERBOSE,
)
_INT64_MAX = 2**63 - 1


class _MetaParser:
    """Parser for the subset of protobuf text format that ``VariableMetaInfo`` needs."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str, int, int]] = []
        line, line_start = 1, 0
        pos = 0
        while pos < len(text):
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                self._fail(f"unexpected character {text[pos]!r}", line, pos - line_start + 1)
            kind = m.lastgroup or ""
            if kind != "ws":
                self.tokens.append((kind, m.group(), line, pos - line_start + 1))
            for i in range(pos, m.end()):
                if text[i] == "\n":
                    line, line_start = line + 1, i + 1
            pos = m.end()
        self.i = 0

    @staticmethod
    def _fail(msg: str, line: int, col: int) -> NoReturn:
        raise ValueError(f"line {line} col {col}: {msg}")

    def _peek(self) -> tuple[str, str, int, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _next(self, expected: str) -> tuple[str, str, int, int]:
        tok = self._peek()
        if tok is None:
            last = self.tokens[-1] if self.tokens else ("", "", 1, 1)
            self._fail(f"expected {expected}, got end of text", last[2], last[3])
        self.i += 1
        return tok

    def _accept(self, value: str) -> bool:
        tok = self._peek()
        if tok is not None and tok[0] == "sym" and tok[1] == value:
            self.i += 1
            return True
        return False

    def _expect_sym(self, value: str) -> None:
        tok = self._next(repr(value))
        if tok[0] != "sym" or tok[1] != value:
            self._fail(f"expected {value!r}, got {tok[1]!r}", tok[2], tok[3])

    def _int(self) -> int:
        tok = self._next("an integer")
        if tok[0] != "int":
            self._fail(f"expected an integer, got {tok[1]!r}", tok[2], tok[3])
        body = tok[1].lstrip("+-")
        if body[:2].lower() == "0x":
            value = int(body, 16)
        elif len(body) > 1 and body[0] == "0":
            if not set(body) <= set("01234567"):
                self._fail(f"invalid octal integer {tok[1]!r}", tok[2], tok[3])
            value = int(body, 8)
        else:
            value = int(body)
        value = -value if tok[1].startswith("-") else value
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
            self._fail(f"integer {tok[1]} out of int64 range", tok[2], tok[3])
        return value

    def _field_name(self, allowed: tuple[str, ...], message: str) -> str:
        tok = self._next("a field name")
        if tok[0] != "ident" or tok[1] not in allowed:
            self._fail(f"{message} has no field {tok[1]!r}", tok[2], tok[3])
        return tok[1]

    def _separator(self) -> None:
        if not self._accept(","):
            self._accept(";")

    def _shape(self) -> list[int]:
        self._accept(":")
        tok = self._next("'{' or '<'")
        if tok[0] != "sym" or tok[1] not in "{<":
            self._fail(f"expected '{{' or '<', got {tok[1]!r}", tok[2], tok[3])
        close = "}" if tok[1] == "{" else ">"
        dims: list[int] = []
        while not self._accept(close):
            if self._peek() is None:
                self._next(repr(close))
            self._field_name(("dim",), "ShapeProto")
            self._expect_sym(":")
            if self._accept("["):
                if not self._accept("]"):
                    dims.append(self._int())
                    while self._accept(","):
                        dims.append(self._int())
                    self._expect_sym("]")
            else:
                dims.append(self._int())
            self._separator()
        return dims

    def _data_type(self) -> str:
        # Unknown enum names/numbers are returned as text and rejected later
        # as unsupported data types rather than as syntax errors.
        self._expect_sym(":")
        tok = self._next("a DataType value")
        if tok[0] == "ident":
            return tok[1]
        self.i -= 1
        number = self._int()
        return _ENUM_NAMES.get(number, str(number))

    def parse(self) -> tuple[tuple[int, ...] | None, str | None]:
        shape: list[int] | None = None
        data_type: str | None = None
        while self._peek() is not None:
            tok = self.tokens[self.i]
            name = self._field_name(("shape", "data_type"), "VariableMetaInfo")
            if (name == "shape" and shape is not None) or (
                name == "data_type" and data_type is not None
            ):
                self._fail(f"field {name!r} given more than once", tok[2], tok[3])
            if name == "shape":
                shape = self._shape()
            else:
                data_type = self._data_type()
            self._separator()
        return (tuple(shape) if shape is not None else None), data_type


def parse_meta(text: str) -> tuple[tuple[int, ...], str]:
    """Parse a ``meta`` file's text into ``(shape, data_type_name)``.

    Accepts what protobuf's text parser accepts for this message (one-line or
    multi-line, ``#`` comments, ``:``/``<>``/``[..]`` variants, enum numbers).
    A missing ``shape`` means a scalar ``()``, as protobuf would report it.
    ``data_type`` is returned as written (a number outside the enum as its
    digits); :func:`meta_to_numpy_dtype` decides whether it is supported.
    Raises ``ValueError`` (with line/column) on malformed text and on a missing
    ``data_type``.
    """
    shape, data_type = _MetaParser(text).parse()
    if data_type is None:
        raise ValueError("required field 'data_type' is missing")
    if shape is None:
        shape = ()
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {shape} has a negative dimension")
    return shape, data_type
