"""What a job call hands back: numpy results, the old future, the Callback registrar, local blobs.

Every array given to the user is a fresh copy: step outputs may alias inputs or be reused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().copy()


def convert_leaf(t: Any, kind: str) -> Any:
    if not isinstance(t, torch.Tensor):  # a tensor list (tensors of different shapes)
        from flowtorch._src.data.tensor_list import leaf_result  # the data package builds on this module
        return leaf_result(t, kind)
    array = to_numpy(t)
    if kind == "numpy":
        return array
    if kind == "list_numpy":
        return [array]
    if kind == "list_list_numpy":
        return [[array]]
    if kind == "local":
        return LocalBlob(array)
    raise ValueError(kind)


class LocalBlob:
    """A fetched blob of the old API (OneFlow's ``LocalMirroredTensor``): ``.numpy()`` and friends.

    Attributes it does not have and numpy's operators are forwarded to ``.numpy()`` (``.shape``,
    ``.mean()``, indexing, arithmetic), as OneFlow did.
    """

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def numpy(self, rank: int | None = None) -> np.ndarray:
        if rank not in (None, 0):
            raise IndexError(f"LocalBlob.numpy({rank}): there is one device part (rank 0) on one device")
        return self._array

    def numpy_list(self) -> list[np.ndarray]:
        return [self._array]

    def numpy_lists(self) -> list[list[np.ndarray]]:
        return [[self._array]]

    def ndarray(self) -> np.ndarray:
        print("WARNING:", "LocalBlob.ndarray is deprecated, please use LocalBlob.numpy instead")
        return self._array

    def ndarray_list(self) -> list[np.ndarray]:
        print("WARNING:", "LocalBlob.ndarray_list is deprecated, please use LocalBlob.numpy_list instead")
        return [self._array]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._array, name)

    def __repr__(self) -> str:
        return f"LocalBlob({self._array!r})"

    def __str__(self) -> str:
        return str(self._array)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._array if dtype is None else self._array.astype(dtype)

    def __len__(self) -> int:
        return len(self._array)

    def __getitem__(self, key: Any) -> Any:
        return self._array[key]

    def __iter__(self) -> Any:
        return iter(self._array)


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


class Future:
    """The unannotated (old API) job's result: ``.get()`` or ``.async_get(cb)``, once."""

    def __init__(self, job: str, value: Any) -> None:
        self._job = job
        self._value = value  # converted at the call: the value then, whatever runs before it is fetched
        self._fetched = False

    def _take(self, how: str) -> Any:
        if self._fetched:
            raise AssertionError(f"the result of job {self._job!r} was already fetched; get() / async_get() may "
                                 f"be called once per call (this {how} is the second)")
        self._fetched = True
        return self._value

    def get(self) -> Any:
        return self._take("get()")

    def async_get(self, callback: Callable[[Any], None]) -> None:
        _check_callable(callback, self._job, "async_get")
        value = self._take("async_get()")
        _deliver(callback, value)


class CallbackRegistrar:
    """``job(x)`` of a ``-> tp.Callback[T]`` job: call it with ``cb`` to get ``cb(value)``."""

    def __init__(self, job: str, value: Any) -> None:
        self._job = job
        self._value = value  # converted at the call
        self._used = False

    def __call__(self, callback: Callable[[Any], None]) -> None:
        _check_callable(callback, self._job, "callback")
        if self._used:
            raise AssertionError(f"job {self._job!r}: a callback was already registered for this call")
        self._used = True
        _deliver(callback, self._value)


def _check_callable(cb: Any, job: str, what: str) -> None:
    if not callable(cb):
        raise TypeError(f"job {job!r}: {what} expects a callable taking the result; received {cb!r}")


def _deliver(callback: Callable[[Any], None], value: Any) -> None:
    # The step already ran on this thread, so the callback runs here and its exception reaches the
    # caller of ``g(cb)`` / ``async_get(cb)`` directly.
    callback(value)
