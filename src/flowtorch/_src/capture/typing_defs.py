"""``oneflow.typing``: the annotations of job inputs and results, and the old ``*TensorDef`` defaults."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from flowtorch._src import dtypes, naming

_MAX_TENSOR_BYTES = 2**63


class ArgDef:
    """A job input: fixed shape, dtype, batch axis; ``kind`` says how values are passed."""

    kind = "numpy"  # "numpy" | "list_numpy" | "list_list_numpy"

    def __init__(self, shape: Sequence[int], dtype: Any = None, batch_axis: int | None = 0,
                 name: str | None = None, *, what: str = "Placeholder") -> None:
        if not isinstance(shape, tuple):
            raise TypeError(f"{what}: shape should be a tuple. {shape!r} found")
        if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in shape):
            raise ValueError(f"{what}: shape should be a tuple of positive ints; {shape!r} found")
        self.shape = shape
        self.dtype = None if dtype is None else dtypes.to_dtype(dtype, what=f"{what}: dtype")
        itemsize = 8 if self.dtype is None else max(self.dtype.numpy_dtype.itemsize, 1)
        if math.prod(shape) * itemsize >= _MAX_TENSOR_BYTES:  # torch sizes storage in int64 bytes
            raise ValueError(f"{what}: shape {shape} has {math.prod(shape)} elements, more than a tensor can hold "
                             f"(2**63 bytes)")
        if batch_axis is not None and not (isinstance(batch_axis, int) and -len(shape) <= batch_axis < len(shape)):
            raise ValueError(f"{what}: batch_axis {batch_axis!r} is out of range for shape {shape}")
        # a negative axis counts from the end (input_blob_def.py); None: no batch axis (INVALID_BATCH_AXIS)
        self.batch_axis = None if batch_axis is None else batch_axis % len(shape)
        self.name = name

    @property
    def static_shape(self) -> tuple[int, ...]:
        """The master's name of ``shape`` in January 2020 (``input_blob_def.py``)."""
        return self.shape

    def resolved_dtype(self, default: dtypes.DType) -> dtypes.DType:
        return self.dtype if self.dtype is not None else default

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, batch_axis={self.batch_axis})"


class FixedTensorDef(ArgDef):
    """v0.1 input default: ``def job(x=flow.FixedTensorDef((10,)))``; takes an ``Input_<n>`` name now."""

    def __init__(self, shape: Sequence[int], dtype: Any = None, batch_axis: int | None = 0,
                 name: str | None = None) -> None:
        super().__init__(shape, dtype, batch_axis, name or naming.unique_str("Input_"), what="FixedTensorDef")


class MirroredTensorDef(ArgDef):
    """A per-device input: a list with one array per device, each no larger than ``shape``."""

    kind = "list_numpy"

    def __init__(self, shape: Sequence[int], dtype: Any = None, batch_axis: int | None = 0,
                 name: str | None = None) -> None:
        super().__init__(shape, dtype, batch_axis, name or naming.unique_str("Input_"), what="MirroredTensorDef")


class MirroredTensorListDef(ArgDef):
    kind = "list_list_numpy"

    def __init__(self, shape: Sequence[int], dtype: Any = None, batch_axis: int | None = 0,
                 name: str | None = None) -> None:
        super().__init__(shape, dtype, batch_axis, name or naming.unique_str("Input_"),
                         what="MirroredTensorListDef")


class _Placeholder(ArgDef):
    pass


class NumpyPlaceholder(_Placeholder):
    kind = "numpy"


class ListNumpyPlaceholder(_Placeholder):
    kind = "list_numpy"


class ListListNumpyPlaceholder(_Placeholder):
    kind = "list_list_numpy"


class _Annotation:
    """Base of the result annotations; instantiating one is a mistake OneFlow also forbids."""

    placeholder_cls: type[_Placeholder] = NumpyPlaceholder

    def __init__(self) -> None:
        raise TypeError(f"oneflow.typing.{type(self).__name__} is an annotation, not a value")

    @classmethod
    def Placeholder(cls, shape: Sequence[int], dtype: Any = dtypes.float32,  # OneFlow name
                    batch_axis: int | None = 0) -> _Placeholder:
        return cls.placeholder_cls(shape, dtype, batch_axis, what=f"oneflow.typing.{cls.__name__}.Placeholder")


class Numpy(_Annotation):
    """``-> tp.Numpy``: the whole result as a fresh ``numpy.ndarray``."""

    placeholder_cls = NumpyPlaceholder


class ListNumpy(_Annotation):
    """``-> tp.ListNumpy``: one ndarray per device."""

    placeholder_cls = ListNumpyPlaceholder


class ListListNumpy(_Annotation):
    """``-> tp.ListListNumpy``: one list of ndarrays (a tensor list) per device."""

    placeholder_cls = ListListNumpyPlaceholder


class _Generic:
    """``Callback[T]`` / ``Bundle[T]``: subscriptable annotations."""

    def __init__(self, name: str, arg: Any) -> None:
        self.name = name
        self.arg = arg

    def __repr__(self) -> str:
        return f"oneflow.typing.{self.name}[{self.arg!r}]"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Generic) and (self.name, self.arg) == (other.name, other.arg)

    def __hash__(self) -> int:
        return hash((self.name, repr(self.arg)))


class _GenericMeta(type):
    def __getitem__(cls, arg: Any) -> _Generic:
        return _Generic(cls.__name__, arg)

    def __repr__(cls) -> str:
        return f"oneflow.typing.{cls.__name__}"


class Callback(metaclass=_GenericMeta):
    """``-> tp.Callback[T]``: the call returns ``g``; ``g(cb)`` later calls ``cb(value: T)``."""


class Bundle(metaclass=_GenericMeta):
    """``-> tp.Bundle[T]``: any tuple/list/dict nesting of ``T`` results, container types kept."""
