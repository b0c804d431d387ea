"""``flow.summary``'s in-job ops: they write TensorBoard event records when the job runs (OneFlow v0.3.4
``python/ops/summary_ops.py``; kernels ``user/kernels/summary_kernels.cpp`` and
``user/summary/event_writer_helper.cpp``).

* ``create_summary_writer(logdir)`` opens the process's event file in ``<logdir>/event`` (OneFlow's layout);
  ``flush_summary_writer()`` flushes it. Each is an op of the job that calls it, so it acts every time that
  job runs, as OneFlow's kernels did.
* ``scalar(value, step, tag)``, ``histogram(value, step, tag)``, ``image(value, step, tag)`` and
  ``pb(value, step)`` append one event at ``step`` each time their job runs, in the order the body called
  them. ``tag`` is an int8 blob holding the tag's bytes (``np.frombuffer(b"loss", np.int8)``), as OneFlow
  took it, or a str; ``step`` an integer blob of one element, or an int.

The events are written by ``torch.utils.tensorboard``'s ``FileWriter`` (queue of 10 and a flush every 180 s:
OneFlow's ``MAX_QUEUE_NUM`` and ``FLUSH_TIME``), in files TensorBoard reads (``events.out.tfevents.*``;
OneFlow named them ``event.<time>.log``). The writer is one per process, as OneFlow's
``Global<EventsWriter>`` was one per runtime: it stays open across ``clear_default_session()`` and is closed
at interpreter exit. Only rank 0 of a ``--nproc`` run writes. A step that writes cannot be a CUDA graph or a
compiled graph: such jobs run eagerly.

The op types are registered, so ``flow.user_op_builder(name).Op("summary_write_scalar")…`` (the way OneFlow's
own Python built them) records the same ops.
"""

from __future__ import annotations

import atexit
import importlib
import io
import os
import threading
from types import ModuleType
from typing import Any

import numpy as np
import torch
import torch.fx
from google.protobuf import message, text_format

from flowtorch._src import errors
from flowtorch._src.capture.blob import Blob
from flowtorch._src.dist import group
from flowtorch._src.ops._checks import Desc, arg_error, builder, check_blob, is_int
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.op_registry import AttrSpec, invalid, register
from flowtorch._src.package import extra_hint
from flowtorch._src.runtime import graph_capture

__all__ = ["EVENT_LOG", "HISTOGRAM_BINS", "TENSORBOARD_EXTRA", "create_summary_writer", "flush_summary_writer",
           "histogram", "image", "pb", "scalar", "tensorboard"]

TENSORBOARD_EXTRA = extra_hint("viz")
MAX_QUEUE = 10  # OneFlow's MAX_QUEUE_NUM (user/summary/events_writer.h): events held before a write
FLUSH_SECS = 180  # OneFlow's FLUSH_TIME, 3 minutes


def tensorboard(module: str, purpose: str) -> ModuleType:
    """Import a module of the optional ``tensorboard`` package (or torch's wrapper of it), or raise an
    ImportError that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{purpose} writes TensorBoard records and needs the 'tensorboard' package, which is not "
                          f"installed: {TENSORBOARD_EXTRA}") from exc


def _tensorboard_default_bins() -> list[float]:
    """TensorBoard's default histogram bucket limits (±1e-12 · 1.1^k up to 1e20, and 0), the family OneFlow's
    ``user/summary/histogram.cpp`` took its limits from (it kept those between ±6.1e-6 and ±4.5e8)."""
    positive = []
    v = 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return [-x for x in reversed(positive)] + [0.0] + positive


HISTOGRAM_BINS = _tensorboard_default_bins()


class EventLog:
    """The process's summary writer (OneFlow's ``Global<EventsWriter>``): one event file, opened by
    ``create_summary_writer`` and shared by every job's summary ops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._writer: Any = None
        self._logdir: str | None = None
        self._exit_hook = False

    @property
    def logdir(self) -> str | None:
        """The ``logdir`` of the open writer (events go to ``<logdir>/event``), or None."""
        return self._logdir

    @property
    def event_dir(self) -> str | None:
        return None if self._logdir is None else os.path.join(self._logdir, "event")

    def open(self, logdir: str) -> None:
        """Write to ``<logdir>/event`` from now on. The open writer is kept when ``logdir`` is the same (each
        run of a job that creates the writer); another ``logdir`` closes it first."""
        logdir = os.path.abspath(logdir)
        with self._lock:
            if self._writer is not None and self._logdir == logdir:
                return
            writer_module = tensorboard("torch.utils.tensorboard.writer", "flow.summary.create_summary_writer")
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            self._writer = writer_module.FileWriter(os.path.join(logdir, "event"), max_queue=MAX_QUEUE,
                                                    flush_secs=FLUSH_SECS)
            self._logdir = logdir
            if not self._exit_hook:  # OneFlow's runtime closed (and flushed) its writer when it ended
                atexit.register(self.close)
                self._exit_hook = True

    def write(self, op: str, summary: Any, step: int) -> None:
        with self._lock:
            if self._writer is None:
                raise RuntimeError(f"flow.{op}: no summary writer is open; call "
                                   "flow.summary.create_summary_writer(logdir) in a job that runs before this one")
            self._writer.add_summary(summary, global_step=step)

    def flush(self) -> None:
        """Write every queued event to the file (nothing to do without a writer, as in OneFlow)."""
        with self._lock:
            if self._writer is not None:
                self._writer.flush()

    def close(self) -> None:
        """Flush and close the file; a later ``create_summary_writer`` opens a new one."""
        with self._lock:
            writer, self._writer, self._logdir = self._writer, None, None
            if writer is not None:
                writer.close()


EVENT_LOG = EventLog()


# --- kernels: run on the host every time the step runs --------------------------------------------------
def _host_io(op: str) -> bool:
    """Refuse a CUDA-graph capture or a torch.compile trace (the step then runs eagerly: see
    ``step/graphed.py`` and ``step/compile.py``); whether this process writes (rank 0 only)."""
    if graph_capture.capturing() or torch.compiler.is_compiling():
        raise errors.CaptureError(f"flow.{op} writes to a file on the host every step")
    return group.env_world()[0] == 0


def _step_of(step: torch.Tensor | int) -> int:
    return int(step) if isinstance(step, int) else int(step.reshape(-1)[0].item())


def _text_of(tag: torch.Tensor | str, op: str) -> str:
    """A tag blob's bytes as text (OneFlow took all of them; trailing NULs of a padded tag are dropped)."""
    if isinstance(tag, str):
        return tag
    raw = tag.detach().cpu().contiguous().numpy().tobytes().rstrip(b"\0")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"flow.{op}: the tag blob must hold UTF-8 text; its bytes were {raw!r}") from exc


def _host_array(value: torch.Tensor) -> np.ndarray:
    return value.detach().cpu().numpy()


def create_summary_writer_kernel(device: str, logdir: str) -> None:
    """(An op without inputs takes the job's device first: ``op_registry``'s convention.)"""
    if _host_io("summary.create_summary_writer"):
        EVENT_LOG.open(logdir)


def flush_summary_writer_kernel(device: str) -> None:
    if _host_io("summary.flush_summary_writer"):
        EVENT_LOG.flush()


def write_scalar_kernel(value: torch.Tensor, step: torch.Tensor | int, tag: torch.Tensor | str) -> None:
    if not _host_io("summary.scalar"):
        return
    summary = tensorboard("torch.utils.tensorboard.summary", "flow.summary.scalar")
    number = float(value.detach().reshape(()).item())  # OneFlow: cast to double, written as a float
    EVENT_LOG.write("summary.scalar", summary.scalar(_text_of(tag, "summary.scalar"), number), _step_of(step))


def write_histogram_kernel(value: torch.Tensor, step: torch.Tensor | int, tag: torch.Tensor | str) -> None:
    if not _host_io("summary.histogram"):
        return
    summary = tensorboard("torch.utils.tensorboard.summary", "flow.summary.histogram")
    values = _host_array(value).astype(np.float64).ravel()
    values = values[np.isfinite(values)]  # a histogram's range must be finite
    if values.size == 0:  # TensorBoard has no empty histogram
        return
    record = summary.histogram(_text_of(tag, "summary.histogram"), values, bins=HISTOGRAM_BINS)
    EVENT_LOG.write("summary.histogram", record, _step_of(step))


def write_pb_kernel(value: torch.Tensor, step: torch.Tensor | int) -> None:
    if not _host_io("summary.pb"):
        return
    EVENT_LOG.write("summary.pb", parse_summary(_host_array(value).tobytes(), "summary.pb"), _step_of(step))


def write_image_kernel(value: torch.Tensor, step: torch.Tensor | int, tag: torch.Tensor | str) -> None:
    if not _host_io("summary.image"):
        return
    summary_pb2 = tensorboard("tensorboard.compat.proto.summary_pb2", "flow.summary.image")
    images = _host_array(value)
    text = _text_of(tag, "summary.image")
    record = summary_pb2.Summary()
    n, h, w, c = images.shape
    for i, img in enumerate(images):  # OneFlow: tag alone for one image, else tag0, tag1, …
        record.value.add(tag=text if n == 1 else f"{text}{i}",
                         image=summary_pb2.Summary.Image(height=h, width=w, colorspace=c,
                                                         encoded_image_string=_png(img)))
    EVENT_LOG.write("summary.image", record, _step_of(step))


for _kernel in (create_summary_writer_kernel, flush_summary_writer_kernel, write_scalar_kernel,
                write_histogram_kernel, write_pb_kernel, write_image_kernel):
    torch.fx.node.has_side_effect(_kernel)  # no outputs: dead-code elimination must keep them


def _png(img: np.ndarray) -> bytes:
    """One HWC uint8 image (1, 3 or 4 channels: grey, RGB, RGBA) as PNG bytes."""
    from PIL import Image  # noqa: PLC0415 - only jobs that write images load Pillow

    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img[..., 0] if img.shape[-1] == 1 else img)).save(buffer, format="PNG")
    return buffer.getvalue()


def parse_summary(raw: bytes, op: str) -> Any:
    """A ``Summary`` message from its text format (what OneFlow's ``summary_write_pb`` kernel parsed: the
    bytes of ``str(flow.summary.text(...))``) or, failing that, from its binary serialization."""
    summary_pb2 = tensorboard("tensorboard.compat.proto.summary_pb2", f"flow.{op}")
    try:
        return text_format.Parse(raw.decode("utf-8"), summary_pb2.Summary())
    except (UnicodeDecodeError, text_format.ParseError) as text_error:
        try:
            return summary_pb2.Summary.FromString(raw)
        except message.DecodeError:
            raise ValueError(f"flow.{op}: the value blob must hold a Summary message in text format "
                             f"(np.frombuffer(str(summary).encode(), np.int8)) or serialized; it holds neither "
                             f"({len(raw)} bytes; text parse error: {text_error})") from None


# --- the ops -------------------------------------------------------------------------------------------
_REAL = "a blob of a real dtype (float or integer)"


def _is_real(dtype: torch.dtype) -> bool:
    return not dtype.is_complex and dtype != torch.bool


def _check_value(x: Any, op: str, *, dtypes: tuple[torch.dtype, ...] | None, expected: str) -> Blob:
    x = check_blob(x, op, "value")
    dtype = x.meta.dtype
    if not (dtype in dtypes if dtypes is not None else _is_real(dtype)) or x.is_tensor_buffer:
        raise arg_error(op, "value", expected, Desc(f"{x.lbn} {x.shape} {x.dtype}"))
    return x


def _check_step(step: Any, op: str) -> Blob | int:
    if step is None:
        raise arg_error(op, "step", "an integer blob of one element (the event's step) or an int", step)
    if is_int(step):
        return int(step)
    step = check_blob(step, op, "step")
    if step.meta.dtype.is_floating_point or not _is_real(step.meta.dtype) or step.meta.numel() != 1:
        raise arg_error(op, "step", "an integer blob of one element (OneFlow: int64) or an int",
                        Desc(f"{step.lbn} {step.shape} {step.dtype}"))
    return step


def _check_tag(tag: Any, op: str) -> Blob | str:
    if isinstance(tag, str):
        return tag
    tag = check_blob(tag, op, "tag")
    if tag.meta.dtype not in (torch.int8, torch.uint8) or tag.ndim != 1:
        raise arg_error(op, "tag", "a 1-d int8 blob of the tag's UTF-8 bytes, or a str",
                        Desc(f"{tag.lbn} {tag.shape} {tag.dtype}"))
    return tag


def _record(kernel: Any, *args: Any, op_type: str, prefix: str, name: str | None) -> None:
    apply(kernel, *args, op_type=op_type, prefix=prefix, name=name, outputs=(), meta=())


def create_summary_writer(logdir: str, name: str | None = None) -> None:
    """``flow.summary.create_summary_writer(logdir)``: when the job runs, open the event file in
    ``<logdir>/event`` (``CreateWriter_<n>``; kept open when the job runs again)."""
    op = "summary.create_summary_writer"
    tensorboard("torch.utils.tensorboard.writer", f"flow.{op}")
    if not isinstance(logdir, (str, os.PathLike)) or not os.fspath(logdir):
        raise arg_error(op, "logdir", "a non-empty path", logdir)
    _record(create_summary_writer_kernel, builder(op).device, os.fspath(logdir), op_type="create_summary_writer",
            prefix="CreateWriter", name=name)


def flush_summary_writer(name: str | None = None) -> None:
    """``flow.summary.flush_summary_writer()``: when the job runs, write the queued events to the file
    (``FlushWriter_<n>``)."""
    op = "summary.flush_summary_writer"
    _record(flush_summary_writer_kernel, builder(op).device, op_type="flush_summary_writer", prefix="FlushWriter",
            name=name)


def scalar(value: Blob, step: Blob | int, tag: Blob | str, name: str | None = None) -> None:
    """``flow.summary.scalar(value, step, tag)``: write the one-element ``value`` as the scalar ``tag`` at
    ``step`` (``WriteScalar_<n>``)."""
    op = "summary.scalar"
    value = _check_value(value, op, dtypes=None, expected=f"{_REAL} of one element")
    if value.meta.numel() != 1:
        raise arg_error(op, "value", f"{_REAL} of one element", Desc(f"{value.lbn} {value.shape} {value.dtype}"))
    tensorboard("torch.utils.tensorboard.summary", "flow.summary.scalar")
    _record(write_scalar_kernel, value, _check_step(step, op), _check_tag(tag, op), op_type="summary_write_scalar",
            prefix="WriteScalar", name=name)


def histogram(value: Blob, step: Blob | int, tag: Blob | str, name: str | None = None) -> None:
    """``flow.summary.histogram(value, step, tag)``: write the histogram of ``value``'s elements (TensorBoard's
    default buckets; non-finite elements left out) as ``tag`` at ``step`` (``WriteHistogram_<n>``)."""
    op = "summary.histogram"
    value = _check_value(value, op, dtypes=None, expected=_REAL)
    tensorboard("torch.utils.tensorboard.summary", "flow.summary.histogram")
    _record(write_histogram_kernel, value, _check_step(step, op), _check_tag(tag, op),
            op_type="summary_write_histogram", prefix="WriteHistogram", name=name)


def pb(value: Blob, step: Blob | int | None = None, name: str | None = None) -> None:
    """``flow.summary.pb(value, step)``: write the ``Summary`` message whose text format (or serialization)
    ``value``'s int8 bytes hold, e.g. ``flow.summary.text`` or ``flow.summary.hparams``'s, at ``step``
    (``WritePb_<n>``)."""
    op = "summary.pb"
    value = _check_value(value, op, dtypes=(torch.int8, torch.uint8),
                         expected="an int8 blob of a Summary message's bytes")
    tensorboard("tensorboard.compat.proto.summary_pb2", "flow.summary.pb")
    _record(write_pb_kernel, value, _check_step(step, op), op_type="summary_write_pb", prefix="WritePb", name=name)


def image(value: Blob, step: Blob | int | None = None, tag: Blob | str | None = None,
          name: str | None = None) -> None:
    """``flow.summary.image(value, step, tag="image")``: write each image of the uint8 NHWC ``value`` (1, 3 or 4
    channels) as a PNG, tagged ``tag`` (one image) or ``tag0``, ``tag1`` … (``WriteImage_<n>``)."""
    op = "summary.image"
    value = _check_value(value, op, dtypes=(torch.uint8,), expected="a uint8 blob of images (N, H, W, C)")
    if value.ndim != 4 or value.shape[3] not in (1, 3, 4):
        raise arg_error(op, "value", "a uint8 blob of shape (N, H, W, C) with C 1, 3 or 4",
                        Desc(f"{value.lbn} {value.shape} {value.dtype}"))
    tensorboard("tensorboard.compat.proto.summary_pb2", "flow.summary.image")
    _record(write_image_kernel, value, _check_step(step, op), _check_tag("image" if tag is None else tag, op),
            op_type="summary_write_image", prefix="WriteImage", name=name)


# --- OneFlow's op types (user/ops/summary_ops.cpp), for flow.user_op_builder ---------------------------------
def _check_builder_step(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    step = inputs["step"][0]
    if step.meta.numel() != 1:
        raise invalid("input 'step'", "a blob of one element", Desc(f"{step.lbn} {step.shape}"))


def _check_builder_scalar(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    _check_builder_step(inputs, attrs, outputs)
    value = inputs["in"][0]
    if value.meta.numel() != 1:
        raise invalid("input 'in'", "a blob of one element", Desc(f"{value.lbn} {value.shape}"))


register("create_summary_writer", inputs=(), outputs=(), attrs=[AttrSpec("logdir", "string")],
         kernel=create_summary_writer_kernel)
register("flush_summary_writer", inputs=(), outputs=(), kernel=flush_summary_writer_kernel)
register("summary_write_scalar", inputs=("in", "step", "tag"), outputs=(), kernel=write_scalar_kernel,
         check=_check_builder_scalar)
register("summary_write_histogram", inputs=("in", "step", "tag"), outputs=(), kernel=write_histogram_kernel,
         check=_check_builder_step)
register("summary_write_pb", inputs=("in", "step"), outputs=(), kernel=write_pb_kernel, check=_check_builder_step)
register("summary_write_image", inputs=("in", "step", "tag"), outputs=(), kernel=write_image_kernel,
         check=_check_builder_step)
