"""OneRec ``Example`` records: FlatBuffers tables read and written in plain Python.

The schema (OneFlow ``user/kernels/example_generated.h``, namespace ``onerec.example``, file identifier
``1REC``)::

    Example  { features: [Feature] (sorted by name); metaDigest: Digest }
    Feature  { name: string (required, the key); tensor: Tensor }
    Tensor   { shape: [int32]; data: TensorData (a union: its type byte, then the table) }
    TensorData = Int8List | Int16List | Int32List | Int64List | Float32List | Float64List
               | StringList | BinaryList          (each a table of one field, ``values``)
    Binary   { buffer: [int8] }        Digest { value: int64 }

A FlatBuffer is little-endian. It starts with the root table's ``uint32`` offset (and here the identifier).
A table starts with an ``int32`` back to its vtable: ``uint16`` vtable size, table size, then one ``uint16``
per field, the field's place in the table (0: absent). Offsets to tables, vectors and strings are ``uint32``
forward from where they are stored; a vector is a ``uint32`` count and its elements; a string also ends in a
NUL byte.

Every read here is bounds-checked, so a damaged record raises :class:`FormatError` instead of reading past
its end. :func:`verify` checks what FlatBuffers' ``Verifier`` does (OneFlow's ``verify_example``): the
identifier, every offset, vector and string of every feature, and the alignment of each ``uint32``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

IDENTIFIER = b"1REC"
# TensorData union members, by type byte; the numeric lists as their numpy dtypes
NUMERIC_KINDS: dict[int, np.dtype[Any]] = {
    1: np.dtype("<i1"), 2: np.dtype("<i2"), 3: np.dtype("<i4"), 4: np.dtype("<i8"), 5: np.dtype("<f4"),
    6: np.dtype("<f8")}
KIND_NAMES = {0: "NONE", 1: "Int8List", 2: "Int16List", 3: "Int32List", 4: "Int64List", 5: "Float32List",
              6: "Float64List", 7: "StringList", 8: "BinaryList"}
_STRING_LIST, _BINARY_LIST = 7, 8
_MAX_SIZE = 2**31 - 1  # FlatBuffers' largest buffer


class FormatError(ValueError):
    """Bytes that are not a well-formed OneRec Example (the caller names the file and record)."""


@dataclass(frozen=True, eq=False)
class ExampleTensor:
    """One feature's tensor: its ``shape`` field, its TensorData type byte (``kind``, see ``KIND_NAMES``) and
    its values: a 1-D array for a numeric list, a list of bytes for a string or binary list, None for none."""

    shape: tuple[int, ...]
    kind: int
    values: Any

    @property
    def kind_name(self) -> str:
        return KIND_NAMES.get(self.kind, f"unknown type {self.kind}")


class _Buffer:
    """Bounds-checked reads of one FlatBuffer."""

    def __init__(self, data: Any, aligned: bool) -> None:
        self.data = memoryview(data).cast("B")
        self.size = len(self.data)
        self.aligned = aligned  # check uint32/uint16 alignment, as the Verifier does

    def _check(self, pos: int, n: int, what: str, align: int = 1) -> None:
        if pos < 0 or pos + n > self.size:
            raise FormatError(f"{what} at byte {pos} runs past the end of the {self.size}-byte example")
        if self.aligned and pos % align:
            raise FormatError(f"{what} at byte {pos} is not {align}-byte aligned")

    def scalar(self, fmt: str, pos: int, what: str) -> int:
        n = struct.calcsize(fmt)
        self._check(pos, n, what, n)
        return int(struct.unpack_from(fmt, self.data, pos)[0])

    def follow(self, pos: int, what: str) -> int:
        """The position a ``uint32`` offset stored at ``pos`` points to."""
        rel = self.scalar("<I", pos, f"offset to {what}")
        if rel == 0 or rel > _MAX_SIZE:
            raise FormatError(f"offset to {what} at byte {pos} is {rel} (a positive offset is expected)")
        self._check(pos + rel, 1, what)
        return pos + rel

    def vector(self, pos: int, elem_size: int, what: str) -> tuple[int, int]:
        """(first element, count) of the vector at ``pos``."""
        count = self.scalar("<I", pos, f"length of {what}")
        if count * elem_size > _MAX_SIZE:
            raise FormatError(f"{what} at byte {pos} declares {count} elements, past any FlatBuffer's size")
        self._check(pos + 4, count * elem_size, f"{what} ({count} elements)")
        return pos + 4, count

    def string(self, pos: int, what: str) -> bytes:
        start, n = self.vector(pos, 1, what)
        self._check(start + n, 1, f"NUL ending {what}")
        if self.data[start + n] != 0:
            raise FormatError(f"{what} at byte {pos} does not end in a NUL byte")
        return bytes(self.data[start:start + n])

    def table(self, pos: int, what: str) -> _Table:
        back = self.scalar("<i", pos, f"{what}'s vtable offset")
        vt = pos - back
        vsize = self.scalar("<H", vt, f"{what}'s vtable")
        if vsize % 2 or vsize < 4:
            raise FormatError(f"{what}'s vtable at byte {vt} declares size {vsize} (an even size >= 4 is expected)")
        self._check(vt, vsize, f"{what}'s vtable")
        return _Table(self, pos, vt, vsize, what)


class _Table:
    def __init__(self, buf: _Buffer, pos: int, vt: int, vsize: int, what: str) -> None:
        self.buf, self.pos, self.vt, self.vsize, self.what = buf, pos, vt, vsize, what

    def field(self, slot: int) -> int | None:
        """Absolute position of field ``slot`` (0, 1, …), None when absent."""
        entry = 4 + 2 * slot
        if entry >= self.vsize:
            return None
        rel = int(struct.unpack_from("<H", self.buf.data, self.vt + entry)[0])
        return self.pos + rel if rel else None

    def child(self, slot: int, what: str) -> int | None:
        """Where the offset in field ``slot`` points (None when the field is absent)."""
        at = self.field(slot)
        return None if at is None else self.buf.follow(at, f"{self.what}.{what}")


def _tensor(buf: _Buffer, pos: int, name: str) -> ExampleTensor:
    table = buf.table(pos, f"tensor of feature {name!r}")
    shape: tuple[int, ...] = ()
    at = table.child(0, "shape")
    if at is not None:
        start, n = buf.vector(at, 4, f"shape of feature {name!r}")
        shape = tuple(int(d) for d in np.frombuffer(buf.data, "<i4", n, start))
    at = table.field(1)
    kind = 0 if at is None else buf.scalar("<B", at, f"data type of feature {name!r}")
    data = table.child(2, "data")
    if kind == 0 or data is None or kind not in KIND_NAMES:
        return ExampleTensor(shape, kind, None)  # FlatBuffers treats an unknown union type as no value
    what = f"{KIND_NAMES[kind]} of feature {name!r}"
    values_at = buf.table(data, what).child(0, "values")
    if values_at is None:
        values: Any = None
    elif kind in NUMERIC_KINDS:
        dtype = NUMERIC_KINDS[kind]
        start, n = buf.vector(values_at, dtype.itemsize, f"values of {what}")
        values = np.frombuffer(buf.data, dtype, n, start)
    else:
        start, n = buf.vector(values_at, 4, f"values of {what}")
        values = []
        for i in range(n):
            item = buf.follow(start + 4 * i, f"value {i} of {what}")
            if kind == _STRING_LIST:
                values.append(buf.string(item, f"value {i} of {what}"))
                continue
            inner = buf.table(item, f"Binary {i} of {what}").child(0, "buffer")
            if inner is None:
                values.append(b"")
            else:
                first, size = buf.vector(inner, 1, f"Binary {i} of {what}")
                values.append(bytes(buf.data[first:first + size]))
    return ExampleTensor(shape, kind, values)


def _features(buf: _Buffer) -> list[tuple[str, int | None]]:
    """(name, tensor table position or None) of each feature, in stored order."""
    root = buf.follow(0, "the Example table")
    example = buf.table(root, "Example")
    at = example.child(0, "features")
    digest = example.child(1, "metaDigest")
    if digest is not None:
        dtable = buf.table(digest, "metaDigest")
        value_at = dtable.field(0)
        if value_at is not None:
            buf.scalar("<q", value_at, "metaDigest.value")
    if at is None:
        return []
    start, n = buf.vector(at, 4, "the features vector")
    out = []
    for i in range(n):
        feature = buf.table(buf.follow(start + 4 * i, f"feature {i}"), f"feature {i}")
        name_at = feature.child(0, "name")
        if name_at is None:
            raise FormatError(f"feature {i} has no name (a required field)")
        raw = buf.string(name_at, f"name of feature {i}")
        try:
            name = raw.decode()
        except UnicodeDecodeError as exc:
            raise FormatError(f"name of feature {i} is not UTF-8 ({raw[:40]!r})") from exc
        out.append((name, feature.child(1, "tensor")))
    return out


def verify(data: Any) -> None:
    """Check a whole Example as FlatBuffers' ``Verifier`` would (OneFlow's ``verify_example``)."""
    buf = _Buffer(data, aligned=True)
    if buf.size < 8 or bytes(buf.data[4:8]) != IDENTIFIER:
        raise FormatError(f"the record does not carry the OneRec identifier {IDENTIFIER!r} at bytes 4-8 "
                          f"(found {bytes(buf.data[4:8])!r})")
    for name, tensor in _features(buf):
        if tensor is not None:
            _tensor(buf, tensor, name)


def find(data: Any, key: str) -> ExampleTensor | None:
    """The tensor of feature ``key`` (None when the feature has no tensor); :class:`KeyError` listing the
    example's features when there is no such feature. Only the path to it is read (and checked)."""
    buf = _Buffer(data, aligned=False)
    features = _features(buf)
    for name, tensor in features:
        if name == key:
            return None if tensor is None else _tensor(buf, tensor, name)
    raise KeyError(f"the OneRec Example has no feature {key!r} (its features: {sorted(n for n, _ in features)})")


def parse(data: Any) -> dict[str, ExampleTensor | None]:
    """Every feature of an Example, by name."""
    buf = _Buffer(data, aligned=False)
    return {name: None if t is None else _tensor(buf, t, name) for name, t in _features(buf)}


# ------------------------------------------------------------------------------------------- writing

_KIND_OF_DTYPE = {dtype: kind for kind, dtype in NUMERIC_KINDS.items()}


def as_tensor(value: Any) -> ExampleTensor:
    """An :class:`ExampleTensor` from an array (its shape kept), a list of str/bytes (a string or binary list,
    shape ``(len,)``) or an :class:`ExampleTensor` (kept as is, whatever its shape says)."""
    if isinstance(value, ExampleTensor):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (str, bytes)) for v in value):
        if all(isinstance(v, str) for v in value):
            return ExampleTensor((len(value),), _STRING_LIST, [v.encode() for v in value])
        if all(isinstance(v, bytes) for v in value):
            return ExampleTensor((len(value),), _BINARY_LIST, list(value))
        raise TypeError("a OneRec string or binary list holds either str or bytes values, not both")
    array = np.asarray(value)
    kind = _KIND_OF_DTYPE.get(array.dtype.newbyteorder("<"))
    if kind is None:
        raise TypeError(f"OneRec tensors hold int8/16/32/64 or float32/64 values, or str/bytes lists; got "
                        f"{array.dtype}")
    return ExampleTensor(tuple(int(d) for d in array.shape), kind, array.reshape(-1))


_OFFSET = "offset"


class _Writer:
    """Lays a FlatBuffer out front to back: a table's vtable just before it, its children after it, so
    every ``uint32`` offset points forward as the format requires. Each object is written aligned, then the
    offset slot of its parent (``parent``) is set to point at it."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def pad(self, align: int, extra: int = 0) -> None:
        """Zero-pad so that ``len + extra`` is a multiple of ``align``."""
        self.buf += bytes(-(len(self.buf) + extra) % align)

    def _point(self, parent: int) -> None:
        struct.pack_into("<I", self.buf, parent, len(self.buf) - parent)

    def table(self, parent: int, fields: Sequence[Any]) -> list[int]:
        """A table whose field ``i`` is ``fields[i]``: ``OFFSET`` (pointed at a child later), None (absent),
        or ``("u8" | "i64", value)``. Returns each field's position (-1 unless an ``OFFSET``), for its child
        to point it."""
        place: dict[int, int] = {}
        has_long = any(isinstance(f, tuple) and f[0] == "i64" for f in fields)
        size = 8 if has_long else 4  # the soffset, then (with an int64) 4 bytes to align it
        body = bytearray()
        for kind, fmt in (("i64", "<q"), (_OFFSET, "<I"), ("u8", "<B")):
            for i, f in enumerate(fields):
                if f == _OFFSET and kind == _OFFSET:
                    value = 0
                elif isinstance(f, tuple) and f[0] == kind:
                    value = f[1]
                else:
                    continue
                place[i] = size
                body += struct.pack(fmt, value)
                size += struct.calcsize(fmt)
        vsize = 4 + 2 * len(fields)
        self.pad(8 if has_long else 4, vsize)
        vt = len(self.buf)
        self.buf += struct.pack(f"<HH{len(fields)}H", vsize, size, *(place.get(i, 0) for i in range(len(fields))))
        pos = len(self.buf)
        self._point(parent)
        self.buf += struct.pack("<i", pos - vt) + bytes(size - 4 - len(body)) + body
        return [pos + place[i] if f == _OFFSET else -1 for i, f in enumerate(fields)]

    def vector(self, parent: int, raw: bytes, count: int, elem_align: int, nul: bool = False) -> None:
        self.pad(max(4, elem_align), 4)  # the count 4-aligned, the elements ``elem_align``-aligned
        self._point(parent)
        self.buf += struct.pack("<I", count) + raw + (b"\0" if nul else b"")

    def offsets_vector(self, parent: int, count: int) -> list[int]:
        self.pad(4)
        self._point(parent)
        self.buf += struct.pack("<I", count)
        slots = [len(self.buf) + 4 * i for i in range(count)]
        self.buf += bytes(4 * count)
        return slots


def encode(features: Mapping[str, Any], meta_digest: int | None = None) -> bytes:
    """One Example holding ``features`` (name → array, str/bytes list or :class:`ExampleTensor`), sorted by
    name as FlatBuffers' keyed vectors are; ``meta_digest`` adds a ``metaDigest``."""
    items = sorted(((name.encode(), as_tensor(v)) for name, v in features.items()), key=lambda item: item[0])
    w = _Writer()
    w.buf += bytes(4) + IDENTIFIER  # the root offset (slot 0), then the identifier
    features_slot, digest_slot = w.table(0, (_OFFSET, _OFFSET if meta_digest is not None else None))
    for slot, (name, tensor) in zip(w.offsets_vector(features_slot, len(items)), items):
        name_slot, tensor_slot = w.table(slot, (_OFFSET, _OFFSET))
        w.vector(name_slot, name, len(name), 1, nul=True)
        _write_tensor(w, tensor_slot, tensor)
    if meta_digest is not None:
        w.table(digest_slot, (("i64", meta_digest),))
    w.pad(8)
    return bytes(w.buf)


def _write_tensor(w: _Writer, parent: int, tensor: ExampleTensor) -> None:
    has_data = tensor.kind != 0 and tensor.values is not None
    slots = w.table(parent, (_OFFSET, ("u8", tensor.kind), _OFFSET if has_data else None))
    data_slot = slots[2]
    w.vector(slots[0], struct.pack(f"<{len(tensor.shape)}i", *tensor.shape), len(tensor.shape), 4)
    if not has_data:
        return
    (values_slot,) = w.table(data_slot, (_OFFSET,))
    if tensor.kind in NUMERIC_KINDS:
        dtype = NUMERIC_KINDS[tensor.kind]
        values = np.ascontiguousarray(tensor.values, dtype).reshape(-1)
        w.vector(values_slot, values.tobytes(), len(values), dtype.itemsize)
        return
    items: Sequence[bytes] = tensor.values
    for item_slot, item in zip(w.offsets_vector(values_slot, len(items)), items):
        if tensor.kind == _STRING_LIST:
            w.vector(item_slot, item, len(item), 1, nul=True)
        else:
            (buffer_slot,) = w.table(item_slot, (_OFFSET,))
            w.vector(buffer_slot, item, len(item), 1)
