"""A job's data pipeline: the data ops its body called, run once per batch outside the job graph.

Data ops (readers, decoders, image ops, ``random.CoinFlip``) do not become graph nodes. Each records a
:class:`DataOp` into the job's :class:`Pipeline` and returns :class:`DataBlob` s. A data blob that a graph
op, a return or a watch uses becomes a graph placeholder (:meth:`JobBuilder.add_fed_input`). On every
call, the loader (:mod:`flowtorch._src.data.loader`) runs the pipeline for the next batch and feeds those
placeholders. Kernels take numpy values: an array for a static blob, or a list with one array per
sample for a tensor buffer (OneFlow's variable-shaped ``TensorBuffer`` blobs, e.g. decoded images).

Call tree: data op → :meth:`Pipeline.add`; at the end of the build :meth:`Pipeline.freeze` →
:class:`BatchRunner`; in a loader worker :meth:`BatchRunner.run` → each op's kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes, naming
from flowtorch._src.job.blob import Blob
from flowtorch._src.job.builder import JobBuilder
from flowtorch._src.job.context import current_builder

# What a data blob holds per batch: a static array, a tensor buffer (one array per sample), or raw
# OFRecords (one serialized record per sample).
TENSOR, BUFFER, RECORD = "tensor", "tensor_buffer", "ofrecord"

tensor_buffer = dtypes.DType("tensor_buffer", torch.uint8, np.object_, "kTensorBuffer")
ofrecord = dtypes.DType("OFRecord", torch.uint8, np.object_, "kOFRecord")


class DataBlob(Blob):
    """A blob made by a data op. It becomes a graph placeholder the first time the graph needs it."""

    __slots__ = ("kind", "slot", "_node")

    def __init__(self, builder: JobBuilder, meta: torch.Tensor, op_name: str, blob_name: str, kind: str,
                 slot: int) -> None:
        self._node: Any = None
        super().__init__(builder, None, meta, op_name, blob_name, batch_axis=0)  # type: ignore[arg-type]
        self.kind = kind
        self.slot = slot

    @property  # type: ignore[override]
    def node(self) -> Any:
        if self._node is None:
            self._node = self.builder.pipeline.feed(self)
        return self._node

    @node.setter
    def node(self, value: Any) -> None:
        self._node = value

    @property
    def dtype(self) -> dtypes.DType:
        return {BUFFER: tensor_buffer, RECORD: ofrecord}.get(self.kind) or super().dtype

    @property
    def is_tensor_buffer(self) -> bool:
        return self.kind != TENSOR

    def __repr__(self) -> str:
        return f"DataBlob(lbn={self.logical_blob_name!r}, shape={self.shape}, kind={self.kind})"


@dataclass
class OpContext:
    """What a kernel may use besides its inputs: the op's random stream for this batch and, for a source op,
    what its source's ``fetch`` read for this batch (OFRecord readers: ``(data, file path, record number)``
    per record)."""

    op_name: str
    step: int
    seed: int | None
    records: Any = None
    _rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The op's generator for this batch: a function of (seed, batch number) only, so a batch is the
        same whichever worker makes it."""
        if self._rng is None:
            if self.seed is None:
                raise RuntimeError(f"data op {self.op_name} asked for randomness but was built without a seed")
            self._rng = np.random.default_rng([self.seed, self.step])
        return self._rng


@dataclass
class DataOp:
    name: str
    kernel: Callable[..., Any]  # kernel(ctx, *inputs) -> one value, or a tuple for several outputs
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    seed: int | None = None
    source: int | None = None  # index into Pipeline.sources for readers


@dataclass
class Pipeline:
    """The data ops of one job, in call order, and which of their outputs the graph is fed."""

    job_name: str
    builder: JobBuilder
    ops: list[DataOp] = field(default_factory=list)
    sources: list[Any] = field(default_factory=list)  # readers' record plans (flowtorch._src.data.readers)
    n_values: int = 0  # value slots handed out so far
    fed: list[DataBlob] = field(default_factory=list)  # blobs fed to the graph, in placeholder order

    def add(self, name: str, kernel: Callable[..., Any], inputs: Sequence[DataBlob],
            outputs: Sequence[tuple[str, torch.Tensor, str]], *, seed: int | None = None,
            source: Any = None) -> list[DataBlob]:
        blobs = []
        slots = []
        for blob_name, meta, kind in outputs:
            slot = self.n_values
            self.n_values += 1
            slots.append(slot)
            blob = DataBlob(self.builder, meta, name, blob_name, kind, slot)
            self.builder._created(blob)
            blobs.append(blob)
        src = None
        if source is not None:
            src = len(self.sources)
            self.sources.append(source)
        self.ops.append(DataOp(name, kernel, tuple(b.slot for b in inputs), tuple(slots), seed, src))
        return blobs

    def feed(self, blob: DataBlob) -> Any:
        """Give ``blob`` a graph placeholder (it must hold a static tensor)."""
        if blob.kind != TENSOR:
            raise TypeError(
                f"job {self.job_name!r}: {blob.lbn} is a {blob.kind} blob (one variable-shaped value per sample); "
                "graph ops, returns and watches need a static tensor: decode it first (e.g. "
                "flow.data.OFRecordRawDecoder, flow.image.CropMirrorNormalize, flow.image.batch_align or "
                "flow.tensor_buffer_to_tensor)")
        node = self.builder.add_fed_input()
        node.meta["flowtorch_meta"] = blob.meta
        self.fed.append(blob)
        return node

    def freeze(self) -> BatchRunner | None:
        """What the loader runs per batch: the ops the fed outputs depend on (None if nothing is fed)."""
        if not self.fed:
            return None
        wanted = {b.slot for b in self.fed}
        needed = []
        for op in reversed(self.ops):
            if wanted.intersection(op.outputs):
                needed.append(op)
                wanted.update(op.inputs)
        needed.reverse()
        specs = [(b.shape, b.meta.dtype, b.lbn, b.is_dynamic) for b in self.fed]
        return BatchRunner(self.job_name, needed, [b.slot for b in self.fed], specs, list(self.sources))


@dataclass
class BatchRunner:
    """The frozen pipeline a loader worker runs: no builder, session or graph, so it can be pickled."""

    job_name: str
    ops: list[DataOp]
    fed: list[int]
    specs: list[tuple[tuple[int, ...], torch.dtype, str, bool]]  # (shape, dtype, lbn, dynamic) per fed value
    sources: list[Any]  # readers' record plans; their ``fetch`` reads a batch's records in the worker

    @property
    def reads_files(self) -> bool:
        """Reading and decoding files is worth worker processes; a pipeline of coin flips is not."""
        return any(op.source is not None for op in self.ops)

    def run(self, step: int, locations: Sequence[Any]) -> list[torch.Tensor]:
        """The fed tensors of batch ``step``; ``locations[i]`` says which records source ``i`` reads."""
        values: dict[int, Any] = {}
        for op in self.ops:
            records = None if op.source is None else self.sources[op.source].fetch(locations[op.source])
            ctx = OpContext(op.name, step, op.seed, records)
            try:
                out = op.kernel(ctx, *(values[i] for i in op.inputs))
            except Exception as exc:
                exc.add_note(f"in data op {op.name!r} of job {self.job_name!r} (batch {step})")
                raise
            outs = out if isinstance(out, tuple) else (out,)
            if len(outs) != len(op.outputs):
                raise RuntimeError(f"data op {op.name!r} gave {len(outs)} values for {len(op.outputs)} outputs")
            for slot, value in zip(op.outputs, outs):
                values[slot] = value
        return [self._tensor(values[slot], spec) for slot, spec in zip(self.fed, self.specs)]

    def _tensor(self, value: Any, spec: tuple[tuple[int, ...], torch.dtype, str, bool]) -> torch.Tensor:
        shape, dtype, lbn, dynamic = spec
        tensor = torch.from_numpy(np.ascontiguousarray(value))
        got = tuple(tensor.shape)
        # a dynamic blob (OneFlow's is_dynamic) may hold less than its declared, static shape
        fits = len(got) == len(shape) and all(a <= b for a, b in zip(got, shape)) if dynamic else got == shape
        if not fits or tensor.dtype != dtype:
            raise RuntimeError(f"job {self.job_name!r}: data blob {lbn} was declared {shape} {dtype}"
                               f"{' (dynamic: at most)' if dynamic else ''} but its op produced {got} {tensor.dtype}")
        return tensor


def pipeline(op: str) -> Pipeline:
    """The pipeline of the job being built (made on its first data op)."""
    builder = current_builder(op)
    if builder.pipeline is None:
        builder.pipeline = Pipeline(builder.job_name, builder)
    return builder.pipeline


def check_data_blob(x: Any, op: str, arg: str, kinds: Sequence[str] = (TENSOR, BUFFER, RECORD)) -> DataBlob:
    """A data blob of one of ``kinds`` (data ops run before the graph, so they cannot take graph blobs)."""
    current_builder(op)
    if isinstance(x, DataBlob) and x.kind in kinds:
        return x
    if isinstance(x, DataBlob):
        what = f"data blob {x.lbn} holds {x.kind} values"
    elif isinstance(x, Blob):
        what = f"{x.lbn} is computed by the job graph, which runs after the data pipeline"
    else:
        what = f"received {type(x).__name__} {x!r}"[:200]
    raise TypeError(f"flow.{op}: argument {arg!r} must be a data blob holding {' or '.join(kinds)} values; {what}")


def op_name(prefix: str, name: str | None) -> str:
    return naming.op_name(prefix, name)


def draw_seed(seed: Any, op: str) -> int:
    """An op's seed: the user's, or one drawn from torch's default generator at build (so that
    ``torch.manual_seed`` makes a run repeatable; OneFlow drew a fresh random seed per op)."""
    if seed is None or (isinstance(seed, int) and seed == -1):
        return int(torch.randint(0, 2**62, ()))
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise TypeError(f"flow.{op}: argument 'seed' must be a non-negative int or None; received {seed!r}")
    return seed


def meta(shape: Sequence[int], dtype: Any) -> torch.Tensor:
    torch_dtype = dtype if isinstance(dtype, torch.dtype) else dtypes.to_dtype(dtype).torch_dtype
    return torch.empty(tuple(int(s) for s in shape), dtype=torch_dtype, device="meta")
