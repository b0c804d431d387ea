"""Host↔device copies of the async pipeline (:mod:`~flowtorch._src.runtime.executor`).

An async call's inputs are copied when it is made (the caller may edit or reuse its arrays at once); its
outputs and watched values are copied to private host buffers by the worker, right after its step and
before the next one, because the next step or graph replay may write the same storage. The delivery
thread waits until the copy is ready, converts to numpy, then gives the buffers back.

* CPU (:class:`HostTransfer`): plain copies; ready at once.
* CUDA (:class:`CudaTransfer`): inputs are staged in pinned buffers at the call and sent host→device on a
  copy stream by the worker; outputs go device→host on a side stream into pinned buffers, one CUDA event
  per step (blocking-sync, so the delivery thread sleeps in ``synchronize()`` with the GIL released).
  The compute stream waits for those copies before the next step, so a CUDA graph's static outputs are
  never overwritten while being read. Pinned buffers come from a pool keyed by shape and dtype; the
  pipeline's in-flight bound bounds the pool (pinning is slow, so buffers are reused, never freed).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src.runtime.results import DeviceParts


class HostValues:
    """One step's values on the host: ready after :meth:`wait`; :meth:`release` returns the buffers."""

    __slots__ = ("_event", "_release", "values")

    def __init__(self, values: list[Any], event: Any = None, release: Callable[[], None] | None = None) -> None:
        self.values = values
        self._event = event
        self._release = release

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
        """At the call, on the caller's thread: a private copy of a converted input.

        Copied by numpy, not torch: a torch op on the caller's thread would wake a second OpenMP team
        (one per calling thread), whose spinning threads take the cores from the worker's step."""
        if isinstance(tensor, torch.Tensor) and tensor.device.type == "cpu" and not tensor.requires_grad:
            return torch.from_numpy(np.array(tensor.numpy(), copy=True))
        return tensor.detach().clone()

    def to_device(self, staged: list[Any]) -> tuple[list[Any], Callable[[], None] | None]:
        return staged, None

    def to_host(self, values: Sequence[Any], release: Callable[[], None] | None = None) -> HostValues:
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
    """The CUDA pipeline: pinned staging, a host→device copy stream, a device→host side stream."""

    def __init__(self, device: str | torch.device) -> None:
        self.device = torch.device(device)
        self.pool = PinnedPool()
        self.h2d = torch.cuda.Stream(self.device)
        self.d2h = torch.cuda.Stream(self.device)

    def stage(self, tensor: torch.Tensor) -> torch.Tensor:
        if tensor.device.type != "cpu":
            return tensor.detach().clone()
        buf = self.pool.take(tensor.shape, tensor.dtype)
        buf.copy_(tensor)
        return buf

    def to_device(self, staged: list[Any]) -> tuple[list[Any], Callable[[], None] | None]:
        """On the worker: send the staged inputs on the copy stream; the compute stream waits for them. The
        returned release gives the pinned buffers back once the step's outputs are copied (which the
        compute stream orders after these copies)."""
        compute = torch.cuda.current_stream(self.device)
        pinned = [t for t in staged if isinstance(t, torch.Tensor) and t.is_pinned()]
        with torch.cuda.stream(self.h2d):
            moved = [t.to(self.device, non_blocking=True) if isinstance(t, torch.Tensor) and t.device.type == "cpu"
                     else t for t in staged]
        compute.wait_stream(self.h2d)
        for t in moved:
            if isinstance(t, torch.Tensor) and t.device.type == "cuda":
                t.record_stream(compute)
        return moved, (lambda: self.pool.give(pinned)) if pinned else None

    def to_host(self, values: Sequence[Any], release: Callable[[], None] | None = None) -> HostValues:
        compute = torch.cuda.current_stream(self.device)
        self.d2h.wait_stream(compute)
        taken: list[torch.Tensor] = []
        out: list[Any] = []
        with torch.cuda.stream(self.d2h):
            for v in values:
                if isinstance(v, torch.Tensor) and v.device.type == "cuda":
                    buf = self.pool.take(v.shape, v.dtype)
                    buf.copy_(v.detach(), non_blocking=True)
                    v.record_stream(self.d2h)
                    taken.append(buf)
                    out.append(buf)
                else:
                    out.append(_host_copy(v))
            event = torch.cuda.Event(blocking=True)
            event.record(self.d2h)
        compute.wait_stream(self.d2h)  # the next step may overwrite what is being copied

        def give_back() -> None:
            self.pool.give(taken)
            if release is not None:
                release()
        return HostValues(out, event, give_back)


def for_device(device: str) -> HostTransfer | CudaTransfer:
    if device.startswith("cuda") and torch.cuda.is_available():
        return CudaTransfer(device)
    return HostTransfer()

