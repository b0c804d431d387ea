"""OneFlow dtypes (``flow.float32`` …) and the one table mapping them to torch and numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class DType:
    """A OneFlow data type: ``flow.float32`` is one, ``flow.float`` is the same object."""

    __slots__ = ("name", "torch_dtype", "numpy_dtype", "proto_name")

    def __init__(self, name: str, torch_dtype: torch.dtype, numpy_dtype: Any, proto_name: str) -> None:
        self.name = name
        self.torch_dtype = torch_dtype
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.proto_name = proto_name

    def __repr__(self) -> str:
        return f"oneflow.{self.name}"

    @property
    def is_floating_point(self) -> bool:
        return self.torch_dtype.is_floating_point

    @property
    def oneflow_proto_dtype(self) -> int:
        """The ``DataType`` enum value (``data_type_pb2.kFloat`` = 2 …), as OneFlow's dtype objects had it."""
        return PROTO_VALUES[self.proto_name]


float32 = DType("float32", torch.float32, np.float32, "kFloat")
float64 = DType("float64", torch.float64, np.float64, "kDouble")
float16 = DType("float16", torch.float16, np.float16, "kFloat16")
int8 = DType("int8", torch.int8, np.int8, "kInt8")
int32 = DType("int32", torch.int32, np.int32, "kInt32")
int64 = DType("int64", torch.int64, np.int64, "kInt64")
uint8 = DType("uint8", torch.uint8, np.uint8, "kUInt8")
char = DType("char", torch.int8, np.int8, "kChar")
float = float32  # OneFlow's public name
double = float64

ALL: tuple[DType, ...] = (float32, float64, float16, int8, int32, int64, uint8, char)

# data-only types: blobs of the in-job data pipeline (a tensor per sample, raw OFRecords), never graph tensors
tensor_buffer = DType("tensor_buffer", torch.uint8, np.object_, "kTensorBuffer")
ofrecord = DType("OFRecord", torch.uint8, np.object_, "kOFRecord")
_BY_TORCH = {d.torch_dtype: d for d in reversed(ALL)}  # int8 wins over char
_BY_NUMPY = {d.numpy_dtype: d for d in reversed(ALL)}


# OneFlow's ``DataType`` enum (``core/common/data_type.proto``); v0.1's ``flow.float`` … were these ints
# (``framework/dtype.py`` of v0.1.2), so programs of that era pass ``data_type_pb2.kFloat`` where a dtype goes
PROTO_VALUES = {"kChar": 1, "kFloat": 2, "kDouble": 3, "kInt8": 4, "kInt32": 5, "kInt64": 6, "kUInt8": 7,
                "kOFRecord": 8, "kFloat16": 9, "kTensorBuffer": 10}
_BY_PROTO = {PROTO_VALUES[d.proto_name]: d for d in ALL}


def to_dtype(value: Any, *, what: str = "dtype") -> DType:
    """Accept a flowtorch DType, a torch dtype, a numpy dtype-like or OneFlow's ``DataType`` enum value
    (``data_type_pb2.kFloat``, v0.1's dtypes) and return the DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and int(value) in _BY_PROTO:
        return _BY_PROTO[int(value)]
    if isinstance(value, torch.dtype) and value in _BY_TORCH:
        return _BY_TORCH[value]
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        np_dtype = None
    if np_dtype is not None and np_dtype in _BY_NUMPY:
        return _BY_NUMPY[np_dtype]
    names = ", ".join(f"flow.{d.name}" for d in ALL)
    raise TypeError(f"{what} must be one of {names}; received {value!r}")


def from_torch(dtype: torch.dtype) -> DType:
    return to_dtype(dtype)


def from_numpy(dtype: np.dtype) -> DType:
    return to_dtype(dtype)


def all_dtypes() -> list[DType]:
    """``flow.dtypes()``: every OneFlow dtype, the data-only ``tensor_buffer`` and ``record`` included
    (``framework/dtype.py``)."""
    return [char, float32, float64, float16, int8, int32, int64, uint8, ofrecord, tensor_buffer]


class DTypeList(list[DType]):
    """``flow.dtypes``: OneFlow v0.1.2's list of the numeric dtypes (``assert x in flow.dtypes``) that, called,
    gives v0.2.0's :func:`all_dtypes` (``flow.dtypes()``, the function that replaced the list)."""

    def __call__(self) -> list[DType]:
        return all_dtypes()


dtypes = DTypeList([char, float32, float64, float16, int8, int32, int64, uint8])


def convert_oneflow_dtype_to_numpy_dtype(oneflow_dtype: Any) -> type:
    """``flow.convert_oneflow_dtype_to_numpy_dtype``: the numpy scalar type of a numeric OneFlow dtype."""
    if not isinstance(oneflow_dtype, DType) or oneflow_dtype not in ALL:
        raise NotImplementedError(f"flow.convert_oneflow_dtype_to_numpy_dtype: {oneflow_dtype!r} has no numpy "
                                  f"dtype; expected one of {', '.join(f'flow.{d.name}' for d in ALL)}")
    return oneflow_dtype.numpy_dtype.type
