"""A job's data pipeline: the data ops its body called, run once per batch outside the job graph.

Data ops (readers, decoders, image ops, ``random.CoinFlip``) do not become graph nodes. Each records a
``DataOp`` into the job's :class:`Pipeline` and returns ``DataBlob`` s (:mod:`flowtorch._src.data.blobs`). A
data blob that a graph op, a return or a watch uses becomes a graph placeholder
(:meth:`JobBuilder.add_fed_input`). On every call, the loader (:mod:`flowtorch._src.data.loader`) runs the
pipeline for the next batch and feeds those placeholders. Kernels take numpy values: an array for a static
blob, or a list with one array per sample for a tensor buffer (OneFlow's variable-shaped ``TensorBuffer``
blobs, e.g. decoded images) or a tensor list.

A data op given a blob that the job graph computes (a job input, a graph op's output) cannot run before
the graph: it becomes a node of the graph instead (:mod:`flowtorch._src.data.graph_ops`), and so do the
data ops that take its outputs. Its data-blob outputs are marked ``in_graph``.

Call tree: data op → :meth:`Pipeline.add`; at the end of the build :meth:`Pipeline.freeze` →
:class:`BatchRunner`; in a loader worker :meth:`BatchRunner.run` → each op's kernel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.capture.context import current_builder
from flowtorch._src.data import blobs as db
from flowtorch._src.data import graph_ops
from flowtorch._src.dist import collectives


class ShardedSource:
    """A source that devices share, each reading its own part files (OneFlow's per-device OFRecord readers,
    :class:`~flowtorch._src.data.readers.RecordSource`): every batch, ``batch_size / shards`` records each;
    ``local_shard`` set, only that device's share is read."""

    batch_size: int
    shards: int
    local_shard: int | None


@dataclass
class Pipeline:
    """The data ops of one job, in call order, and which of their outputs the graph is fed."""

    job_name: str
    builder: JobBuilder
    ops: list[db.DataOp] = field(default_factory=list)
    sources: list[Any] = field(default_factory=list)  # readers' record plans (flowtorch._src.data.readers)
    n_values: int = 0  # value slots handed out so far
    fed: list[db.DataBlob] = field(default_factory=list)  # blobs fed to the graph, in placeholder order
    fed_nodes: list[Any] = field(default_factory=list)  # their placeholders
    raw_fed: dict[int, Any] = field(default_factory=dict)  # slot -> placeholder of a buffer fed to a graph data op

    def add(self, name: str, kernel: Callable[..., Any], inputs: Sequence[Blob],
            outputs: Sequence[tuple[str, torch.Tensor, str]], *, seed: int | None = None,
            source: Any = None) -> list[db.DataBlob]:
        """Record data op ``name``: in the pipeline, or in the job graph when an input is computed there."""
        if any(db.runs_in_graph(b) for b in inputs):
            return graph_ops.record(self, name, kernel, inputs, outputs, seed)
        blobs = []
        slots = []
        for blob_name, meta, kind in outputs:
            slot = self.n_values
            self.n_values += 1
            slots.append(slot)
            blob = db.DataBlob(self.builder, meta, name, blob_name, kind, slot)
            self.builder._created(blob)
            blobs.append(blob)
        src = None
        if source is not None:
            src = len(self.sources)
            self.sources.append(source)
        slots_in = tuple(b.slot for b in inputs if isinstance(b, db.DataBlob))  # all are: none runs in the graph
        self.ops.append(db.DataOp(name, kernel, slots_in, tuple(slots), seed, src))
        return blobs

    def feed(self, blob: db.DataBlob, raw: bool = False) -> Any:
        """Give ``blob`` a graph placeholder. Graph ops may use static tensors and tensor lists; ``raw`` lets
        a data op running in the graph take a tensor buffer or OFRecords too."""
        if blob.kind in (db.BUFFER, db.RECORD):
            if not raw:
                raise TypeError(db.not_a_tensor(blob))
            if blob.slot in self.raw_fed:
                return self.raw_fed[blob.slot]
        node = self.builder.add_fed_input()
        node.meta["flowtorch_meta"] = blob.meta
        node.meta["flowtorch_lbn"] = blob.logical_blob_name
        self.fed.append(blob)
        self.fed_nodes.append(node)
        if blob.kind in (db.BUFFER, db.RECORD):
            self.raw_fed[blob.slot] = node
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
        specs = [db.FedSpec.of(b) for b in self.fed]
        if _read_rank_parts(self, needed):  # each process reads its own records: its part of every fed blob
            specs = [dataclasses.replace(s, shape=(s.shape[0] // self.sources[0].shards, *s.shape[1:]))
                     for s in specs]
            for node in self.fed_nodes:
                node.meta["flowtorch_rank_part"] = True
        return BatchRunner(self.job_name, needed, [b.slot for b in self.fed], specs, list(self.sources))


def _read_rank_parts(pipe: Pipeline, ops: Sequence[db.DataOp]) -> bool:
    """On several processes in the consistent view, whether each rank can read only its own share of the
    records (OneFlow's per-device readers, :mod:`~flowtorch._src.data.readers`) and so feed its part of every
    fed blob: when every reader is shared by the ranks and every batch starts at a reader (no coin flips)."""
    size = collectives.world_size()
    if size == 1 or pipe.builder.config.is_mirrored() or not pipe.sources or not pipe.fed:
        return False
    if not all(isinstance(s, ShardedSource) and s.shards == size for s in pipe.sources):
        return False
    batch = pipe.sources[0].batch_size
    if any(s.batch_size != batch for s in pipe.sources) or any(not op.inputs and op.source is None for op in ops):
        return False
    if any(b.kind in (db.BUFFER, db.RECORD) or not b.shape or b.shape[0] != batch for b in pipe.fed):
        return False
    for source in pipe.sources:
        source.local_shard = collectives.rank()
    return True


@dataclass
class BatchRunner:
    """The frozen pipeline a loader worker runs: no builder, session or graph, so it can be pickled."""

    job_name: str
    ops: list[db.DataOp]
    fed: list[int]
    specs: list[db.FedSpec]  # per fed value
    sources: list[Any]  # readers' record plans; their ``fetch`` reads a batch's records in the worker

    @property
    def reads_files(self) -> bool:
        """Reading and decoding files is worth worker processes; a pipeline of coin flips is not."""
        return any(op.source is not None for op in self.ops)

    def run(self, step: int, locations: Sequence[Any]) -> list[Any]:
        """The fed values of batch ``step``; ``locations[i]`` says which records source ``i`` reads."""
        values: dict[int, Any] = {}
        for op in self.ops:
            records = None if op.source is None else self.sources[op.source].fetch(locations[op.source])
            ctx = db.OpContext(op.name, step, op.seed, records)
            outs = db.run_kernel(op.kernel, ctx, [values[i] for i in op.inputs], len(op.outputs),
                              f"of job {self.job_name!r} (batch {step})")
            for slot, value in zip(op.outputs, outs):
                values[slot] = value
        return [db.to_torch(values[slot], spec, self.job_name) for slot, spec in zip(self.fed, self.specs)]


def pipeline(op: str) -> Pipeline:
    """The pipeline of the job being built (made on its first data op)."""
    builder = current_builder(op)
    if builder.pipeline is None:
        builder.pipeline = Pipeline(builder.job_name, builder)
    return builder.pipeline


