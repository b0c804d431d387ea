"""``flow.summary.Projector`` (OneFlow v0.3.4 ``python/summary/summary_projector.py``): writes embeddings (and
"exception" values) with optional labels and samples as OneFlow's ``SummaryProjector`` message
(``core/summary/projector.proto``), one message per file in ``<logdir>/projector``.

The files are byte for byte OneFlow's format, which OneFlow's own viewer read; TensorBoard does not read them
(its projector takes ``torch.utils.tensorboard.SummaryWriter.add_embedding``). :data:`SummaryProjector` is the
message class (``flowtorch.core.summary.projector_pb2``'s), for reading them back
(``SummaryProjector.FromString(data)``).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from flowtorch.core.summary.projector_pb2 import MetaData, Sample, SummaryProjector

__all__ = ["Projector", "SummaryProjector"]

_SAMPLE_TYPES = {"image": Sample.IMAGE, "audio": Sample.AUDIO, "text": Sample.TEXT}
_EMBEDDING, _EXCEPTION = MetaData.EMBEDDING, MetaData.EXCEPTION


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

    def _write(self, filename: str | None, create: str, kind: MetaData.ProjectorType, tag: Any, step: int | None,
               value: Any, label: Any, sample_name: str | None, sample_type: str | None, x: Any) -> None:
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
