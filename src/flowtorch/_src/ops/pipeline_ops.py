"""OneFlow's time-slicing ops ``flow.unpack``, ``flow.pack``, ``flow.repeat`` and ``flow.acc``
(``framework/ops.py``; ``user/ops/{unpack,pack,repeat,acc}_op.cpp``).

In OneFlow these change a blob's *time shape*: ``unpack(x, n)`` emits x's n slices along axis 0 one after
another (n pieces per step, each of shape ``(d0 / n, …)``), ``repeat(x, n)`` emits x n times, ``pack(y, n)``
concatenates n consecutive pieces along axis 0 and ``acc(y, n)`` sums them. Ops between them run once per
piece. Each is the other's gradient (unpack ↔ pack, repeat ↔ acc).

flowtorch runs one step at a time, so it carries the n pieces together: the tensor of a time-sliced blob
has an extra leading axis of length n (the blob's static shape is still the per-piece shape). Ops applied
to it see that axis as a leading batch axis, which is right for element-wise ops, broadcasting with
per-piece blobs and matrix products over the last axes; ``pack`` and ``acc`` remove it. Their gradients
follow from the tensor ops (a reshape and an expand/sum), which are OneFlow's gradient ops.
"""

from __future__ import annotations

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_int
from flowtorch._src.ops._record import apply


def _check_steps(y: torch.Tensor, n: int, ndim: int, op: str, lbn: str) -> None:
    if y.dim() != ndim + 1 or y.shape[0] != n:
        raise RuntimeError(f"flow.{op}: {lbn} carries no {n} time pieces here (its tensor has shape "
                           f"{tuple(y.shape)}); {op}'s input must come from flow.unpack/flow.repeat with "
                           f"{n} pieces through ops that keep their leading axis")


def unpack_kernel(x: torch.Tensor, n: int) -> torch.Tensor:
    return x.reshape(n, x.shape[0] // n, *x.shape[1:])


def pack_kernel(y: torch.Tensor, n: int, ndim: int, lbn: str) -> torch.Tensor:
    _check_steps(y, n, ndim, "pack", lbn)
    return y.reshape(n * y.shape[1], *y.shape[2:])


def repeat_kernel(x: torch.Tensor, n: int) -> torch.Tensor:
    return x.expand(n, *x.shape)


def acc_kernel(y: torch.Tensor, n: int, ndim: int, lbn: str) -> torch.Tensor:
    _check_steps(y, n, ndim, "acc", lbn)
    return y.sum(dim=0, dtype=y.dtype)


def _meta(x: Blob, shape: tuple[int, ...]) -> torch.Tensor:
    return torch.empty(shape, dtype=x.meta.dtype, device="meta")


def unpack(input: Blob, unpack_num: int, name: str | None = None) -> Blob:  # OneFlow's name
    """``flow.unpack(input, unpack_num)``: ``input``'s ``unpack_num`` equal slices along axis 0 as
    consecutive time pieces (``Unpack_<n>/out_0``, static shape ``(d0 / unpack_num, …)``)."""
    x = check_blob(input, "unpack", "input")
    n = check_int(unpack_num, "unpack", "unpack_num")
    if x.ndim == 0 or x.shape[0] % n:
        raise arg_error("unpack", "input", f"a blob whose axis 0 divides into {n} pieces", Desc(f"{x.lbn} {x.shape}"))
    return apply(unpack_kernel, x, n, op_type="unpack", prefix="Unpack", name=name,
                 meta=_meta(x, (x.shape[0] // n, *x.shape[1:])))


def pack(input: Blob, pack_num: int, name: str | None = None) -> Blob:
    """``flow.pack(input, pack_num)``: ``pack_num`` consecutive time pieces concatenated along axis 0
    (``Pack_<n>/out_0``, static shape ``(d0 · pack_num, …)``)."""
    y = check_blob(input, "pack", "input")
    n = check_int(pack_num, "pack", "pack_num")
    if y.ndim == 0:
        raise arg_error("pack", "input", "a blob of rank >= 1", Desc(f"{y.lbn} {y.shape}"))
    return apply(pack_kernel, y, n, y.ndim, y.lbn, op_type="pack", prefix="Pack", name=name,
                 meta=_meta(y, (y.shape[0] * n, *y.shape[1:])))


def repeat(input: Blob, repeat_num: int, name: str | None = None) -> Blob:
    """``flow.repeat(input, repeat_num)``: ``input`` as ``repeat_num`` time pieces (``Repeat_<n>/out_0``)."""
    x = check_blob(input, "repeat", "input")
    n = check_int(repeat_num, "repeat", "repeat_num")
    return apply(repeat_kernel, x, n, op_type="repeat", prefix="Repeat", name=name, meta=_meta(x, x.shape))


def acc(one: Blob, max_acc_num: int, name: str | None = None) -> Blob:
    """``flow.acc(one, max_acc_num)``: the sum of ``max_acc_num`` consecutive time pieces (``Acc_<n>/out_0``)."""
    y = check_blob(one, "acc", "one")
    n = check_int(max_acc_num, "acc", "max_acc_num")
    return apply(acc_kernel, y, n, y.ndim, y.lbn, op_type="acc", prefix="Acc", name=name, meta=_meta(y, y.shape))
