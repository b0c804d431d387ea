"""Host↔device copies of the pipeline (:mod:`~flowtorch._src.runtime.executor`).

A call's step runs on the caller's thread. Its outputs, watched values and check flags are copied to
private host buffers right after the step, before the next one (the next step or graph replay may write
the same storage); whoever delivers them waits until the copy is ready, converts to numpy, then gives the
buffers back.

* CPU (:class:`HostTransfer`): inputs used as they are (the step has read them when the call returns),
  outputs copied; ready at once.
* CUDA (:class:`CudaTransfer`): the stream is the queue. Inputs are staged in pinned buffers on the
  caller's thread and sent host→device without a host sync (a graph replay copies them straight into its
  input buffers); outputs go device→host into pinned buffers, enqueued on the same stream behind the step
  (so the next step, enqueued behind them, cannot overwrite what is being read), then one CUDA event per
  call. The call returns at once; a blocking call waits on its own event, the delivery thread sleeps in
  ``synchronize()`` with the GIL released (blocking-sync events). Buffers and events come from pools
  keyed by shape and dtype: a ring whose size the pipeline's in-flight bound bounds (pinning is slow, so
  buffers are reused, never freed); a buffer is back in the pool only once its copy is done and its
  values delivered.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Sequence
from typing import Any

import torch

from flowtorch._src.data.tensor_list import TensorList
from flowtorch._src.runtime.results import DeviceParts


class HostValues:
    """One step's values on the host: ready after :meth:`wait`; :meth:`release` returns the buffers."""

    __slots__ = ("_event", "_release", "values")

    def __init__(self, values: list[Any], event: Any = None, release: Callable[[], None] | None = None) -> None:
        self.values = values
        self._event = event
        self._release = release

    def ready(self) -> bool:
        """True once the copies are done (never waits)."""
        return self._event is None or bool(self._event.query())

    def wait(self) -> None:
        if self._event is not None:
            self._event.synchronize()

    def release(self) -> None:
        if self._release is not None:
            release, self._release = self._release, None
            release()


def _host_copy(x: Any) -> Any:
    if x is None:
        return None
    if isinstance(x, torch.Tensor):
        return x.detach().to("cpu", copy=True)
    if isinstance(x, DeviceParts):  # a mirrored result on several processes: every device's part
        return DeviceParts([_host_copy(p) for p in x], identical=x.identical)
    return x.detach().to("cpu").clone()  # a TensorList


class HostTransfer:
    """The CPU pipeline: inputs copied at the call, outputs copied by the worker."""

    def stage(self, tensor: torch.Tensor) -> torch.Tensor:
        """An input as it is: the step runs on the caller's thread and has read it before the call returns."""
        return tensor

    def to_device(self, staged: list[Any]) -> tuple[list[Any], Callable[[], None] | None]:
        return staged, None

    def keeper(self, staged: list[Any]) -> Callable[[], None] | None:
        """What gives the staged inputs back when they stay on the host (a graph replay copies them)."""
        return None

    def to_host(self, values: Sequence[Any], release: Callable[[], None] | None = None,
                blocking: bool = True, fresh: bool = False, inputs: Sequence[Any] = ()) -> HostValues:
        """``fresh``: the values are the step's own (no later step writes them): kept, not copied, except those
        sharing memory with ``inputs`` (a job returning its argument: the caller may edit its array at once)."""
        if fresh and not inputs:
            out = list(values)
        elif fresh:
            shared = {t.untyped_storage().data_ptr() for t in inputs if isinstance(t, torch.Tensor)}
            out = [_host_copy(v) if isinstance(v, torch.Tensor) and v.untyped_storage().data_ptr() in shared else v
                   for v in values]
        else:
            out = [_host_copy(v) for v in values]
        if release is not None:
            release()
        return HostValues(out)


class PinnedPool:
    """Reusable pinned host buffers, keyed by shape and dtype (thread-safe)."""

    def __init__(self, pin: bool = True) -> None:
        self._free: dict[tuple[tuple[int, ...], torch.dtype], list[torch.Tensor]] = collections.defaultdict(list)
        self._lock = threading.Lock()
        self._pin = pin
        self.allocated = 0

    def take(self, shape: Sequence[int], dtype: torch.dtype) -> torch.Tensor:
        key = (tuple(shape), dtype)
        with self._lock:
            free = self._free[key]
            if free:
                return free.pop()
            self.allocated += 1
        return torch.empty(key[0], dtype=dtype, pin_memory=self._pin)

    def give(self, buffers: Sequence[torch.Tensor]) -> None:
        with self._lock:
            for b in buffers:
                self._free[(tuple(b.shape), b.dtype)].append(b)


class CudaTransfer:
    """The CUDA pipeline: pinned staging and result buffers, copies on the compute stream, one event per call."""

    def __init__(self, device: str | torch.device) -> None:
        self.device = torch.device(device)
        self.pool = PinnedPool()
        self._events: dict[bool, list[torch.cuda.Event]] = {True: [], False: []}
        self._lock = threading.Lock()

    def stage(self, tensor: torch.Tensor | TensorList) -> torch.Tensor | TensorList:
        if isinstance(tensor, TensorList):  # parts of varying shapes: sent as they are, not through the pool
            return tensor
        if tensor.device.type != "cpu":
            return tensor.detach().clone()
        buf = self.pool.take(tensor.shape, tensor.dtype)
        buf.copy_(tensor)
        return buf

    def keeper(self, staged: list[Any]) -> Callable[[], None] | None:
        pinned = [t for t in staged if isinstance(t, torch.Tensor) and t.is_pinned()]
        return (lambda: self.pool.give(pinned)) if pinned else None

    def to_device(self, staged: list[Any]) -> tuple[list[Any], Callable[[], None] | None]:
        """The staged inputs sent to the device on the compute stream (no host sync). The returned release
        gives the pinned buffers back once the step's outputs are copied (the stream orders those copies
        after these)."""
        moved = [t.to(self.device, non_blocking=True) if isinstance(t, TensorList)
                 or isinstance(t, torch.Tensor) and t.device.type == "cpu" else t for t in staged]
        return moved, self.keeper(staged)

    def _event(self, blocking: bool) -> torch.cuda.Event:
        with self._lock:
            free = self._events[blocking]
            if free:
                return free.pop()
        return torch.cuda.Event(blocking=blocking)

    def to_host(self, values: Sequence[Any], release: Callable[[], None] | None = None,
                blocking: bool = True, fresh: bool = False, inputs: Sequence[Any] = ()) -> HostValues:
        """Copies of ``values`` into pinned buffers, enqueued behind the step; ``blocking``: the waiter sleeps
        (the delivery thread) rather than spins (a blocking call, waiting for its own result)."""
        taken: list[torch.Tensor] = []
        out: list[Any] = []
        for v in values:
            if isinstance(v, torch.Tensor) and v.device.type == "cuda":
                buf = self.pool.take(v.shape, v.dtype)
                buf.copy_(v.detach(), non_blocking=True)
                taken.append(buf)
                out.append(buf)
            else:
                out.append(_host_copy(v))
        event = self._event(blocking)
        event.record()

        def give_back() -> None:
            self.pool.give(taken)
            with self._lock:
                self._events[blocking].append(event)
            if release is not None:
                release()
        return HostValues(out, event, give_back)


def for_device(device: str) -> HostTransfer | CudaTransfer:
    if device.startswith("cuda") and torch.cuda.is_available():
        return CudaTransfer(device)
    return HostTransfer()

