"""Data ops that run in the job graph.

A data op given a blob that the job graph computes (a job input such as a ``tp.ListListNumpy`` tensor
list, a graph op's output) cannot run in the loader, before the graph: its kernel becomes a node of the
graph (a :class:`GraphKernel`) and runs in each call's step, on that call's values. The data ops that take
its outputs follow it there. OneFlow ran every data op in its graph, so this is how its programs fed
images, boxes and polygons from placeholders (``flow.tensor_list_to_tensor_buffer(images)`` →
``flow.image.flip`` → ``flow.tensor_buffer_to_tensor_list``).

In the graph, a tensor buffer is a Python list of numpy arrays, a tensor list a
:class:`~flowtorch._src.data.tensor_list.TensorList`; static outputs are tensors on the job's device. The
kernels are the loader's (numpy, on the CPU). A graph with such nodes cannot be captured by
``torch.compile`` (the step falls back to eager, with one log line) or a CUDA graph.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.data import blobs as db
from flowtorch._src.data.tensor_list import TensorList

if TYPE_CHECKING:  # the pipeline records through this module
    from flowtorch._src.data.pipeline import Pipeline


class GraphKernel:
    """A data op's kernel as the target of a graph node: numpy in, numpy out, converted at both ends."""

    def __init__(self, job: str, name: str, kernel: Any, in_kinds: Sequence[str], seed: int | None,
                 device: str) -> None:
        self.job = job
        self.name = name
        self.kernel = kernel
        self.in_kinds = tuple(in_kinds)
        self.seed = seed
        self.device = torch.device(device)
        self.calls = 0
        self.outputs: list[db.DataBlob] = []  # read once, at the first call, into specs
        self.specs: list[db.FedSpec] | None = None

    @property
    def __name__(self) -> str:  # torch.fx names the node after its target
        return "data_op"

    def __call__(self, *values: Any) -> Any:
        if self.specs is None:
            # read here, not at build: ops set their outputs' is_dynamic after recording them
            self.specs = [db.FedSpec.of(b) for b in self.outputs]
            self.outputs = []
        args = [self._numpy(v, kind, i) for i, (v, kind) in enumerate(zip(values, self.in_kinds))]
        ctx = db.OpContext(self.name, self.calls, self.seed)
        self.calls += 1
        outs = db.run_kernel(self.kernel, ctx, args, len(self.specs),
                             f"of job {self.job!r} (call {ctx.step}; it runs in the job graph)")
        converted = tuple(self._torch(v, spec) for v, spec in zip(outs, self.specs))
        return converted if len(converted) > 1 else converted[0]

    def _numpy(self, value: Any, kind: str, index: int) -> Any:
        if isinstance(value, db.Opaque):
            return value.value
        if isinstance(value, TensorList):
            if kind != db.LIST:
                raise TypeError(f"data op {self.name!r} of job {self.job!r}: input {index} is a tensor list (tensors "
                                "of different shapes); this op takes a static tensor")
            return [t.detach().cpu().numpy() for t in value]
        if isinstance(value, torch.Tensor):
            array = value.detach().cpu().numpy()
            return [array] if kind == db.LIST else array  # a one-tensor ListListNumpy input comes as a tensor
        return value  # a tensor buffer made by a data op in the graph

    def _torch(self, value: Any, spec: db.FedSpec) -> Any:
        if spec.kind in (db.BUFFER, db.RECORD):
            return value
        out = db.to_torch(value, spec, self.job)
        return out if self.device.type == "cpu" else out.to(self.device)


def input_node(pipe: Pipeline, blob: Blob) -> Any:
    """The graph node holding ``blob``'s value for a data op in the graph (a pipeline blob is fed)."""
    if not isinstance(blob, db.DataBlob):
        return blob.node
    if blob.in_graph:
        return blob._node
    return pipe.feed(blob, raw=True) if blob.kind in (db.BUFFER, db.RECORD) else blob.node


def record(pipe: Pipeline, name: str, kernel: Any, inputs: Sequence[Blob],
           outputs: Sequence[tuple[str, torch.Tensor, str]], seed: int | None,
           in_kinds: Sequence[str] | None = None) -> list[db.DataBlob]:
    """Record data op ``name`` as a node of the job graph; its outputs are ``in_graph`` data blobs.
    ``in_kinds`` overrides what each input holds (default: a data blob's kind, a graph blob's TENSOR)."""
    builder = pipe.builder
    for blob in inputs:
        if blob.builder is not builder:
            raise ValueError(f"data op {name} in job {builder.job_name!r}: blob {blob.lbn} belongs to job "
                             f"{blob.builder.job_name!r}; blobs cannot cross jobs")
    kinds = list(in_kinds) if in_kinds is not None else [db.kind_of(b) for b in inputs]
    target = GraphKernel(builder.job_name, name, kernel, kinds, seed, builder.device)
    node = builder.graph.call_function(target, tuple(input_node(pipe, b) for b in inputs))
    blobs = []
    for i, (blob_name, meta, kind) in enumerate(outputs):
        out_node = node if len(outputs) == 1 else builder.graph.call_function(operator.getitem, (node, i))
        out_node.meta["flowtorch_meta"] = meta
        blob = db.DataBlob(builder, meta, name, blob_name, kind, -1, graph_node=out_node)
        builder._created(blob)
        blobs.append(blob)
    target.outputs = blobs
    return blobs

