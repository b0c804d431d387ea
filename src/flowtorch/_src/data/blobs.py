"""What data ops make and exchange: :class:`DataBlob` (a blob a data op made, fed to the job graph on its
first use there), its kinds, the ops' records and contexts, and the checks and conversions every data op
module shares. :mod:`flowtorch._src.data.pipeline` records and runs them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.capture.context import current_builder
from flowtorch._src.data.record_kernels import OpContext as OpContext
from flowtorch._src.data.tensor_list import TensorList, writable
from flowtorch._src.errors import add_note

# What a data blob holds per batch: a static array, a tensor buffer (one array per sample), raw OFRecords
# (one serialized record per sample), or a tensor list (one array per sample, fed to the graph as a
# flowtorch._src.data.tensor_list.TensorList).
TENSOR, BUFFER, RECORD, LIST = "tensor", "tensor_buffer", "ofrecord", "tensor_list"


class DataBlob(Blob):
    """A blob made by a data op. It becomes a graph placeholder the first time the graph needs it."""

    __slots__ = ("kind", "slot", "_node", "in_graph", "height_first")

    def __init__(self, builder: JobBuilder, meta: torch.Tensor, op_name: str, blob_name: str, kind: str,
                 slot: int, graph_node: Any = None) -> None:
        self._node: Any = None
        super().__init__(builder, None, meta, op_name, blob_name, batch_axis=0)  # type: ignore[arg-type]
        self.kind = kind
        self.slot = slot  # its value's slot in the pipeline; -1 when in_graph
        self.in_graph = graph_node is not None  # made by a data op that runs in the job graph
        self._node = graph_node
        # an (N, 2) image size or scale that v0.1.2's object-op kernels read as (h, w), made by a v0.1.2 call
        # (image_target_resize, coco_reader); (w, h) otherwise, as from v0.2.0 on (data/object_ops.py)
        self.height_first = False

    @property  # type: ignore[override]
    def node(self) -> Any:
        """The graph node of its value (fed from the pipeline on first use); only static tensors and tensor
        lists may be used by graph ops, returns and watches."""
        if self.kind in (BUFFER, RECORD):
            raise TypeError(not_a_tensor(self))
        if self._node is None:
            self._node = self.builder.pipeline.feed(self)
        return self._node

    @node.setter
    def node(self, value: Any) -> None:
        self._node = value

    def _same_lbn(self) -> Blob:
        """``with_distribute`` marks a data blob itself: a second object could feed its value twice."""
        return self

    @property
    def dtype(self) -> dtypes.DType:
        return {BUFFER: dtypes.tensor_buffer, RECORD: dtypes.ofrecord}.get(self.kind) or super().dtype

    def numpy(self, rank: int | None = None) -> np.ndarray:
        """In an eager job, the value of a data op that ran in the graph (a copy), as eager blobs give it."""
        value_of = getattr(self.builder, "value_of", None)
        if value_of is None or not self.in_graph or self.kind != TENSOR:
            raise AttributeError(f"blob {self.lbn} has no value while a lazy job is built (only eager jobs' "
                                 "blobs have numpy()); return it from the job instead")
        if rank not in (None, 0):
            raise AssertionError(f"{self.lbn}.numpy({rank!r}): the blob has one device part (rank 0)")
        return value_of(self).detach().cpu().numpy().copy()

    @property
    def is_tensor_buffer(self) -> bool:
        return self.kind in (BUFFER, RECORD)

    @property
    def is_tensor_list(self) -> bool:
        return self.kind == LIST

    def __repr__(self) -> str:
        return f"DataBlob(lbn={self.logical_blob_name!r}, shape={self.shape}, kind={self.kind})"


@dataclass
class DataOp:
    name: str
    kernel: Callable[..., Any]  # kernel(ctx, *inputs) -> one value, or a tuple for several outputs
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    seed: int | None = None
    source: int | None = None  # index into Pipeline.sources for readers


@dataclass(frozen=True)
class FedSpec:
    """What a data op's value handed to the graph must be: kind, declared shape (the static upper bound
    when dynamic; for a tensor list, ``(N, *per-tensor bound)``) and dtype."""

    kind: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    lbn: str
    dynamic: bool

    @classmethod
    def of(cls, blob: DataBlob) -> FedSpec:
        return cls(blob.kind, blob.shape, blob.meta.dtype, blob.lbn, blob.is_dynamic)


class Opaque:
    """A tensor buffer or OFRecords on its way to a data op in the graph: the loader passes it through."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def to_torch(value: Any, spec: FedSpec, job: str) -> Any:
    """A data op's value as the graph takes it: a checked tensor, a :class:`TensorList`, or an :class:`Opaque`
    buffer."""
    if spec.kind in (BUFFER, RECORD):
        return Opaque(value)
    if spec.kind == LIST:
        return TensorList.from_numpy(value)
    tensor = torch.from_numpy(writable(np.asarray(value)))
    got = tuple(tensor.shape)
    shape = spec.shape
    # a dynamic blob (OneFlow's is_dynamic) may hold less than its declared, static shape
    fits = len(got) == len(shape) and all(a <= b for a, b in zip(got, shape)) if spec.dynamic else got == shape
    if not fits or tensor.dtype != spec.dtype:
        raise RuntimeError(f"job {job!r}: data blob {spec.lbn} was declared {shape} {spec.dtype}"
                           f"{' (dynamic: at most)' if spec.dynamic else ''} but its op produced {got} {tensor.dtype}")
    return tensor


def run_kernel(kernel: Any, ctx: OpContext, args: Sequence[Any], n_outputs: int, where: str) -> tuple[Any, ...]:
    """``kernel(ctx, *args)`` as a tuple of ``n_outputs`` values; an error gets a note naming the op ``where``
    it ran (in the loader or in the job graph)."""
    try:
        out = kernel(ctx, *args)
    except Exception as exc:
        add_note(exc, f"in data op {ctx.op_name!r} {where}")
        raise
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != n_outputs:
        raise RuntimeError(f"data op {ctx.op_name!r} gave {len(outs)} values for {n_outputs} outputs")
    return outs


def runs_in_graph(blob: Blob) -> bool:
    """Whether ``blob``'s value is computed by the job graph (so data ops taking it run there too)."""
    return not isinstance(blob, DataBlob) or blob.in_graph


def kind_of(blob: Blob) -> str:
    """What ``blob`` holds: a data blob's kind; a static tensor for a blob of the job graph."""
    return blob.kind if isinstance(blob, DataBlob) else TENSOR


def not_a_tensor(blob: DataBlob) -> str:
    return (f"job {blob.builder.job_name!r}: {blob.lbn} is a {blob.kind} blob (one variable-shaped value per "
            "sample); graph ops, returns and watches need a static tensor: decode it first (e.g. "
            "flow.data.OFRecordRawDecoder, flow.image.CropMirrorNormalize, flow.image.batch_align or "
            "flow.tensor_buffer_to_tensor), or return it as a tensor list (flow.tensor_buffer_to_tensor_list)")


def check_data_blob(x: Any, op: str, arg: str, kinds: Sequence[str] = (TENSOR, BUFFER, RECORD)) -> Any:
    """A data blob of one of ``kinds``; when ``kinds`` has TENSOR, also a static blob of the job graph (the
    op then runs in the graph)."""
    current_builder(op)
    if isinstance(x, DataBlob) and x.kind in kinds:
        return x
    if isinstance(x, Blob) and not isinstance(x, DataBlob) and TENSOR in kinds:
        return x
    if isinstance(x, DataBlob):
        what = f"data blob {x.lbn} holds {x.kind} values"
    elif isinstance(x, Blob):
        what = f"{x.lbn} is computed by the job graph and holds static tensor values"
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
