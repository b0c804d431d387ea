"""OneFlow's time-slicing ops ``flow.unpack``, ``flow.pack``, ``flow.repeat`` and ``flow.acc``
(``framework/ops.py``; ``user/ops/{unpack,pack,repeat,acc}_op.cpp``).

In OneFlow these change a blob's *time shape*: ``unpack(x, n)`` emits x's n slices along axis 0 one after
another (n pieces per step, each of shape ``(d0 / n, …)``), ``repeat(x, n)`` emits x n times, ``pack(y, n)``
concatenates n consecutive pieces along axis 0 and ``acc(y, n)`` sums them. Ops between them run once per
piece. Each is the other's gradient (unpack ↔ pack, repeat ↔ acc).

flowtorch keeps the time dims on the blob (``Blob.time_shape``; ``blob.shape`` is the piece's, as OneFlow's) and
carries a step's pieces together as a leading axis of the blob's tensor; every other op runs its kernel once
per piece (:mod:`.time_shape`). Their gradients follow from the tensor ops (a reshape and an expand/sum),
which are OneFlow's gradient ops.
"""

from __future__ import annotations

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops import time_shape
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_int
from flowtorch._src.ops._record import apply


def _meta(x: Blob, shape: tuple[int, ...]) -> torch.Tensor:
    return torch.empty(shape, dtype=x.meta.dtype, device="meta")


def _timed(blob: Blob, dims: tuple[int, ...]) -> Blob:
    blob.time_shape = dims
    return blob


def unpack(input: Blob, unpack_num: int, name: str | None = None) -> Blob:  # OneFlow's name
    """``flow.unpack(input, unpack_num)``: ``input``'s ``unpack_num`` equal slices along axis 0 as
    consecutive time pieces (``Unpack_<n>/out_0``, static shape ``(d0 / unpack_num, …)``, time shape
    ``input``'s and ``unpack_num``)."""
    x = check_blob(input, "unpack", "input")
    n = check_int(unpack_num, "unpack", "unpack_num")
    if x.ndim == 0 or x.shape[0] % n:
        raise arg_error("unpack", "input", f"a blob whose axis 0 divides into {n} pieces", Desc(f"{x.lbn} {x.shape}"))
    out = apply(time_shape.unpack_kernel, x, n, time_shape.pieces(x.time_shape), op_type="unpack", prefix="Unpack",
                name=name, meta=_meta(x, (x.shape[0] // n, *x.shape[1:])))
    return _timed(out, (*x.time_shape, n))


def pack(input: Blob, pack_num: int, name: str | None = None) -> Blob:
    """``flow.pack(input, pack_num)``: ``pack_num`` consecutive time pieces concatenated along axis 0
    (``Pack_<n>/out_0``, static shape ``(d0 · pack_num, …)``); ``input``'s time shape must end with
    ``pack_num``, which comes off."""
    y = check_blob(input, "pack", "input")
    n = check_int(pack_num, "pack", "pack_num")
    if y.ndim == 0:
        raise arg_error("pack", "input", "a blob of rank >= 1", Desc(f"{y.lbn} {y.shape}"))
    dims = time_shape.after_pack("pack", y, n)
    out = apply(time_shape.pack_kernel, y, n, time_shape.pieces(y.time_shape), op_type="pack", prefix="Pack",
                name=name, meta=_meta(y, (y.shape[0] * n, *y.shape[1:])))
    return _timed(out, dims)


def repeat(input: Blob, repeat_num: int, name: str | None = None) -> Blob:
    """``flow.repeat(input, repeat_num)``: ``input`` as ``repeat_num`` time pieces (``Repeat_<n>/out_0``; time
    shape ``input``'s and ``repeat_num``)."""
    x = check_blob(input, "repeat", "input")
    n = check_int(repeat_num, "repeat", "repeat_num")
    out = apply(time_shape.repeat_kernel, x, n, time_shape.pieces(x.time_shape), op_type="repeat", prefix="Repeat",
                name=name, meta=_meta(x, x.shape))
    return _timed(out, (*x.time_shape, n))


def acc(one: Blob, max_acc_num: int, name: str | None = None) -> Blob:
    """``flow.acc(one, max_acc_num)``: the sum of ``max_acc_num`` consecutive time pieces (``Acc_<n>/out_0``;
    the time shape divided as ``acc_op.cpp`` did)."""
    y = check_blob(one, "acc", "one")
    n = check_int(max_acc_num, "acc", "max_acc_num")
    dims = time_shape.after_acc("acc", y, n)
    out = apply(time_shape.acc_kernel, y, n, time_shape.pieces(y.time_shape), op_type="acc", prefix="Acc", name=name,
                meta=_meta(y, y.shape))
    return _timed(out, dims)
