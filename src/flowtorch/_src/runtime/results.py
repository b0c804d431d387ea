"""What a job call hands back: numpy results, the old future, the Callback registrar, local blobs.

Every array given to the user is a fresh copy: step outputs may alias inputs or be reused.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from flowtorch._src.data.tensor_list import leaf_result
from flowtorch._src.runtime.executor import Delivery, Executor

log = logging.getLogger("flowtorch")
_noticed: set[str] = set()  # the deprecated LocalBlob methods already logged about


def _deprecated(old: str, new: str) -> None:
    """OneFlow's notice for a deprecated LocalBlob method, logged (WARNING) once per method."""
    if old not in _noticed:
        _noticed.add(old)
        log.warning("LocalBlob.%s is deprecated, please use LocalBlob.%s instead", old, new)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().copy()


class DeviceParts(list):
    """A mirrored result on several processes: every device's part, in rank order. ``identical``: a blob of
    variables alone, the same on every device."""

    def __init__(self, parts: list[torch.Tensor], identical: bool = False) -> None:
        super().__init__(parts)
        self.identical = identical


def convert_leaf(t: Any, kind: str, is_dynamic: bool = False) -> Any:
    """``t`` as the user receives it; ``is_dynamic``: its blob's, which a :class:`LocalBlob` reports. Host
    tensors become numpy by numpy alone (no torch kernel: the delivery thread must not start an OpenMP team
    of its own beside the caller's)."""
    if isinstance(t, DeviceParts):
        arrays = [to_numpy(p) for p in t]
        if kind == "list_numpy":
            return arrays
        if kind == "list_list_numpy":
            return [[a] for a in arrays]
        if kind == "local":
            return LocalBlob(_merged(arrays), arrays, is_dynamic=is_dynamic)
        return _wrap(arrays[0] if t.identical else np.concatenate(arrays), kind)  # one array: the parts merged
    if not isinstance(t, torch.Tensor):  # a tensor list (tensors of different shapes)
        return leaf_result(t, kind)
    return _wrap(to_numpy(t), kind, is_dynamic)


def _wrap(array: np.ndarray, kind: str, is_dynamic: bool = False) -> Any:
    if kind == "numpy":
        return array
    if kind == "list_numpy":
        return [array]
    if kind == "list_list_numpy":
        return [[array]]
    if kind == "local":
        return LocalBlob(array, is_dynamic=is_dynamic)
    raise ValueError(kind)


def _merged(parts: list[np.ndarray]) -> np.ndarray | None:
    try:
        return np.concatenate(parts)
    except ValueError:  # trailing shapes differ (a dynamic mirrored blob)
        return None


class LocalBlob:
    """A fetched blob of the old API (OneFlow's ``LocalMirroredTensor``): ``.numpy()`` and friends.

    Attributes it does not have and numpy's operators are forwarded to ``.numpy()`` (``.shape``,
    ``.mean()``, indexing, arithmetic), as OneFlow did.
    """

    __slots__ = ("_array", "_parts", "is_dynamic")

    def __init__(self, array: np.ndarray | None, parts: list[np.ndarray] | None = None,
                 is_dynamic: bool = False) -> None:
        """``parts``: every device's part (a mirrored blob on several processes); ``array`` their
        concatenation, None when their shapes do not concatenate. ``is_dynamic``: the fetched blob's (OneFlow's
        local blobs reported it; programs choose ``numpy_list()`` or ``numpy()`` by it)."""
        self.is_dynamic = is_dynamic
        self._array = array
        if parts is None:
            if array is None:
                raise ValueError("LocalBlob: neither an array nor its device parts")
            parts = [array]
        self._parts = parts

    def numpy(self, rank: int | None = None) -> np.ndarray:
        if rank is not None:
            if not 0 <= rank < len(self._parts):
                raise IndexError(f"LocalBlob.numpy({rank}): there are {len(self._parts)} device part(s)")
            return self._parts[rank]
        if self._array is None:
            raise ValueError(f"LocalBlob.numpy(): the {len(self._parts)} device parts have shapes "
                             f"{[p.shape for p in self._parts]}, which do not concatenate; use numpy(i) or "
                             "numpy_list()")
        return self._array

    def numpy_list(self) -> list[np.ndarray]:
        return list(self._parts)

    def numpy_lists(self) -> list[list[np.ndarray]]:
        return [[p] for p in self._parts]

    def ndarray(self) -> np.ndarray | None:
        _deprecated("ndarray", "numpy")
        return self._array

    def ndarray_list(self) -> list[np.ndarray]:
        _deprecated("ndarray_list", "numpy_list")
        return list(self._parts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._array, name)

    def __repr__(self) -> str:
        return f"LocalBlob({self._array!r})"

    def __str__(self) -> str:
        return str(self._array)

    # (numpy() raises, naming the parts, where they do not concatenate)
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.numpy() if dtype is None else self.numpy().astype(dtype)

    def __len__(self) -> int:
        return len(self.numpy())

    def __getitem__(self, key: Any) -> Any:
        return self.numpy()[key]

    def __iter__(self) -> Any:
        return iter(self.numpy())


def _forward_op(name: str) -> Callable[..., Any]:
    def op(self: LocalBlob, *args: Any) -> Any:
        return getattr(self._array, name)(*args)
    op.__name__ = name
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__neg__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
              "__pow__", "__abs__", "__float__", "__int__", "__matmul__"):
    setattr(LocalBlob, _name, _forward_op(_name))
LocalBlob.__hash__ = None  # type: ignore[assignment]


class Slot:
    """The result of one call: set when the call is delivered (or at once, for a call run inline). A callback
    registered before it is set runs when it is, on the delivery thread; one registered after runs there too,
    behind what is queued (at once where it is registered on that thread, or when there is no pipeline)."""

    __slots__ = ("job", "call", "_executor", "_done", "_waiter", "_lock", "_value", "_error", "_callback")

    def __init__(self, job: str, call: int = 0, executor: Executor | None = None) -> None:
        self.job = job
        self.call = call
        self._executor = executor
        self._done = False
        self._waiter: threading.Event | None = None  # made only when somebody waits (a future's get())
        self._lock = threading.Lock()
        self._value: Any = None
        self._error: BaseException | None = None
        self._callback: Callable[[Any], None] | None = None

    @classmethod
    def ready(cls, job: str, value: Any) -> Slot:
        slot = cls(job)
        slot._value = value
        slot._done = True
        return slot

    def _finish(self) -> None:
        self._done = True
        if self._waiter is not None:
            self._waiter.set()

    def set(self, value: Any) -> None:
        """On the delivery thread: the value, then the callback registered so far."""
        with self._lock:
            self._value = value
            self._finish()
            callback, self._callback = self._callback, None
        if callback is not None:
            self._run(callback)

    def fail(self, error: BaseException) -> None:
        with self._lock:
            self._error = error
            self._finish()
            self._callback = None  # a failed delivery's callback is not called; the error reaches the caller

    def get(self) -> Any:
        """The value, waiting for it; a failed delivery's error is raised here (and not again later)."""
        if not self._done and self._executor is not None:
            self._executor.wait_idle()
        with self._lock:
            waiter = None if self._done else (self._waiter or threading.Event())
            self._waiter = waiter
        if waiter is not None:
            waiter.wait()
        if self._error is not None:
            if self._executor is not None:
                self._executor.forget_error(self._error)
            raise self._error
        return self._value

    def on_ready(self, callback: Callable[[Any], None]) -> None:
        with self._lock:
            if not self._done:
                self._callback = callback
                return
        if self._error is not None:  # (a failed delivery: its error is raised at the next call or sync)
            return
        executor = self._executor
        if executor is None or executor.in_pipeline():
            self._run(callback)
        else:  # delivered before the callback came: it runs on the delivery thread all the same
            executor.enqueue(Delivery(lambda: self._run(callback), self.job, self.call))

    def _run(self, callback: Callable[[Any], None]) -> None:
        """The callback; its exception is kept for a later call (raised here where there is no pipeline)."""
        if self._executor is None:
            callback(self._value)
            return
        try:
            callback(self._value)
        except Exception as exc:
            self._executor.record_error(exc, self.job, self.call, "the callback")


class Future:
    """The unannotated (old API) job's result: ``.get()`` or ``.async_get(cb)``, once."""

    def __init__(self, job: str, slot: Slot) -> None:
        self._job = job
        self._slot = slot  # holds the value at its call, whatever runs before it is fetched
        self._fetched = False

    def _take(self, how: str) -> None:
        if self._fetched:
            raise AssertionError(f"the result of job {self._job!r} was already fetched; get() / async_get() may "
                                 f"be called once per call (this {how} is the second)")
        self._fetched = True

    def get(self) -> Any:
        self._take("get()")
        return self._slot.get()

    def async_get(self, callback: Callable[[Any], None]) -> None:
        _check_callable(callback, self._job, "async_get")
        self._take("async_get()")
        self._slot.on_ready(callback)


class CallbackRegistrar:
    """``job(x)`` of a ``-> tp.Callback[T]`` job: call it with ``cb`` to get ``cb(value)`` once the step is
    done, on the delivery thread, in call order. An error ``cb`` raises comes out of a later job call or
    sync as a :class:`~flowtorch._src.errors.CallbackError`, never out of this registration."""

    def __init__(self, job: str, slot: Slot) -> None:
        self._job = job
        self._slot = slot
        self._used = False

    def __call__(self, callback: Callable[[Any], None]) -> None:
        _check_callable(callback, self._job, "callback")
        if self._used:
            raise AssertionError(f"job {self._job!r}: a callback was already registered for this call")
        self._used = True
        self._slot.on_ready(callback)


def _check_callable(cb: Any, job: str, what: str) -> None:
    if not callable(cb):
        raise TypeError(f"job {job!r}: {what} expects a callable taking the result; received {cb!r}")
