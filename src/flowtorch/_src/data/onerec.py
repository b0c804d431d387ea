"""``flow.data.onerec_reader`` and ``flow.data.OneRecDecoder``: OneRec files (FlatBuffers Examples in
checksummed frames, :mod:`~flowtorch._src.data.onerec_file`) read into a job's data pipeline.

The reader plans its order in the job's process, as the OFRecord reader does
(:mod:`~flowtorch._src.data.readers`), following OneFlow's ``user/data/onerec_data_reader.h`` and
``onerec_dataset.h``: the files are read one after the other, forever, batches crossing epoch boundaries.
With ``shuffle_after_epoch`` the file list is shuffled in place before the first epoch and at each
wrap-around, with OneFlow's ``std::mt19937(524287 + epoch)`` and libstdc++'s ``std::shuffle``
(:mod:`~flowtorch._src.data.rng`), the epoch counter moving only after the first wrap's shuffle, so the
file orders are OneFlow's. ``random_shuffle`` passes records (``shuffle_mode="instance"``) or whole batches
(``"batch"``) through a buffer of ``shuffle_buffer_size`` of them, each arriving one taking the place of a
random one, which leaves. OneFlow drew that buffer's seed at random (the Python op has no ``seed``);
flowtorch draws it from torch's generator at build, so ``torch.manual_seed`` repeats a run.

On several devices each reads its own contiguous range of the files (OneFlow's BalancedSplitter) and
``batch_size / devices`` records a batch, as the OFRecord reader does.

The reader's blob is a tensor buffer of each record's Example bytes (int8), as OneFlow's was; the decoder
reads one feature of each (OneFlow ``user/kernels/onerec_decoder_kernels.cpp``).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from flowtorch._src import dtypes, placement
from flowtorch._src.data import blobs as db
from flowtorch._src.data import onerec_example, onerec_file, rng
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.readers import balanced_ranges
from flowtorch._src.data.record_file import RecordIndex
from flowtorch._src.data.record_plan import EPOCH_SEED, RecordPlan, buffer_shuffle
from flowtorch._src.dist import collectives
from flowtorch._src.errors import RecordFileError
from flowtorch._src.ops._checks import arg_error, check_choice, check_int, check_shape, is_int, numel

# the decoder's dtypes, each read from its own list type (OneFlow copied no other)
_DTYPE_KINDS = {"int8": 1, "int32": 3, "int64": 4, "float32": 5, "float64": 6}
log = logging.getLogger("flowtorch")
T = TypeVar("T")


class OneRecSource(RecordPlan, pl.ShardedSource):
    """One reader's files and reading order (:class:`~flowtorch._src.data.record_plan.RecordPlan`'s sharding
    and batches) with OneRec's file shuffle, per-device seeds and ``shuffle_mode``."""

    def __init__(self, indexes: Sequence[RecordIndex], batch_size: int, random_shuffle: bool, shuffle_mode: str,
                 shuffle_buffer_size: int, shuffle_after_epoch: bool, seed: int, shards: int = 1,
                 local_shard: int | None = None) -> None:
        super().__init__(indexes, batch_size, random_shuffle, shuffle_buffer_size, shuffle_after_epoch, seed,
                         shards, local_shard)
        self.shuffle_mode = shuffle_mode

    def file_orders(self) -> Iterator[list[int]]:
        """The file list of each epoch (before a device takes its range), forever."""
        order = np.arange(len(self.indexes))
        if not self.shuffle_after_epoch:
            while True:
                yield order.tolist()
        # OneFlow shuffles the list at its construction and at each wrap with the epoch number as it was
        # before the wrap: the seeds of epochs 0, 1, 2, … are 0, 0, 1, …, each shuffling the last order.
        epoch = 0
        order = rng.cxx_shuffle(order, rng.MT19937(EPOCH_SEED + epoch))
        while True:
            yield order.tolist()
            order = rng.cxx_shuffle(order, rng.MT19937(EPOCH_SEED + epoch))
            epoch += 1

    def _stream(self, shard: int) -> Iterator[tuple[int, int]]:
        """(file, frame) of device ``shard``'s files in reading order, forever."""
        mine = balanced_ranges(len(self.indexes), self.shards)[shard]
        for order in self.file_orders():
            files = [order[i] for i in mine]
            if not any(len(self.indexes[f]) for f in files):
                raise ValueError(f"OneRec reader: device {shard} of {self.shards} reads files "
                                 f"{[self.indexes[f].path for f in files]}, which hold no records")
            for f in files:
                yield from ((f, r) for r in range(len(self.indexes[f])))

    def _device_batches(self, shard: int) -> Iterator[list[tuple[int, int]]]:
        per_device = self.batch_size // self.shards
        # OneFlow drew a seed per device; here each device's stream is a function of (seed, device)
        gen = np.random.default_rng([self.seed, shard])
        stream = self._stream(shard)
        if self.random_shuffle and self.shuffle_mode == "instance":
            stream = buffer_shuffle(stream, self.shuffle_buffer_size, gen)
        batches = _batched(stream, per_device)
        if self.random_shuffle and self.shuffle_mode == "batch":
            batches = buffer_shuffle(batches, self.shuffle_buffer_size, gen)
        return batches

    def fetch(self, locations: Sequence[tuple[int, int]]) -> list[tuple[bytes, str, int]]:
        """Read the records at ``locations`` (in a loader worker), checking each payload's checksum."""
        return onerec_file.fetch(self.indexes, locations)


def _batched(stream: Iterator[T], size: int) -> Iterator[list[T]]:
    while True:
        yield [next(stream) for _ in range(size)]


def read_examples(ctx: db.OpContext, verify: bool) -> list[np.ndarray]:
    """The reader's kernel: this batch's Examples (``ctx.records``) as int8 arrays, each checked as FlatBuffers'
    Verifier would when ``verify`` (OneFlow's ``verify_example``)."""
    out = []
    for data, path, number in ctx.records or ():
        if verify:
            try:
                onerec_example.verify(data)
            except onerec_example.FormatError as exc:
                raise RecordFileError(f"OneRec file {path!r}: frame #{number} ({len(data)} bytes) is not a valid "
                                      f"OneRec Example: {exc}") from exc
        out.append(np.frombuffer(data, np.int8))
    return out


def _open_source(op: str, files: Any, batch_size: Any, random_shuffle: Any, shuffle_mode: Any,
                 shuffle_buffer_size: Any, shuffle_after_epoch: Any) -> OneRecSource:
    if not isinstance(files, (list, tuple)) or not files or not all(isinstance(f, (str, os.PathLike)) for f in files):
        raise arg_error(op, "files", "a non-empty list/tuple of OneRec file paths", files)
    paths = [os.fspath(f) for f in files]
    batch_size = check_int(batch_size, op, "batch_size")
    buffer_size = check_int(shuffle_buffer_size, op, "shuffle_buffer_size")
    if random_shuffle:  # OneFlow only read the mode when shuffling
        shuffle_mode = check_choice(shuffle_mode, ("instance", "batch"), op, "shuffle_mode")
    for path in paths:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"flow.{op}: file {path!r} of 'files' does not exist or is not a file")
    indexes = [onerec_file.scan(p) for p in paths]
    source = OneRecSource(indexes, batch_size, bool(random_shuffle), str(shuffle_mode), buffer_size,
                          bool(shuffle_after_epoch), db.draw_seed(None, op), _shards(op, len(paths), batch_size))
    if source.num_records == 0:
        raise ValueError(f"flow.{op}: the {len(paths)} file(s) hold no records")
    return source


def _shards(op: str, num_files: int, batch_size: int) -> int:
    """How many devices share the reader: the processes of a launch, else the placement's devices. OneFlow
    failed when they could not share the files and the batch evenly; flowtorch reads them as one device's."""
    devices = collectives.world_size() if collectives.world_size() > 1 else placement.placement_devices()
    if devices == 1:
        return 1
    if num_files < devices or batch_size % devices:
        log.warning("flowtorch: flow.%s: %d devices cannot share %d file(s) and a batch of %d evenly (OneFlow needs "
                    "a file per device at least); one reader reads them all", op, devices, num_files, batch_size)
        return 1
    return devices


def onerec_reader(files: Sequence[str], batch_size: int = 1, random_shuffle: bool = False,
                  shuffle_mode: str = "instance", shuffle_buffer_size: int = 1024, shuffle_after_epoch: bool = False,
                  verify_example: bool = True, name: str | None = None) -> db.DataBlob:
    """``flow.data.onerec_reader``: ``batch_size`` OneRec Examples per call, a tensor buffer of their bytes
    (``OneRecReader_<n>/out_0``)."""
    op = "data.onerec_reader"
    pipe = pl.pipeline(op)
    source = _open_source(op, files, batch_size, random_shuffle, shuffle_mode, shuffle_buffer_size,
                          shuffle_after_epoch)
    kernel = functools.partial(read_examples, verify=bool(verify_example))
    (blob,) = pipe.add(db.op_name("OneRecReader_", name), kernel, (),
                       [("out_0", db.meta((source.batch_size,), np.uint8), db.BUFFER)], source=source)
    return blob


# ------------------------------------------------------------------------------------------- decoder

def _record_dims(t: onerec_example.ExampleTensor, i: int, key: str, axes: int,
                 reshape: tuple[int, ...] | None) -> tuple[int, ...]:
    """Record ``i``'s dims of feature ``key``: its shape field, or ``reshape`` with the free dim filled."""
    if any(d < 0 for d in t.shape):
        raise ValueError(f"feature {key!r} of record {i} in the batch has shape {list(t.shape)}")
    if reshape is None:
        if len(t.shape) != axes:
            raise ValueError(f"feature {key!r} of record {i} in the batch has shape {list(t.shape)}, {len(t.shape)} "
                             f"axes; 'shape' has {axes} (give 'reshape' to read it as another shape)")
        return t.shape
    count = numel(t.shape)
    fixed = numel([d for d in reshape if d != -1])
    if (count % fixed if -1 in reshape else count != fixed):
        raise ValueError(f"feature {key!r} of record {i} in the batch has shape {list(t.shape)} ({count} values), "
                         f"which cannot be reshaped to {list(reshape)}")
    return tuple(count // fixed if d == -1 else d for d in reshape)


def _instance_shape(dims: list[tuple[int, ...]], key: str, padding: tuple[int, ...] | None) -> tuple[int, ...]:
    """The batch's common sample shape; with ``padding``, axis 0 padded as its first entry says."""
    method = 0 if padding is None else padding[0]
    firsts = [d[0] for d in dims]
    if method == -1:
        dim0 = max(firsts)
    elif method > 0:
        dim0 = method
        if max(firsts) > dim0:
            raise ValueError(f"feature {key!r}: a record has {max(firsts)} rows, more than batch_padding's {dim0}")
    else:
        dim0 = firsts[0]
    shape = [dim0]
    for axis in range(len(dims[0])):
        values = sorted({d[axis] for d in dims})
        if (axis > 0 or method == 0) and len(values) > 1:
            hint = " (batch_padding=[-1, 0, …] pads them to the longest)" if axis == 0 else ""
            raise ValueError(f"feature {key!r}: the records of the batch differ in axis {axis} of their shape "
                             f"({values}); all must agree{hint}")
        if axis > 0:
            shape.append(values[0])
    return tuple(shape)


def decode(ctx: db.OpContext, records: list[np.ndarray], key: str, dtype: np.dtype, kind: int,
           shape: tuple[int, ...], dynamic: bool, reshape: tuple[int, ...] | None,
           padding: tuple[int, ...] | None) -> np.ndarray:
    """The decoder's kernel: feature ``key`` of each record as one ``(batch, *sample)`` array."""
    tensors = []
    for i, record in enumerate(records):
        try:
            t = onerec_example.find(np.ascontiguousarray(record), key)
        except onerec_example.FormatError as exc:
            raise ValueError(f"record {i} of the batch is not a valid OneRec Example ({exc}); a reader with "
                             "verify_example=True names the file") from exc
        if t is None or t.values is None or t.kind != kind:
            what = "no tensor" if t is None else t.kind_name + (" without values" if t.values is None else "")
            raise ValueError(f"feature {key!r} of record {i} in the batch holds {what}; dtype {dtype} reads a "
                             f"{onerec_example.KIND_NAMES[kind]}")
        tensors.append(t)
    sample = _instance_shape([_record_dims(t, i, key, len(shape), reshape) for i, t in enumerate(tensors)], key,
                             padding)
    if dynamic:
        # OneFlow bounded only the element count; flowtorch's dynamic blobs are bounded axis by axis
        if numel(sample) > numel(shape) or any(a > b for a, b in zip(sample, shape)):
            raise ValueError(f"feature {key!r}: the batch's samples are {list(sample)}, past the dynamic bound "
                             f"{list(shape)} of 'shape' (every axis must fit)")
    elif sample != shape:
        raise ValueError(f"feature {key!r}: the batch's samples are {list(sample)}; 'shape' is {list(shape)} "
                         "(is_dynamic=True takes smaller samples)")
    count = numel(sample)
    out = (np.zeros if padding is not None else np.empty)((len(tensors), count), dtype)
    for i, t in enumerate(tensors):
        n = len(t.values)
        if n > count or (n < count and padding is None):
            raise ValueError(f"feature {key!r} of record {i} in the batch holds {n} values; its sample "
                             f"{list(sample)} needs {'at most ' if padding is not None else ''}{count}")
        out[i, :n] = t.values
    return out.reshape((len(tensors), *sample))


def _check_dims(value: Any, op: str, arg: str, axes: int, what: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != axes or not all(is_int(d) for d in value):
        raise arg_error(op, arg, f"a list/tuple of {axes} ints ({what})", value)
    return tuple(int(d) for d in value)


def OneRecDecoder(input_blob: db.DataBlob, key: str, dtype: Any, shape: Sequence[int], is_dynamic: bool = False,
                  reshape: Sequence[int] | None = None, batch_padding: Sequence[int] | None = None,
                  name: str | None = None) -> db.DataBlob:
    """``flow.data.OneRecDecoder`` (also ``onerec_decoder``): feature ``key`` of each Example as a
    ``(batch, *shape)`` blob of ``dtype``.

    ``reshape`` reads each tensor's values as that shape (one ``-1`` axis inferred); ``batch_padding``
    (``[p, 0, …]``) zero-pads axis 0 of each sample: ``p = -1`` to the batch's longest, ``p > 0`` to ``p``,
    ``0`` not at all. ``is_dynamic`` lets the samples be smaller than ``shape`` (the blob is dynamic).
    """
    op = "data.OneRecDecoder"
    records = db.check_data_blob(input_blob, op, "input_blob", (db.BUFFER,))
    if not isinstance(key, str):
        raise arg_error(op, "key", "the feature name (str)", key)
    dt = dtypes.to_dtype(dtype, what=f"flow.{op}: dtype")
    if dt.name not in _DTYPE_KINDS:
        raise arg_error(op, "dtype", f"one of {sorted(_DTYPE_KINDS)} (OneFlow decodes no other)", dtype)
    shape_t = check_shape(shape, op, "shape", "a non-empty list/tuple of positive ints (one sample's shape)",
                          allow_empty=False)
    reshape_t = None
    if reshape is not None:
        reshape_t = _check_dims(reshape, op, "reshape", len(shape_t), "positive, or one -1")
        if any(d == 0 or d < -1 for d in reshape_t) or reshape_t.count(-1) > 1:
            raise arg_error(op, "reshape", "positive ints and at most one -1", reshape)
    padding_t = None
    if batch_padding is not None:
        padding_t = _check_dims(batch_padding, op, "batch_padding", len(shape_t), "[p, 0, ...]")
        if padding_t[0] < -1 or any(padding_t[1:]):
            raise arg_error(op, "batch_padding", "[p, 0, ...] with p = -1, 0 or a positive int (only axis 0 pads)",
                            batch_padding)
    kernel = functools.partial(decode, key=key, dtype=dt.numpy_dtype, kind=_DTYPE_KINDS[dt.name], shape=shape_t,
                               dynamic=bool(is_dynamic), reshape=reshape_t, padding=padding_t)
    pipe = pl.pipeline(op)
    (blob,) = pipe.add(db.op_name("OneRecDecoder_", name), kernel, (records,),
                       [("out_0", db.meta(records.shape + shape_t, dt), db.TENSOR)])
    blob.is_dynamic = bool(is_dynamic)
    return blob
