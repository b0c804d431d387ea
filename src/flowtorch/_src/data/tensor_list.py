"""Tensor lists: the value of a OneFlow ``TensorList`` blob (a ``tp.ListListNumpy`` input, the output of
``flow.tensor_buffer_to_tensor_list``): tensors of one dtype and rank, each with its own shape.

:class:`TensorList` carries them through the job graph and the data loader (it moves and pins like a
tensor); :func:`list_input` turns a ``ListListNumpy`` argument into one, and :func:`leaf_result` turns one
into what the job call returns (``[[ndarray, ...]]``, or a :class:`LocalTensorList` for the old API).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes

log = logging.getLogger("flowtorch")
_noticed_ndarray_lists = False


class TensorList:
    """Tensors of one dtype and rank, each with its own shape."""

    __slots__ = ("tensors",)

    def __init__(self, tensors: Sequence[torch.Tensor]) -> None:
        self.tensors = list(tensors)

    @classmethod
    def from_numpy(cls, arrays: Sequence[np.ndarray]) -> TensorList:
        return cls([torch.from_numpy(writable(a)) for a in arrays])

    def to(self, device: Any, non_blocking: bool = False) -> TensorList:
        return TensorList([t.to(device, non_blocking=non_blocking) for t in self.tensors])

    def pin_memory(self) -> TensorList:
        """Called by the data loader's pinning thread, as for a tensor."""
        return TensorList([t.pin_memory() for t in self.tensors])

    def detach(self) -> TensorList:
        return TensorList([t.detach() for t in self.tensors])

    def clone(self) -> TensorList:
        return TensorList([t.clone() for t in self.tensors])

    def numpy_list(self) -> list[np.ndarray]:
        """Fresh numpy copies of the tensors."""
        return [t.detach().cpu().numpy().copy() for t in self.tensors]

    def __len__(self) -> int:
        return len(self.tensors)

    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(self.tensors)

    def __repr__(self) -> str:
        shapes = ", ".join(str(tuple(t.shape)) for t in self.tensors)
        dtype = self.tensors[0].dtype if self.tensors else None
        return f"TensorList([{shapes}], dtype={dtype})"


def writable(array: np.ndarray) -> np.ndarray:
    """``array`` contiguous and writable (torch warns on read-only memory such as ``np.frombuffer``'s)."""
    array = np.ascontiguousarray(array)
    return array if array.flags.writeable else array.copy()


class LocalTensorList:
    """A fetched tensor-list blob of the old API (OneFlow's ``LocalMirroredTensorList``)."""

    __slots__ = ("_arrays",)

    def __init__(self, arrays: list[np.ndarray]) -> None:
        self._arrays = arrays

    def numpy_lists(self) -> list[list[np.ndarray]]:
        return [self._arrays]

    def numpy_list(self, parallel_id: int | None = None) -> list[np.ndarray]:
        if parallel_id not in (None, 0):
            raise IndexError(f"LocalTensorList.numpy_list({parallel_id}): there is one device part (0) on one device")
        return self._arrays

    def ndarray_lists(self) -> list[list[np.ndarray]]:
        global _noticed_ndarray_lists
        if not _noticed_ndarray_lists:  # OneFlow's notice, logged once
            _noticed_ndarray_lists = True
            log.warning("LocalMirroredTensorList.ndarray_lists is deprecated, please use "
                        "LocalMirroredTensorList.numpy_lists")
        return self.numpy_lists()

    def numpy(self, *args: Any) -> np.ndarray:
        raise TypeError("this blob is a tensor list (tensors of different shapes): read it with numpy_lists()")

    def parallel_num(self) -> int:
        return 1

    def __repr__(self) -> str:
        return f"LocalTensorList({[a.shape for a in self._arrays]})"


def leaf_result(value: TensorList, kind: str) -> Any:
    """A returned tensor list as the job call gives it back, for the return annotation's ``kind``
    (``"list_list_numpy"``, or ``"local"`` for the old API's future)."""
    arrays = value.numpy_list()
    if kind == "list_list_numpy":
        return [arrays]
    if kind == "local":
        return LocalTensorList(arrays)
    raise TypeError("a job returns a tensor list (tensors of different shapes) where its annotation asks for "
                    f"{kind}; annotate that result oneflow.typing.ListListNumpy")


def list_input(items: Any, shape: tuple[int, ...], dtype: dtypes.DType, where: str, device: str) -> TensorList:
    """A ``tp.ListListNumpy`` argument's tensor list (the ndarrays for the one device), checked as OneFlow
    did (``MirroredTensorListDef``): each of the declared rank, all together at most as many elements as
    the declared shape; converted to ``dtype`` when that keeps the kind of number."""
    if not isinstance(items, list) or not items:
        raise AssertionError(f"{where}: expected a non-empty list of numpy.ndarray (a tensor list); received "
                             f"{type(items).__name__} {items!r}"[:300])
    total = 0
    arrays = []
    for i, item in enumerate(items):
        if not isinstance(item, np.ndarray) or item.ndim != len(shape):
            got = f"shape {item.shape}" if isinstance(item, np.ndarray) else type(item).__name__
            raise AssertionError(f"{where}: tensor {i} of the list must be a numpy.ndarray of rank {len(shape)} "
                                 f"(declared {shape}); received {got}")
        total += item.size
        target = dtype.numpy_dtype
        if item.dtype != target and not np.can_cast(item.dtype, target, casting="same_kind"):
            raise TypeError(f"{where}: tensor {i} has dtype {item.dtype}, which cannot be converted to {dtype.name} "
                            "without losing its meaning (cast it explicitly)")
        arrays.append(np.ascontiguousarray(item, dtype=target))
    if total > int(np.prod(shape)):
        raise AssertionError(f"{where}: the tensor list holds {total} elements; the declared shape {shape} allows "
                             f"at most {int(np.prod(shape))}")
    tensors = TensorList.from_numpy(arrays)
    return tensors if device == "cpu" else tensors.to(device, non_blocking=True)
