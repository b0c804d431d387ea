"""Tensor-buffer ops: ``flow.tensor_buffer_to_tensor``, ``tensor_to_tensor_buffer``, ``gen_tensor_buffer``,
``tensor_buffer_to_list_of_tensors`` (OneFlow ``python/ops/tensor_buffer_ops.py``,
``user/kernels/tensor_buffer_kernels.cpp``), and the tensor-list conversions
``tensor_list_to_tensor_buffer`` / ``tensor_buffer_to_tensor_list`` (``python/ops/tensor_list_ops.py``,
``core/kernel/tensor_list_to_tensor_buffer_kernel.cpp``, ``tensor_buffer_to_tensor_list_kernel.cpp``).

A tensor buffer's value is a flat list, in C order of the blob's shape, with one numpy array per element.
These are data ops: they take and give data blobs, and run in the loader with the rest of the pipeline, or
in the job graph when their input is computed there (e.g. ``tensor_to_tensor_buffer`` of a job input).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from flowtorch._src import dtypes
from flowtorch._src.capture.blob import Blob
from flowtorch._src.data import blobs as db
from flowtorch._src.data import graph_ops
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.record_kernels import to_tensor
from flowtorch._src.ops._checks import Desc, arg_error, check_shape


def tensor_buffer_to_tensor(x: db.DataBlob, dtype: Any, instance_shape: Sequence[int],
                            name: str | None = None) -> db.DataBlob:
    """``flow.tensor_buffer_to_tensor``: a tensor buffer whose every element has ``instance_shape`` and
    ``dtype`` → a static ``x.shape + instance_shape`` blob (``TensorBufferToTensor_<n>/out_0``)."""
    op = "tensor_buffer_to_tensor"
    x = db.check_data_blob(x, op, "x", (db.BUFFER,))
    dt = dtypes.to_dtype(dtype, what=f"flow.{op}: dtype")
    inst = check_shape(instance_shape, op, "instance_shape")
    kernel = functools.partial(to_tensor, shape=x.shape, dtype=dt.numpy_dtype, instance_shape=inst)
    (blob,) = pl.pipeline(op).add(db.op_name("TensorBufferToTensor_", name), kernel, (x,),
                                  [("out_0", db.meta(x.shape + inst, dt), db.TENSOR)])
    return blob


def to_buffer(ctx: db.OpContext, array: np.ndarray, instance_dims: int) -> list[np.ndarray]:
    outer = array.shape[:array.ndim - instance_dims]
    flat = array.reshape((-1,) + array.shape[array.ndim - instance_dims:])
    return [np.array(flat[i]) for i in range(int(np.prod(outer)))]


def tensor_to_tensor_buffer(x: db.DataBlob, instance_dims: int, name: str | None = None) -> db.DataBlob:
    """``flow.tensor_to_tensor_buffer``: the trailing ``instance_dims`` axes of each element become one
    tensor-buffer element (``TensorToTensorBuffer_<n>/out_0``)."""
    op = "tensor_to_tensor_buffer"
    x = db.check_data_blob(x, op, "x", (db.TENSOR,))
    if not isinstance(instance_dims, int) or isinstance(instance_dims, bool) or not 0 < instance_dims < x.ndim:
        raise arg_error(op, "instance_dims", f"an int in [1, {x.ndim}) for a blob of shape {x.shape}", instance_dims)
    (blob,) = pl.pipeline(op).add(db.op_name("TensorToTensorBuffer_", name),
                                  functools.partial(to_buffer, instance_dims=instance_dims), (x,),
                                  [("out_0", db.meta(x.shape[:x.ndim - instance_dims], np.uint8), db.BUFFER)])
    return blob


def generate(ctx: db.OpContext, shapes: list[tuple[int, ...]], values: list[float], dtype: np.dtype
             ) -> list[np.ndarray]:
    return [np.full(s, v, dtype=dtype) for s, v in zip(shapes, values)]


def gen_tensor_buffer(shape: Sequence[int], shape_list: Sequence[Sequence[int]], value_list: Sequence[float],
                      data_type: Any = dtypes.float32, dynamic_out: bool = False,
                      name: str | None = None) -> db.DataBlob:
    """``flow.gen_tensor_buffer``: element ``i`` is a ``shape_list[i]`` tensor filled with ``value_list[i]``
    (``GenTensorBuffer_<n>/out_0``)."""
    op = "gen_tensor_buffer"
    pipe = pl.pipeline(op)
    shape_t = check_shape(shape, op, "shape", allow_empty=False)
    n = int(np.prod(shape_t))
    if not isinstance(shape_list, (list, tuple)) or len(shape_list) != n:
        raise arg_error(op, "shape_list", f"a list of {n} shapes (one per element of shape {shape_t})", shape_list)
    shapes = [check_shape(s, op, f"shape_list[{i}]") for i, s in enumerate(shape_list)]
    if not isinstance(value_list, (list, tuple)) or len(value_list) != n:
        raise arg_error(op, "value_list", f"a list of {n} numbers", value_list)
    dt = dtypes.to_dtype(data_type, what=f"flow.{op}: data_type")
    if dt.name not in ("int32", "int64", "float32", "float64"):
        raise arg_error(op, "data_type", "flow.int32, flow.int64, flow.float32 or flow.float64", data_type)
    kernel = functools.partial(generate, shapes=shapes, values=[float(v) for v in value_list], dtype=dt.numpy_dtype)
    (blob,) = pipe.add(db.op_name("GenTensorBuffer_", name), kernel, (),
                       [("out_0", db.meta(shape_t, np.uint8), db.BUFFER)])
    return blob


def to_list(ctx: db.OpContext, items: list[np.ndarray], out_shape: tuple[int, ...], dtype: np.dtype,
            dynamic: bool) -> tuple[np.ndarray, ...]:
    out = []
    for i, item in enumerate(items):
        if item.dtype != dtype:
            raise ValueError(f"{ctx.op_name}: element {i} has dtype {item.dtype}; out_dtype {dtype} expected")
        if dynamic:
            if item.ndim != len(out_shape) or any(a > b for a, b in zip(item.shape, out_shape)):
                raise ValueError(f"{ctx.op_name}: element {i} has shape {item.shape}; at most {out_shape} expected")
            out.append(item)
        else:
            if item.size != int(np.prod(out_shape)):
                raise ValueError(f"{ctx.op_name}: element {i} has {item.size} values; out_shape {out_shape} needs "
                                 f"{int(np.prod(out_shape))}")
            out.append(item.reshape(out_shape))
    return tuple(out)


def tensor_buffer_to_list_of_tensors(x: db.DataBlob, out_shape: Sequence[int], out_dtype: Any,
                                     dynamic_out: bool = False, name: str | None = None) -> list[db.DataBlob]:
    """``flow.tensor_buffer_to_list_of_tensors``: one blob per element (``TensorBufferToListOfTensors_<n>/
    out_<i>``). With ``dynamic_out`` each blob is at most ``out_shape`` and takes its element's shape."""
    op = "tensor_buffer_to_list_of_tensors"
    x = db.check_data_blob(x, op, "x", (db.BUFFER,))
    shape_t = check_shape(out_shape, op, "out_shape")
    dt = dtypes.to_dtype(out_dtype, what=f"flow.{op}: out_dtype")
    n = int(np.prod(x.shape))
    kernel = functools.partial(to_list, out_shape=shape_t, dtype=dt.numpy_dtype, dynamic=bool(dynamic_out))
    outputs = [(f"out_{i}", db.meta(shape_t, dt), db.TENSOR) for i in range(n)]
    blobs = pl.pipeline(op).add(db.op_name("TensorBufferToListOfTensors_", name), kernel, (x,), outputs)
    for b in blobs:
        b.is_dynamic = bool(dynamic_out)
    return blobs


def list_to_buffer(ctx: db.OpContext, tensors: list[np.ndarray]) -> list[np.ndarray]:
    out = []
    for i, tensor in enumerate(tensors):
        if tensor.ndim == 0 or tensor.shape[0] != 1:
            raise ValueError(f"{ctx.op_name}: tensor {i} of the list has shape {tensor.shape}; each tensor of a tensor "
                             "list must have a leading dimension of 1 (it is dropped in the buffer)")
        out.append(tensor[0])
    return out


def tensor_list_to_tensor_buffer(input: Blob, name: str | None = None) -> db.DataBlob:
    """``flow.tensor_list_to_tensor_buffer``: each tensor ``(1, *s)`` of a tensor list (a
    ``tp.ListListNumpy`` input, or ``tensor_buffer_to_tensor_list``'s output) becomes a tensor-buffer element
    of shape ``s`` (``TensorListToBuffer_<n>/out``; ``(N,)`` for a list declared ``(N, ...)``)."""
    op = "tensor_list_to_tensor_buffer"
    pipe = pl.pipeline(op)
    op_name = db.op_name("TensorListToBuffer_", name)
    if isinstance(input, db.DataBlob) and input.kind == db.LIST:
        outputs = [("out", db.meta(input.shape[:1], np.uint8), db.BUFFER)]
        (blob,) = pipe.add(op_name, list_to_buffer, (input,), outputs)
        return blob
    if not isinstance(input, Blob) or isinstance(input, db.DataBlob) or not input.is_dynamic or input.ndim == 0:
        what = (f"data blob {input.lbn} holds {input.kind} values" if isinstance(input, db.DataBlob) else
                f"{input.lbn} is a static blob" if isinstance(input, Blob) else f"received {input!r}"[:200])
        raise TypeError(f"flow.{op}: argument 'input' must be a tensor list (a oneflow.typing.ListListNumpy input or "
                        f"flow.tensor_buffer_to_tensor_list's output); {what}")
    outputs = [("out", db.meta(input.shape[:1], np.uint8), db.BUFFER)]
    (blob,) = graph_ops.record(pipe, op_name, list_to_buffer, (input,), outputs, None, in_kinds=(db.LIST,))
    return blob


def split_list(ctx: db.OpContext, tensors: list[np.ndarray], count: int) -> tuple[np.ndarray, ...]:
    if len(tensors) != count:
        raise ValueError(f"{ctx.op_name}: the tensor list holds {len(tensors)} tensors; the declared list of {count} "
                         "splits into exactly that many blobs")
    return tuple(list_to_buffer(ctx, tensors))


def tensor_list_split(input_tensor_list: Blob, name: str | None = None) -> tuple[db.DataBlob, ...]:
    """``flow.tensor_list_split``: a tensor list declared ``(N, *s)`` → ``N`` dynamic blobs of at most ``s``,
    tensor ``i`` without its leading 1 (``TensorListSplit_<n>/out_<i>``; OneFlow's
    ``tensor_list_split_kernel`` needs the list to hold exactly ``N`` tensors)."""
    op = "tensor_list_split"
    x = input_tensor_list
    pipe = pl.pipeline(op)
    is_list = isinstance(x, db.DataBlob) and x.kind == db.LIST
    if not is_list and (not isinstance(x, Blob) or isinstance(x, db.DataBlob) or not x.is_dynamic or x.ndim < 2):
        raise TypeError(f"flow.{op}: argument 'input_tensor_list' must be a tensor list (a "
                        f"oneflow.typing.ListListNumpy input or flow.tensor_buffer_to_tensor_list's output); "
                        f"received {x!r}"[:300])
    count = x.shape[0]
    kernel = functools.partial(split_list, count=count)
    outputs = [(f"out_{i}", db.meta(x.shape[1:], x.dtype), db.TENSOR) for i in range(count)]
    op_name = db.op_name("TensorListSplit_", name)
    if is_list:
        blobs = pipe.add(op_name, kernel, (x,), outputs)
    else:
        blobs = graph_ops.record(pipe, op_name, kernel, (x,), outputs, None, in_kinds=(db.LIST,))
    for blob in blobs:
        blob.is_dynamic = True
    return tuple(blobs)


def buffer_to_list(ctx: db.OpContext, items: list[np.ndarray], shape: tuple[int, ...], dtype: np.dtype
                   ) -> list[np.ndarray]:
    out = []
    for i, item in enumerate(items):
        # tensor_buffer_to_tensor_list_kernel.cpp checks the rank and the element count, not each dimension
        if item.ndim != len(shape) or item.size > int(np.prod(shape)):
            raise ValueError(f"{ctx.op_name}: element {i} has shape {item.shape}; the list's shape {shape} allows rank "
                             f"{len(shape)} and at most {int(np.prod(shape))} values")
        with np.errstate(invalid="ignore", over="ignore"):
            out.append(item.astype(dtype)[None])
    return out


def tensor_buffer_to_tensor_list(input: db.DataBlob, shape: Sequence[int], dtype: Any,
                                 name: str | None = None) -> db.DataBlob:
    """``flow.tensor_buffer_to_tensor_list``: a ``(N,)`` tensor buffer → a tensor list of ``N`` tensors
    ``(1, *element shape)`` converted to ``dtype``, each of rank ``len(shape)`` and at most ``prod(shape)``
    values (``TensorBufferToList_<n>/out``, declared ``(N, *shape)``). Return it annotated
    ``tp.ListListNumpy`` (or read ``numpy_lists()`` of the old API's result)."""
    op = "tensor_buffer_to_tensor_list"
    x = db.check_data_blob(input, op, "input", (db.BUFFER,))
    if x.ndim != 1:
        raise arg_error(op, "input", "a 1-D tensor buffer", Desc(f"{x.lbn} of shape {x.shape}"))
    shape_t = check_shape(shape, op, "shape")
    dt = dtypes.to_dtype(dtype, what=f"flow.{op}: dtype")
    kernel = functools.partial(buffer_to_list, shape=shape_t, dtype=dt.numpy_dtype)
    (blob,) = pl.pipeline(op).add(db.op_name("TensorBufferToList_", name), kernel, (x,),
                                  [("out", db.meta(x.shape + shape_t, dt), db.LIST)])
    blob.is_dynamic = True
    return blob
