"""OneRec part files: a sequence of frames, one Example each (OneFlow ``user/data/onerec_dataset.h``)::

    magic     8 bytes   "^ONEREC$"
    reserved  int32     0
    size      int32     payload bytes, 0 … 2**31 - 1
    digest    8 bytes   XXH64 (seed 0) of the 16 bytes above, big-endian
    payload   size bytes, then zeros up to a multiple of 8
    digest    8 bytes   XXH64 (seed 0) of the payload, big-endian

All integers are little-endian; OneFlow byte-swapped each digest before storing it, so it reads big-endian.

:func:`scan` indexes a file once, checking every header (magic, reserved field, header digest, size within
the file); :func:`fetch` reads payloads and checks their digests, as OneFlow checked each frame it read;
:func:`write` frames Examples the same way.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, BinaryIO

import numpy as np

from flowtorch._src.data import onerec_example, xxh64
from flowtorch._src.data.record_file import RecordIndex
from flowtorch._src.errors import RecordFileError

MAGIC = b"^ONEREC$"
_HEAD = struct.Struct("<8sii")  # magic, reserved, payload size
_DIGEST = struct.Struct(">Q")
HEADER_SIZE = _HEAD.size + _DIGEST.size  # 24
_MAX_PAYLOAD = 2**31 - 1


def _padded(size: int) -> int:
    return -(-size // 8) * 8


def scan(path: str) -> RecordIndex:
    """Index the frames of ``path`` (``offsets``: each payload's first byte, ``lengths``: its size); a bad
    header or a frame running past the end of the file raises :class:`RecordFileError`."""
    size = os.path.getsize(path)
    offsets: list[int] = []
    lengths: list[int] = []
    pos = 0
    with open(path, "rb", buffering=1 << 16) as f:
        while pos < size:
            frame = len(offsets)
            where = f"frame #{frame} at byte {pos}"
            header = f.read(HEADER_SIZE)
            if len(header) < HEADER_SIZE:
                raise RecordFileError(f"OneRec file {path!r} is truncated: {where} has a {len(header)}-byte header "
                                      f"({HEADER_SIZE} bytes expected)")
            magic, reserved, length = _HEAD.unpack_from(header)
            if magic != MAGIC:
                raise RecordFileError(f"OneRec file {path!r} is corrupt: {where} starts with {magic!r}, not the "
                                      f"magic {MAGIC!r}; is this a OneRec file?")
            (digest,) = _DIGEST.unpack_from(header, _HEAD.size)
            if digest != xxh64.xxh64(header[:_HEAD.size]):
                raise RecordFileError(f"OneRec file {path!r} is corrupt: {where} fails its header checksum")
            if reserved != 0 or length < 0:
                raise RecordFileError(f"OneRec file {path!r} is corrupt: {where} declares reserved={reserved} and "
                                      f"size={length} (0 and a non-negative size expected)")
            end = pos + HEADER_SIZE + _padded(length) + _DIGEST.size
            if end > size:
                raise RecordFileError(f"OneRec file {path!r} is truncated: {where} declares a {length}-byte payload, "
                                      f"which with its padding and checksum needs {end - pos} bytes; "
                                      f"{size - pos} remain")
            offsets.append(pos + HEADER_SIZE)
            lengths.append(length)
            pos = end
            f.seek(pos)
    return RecordIndex(path, np.asarray(offsets, np.int64), np.asarray(lengths, np.int64))


def read_from(f: BinaryIO, path: str, offset: int, length: int, frame: int) -> bytes:
    """The payload of the frame whose payload starts at ``offset`` of the open file ``f``, its checksum
    checked."""
    f.seek(offset)
    want = _padded(length) + _DIGEST.size
    data = f.read(want)
    if len(data) != want:
        raise RecordFileError(f"OneRec file {path!r} changed while being read: frame #{frame} needs {want} bytes at "
                              f"byte {offset}, {len(data)} read")
    payload = data[:length]
    (digest,) = _DIGEST.unpack_from(data, want - _DIGEST.size)
    if digest != xxh64.xxh64(payload):
        raise RecordFileError(f"OneRec file {path!r} is corrupt: the {length}-byte payload of frame #{frame} (at "
                              f"byte {offset - HEADER_SIZE}) fails its checksum")
    return payload


def frame(payload: bytes) -> bytes:
    """``payload`` framed as one OneRec record."""
    if len(payload) > _MAX_PAYLOAD:
        raise ValueError(f"a OneRec payload holds at most {_MAX_PAYLOAD} bytes; this one has {len(payload)}")
    head = _HEAD.pack(MAGIC, 0, len(payload))
    return b"".join((head, _DIGEST.pack(xxh64.xxh64(head)), payload, bytes(_padded(len(payload)) - len(payload)),
                     _DIGEST.pack(xxh64.xxh64(payload))))


def write(path: str | os.PathLike[str], examples: Iterable[bytes | Mapping[str, Any]]) -> int:
    """Write ``examples`` to a OneRec file: each an encoded Example (bytes) or a mapping of feature name to
    value, encoded with :func:`onerec_example.encode` (arrays keep their dtype and shape). Returns how many."""
    n = 0
    with open(path, "wb") as f:
        for example in examples:
            payload = example if isinstance(example, (bytes, bytearray)) else onerec_example.encode(example)
            f.write(frame(bytes(payload)))
            n += 1
    return n


def fetch(indexes: Sequence[RecordIndex], locations: Sequence[tuple[int, int]]) -> list[tuple[bytes, str, int]]:
    """The payloads at ``locations`` (``(file, frame)`` pairs), each with its file and frame number; each
    file is opened once."""
    files: dict[int, BinaryIO] = {}
    try:
        out = []
        for f, r in locations:
            ix = indexes[f]
            if f not in files:
                files[f] = open(ix.path, "rb")
            out.append((read_from(files[f], ix.path, int(ix.offsets[r]), int(ix.lengths[r]), r), ix.path, r))
        return out
    finally:
        for handle in files.values():
            handle.close()
