"""``flow.data.megatron_gpt_mmap_data_loader``: GPT training samples from Megatron-LM token files.

Megatron's "MMapIndexedDataset" is a pair of files: ``<prefix>.idx`` (each document's token count and
byte offset) and ``<prefix>.bin`` (the tokens). The loader cuts the token stream of a split of the
documents into samples of ``seq_length + 1`` tokens (consecutive samples share one token) and serves
``batch_size`` of them per step, as OneFlow v0.4.0 did (``user/data/gpt_dataset.{h,cpp}``,
``user/kernels/gpt_data_loader_kernel.cpp``).

The order is OneFlow's, bit for bit, shuffle included: its ``std::mt19937`` and libstdc++'s (GCC 7)
``std::shuffle``, which OneFlow's wheels were built with, are reproduced here with numpy. The whole order
is planned in the job's process when the job is built; loader workers only read tokens from the ``.bin``.
They read with ``os.pread``, not through a memory map: a mapped file truncated under the reader kills the
process with SIGBUS. Before each batch the ``.bin`` is checked against the size, inode and modification time
it had when the job was built, so a file truncated, replaced or rewritten meanwhile raises
:class:`~flowtorch._src.errors.DataFileChangedError` naming it, never stale or torn samples.

Where OneFlow aborted the process, flowtorch raises: a malformed ``.idx``, a split past the last
document, and a step past the last sample (OneFlow never wrapped around: train for at most
``total_samples // batch_size`` steps). One sanity check is dropped: OneFlow aborted when the last epoch
needed as many samples as a whole epoch holds (``CHECK_LT`` in ``GetNumCompleteEpochs``); the order is
well defined there, and flowtorch serves it (Megatron-LM allows it too). Empty documents, on which
OneFlow's sample index aborted, are passed over.

Planning costs numpy time and memory linear in the number of samples and documents-times-epochs (about
5 s and 2 GB per 2*10**7 shuffled items), once per job build, as OneFlow's constructor did in C++.
"""

from __future__ import annotations

import math
import os
import struct
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import torch

from flowtorch._src import dtypes, naming
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.rng import MT19937, cxx_shuffle
from flowtorch._src.errors import DataFileChangedError, MegatronIndexError, SplitIndexError
from flowtorch._src.initializers import constant_initializer
from flowtorch._src.ops._checks import arg_error, check_int
from flowtorch._src.placement import Distribute
from flowtorch._src.variables import get_variable

_OP = "data.megatron_gpt_mmap_data_loader"

# ------------------------------------------------------------------------------------------ index file

_MAGIC = b"MMIDIDX\x00\x00"
_HEADER = struct.Struct("<9sQBQQ")  # magic, version, dtype code, len(sizes), len(doc_idx)
# Megatron's dtype codes as OneFlow reads them (gpt_dataset.cpp kDTypeCode2Size; gpt_dataset.h ReadTokens).
# Megatron writes code 6 for float64, but OneFlow reads it as float32; real token files are u16 or i32.
_TOKEN_DTYPES = {1: "u1", 2: "i1", 3: "<i2", 4: "<i4", 5: "<i8", 6: "<f4", 7: "<f8", 8: "<u2"}


@dataclass
class MegatronIndex:
    """The parsed ``.idx`` of a token file: per document, its token count and first token's element
    offset in the ``.bin``."""

    idx_path: str
    bin_path: str
    version: int
    token_dtype: np.dtype
    sizes: np.ndarray  # int64, tokens per document
    starts: np.ndarray  # int64, element (not byte) offset of each document in the .bin
    bin_elements: int
    bin_identity: tuple[int, int, int, int]  # the .bin's (device, inode, size, mtime_ns) when indexed


def read_index(prefix: str) -> MegatronIndex:
    """Parse and check ``prefix.idx`` against ``prefix.bin`` (every error names the file at fault)."""
    idx_path, bin_path = prefix + ".idx", prefix + ".bin"
    for path in (idx_path, bin_path):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"flow.{_OP}: Megatron token file {path!r} does not exist "
                                    f"(data_file_prefix={prefix!r} names <prefix>.idx and <prefix>.bin)")
    with open(idx_path, "rb") as f:
        data = f.read()

    def bad(why: str) -> MegatronIndexError:
        return MegatronIndexError(f"flow.{_OP}: {idx_path!r} is not a Megatron MMapIndexedDataset index: {why}")

    if len(data) < _HEADER.size:
        raise bad(f"it has {len(data)} bytes, fewer than the {_HEADER.size}-byte header")
    magic, version, code, n, m = _HEADER.unpack_from(data)
    if magic != _MAGIC:
        raise bad(f"it starts with {magic!r}, not the magic {_MAGIC!r}")
    if code not in _TOKEN_DTYPES:
        raise bad(f"token dtype code {code} is none of {sorted(_TOKEN_DTYPES)}")
    if m != n + 1:
        # OneFlow (like Megatron's GPT dataset) takes each sequence as one document.
        raise bad(f"it lists {n} sequences and {m} document boundaries; one document per sequence needs {n + 1}")
    expected = _HEADER.size + 4 * n + 8 * n + 8 * m
    if len(data) != expected:
        raise bad(f"{n} sequences need exactly {expected} bytes; the file has {len(data)}")
    token_dtype = np.dtype(_TOKEN_DTYPES[code])
    sizes = np.frombuffer(data, "<i4", n, _HEADER.size).astype(np.int64)
    pointers = np.frombuffer(data, "<i8", n, _HEADER.size + 4 * n).astype(np.int64)
    bin_stat = os.stat(bin_path)
    bin_bytes = bin_stat.st_size
    item = token_dtype.itemsize
    problems = [(sizes < 0, "a negative token count"), (pointers < 0, "a negative byte offset"),
                (pointers % item != 0, f"a byte offset that is no multiple of the {item}-byte token size"),
                (pointers + sizes * item > bin_bytes, f"tokens past the end of {bin_path!r} ({bin_bytes} bytes)")]
    for mask, what in problems:
        if mask.any():
            d = int(np.flatnonzero(mask)[0])
            raise bad(f"document {d} (of {n}) has {what}: {int(sizes[d])} tokens at byte {int(pointers[d])}")
    return MegatronIndex(idx_path, bin_path, int(version), token_dtype, sizes, pointers // item, bin_bytes // item,
                         file_identity(bin_stat))


def file_identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


@dataclass
class SamplePlan:
    """Where every sample starts: the documents in stream order, where each starts in the stream, and
    the sample order (``gpt_dataset.cpp``: doc_indices_, sample_indices_, shuffle_indices_)."""

    docs: np.ndarray  # document ids in stream order
    doc_starts: np.ndarray  # stream position of each, plus the stream's end
    order: np.ndarray  # order[j]: the stream sample served as sample j
    epochs: int
    complete_epochs: int
    tokens_per_epoch: int


def split_documents(num_docs: int, split_sizes: Sequence[int], split_index: int) -> np.ndarray:
    """The documents of split ``split_index``: shares rounded in float32, half to even, and no
    remainder fix-up (``GetSplitDocIndices``)."""
    f32 = np.float32
    total = f32(sum(split_sizes))

    def share(size: int) -> int:
        return int(np.rint(f32(size) / total * f32(num_docs)))
    offset = sum(share(s) for s in split_sizes[:split_index])
    count = share(split_sizes[split_index])
    if offset + count > num_docs:
        raise ValueError(f"flow.{_OP}: split {split_index} of split_sizes {list(split_sizes)} covers documents "
                         f"[{offset}, {offset + count}), past the {num_docs} of the file (OneFlow rounds each "
                         "share on its own and aborted here)")
    return np.arange(offset, offset + count, dtype=np.int64)


def plan_samples(sizes: np.ndarray, seq_length: int, num_samples: int, split_sizes: Sequence[int],
                 split_index: int, shuffle: bool, seed: int) -> SamplePlan:
    """OneFlow's ``MegatronGPTMMapDataset`` constructor: epochs, document order, sample order."""
    epoch_docs = split_documents(len(sizes), split_sizes, split_index)
    tokens = int(sizes[epoch_docs].sum())
    if tokens == 0:
        raise ValueError(f"flow.{_OP}: split {split_index} of split_sizes {list(split_sizes)} holds "
                         f"{len(epoch_docs)} document(s) and no tokens")
    # C++ double arithmetic (GetNumEpochs, GetNumCompleteEpochs)
    epochs = math.ceil(float(num_samples * seq_length + 1) / float(tokens))
    complete = epochs
    if epochs > 1:
        per_epoch = math.floor(float(tokens - 1) / seq_length)
        before_last = math.floor(float((epochs - 1) * tokens - 1) / seq_length)
        last = num_samples - before_last
        if last < int(np.float32(0.8) * np.float32(per_epoch)):
            complete = epochs - 1  # a short last epoch is shuffled on its own
    gen = MT19937(seed)
    docs = np.tile(epoch_docs, complete)
    if shuffle:
        docs = cxx_shuffle(docs, gen)
    if complete != epochs:
        docs = np.concatenate([docs, cxx_shuffle(epoch_docs, gen) if shuffle else epoch_docs])
    doc_starts = np.concatenate([[0], np.cumsum(sizes[docs])]).astype(np.int64)
    total_samples = math.floor(float(epochs * tokens - 1) / seq_length)
    order = np.arange(total_samples, dtype=np.int64)
    if shuffle:
        head = math.floor(float(complete * tokens - 1) / seq_length)
        order[:head] = cxx_shuffle(order[:head], gen)
        if complete != epochs:
            order[head:] = cxx_shuffle(order[head:], gen)
    return SamplePlan(docs, doc_starts, order, epochs, complete, tokens)


# -------------------------------------------------------------------------------------------- source


class _Batch(NamedTuple):
    step: int
    starts: np.ndarray | None  # stream position of each sample's first token; None past the last sample


class GPTSource:
    """The loader's plan (job's process) and token reader (loader worker).

    ``batches()`` yields the stream start of each sample of a step; ``fetch`` reads the tokens from the
    ``.bin`` once it is checked unchanged. With ``start_from_saved_progress`` the first step is the value of the
    iteration variable when the job's loader starts, and :meth:`batch_served` (called by the loader each
    time the job takes a batch) writes the next step back into it, so a checkpoint resumes the stream.
    """

    def __init__(self, op_name: str, index: MegatronIndex, plan: SamplePlan, seq_length: int, batch_size: int,
                 out_dtype: np.dtype, progress: torch.Tensor | None, parallel_distribution: list[str]) -> None:
        self.op_name = op_name
        self.bin_path = index.bin_path
        self.token_dtype = index.token_dtype
        self.bin_identity = index.bin_identity
        self.sample_length = seq_length + 1
        self.seq_length = seq_length
        self.batch_size = batch_size
        self.out_dtype = out_dtype
        self.total_samples = len(plan.order)
        self.doc_starts = plan.doc_starts
        # element offset in the .bin of stream position 0 of each document in stream order
        self.doc_base = index.starts[plan.docs] - plan.doc_starts[:-1]
        self.order: np.ndarray | None = plan.order  # job's process only
        self.progress = progress  # the iteration variable's tensor (job's process only)
        self.parallel_distribution = parallel_distribution  # recorded; one device reads every row
        self._next_step = 0
        self._fd: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        # Workers need neither the sample order nor the variable; the file is reopened there.
        return {**self.__dict__, "order": None, "progress": None, "_fd": None}

    @property
    def steps(self) -> int:
        return self.total_samples // self.batch_size

    def batches(self) -> Iterator[_Batch]:
        if self.order is None:
            raise RuntimeError("GPTSource.batches: the sample order was not planned (plan() first)")
        step = 0 if self.progress is None else int(self.progress.reshape(-1)[0].item())
        if step < 0:
            raise ValueError(f"{self.op_name}: its saved progress is step {step}; it must be >= 0")
        self._next_step = step
        rows = np.arange(self.batch_size, dtype=np.int64)
        while True:
            first = step * self.batch_size
            if first + self.batch_size > self.total_samples:
                # Not raised here: the sampler runs batches ahead; the worker raises it at this very step.
                yield _Batch(step, None)
            else:
                yield _Batch(step, self.order[first + rows] * self.seq_length)
            step += 1

    def batch_served(self) -> None:
        """The job took a batch (loader hook): advance the saved progress, as OneFlow's kernel did."""
        self._next_step += 1
        if self.progress is not None:
            self.progress.fill_(self._next_step)

    def fetch(self, batch: _Batch) -> np.ndarray:
        """The batch's ``(batch_size, seq_length + 1)`` tokens, cast like C's ``static_cast``."""
        if batch.starts is None:
            first = batch.step * self.batch_size
            raise IndexError(
                f"{self.op_name}: step {batch.step} needs samples [{first}, {first + self.batch_size}) but the "
                f"dataset holds {self.total_samples} (num_samples rounded up to whole epochs); it serves at most "
                f"{self.steps} steps of batch_size {self.batch_size} (OneFlow aborted here, gpt_dataset.h "
                "GetSample: CHECK_LT); raise num_samples to train longer")
        fd = self._checked_file()
        starts, base = self.doc_starts, self.doc_base
        out = np.empty((len(batch.starts), self.sample_length), self.out_dtype)
        docs = np.searchsorted(starts, batch.starts, side="right") - 1
        with np.errstate(invalid="ignore", over="ignore"):
            for row, (pos, d) in enumerate(zip(batch.starts.tolist(), docs.tolist())):
                filled = 0
                while filled < self.sample_length:  # a sample runs on into the next documents
                    take = min(int(starts[d + 1]) - pos, self.sample_length - filled)
                    at = int(base[d]) + pos
                    out[row, filled:filled + take] = self._read(fd, at, take)
                    filled += take
                    pos += take
                    d += 1
        return out

    def _checked_file(self) -> int:
        """The ``.bin``'s descriptor, once the path and the open file are both still the file indexed."""
        try:
            if self._fd is None:
                fd = os.open(self.bin_path, os.O_RDONLY)
                weakref.finalize(self, os.close, fd)
                self._fd = fd
            now = os.stat(self.bin_path)
        except OSError as exc:
            raise self._changed(f"it cannot be opened any more ({exc.strerror})") from exc
        for st in (now, os.fstat(self._fd)):
            dev, ino, size, mtime = file_identity(st)
            was = self.bin_identity
            if size != was[2]:
                raise self._changed(f"it has {size} bytes, {was[2]} when the job was built")
            if (dev, ino) != was[:2]:
                raise self._changed("another file replaced it")
            if mtime != was[3]:
                raise self._changed("it was rewritten (its modification time moved)")
        return self._fd

    def _read(self, fd: int, at: int, count: int) -> np.ndarray:
        """``count`` tokens from element ``at``; a short read (the file cut since the check) raises."""
        item = self.token_dtype.itemsize
        data = os.pread(fd, count * item, at * item)
        if len(data) != count * item:
            raise self._changed(f"{count * item} bytes expected at byte {at * item}, {len(data)} read")
        return np.frombuffer(data, self.token_dtype)

    def _changed(self, why: str) -> DataFileChangedError:
        return DataFileChangedError(
            f"{self.op_name}: Megatron token file {self.bin_path!r} changed after the job was built: {why}. The "
            "sample order was planned from the file as it was; rebuild the job (flow.clear_default_session()) "
            "after changing its data")


def served_tokens(ctx: db.OpContext) -> np.ndarray:
    """The op's kernel: the tokens its source fetched for this batch."""
    return ctx.records


# ------------------------------------------------------------------------------------------- the op


def _distribution(entries: Any) -> list[str]:
    """``parallel_distribution`` as OneFlow's strings; only ``"S(0)"`` and ``"B"`` are allowed."""
    if entries is None:
        return []
    if isinstance(entries, (str, Distribute)) or not isinstance(entries, Sequence):
        raise arg_error(_OP, "parallel_distribution", 'a list of "S(0)", "B" or flow.distribute objects', entries)
    out = []
    for entry in entries:
        if isinstance(entry, Distribute) and entry.sbp is not None:
            entry = entry.sbp
        if entry not in ("S(0)", "B"):
            raise arg_error(_OP, "parallel_distribution", 'entries "S(0)" (split on the batch axis) or "B"', entry)
        out.append(entry)
    return out


def megatron_gpt_mmap_data_loader(
        data_file_prefix: str, seq_length: int, num_samples: int, batch_size: int, dtype: Any = dtypes.int64,
        shuffle: bool = True, random_seed: int | None = None, split_sizes: Sequence[int] | None = None,
        split_index: int | None = None, parallel_distribution: Sequence[Any] | None = None,
        start_from_saved_progress: bool = False, name: str | None = None) -> db.DataBlob:
    """``flow.data.megatron_gpt_mmap_data_loader`` / ``MegatronGPTMMapDataLoader``: per call, the next
    ``(batch_size, seq_length + 1)`` token samples (int64 or int32) of ``data_file_prefix.{idx,bin}``.

    ``random_seed=None`` draws a seed from torch's default generator when the job is built (OneFlow used
    the wall clock). ``parallel_distribution`` is checked and recorded (one device). With
    ``start_from_saved_progress`` the position is the int64 variable
    ``<name>-iteration-sq…-sa…-bs…-sd…-sp…-spi…-<dists>``, which checkpoints save and load; it is read
    when the job's loader starts (its first call), so load a checkpoint before that.
    """
    pipe = pl.pipeline(_OP)
    if name is None:
        name = "gpt_data_loader" if start_from_saved_progress else naming.unique_str("gpt_data_loader_")
    if not isinstance(data_file_prefix, (str, os.PathLike)):
        raise arg_error(_OP, "data_file_prefix", "a path prefix (str)", data_file_prefix)
    seq_length = check_int(seq_length, _OP, "seq_length", 1)
    num_samples = check_int(num_samples, _OP, "num_samples", 1)
    batch_size = check_int(batch_size, _OP, "batch_size", 1)
    out = dtypes.to_dtype(dtype, what=f"flow.{_OP}: dtype")
    if out not in (dtypes.int32, dtypes.int64):
        raise arg_error(_OP, "dtype", "flow.int32 or flow.int64", dtype)
    split_sizes = (1,) if split_sizes is None else split_sizes
    split_index = 0 if split_index is None else split_index
    if isinstance(split_sizes, (str, bytes)) or not isinstance(split_sizes, Sequence) or not split_sizes or any(
            not isinstance(s, (int, np.integer)) or isinstance(s, bool) or s < 0 for s in split_sizes) or \
            sum(split_sizes) <= 0:
        raise arg_error(_OP, "split_sizes", "a list of non-negative ints with a positive sum", split_sizes)
    split_sizes = [int(s) for s in split_sizes]
    if not isinstance(split_index, (int, np.integer)) or isinstance(split_index, bool):
        raise arg_error(_OP, "split_index", "an int", split_index)
    if not 0 <= split_index < len(split_sizes):
        raise SplitIndexError(f"flow.{_OP}: split index {split_index} is out of range, split_sizes {split_sizes}")
    if random_seed is None:
        random_seed = db.draw_seed(None, _OP) % 2**32
    if not isinstance(random_seed, (int, np.integer)) or isinstance(random_seed, bool):
        raise arg_error(_OP, "random_seed", "an int or None", random_seed)
    dists = _distribution(parallel_distribution)

    index = read_index(os.fspath(data_file_prefix))
    # OneFlow seeds std::mt19937 with uint32(random_seed).
    plan = plan_samples(index.sizes, seq_length, num_samples, split_sizes, int(split_index), bool(shuffle),
                        int(random_seed) & 0xFFFFFFFF)
    progress = None
    if start_from_saved_progress:
        dist_tag = "_".join(f"S{d[2:-1]}" if d.startswith("S") else d for d in dists)
        var_name = (f"{name}-iteration-sq{seq_length}-sa{num_samples}-bs{batch_size}-sd{random_seed}"
                    f"-sp{'_'.join(map(str, split_sizes))}-spi{split_index}-{dist_tag}")
        var = get_variable(var_name, shape=(1,), dtype=dtypes.int64, initializer=constant_initializer(0, dtypes.int64),
                           model_name="iteration", reuse=False)
        progress = pipe.builder.session.variables[var.op_name].tensor
    op_name = naming.scoped(name)
    source = GPTSource(op_name, index, plan, seq_length, batch_size, out.numpy_dtype, progress, dists)
    (blob,) = pipe.add(op_name, served_tokens, (), [("out_0", db.meta((batch_size, seq_length + 1), out), db.TENSOR)],
                       source=source)
    return blob


MegatronGPTMMapDataLoader = megatron_gpt_mmap_data_loader
