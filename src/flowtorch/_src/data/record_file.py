"""OFRecord part files: each record is an int64 byte count (little-endian) followed by that many bytes of
a serialized ``OFRecord`` (OneFlow ``user/data/ofrecord_dataset.h``: ``ReadSample``).

:func:`scan` indexes a file once (offsets only, nothing decoded) and rejects a truncated or corrupt file
with its path and the record number (:class:`RecordFileError`); :func:`read` fetches one record by its index
entry; :func:`write` frames records the way OneFlow's dataset tools did. The framing itself lives in
:mod:`flowtorch._src.data.record_plan` (torch-free and flowtorch-free: exports copy it).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from flowtorch._src.data import record_plan
from flowtorch._src.data.record_plan import RecordIndex as RecordIndex
from flowtorch._src.data.record_plan import part_paths as part_paths
from flowtorch._src.errors import RecordFileError

_LEN = struct.Struct("<q")


def scan(path: str) -> RecordIndex:
    """Index the records of ``path`` (:func:`record_plan.scan`, raising :class:`RecordFileError`)."""
    return record_plan.scan(path, RecordFileError)


def read(path: str, offset: int, length: int) -> bytes:
    """The ``length`` bytes at ``offset`` of ``path`` (one record's data, from its index entry)."""
    return record_plan.read(path, offset, length, RecordFileError)


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
