"""``flow.summary.Projector`` (OneFlow v0.3.4 ``python/summary/summary_projector.py``): writes embeddings (and
"exception" values) with optional labels and samples as OneFlow's ``SummaryProjector`` message
(``core/summary/projector.proto``), one message per file in ``<logdir>/projector``.

The files are byte for byte OneFlow's format, which OneFlow's own viewer read; TensorBoard does not read them
(its projector takes ``torch.utils.tensorboard.SummaryWriter.add_embedding``). :data:`SummaryProjector` is the
message class, for reading them back (``SummaryProjector.FromString(data)``). The descriptors live in a private
pool, as ``data/protos.py``'s do, so a real OneFlow in the same environment does not clash with them.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["Projector", "SummaryProjector"]

_F = descriptor_pb2.FieldDescriptorProto
_REQ, _OPT, _REP = _F.LABEL_REQUIRED, _F.LABEL_OPTIONAL, _F.LABEL_REPEATED
_PKG = ".oneflow.summary."


def _projector_file() -> descriptor_pb2.FileDescriptorProto:
    """``oneflow/core/summary/projector.proto``: names, numbers and labels as OneFlow declared them."""
    f = descriptor_pb2.FileDescriptorProto(name="oneflow/core/summary/projector.proto", package="oneflow.summary",
                                           syntax="proto2")

    def add(msg: descriptor_pb2.DescriptorProto, name: str, number: int, label: int, kind: int,
            type_name: str = "") -> None:
        field = msg.field.add(name=name, number=number, label=label, type=kind)
        if type_name:
            field.type_name = type_name

    meta = f.message_type.add(name="MetaData")
    kinds = meta.enum_type.add(name="ProjectorType")
    kinds.value.add(name="EMBEDDING", number=0)
    kinds.value.add(name="EXCEPTION", number=1)
    add(meta, "type", 1, _REQ, _F.TYPE_ENUM, _PKG + "MetaData.ProjectorType")
    add(meta, "content", 2, _OPT, _F.TYPE_STRING)

    tensor = f.message_type.add(name="Tensor")
    shape = tensor.nested_type.add(name="TensorShape")
    dim = shape.nested_type.add(name="Dim")
    add(dim, "size", 1, _REQ, _F.TYPE_INT64)
    add(dim, "name", 2, _OPT, _F.TYPE_STRING)
    add(shape, "dim", 1, _REP, _F.TYPE_MESSAGE, _PKG + "Tensor.TensorShape.Dim")
    add(tensor, "dtype", 1, _REQ, _F.TYPE_STRING)
    add(tensor, "shape", 2, _REQ, _F.TYPE_MESSAGE, _PKG + "Tensor.TensorShape")
    add(tensor, "content", 3, _OPT, _F.TYPE_BYTES)

    sample = f.message_type.add(name="Sample")
    sample_kinds = sample.enum_type.add(name="SampleType")
    for number, name in enumerate(("IMAGE", "AUDIO", "TEXT")):
        sample_kinds.value.add(name=name, number=number)
    add(sample, "name", 1, _REQ, _F.TYPE_STRING)
    add(sample, "type", 2, _REQ, _F.TYPE_ENUM, _PKG + "Sample.SampleType")
    add(sample, "X", 3, _REQ, _F.TYPE_MESSAGE, _PKG + "Tensor")

    projector = f.message_type.add(name="Projector")
    add(projector, "tag", 1, _REQ, _F.TYPE_STRING)
    add(projector, "step", 2, _OPT, _F.TYPE_INT64)
    add(projector, "WALL_TIME", 3, _REQ, _F.TYPE_DOUBLE)
    add(projector, "value", 4, _REQ, _F.TYPE_MESSAGE, _PKG + "Tensor")
    add(projector, "label", 5, _OPT, _F.TYPE_MESSAGE, _PKG + "Tensor")

    summary = f.message_type.add(name="SummaryProjector")
    add(summary, "metadata", 6, _REQ, _F.TYPE_MESSAGE, _PKG + "MetaData")
    add(summary, "sample", 2, _OPT, _F.TYPE_MESSAGE, _PKG + "Sample")
    add(summary, "projector", 1, _REP, _F.TYPE_MESSAGE, _PKG + "Projector")
    return f


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_projector_file())
SummaryProjector: Any = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("oneflow.summary.SummaryProjector"))
_SAMPLE_TYPES = {"image": 0, "audio": 1, "text": 2}  # Sample.SampleType
_EMBEDDING, _EXCEPTION = 0, 1  # MetaData.ProjectorType


class Projector:
    """``flow.summary.Projector(logdir)``: files in ``<logdir>/projector`` (made at once)."""

    def __init__(self, logdir: str | os.PathLike[str] | None = None) -> None:
        if logdir is None:
            raise ValueError("flow.summary.Projector: logdir must be a directory path; received None")
        self._logdir = os.path.join(os.fspath(logdir), "projector")
        os.makedirs(self._logdir, exist_ok=True)
        self._embedding_filename: str | None = None
        self._exception_filename: str | None = None

    @property
    def logdir(self) -> str:
        return self._logdir

    @property
    def embedding_filename(self) -> str | None:
        return self._embedding_filename

    @property
    def exception_filename(self) -> str | None:
        return self._exception_filename

    def create_embedding_projector(self) -> None:
        """Name the embedding file ``projector.<unix time>.log`` (written by ``embedding_projector``); an
        OSError if this projector's embedding file already exists."""
        if self._embedding_filename is not None and os.path.exists(self._embedding_filename):
            raise OSError(f"flow.summary.Projector: the embedding projector {self._embedding_filename} already "
                          "exists; make only one per Projector")
        self._embedding_filename = os.path.join(self._logdir, f"projector.{int(time.time())}.log")

    def create_exception_projector(self) -> None:
        """Name the exception file ``projector.gradit.<unix time>.log`` (OneFlow's name); an OSError if this
        projector's exception file already exists."""
        if self._exception_filename is not None and os.path.exists(self._exception_filename):
            raise OSError(f"flow.summary.Projector: the exception projector {self._exception_filename} already "
                          "exists; make only one per Projector")
        self._exception_filename = os.path.join(self._logdir, f"projector.gradit.{int(time.time())}.log")

    def write_projector(self, filename: str | os.PathLike[str] | None = None, projector: Any = None) -> None:
        """Write the message ``projector`` (serialized) to ``filename``, replacing it."""
        if filename is None or projector is None:
            raise ValueError("flow.summary.Projector.write_projector: filename and projector are both needed; "
                             f"received {filename!r} and {type(projector).__name__}")
        with open(filename, "wb") as f:
            f.write(projector.SerializeToString())

    def set_tensor(self, tensor: Any, value: Any) -> None:
        """Fill a projector ``Tensor`` message from an array: its shape, numpy dtype name and raw bytes."""
        array = np.asarray(value)
        for size in array.shape:
            tensor.shape.dim.add(size=size)
        tensor.dtype = str(array.dtype)
        tensor.content = array.tobytes()

    def set_projector(self, pro: Any, tag: Any, step: int | None, value: Any, label: Any = None) -> None:
        pro.tag = str(tag)
        if step is not None:
            pro.step = int(step)
        pro.WALL_TIME = time.time()
        self.set_tensor(pro.value, value)
        if label is not None:
            self.set_tensor(pro.label, label)

    def set_sample(self, sample: Any, name: str | None, x: Any, sample_type: str) -> None:
        kind = _SAMPLE_TYPES.get(sample_type.lower()) if isinstance(sample_type, str) else None
        if kind is None:
            raise NotImplementedError(f"flow.summary.Projector: sample_type must be 'image', 'audio' or 'text' "
                                      f"(OneFlow's Sample.SampleType); received {sample_type!r}")
        if name is not None:
            sample.name = name
        sample.type = kind
        if x is not None:
            self.set_tensor(sample.X, x)

    def embedding_projector(self, value: Any = None, label: Any = None, tag: Any = None, step: int | None = None,
                            sample_name: str | None = None, sample_type: str | None = None, x: Any = None) -> None:
        """Write ``value`` (with ``label``, and the sample ``x`` when ``sample_name`` and ``sample_type`` are
        given) to the embedding file, replacing what it held."""
        self._write(self._embedding_filename, "create_embedding_projector", _EMBEDDING,
                    "embedding_projector" if tag is None else tag, step, value, label, sample_name, sample_type, x)

    def exception_projector(self, value: Any = None, tag: Any = None, step: int | None = None,
                            sample_name: str | None = None, sample_type: str | None = None, x: Any = None) -> None:
        """As :meth:`embedding_projector`, without labels, to the exception file."""
        self._write(self._exception_filename, "create_exception_projector", _EXCEPTION,
                    "exception_projector" if tag is None else tag, step, value, None, sample_name, sample_type, x)

    def _write(self, filename: str | None, create: str, kind: int, tag: Any, step: int | None, value: Any,
               label: Any, sample_name: str | None, sample_type: str | None, x: Any) -> None:
        if filename is None:
            raise RuntimeError(f"flow.summary.Projector: call {create}() first; it names the file to write")
        if value is None:
            raise ValueError("flow.summary.Projector: value (the array to project) is required")
        message = SummaryProjector()
        message.metadata.type = kind
        self.set_projector(message.projector.add(), tag, step, value, label)
        if sample_name is not None and sample_type is not None:
            self.set_sample(message.sample, sample_name, x, sample_type)
        self.write_projector(filename, message)
