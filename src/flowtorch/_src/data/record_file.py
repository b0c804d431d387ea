"""OFRecord part files: each record is an int64 byte count (little-endian) followed by that many bytes of
a serialized ``OFRecord`` (OneFlow ``user/data/ofrecord_dataset.h``: ``ReadSample``).

:func:`scan` indexes a file once (offsets only, nothing decoded) and rejects a truncated or corrupt file
with its path and the record number; :func:`read` fetches one record by its index entry; :func:`write`
frames records the way OneFlow's dataset tools did.
"""

from __future__ import annotations

import os
import struct
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from flowtorch._src.errors import RecordFileError

_LEN = struct.Struct("<q")


@dataclass(frozen=True)
class RecordIndex:
    """Where each record of one part file lies: ``offsets[i]`` is the first byte of record ``i``'s data."""

    path: str
    offsets: np.ndarray  # int64
    lengths: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.offsets)


def part_paths(data_dir: str, data_part_num: int, prefix: str, suffix_length: int) -> list[str]:
    """``<data_dir>/<prefix><i zero-padded to suffix_length>`` for each part (no padding when ``-1``)."""
    return [os.path.join(data_dir, prefix + str(i).zfill(max(suffix_length, 0))) for i in range(data_part_num)]


def scan(path: str) -> RecordIndex:
    """Index the records of ``path``; a short header, a non-positive length or a record running past the
    end of the file raises :class:`RecordFileError`."""
    size = os.path.getsize(path)
    offsets: list[int] = []
    lengths: list[int] = []
    pos = 0
    with open(path, "rb", buffering=1 << 16) as f:
        while pos < size:
            record = len(offsets)
            header = f.read(_LEN.size)
            if len(header) < _LEN.size:
                raise RecordFileError(
                    f"OFRecord file {path!r} is truncated: record #{record} at byte {pos} has a {len(header)}-byte "
                    f"length header (8 bytes expected)")
            (length,) = _LEN.unpack(header)
            if length <= 0:
                raise RecordFileError(
                    f"OFRecord file {path!r} is corrupt: record #{record} at byte {pos} declares length {length} "
                    "(a positive int64 is expected); is this an OFRecord part file?")
            start = pos + _LEN.size
            if start + length > size:
                raise RecordFileError(
                    f"OFRecord file {path!r} is truncated: record #{record} at byte {pos} declares {length} bytes "
                    f"but only {size - start} remain")
            offsets.append(start)
            lengths.append(length)
            pos = start + length
            f.seek(pos)
    return RecordIndex(path, np.asarray(offsets, np.int64), np.asarray(lengths, np.int64))


# Open part files, least recently used first. ``os.pread`` has no file position, so descriptors inherited by
# forked loader workers stay safe to share.
_open_files: OrderedDict[str, int] = OrderedDict()
_MAX_OPEN = 64


def _fd(path: str) -> int:
    fd = _open_files.pop(path, None)
    if fd is None:
        fd = os.open(path, os.O_RDONLY)
        while len(_open_files) >= _MAX_OPEN:
            os.close(_open_files.popitem(last=False)[1])
    _open_files[path] = fd
    return fd


def read(path: str, offset: int, length: int) -> bytes:
    """The ``length`` bytes at ``offset`` of ``path`` (one record's data, from its index entry)."""
    data = os.pread(_fd(path), length, offset)
    if len(data) != length:
        raise RecordFileError(f"OFRecord file {path!r} changed while being read: {length} bytes expected at byte "
                              f"{offset}, {len(data)} read")
    return data


def write(path: str, records: Iterable[Any]) -> int:
    """Write ``records`` (``OFRecord`` messages or serialized bytes) to ``path``; returns how many."""
    n = 0
    with open(path, "wb") as f:
        for record in records:
            data = record if isinstance(record, (bytes, bytearray)) else record.SerializeToString()
            f.write(_LEN.pack(len(data)))
            f.write(data)
            n += 1
    return n
