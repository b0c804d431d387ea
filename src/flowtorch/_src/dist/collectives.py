"""The collectives a distributed step's graph calls, on torch.distributed's default group.

Each rank's backward pass computes its own *contribution* to every gradient; the differentiable
collectives keep that true (an all-gather's gradient is summed over the ranks and this rank's part kept,
an all-reduce's gradient all-reduced), and the variables' gradients are summed over the ranks at the end
of the backward pass (:func:`sum_gradients`).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist


def world_size() -> int:
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def rank() -> int:
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


class _Gather(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, axis: int) -> torch.Tensor:
        ctx.axis = axis
        parts = [torch.empty_like(x, memory_format=torch.contiguous_format) for _ in range(world_size())]
        dist.all_gather(parts, x.contiguous())
        return torch.cat(parts, dim=axis)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        total = grad.contiguous().clone()
        dist.all_reduce(total)
        return total.chunk(world_size(), dim=ctx.axis)[rank()].contiguous(), None


class _SumPartial(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        out = x.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        return _SumPartial.apply(grad)


def gather(x: torch.Tensor, axis: int) -> torch.Tensor:
    """The whole logical tensor from each rank's part along ``axis`` (differentiable)."""
    return _Gather.apply(x, axis)


def gather_parts(x: torch.Tensor) -> list[torch.Tensor]:
    """Every rank's ``x`` in rank order: parts of a mirrored blob, whose shapes may differ (same rank)."""
    x = x.detach().contiguous()
    if x.dim() == 0:
        x = x.reshape(1)
    shape = torch.tensor(x.shape, dtype=torch.int64, device=x.device)
    shapes = [torch.empty_like(shape) for _ in range(world_size())]
    dist.all_gather(shapes, shape)  # gloo aborts the process on mismatched sizes: pad to the largest
    largest = torch.stack(shapes).max(dim=0).values.tolist()
    padded = x.new_zeros(largest)
    padded[tuple(slice(0, n) for n in x.shape)] = x
    parts = [torch.empty_like(padded) for _ in shapes]
    dist.all_gather(parts, padded)
    return [p[tuple(slice(0, int(n)) for n in s.tolist())] for p, s in zip(parts, shapes)]


def local_part(x: torch.Tensor, axis: int) -> torch.Tensor:
    """This rank's part of a tensor every rank holds whole (its gradient reaches that part only)."""
    return x.chunk(world_size(), dim=axis)[rank()]


def sum_partial(x: torch.Tensor) -> torch.Tensor:
    """The sum over the ranks of a partial value (a reduction over the split axis), on every rank."""
    return _SumPartial.apply(x)


def mean_partial(x: torch.Tensor) -> torch.Tensor:
    """The mean over the ranks of equal-sized parts' means (a ``reduce_mean`` over the split axis)."""
    return sum_partial(x) / world_size()


def shard_input(x: torch.Tensor, axis: int) -> torch.Tensor:
    """Rank 0's ``x`` split along ``axis``: this rank's part (rank 0 feeds the logical batch, as OneFlow's
    master process did, so ranks whose programs drew different data still agree)."""
    size = world_size()
    shape = list(x.shape)
    shape[axis] //= size
    out = torch.empty(shape, dtype=x.dtype, device=x.device)
    parts = [p.contiguous() for p in x.chunk(size, dim=axis)] if rank() == 0 else None
    dist.scatter(out, parts, src=0)
    return out


def broadcast_input(x: torch.Tensor) -> torch.Tensor:
    """Rank 0's ``x`` on every rank."""
    out = x.contiguous().clone() if rank() != 0 or not x.is_contiguous() else x
    dist.broadcast(out, src=0)
    return out


def broadcast_(tensors: list[torch.Tensor]) -> None:
    """Overwrite ``tensors`` with rank 0's values, in place (variables at build, so replicas start equal)."""
    with torch.no_grad():
        for t in tensors:
            dist.broadcast(t, src=0)


def sum_gradients(grads: list[torch.Tensor | None]) -> list[torch.Tensor | None]:
    """Sum each rank's contribution to the variables' gradients, in one flat all-reduce per dtype."""
    present = [g for g in grads if g is not None]
    by_dtype: dict[torch.dtype, list[torch.Tensor]] = {}
    for g in present:
        by_dtype.setdefault(g.dtype, []).append(g)
    summed: dict[int, torch.Tensor] = {}
    for group in by_dtype.values():
        flat = torch.cat([g.reshape(-1) for g in group])
        dist.all_reduce(flat)
        offset = 0
        for g in group:
            summed[id(g)] = flat[offset:offset + g.numel()].view_as(g)
            offset += g.numel()
    return [None if g is None else summed[id(g)] for g in grads]
