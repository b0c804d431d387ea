"""OFRecord part files and a reader's order over them, with numpy alone (no flowtorch import: ``flowtorch.export``
copies this file verbatim into an export's ``data/`` package).

A part file is a sequence of records, each an int64 byte count (little-endian) followed by that many bytes of a
serialized ``OFRecord`` (OneFlow ``user/data/ofrecord_dataset.h``: ``ReadSample``). :func:`scan` indexes a file
once (offsets only, nothing decoded) and rejects a truncated or corrupt file with its path and the record
number; :func:`read` fetches one record by its index entry.

:class:`RecordPlan` is OneFlow's reading order (``ofrecord_dataset.h``, ``random_shuffle_dataset.h``,
``batch_dataset.h``): the part files are read one after the other, forever; with ``shuffle_after_epoch`` the
file order is reshuffled at each wrap-around; ``random_shuffle`` passes the stream through a buffer of
``shuffle_buffer_size`` records, each arriving record taking the place of a random one, which leaves; batches
are the next ``batch_size`` records, crossing epoch boundaries. ``shards`` devices each read their own
contiguous range of the files (``common/balanced_splitter.h``) and ``batch_size / shards`` records of them per
batch; the logical batch is the devices' batches in device order.
"""

from __future__ import annotations

import os
import struct
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

_LEN = struct.Struct("<q")
T = TypeVar("T")
# OneFlow seeds its per-epoch file shuffle with a fixed constant plus the epoch number
# (kOneflowDatasetSeed + epoch): the file order does not depend on the reader's seed.
EPOCH_SEED = 524287
# The most records a shuffled reader replays to reach a later batch (RecordPlan.batches(start)).
MAX_REPLAY = 10**9


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


def scan(path: str, error: type[Exception] = RuntimeError) -> RecordIndex:
    """Index the records of ``path``; a short header, a non-positive length or a record running past the
    end of the file raises ``error``."""
    size = os.path.getsize(path)
    offsets: list[int] = []
    lengths: list[int] = []
    pos = 0
    with open(path, "rb", buffering=1 << 16) as f:
        while pos < size:
            record = len(offsets)
            header = f.read(_LEN.size)
            if len(header) < _LEN.size:
                raise error(
                    f"OFRecord file {path!r} is truncated: record #{record} at byte {pos} has a {len(header)}-byte "
                    f"length header (8 bytes expected)")
            (length,) = _LEN.unpack(header)
            if length <= 0:
                raise error(
                    f"OFRecord file {path!r} is corrupt: record #{record} at byte {pos} declares length {length} "
                    "(a positive int64 is expected); is this an OFRecord part file?")
            start = pos + _LEN.size
            if start + length > size:
                raise error(
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


def read(path: str, offset: int, length: int, error: type[Exception] = RuntimeError) -> bytes:
    """The ``length`` bytes at ``offset`` of ``path`` (one record's data, from its index entry)."""
    data = os.pread(_fd(path), length, offset)
    if len(data) != length:
        raise error(f"OFRecord file {path!r} changed while being read: {length} bytes expected at byte "
                    f"{offset}, {len(data)} read")
    return data


def balanced_ranges(total: int, parts: int) -> list[range]:
    """OneFlow's BalancedSplitter: ``total`` items in ``parts`` contiguous ranges, the first ``total % parts``
    one longer."""
    base, extra = divmod(total, parts)
    out, start = [], 0
    for k in range(parts):
        size = base + (1 if k < extra else 0)
        out.append(range(start, start + size))
        start += size
    return out


class RecordPlan:
    """One reader's part files and its reading order: ``shards`` devices each reading its own files, every
    batch their ``batch_size / shards`` records each (``local_shard``: only that device's share)."""

    error: type[Exception] = RuntimeError  # what a corrupt or changed file raises

    def __init__(self, indexes: Sequence[RecordIndex], batch_size: int, random_shuffle: bool,
                 shuffle_buffer_size: int, shuffle_after_epoch: bool, seed: int, shards: int = 1,
                 local_shard: int | None = None) -> None:
        self.indexes = list(indexes)
        self.batch_size = batch_size
        self.random_shuffle = random_shuffle
        self.shuffle_buffer_size = shuffle_buffer_size
        self.shuffle_after_epoch = shuffle_after_epoch
        self.seed = seed
        self.shards = shards
        self.local_shard = local_shard

    @property
    def num_records(self) -> int:
        return sum(len(ix) for ix in self.indexes)

    def _stream(self, shard: int) -> Iterator[tuple[int, int]]:
        """(file, record) of device ``shard``'s files in reading order, forever."""
        order = list(range(len(self.indexes)))
        mine = balanced_ranges(len(order), self.shards)[shard]
        epoch = 0
        while True:
            files = [order[i] for i in mine]
            if not any(len(self.indexes[f]) for f in files):
                raise ValueError(f"OFRecord reader: device {shard} of {self.shards} reads part files {files} of "
                                 f"{self.indexes[0].path!r}'s directory, which hold no records")
            for f in files:
                yield from ((f, r) for r in range(len(self.indexes[f])))
            if self.shuffle_after_epoch:  # every device shuffles all the files alike, then takes its range
                epoch += 1
                np.random.default_rng(EPOCH_SEED + epoch).shuffle(order)

    def _device_batches(self, shard: int) -> Iterator[list[tuple[int, int]]]:
        stream = self._stream(shard)
        if self.random_shuffle:  # each device's buffer draws from the same seed, as OneFlow's did
            stream = buffer_shuffle(stream, self.shuffle_buffer_size, np.random.default_rng(self.seed))
        per_device = self.batch_size // self.shards
        while True:
            yield [next(stream) for _ in range(per_device)]

    def batches(self, start: int = 0) -> Iterator[list[tuple[int, int]]]:
        """The records of each batch (or of this device's share of it), forever, from batch ``start`` on. An
        order that repeats every epoch (no ``random_shuffle``, no ``shuffle_after_epoch``) is entered at
        ``start`` at once; a shuffled one is replayed from the first batch (a shuffle buffer has no random
        access), which is refused beyond :data:`MAX_REPLAY` records."""
        seek = start > 0 and self._repeats()
        if start and not seek and start * self.batch_size > MAX_REPLAY:
            raise ValueError(
                f"start={start}: this reader shuffles (random_shuffle or shuffle_after_epoch), so batch {start} is "
                f"reached by replaying its {start * self.batch_size} records one by one; start must be at most "
                f"{MAX_REPLAY // self.batch_size} here")
        return self._batches(start, seek)

    def _batches(self, start: int, seek: bool) -> Iterator[list[tuple[int, int]]]:
        shares = [self.local_shard] if self.local_shard is not None else list(range(self.shards))
        devices = [self._batches_from(k, start) if seek else self._device_batches(k) for k in shares]
        for _ in range(0 if seek else start):
            for d in devices:
                next(d)
        while True:
            yield [loc for d in devices for loc in next(d)]

    def _repeats(self) -> bool:
        """Whether every epoch reads the records in one order (so batch ``n`` is found by arithmetic)."""
        plain = type(self)._stream is RecordPlan._stream and type(self)._device_batches is RecordPlan._device_batches
        return plain and not self.random_shuffle and not self.shuffle_after_epoch

    def _batches_from(self, shard: int, start: int) -> Iterator[list[tuple[int, int]]]:
        """:meth:`_device_batches` of an order that repeats every epoch, from batch ``start`` on, in O(1)."""
        files = list(balanced_ranges(len(self.indexes), self.shards)[shard])
        sizes = np.asarray([len(self.indexes[f]) for f in files], np.int64)
        period = int(sizes.sum())
        if period == 0:
            raise ValueError(f"OFRecord reader: device {shard} of {self.shards} reads part files {files} of "
                             f"{self.indexes[0].path!r}'s directory, which hold no records")
        per_device = self.batch_size // self.shards
        ends = np.cumsum(sizes)
        pos = start * per_device % period  # Python ints: no overflow however far the start
        while True:
            batch = []
            for _ in range(per_device):
                k = int(np.searchsorted(ends, pos, side="right"))
                batch.append((files[k], int(pos - (ends[k] - sizes[k]))))
                pos = (pos + 1) % period
            yield batch

    def fetch(self, locations: Sequence[tuple[int, int]]) -> list[tuple[bytes, str, int]]:
        """Read the records at ``locations`` (in a loader worker): ``(data, file path, record number)`` each."""
        out = []
        for f, r in locations:
            ix = self.indexes[f]
            out.append((read(ix.path, int(ix.offsets[r]), int(ix.lengths[r]), self.error), ix.path, r))
        return out


def buffer_shuffle(stream: Iterator[T], size: int, rng: np.random.Generator) -> Iterator[T]:
    """OneFlow's RandomShuffleDataset / BatchRandomShuffleDataset: ``size`` items fill a buffer, then each
    arriving item takes the place of a random one, which leaves."""
    buffer = [next(stream) for _ in range(size)]
    for item in stream:
        j = int(rng.integers(len(buffer)))
        buffer[j], item = item, buffer[j]
        yield item
