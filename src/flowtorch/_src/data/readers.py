"""``flow.data.ofrecord_reader``: which records each batch reads, in OneFlow's order.

The order is planned in the job's process from the files' indexes alone (:class:`RecordSource`), and
loader workers only read and decode the records they are told to. So a batch is the same whatever the
number of workers, and a seed makes a run repeatable. OneFlow's order (``user/data/ofrecord_dataset.h``,
``random_shuffle_dataset.h``, ``batch_dataset.h``): the part files are read one after the other, forever;
with ``shuffle_after_epoch`` the file order is reshuffled at each wrap-around; ``random_shuffle`` passes
the stream through a buffer of ``shuffle_buffer_size`` records, each arriving record taking the place of
a random one, which leaves; batches are the next ``batch_size`` records, crossing epoch boundaries.
OneFlow's generators were C++ ``std::mt19937``/``default_random_engine``; flowtorch's are numpy's, so
shuffled orders are OneFlow's kind of order, not its exact sequence.

On several devices (the placement's, or the processes of ``python -m flowtorch --nproc N``) each device's
reader took its own contiguous range of the part files (``common/balanced_splitter.h``: the first
``parts % devices`` ranges one file longer), reshuffled with the epoch's common file order, and read
``batch_size / devices`` records of them per batch; the logical batch is the devices' batches in device
order. :class:`RecordSource` plans every device's share the same way (``shards``) — on several processes
each rank reads only its own (``local_shard``).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from flowtorch._src import errors, placement
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data import record_file, record_plan
from flowtorch._src.data.record_plan import balanced_ranges as balanced_ranges
from flowtorch._src.dist import collectives
from flowtorch._src.ops._checks import arg_error, check_int
from flowtorch.core.record.record_pb2 import OFRecord

log = logging.getLogger("flowtorch")


class RecordSource(record_plan.RecordPlan, pl.ShardedSource):
    """One reader's part files and its reading order (:class:`~flowtorch._src.data.record_plan.RecordPlan`),
    shared by ``shards`` devices (:class:`~flowtorch._src.data.pipeline.ShardedSource`)."""

    error = errors.RecordFileError


def parse_records(ctx: db.OpContext) -> list[Any]:
    """A reader's kernel: this batch's records (``ctx.records``) parsed into ``OFRecord`` messages."""
    out = []
    for data, path, number in ctx.records or ():
        record = OFRecord()
        try:
            record.ParseFromString(data)
        except Exception as exc:  # protobuf's DecodeError; re-raised with the file and record
            raise errors.RecordFileError(
                f"OFRecord file {path!r}: record #{number} ({len(data)} bytes) is not a valid OFRecord "
                f"message ({exc}); the file is corrupt") from exc
        out.append(record)
    return out


def open_source(op: str, data_dir: Any, batch_size: Any, data_part_num: Any, part_name_prefix: Any,
                part_name_suffix_length: Any, random_shuffle: bool, shuffle_buffer_size: Any,
                shuffle_after_epoch: bool, seed: Any) -> RecordSource:
    """Check a reader's arguments, index its part files and plan its order."""
    if not isinstance(data_dir, (str, os.PathLike)):
        raise arg_error(op, "ofrecord_dir", "a directory path (str)", data_dir)
    data_dir = os.fspath(data_dir)
    batch_size = check_int(batch_size, op, "batch_size")
    data_part_num = check_int(data_part_num, op, "data_part_num")
    suffix = check_int(part_name_suffix_length, op, "part_name_suffix_length", -1)
    buffer_size = check_int(shuffle_buffer_size, op, "shuffle_buffer_size")
    if not isinstance(part_name_prefix, str):
        raise arg_error(op, "part_name_prefix", "a str", part_name_prefix)
    if not os.path.isdir(data_dir):
        raise FileNotFoundError(f"flow.{op}: ofrecord_dir {data_dir!r} is not a directory")
    paths = record_file.part_paths(data_dir, data_part_num, part_name_prefix, suffix)
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        present = sorted(os.listdir(data_dir))[:8]
        raise FileNotFoundError(
            f"flow.{op}: {len(missing)} of {data_part_num} part file(s) missing, first {missing[0]!r} "
            f"(data_part_num={data_part_num}, part_name_prefix={part_name_prefix!r}, "
            f"part_name_suffix_length={suffix}); the directory holds {present}")
    indexes = [record_file.scan(p) for p in paths]
    source = RecordSource(indexes, batch_size, bool(random_shuffle), buffer_size, bool(shuffle_after_epoch),
                          db.draw_seed(seed, op), _shards(op, data_part_num, batch_size))
    if source.num_records == 0:
        raise ValueError(f"flow.{op}: the {data_part_num} part file(s) in {data_dir!r} hold no records")
    return source


def _shards(op: str, data_part_num: int, batch_size: int) -> int:
    """How many devices share the reader: the processes of a launch, else the placement's devices. OneFlow
    aborted when they outnumbered the part files; flowtorch reads them as one device's, with a warning."""
    devices = collectives.world_size() if collectives.world_size() > 1 else placement.placement_devices()
    if devices == 1:
        return 1
    if data_part_num < devices or batch_size % devices:
        log.warning("flowtorch: flow.%s: %d devices cannot share %d part file(s) and a batch of %d evenly (OneFlow "
                    "needs data_part_num >= devices); one reader reads them all", op, devices, data_part_num,
                    batch_size)
        return 1
    return devices


def ofrecord_reader(ofrecord_dir: str, batch_size: int = 1, data_part_num: int = 1, part_name_prefix: str = "part-",
                    part_name_suffix_length: int = -1, random_shuffle: bool = False,
                    shuffle_buffer_size: int = 1024, shuffle_after_epoch: bool = False, seed: int = -1,
                    name: str | None = None) -> db.DataBlob:
    """``flow.data.ofrecord_reader``: ``batch_size`` OFRecords per call (``OFRecord_Reader_<n>/out_0``)."""
    op = "data.ofrecord_reader"
    pipe = pl.pipeline(op)
    source = open_source(op, ofrecord_dir, batch_size, data_part_num, part_name_prefix, part_name_suffix_length,
                         random_shuffle, shuffle_buffer_size, shuffle_after_epoch, seed)
    (blob,) = pipe.add(db.op_name("OFRecord_Reader_", name), parse_records, (),
                       [("out_0", db.meta((source.batch_size,), np.uint8), db.RECORD)], source=source)
    return blob
