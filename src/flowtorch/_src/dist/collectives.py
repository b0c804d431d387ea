"""The collectives a distributed step's graph calls, on torch.distributed's default group.

Each rank's backward pass computes its own *contribution* to every gradient; the differentiable
collectives keep that true (an all-gather's gradient is summed over the ranks and this rank's part kept,
an all-reduce's gradient all-reduced), and the variables' gradients are summed over the ranks as backward
makes them (:class:`GradientBuckets`).
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
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


def local_part(x: torch.Tensor, axis: int, parts: int | None = None, index: int | None = None) -> torch.Tensor:
    """This rank's part of a tensor every rank holds whole (its gradient reaches that part only); ``parts`` and
    ``index`` (default: the world's size and this rank) spare a step looking them up."""
    parts = world_size() if parts is None else parts
    index = rank() if index is None else index
    n = x.shape[axis]
    step = -(-n // parts)  # torch.chunk's parts: the last may be shorter
    return x.narrow(axis, index * step, max(0, min(step, n - index * step)))


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


_U64 = (1 << 64) - 1
_P61 = (1 << 61) - 1


@functools.lru_cache(maxsize=16)
def _weights(n: int) -> np.ndarray:
    """``n`` pseudo-random odd 64-bit weights (splitmix64 of the positions), as int64: a weighted sum of words
    sees any change of a word and any reordering."""
    with np.errstate(over="ignore"):
        z = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return ((z ^ (z >> np.uint64(31))) | np.uint64(1)).view(np.int64)


@functools.lru_cache(maxsize=16)
def _device_weights(n: int, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(_weights(n)).to(device)


def _device_sum(t: torch.Tensor) -> int:
    """The weighted sum of a tensor's 32-bit words (of its bytes when their count is not a multiple of four),
    computed where the tensor lives: a GPU's input is checksummed without a copy to the host."""
    raw = t.contiguous().reshape(-1).view(torch.uint8)
    words = raw.view(torch.int32) if raw.numel() % 4 == 0 else raw
    return int((words.to(torch.int64) * _device_weights(words.numel(), t.device)).sum())


def fingerprint(tensors: Sequence[torch.Tensor]) -> int:
    """A 61-bit checksum of the tensors' bytes: a weighted sum of their 64-bit words (wrapping), computed with
    numpy for a CPU tensor and where the tensor lives otherwise (32-bit words there)."""
    total = 0
    for t in tensors:
        t = t.detach()
        if t.device.type == "cpu":
            # (numpy's reshape and views: a step checksums its inputs, and torch's cost more per call)
            try:
                array = t.numpy()
            except TypeError:  # a type numpy lacks (bfloat16): its bytes
                array = t.contiguous().reshape(-1).view(torch.uint8).numpy()
            raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
            cut = raw.size - raw.size % 8
            words = raw[:cut].view(np.int64)  # an integer dot product wraps mod 2**64 and makes no temporary
            part = int(np.dot(words, _weights(words.size))) & _U64
            if cut < raw.size:
                part += zlib.adler32(raw[cut:].tobytes())  # (the < 8 bytes left; numpy's stubs show no buffer)
        else:
            part = _device_sum(t)
        # a prime modulus (2**61 - 1), so a change in the top bits of a 64-bit sum still shows
        total = (total * 1000003 + part + t.numel()) % _P61
    return total


def same_on_every_rank(value: int) -> bool:
    """Whether every rank holds ``value`` (one small all-reduce: the largest of ``value`` and of ``-value``)."""
    both = torch.tensor([value, -value], dtype=torch.int64)
    dist.all_reduce(both, op=dist.ReduceOp.MAX)
    return int(both[0]) == -int(both[1])


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


# DDP's bucket sizes (torch.nn.parallel.DistributedDataParallel: bucket_cap_mb=25, the first bucket 1 MiB so the
# last layers' gradients, which backward makes first, start their all-reduce early).
FIRST_BUCKET_BYTES = 1 << 20
BUCKET_BYTES = 25 << 20


class _Bucket:
    def __init__(self, indices: list[int], params: Sequence[torch.Tensor]) -> None:
        self.indices = indices
        self.shapes = [params[i].shape for i in indices]  # the bucket's layout: its variables, in order
        self.flat_dtype = params[indices[0]].dtype
        self.device = params[indices[0]].device
        self.riders: list[torch.Tensor] = []
        self.pending = len(indices)
        self.work: Any = None
        # The buffer the all-reduce runs on, made once (per shape of the riders, DDP's buckets are persistent
        # too) with a view for each variable and rider, so that a step costs one copy and no unpacking.
        self.layout: tuple[torch.Size, ...] | None = None
        self.flat: torch.Tensor | None = None
        self.views: list[torch.Tensor] = []

    def fill(self, grads: Sequence[torch.Tensor]) -> torch.Tensor:
        """Copy ``grads`` (the bucket's variables' in order, then its riders) into its buffer; the buffer."""
        layout = tuple(r.shape for r in self.riders)
        if self.flat is None or layout != self.layout:
            sizes = [shape.numel() for shape in (*self.shapes, *layout)]
            self.flat = torch.empty(sum(sizes), dtype=self.flat_dtype, device=self.device)
            self.views = [part.view(shape) for part, shape in zip(self.flat.split(sizes), [*self.shapes, *layout])]
            self.layout = layout
        torch._foreach_copy_(self.views, [*grads, *self.riders])
        return self.flat


class GradientBuckets:
    """DDP's reducer for a step's variables: their gradients are summed over the ranks in buckets, each bucket's
    all-reduce launched (asynchronously) as soon as backward has made all of its gradients, so communication
    overlaps the rest of backward. Buckets are launched in one fixed order, the same on every rank.

    The sums are views of the buckets' buffers, which the next :meth:`run` overwrites (as DDP's
    ``gradient_as_bucket_view``): a caller that keeps them past the step copies them."""

    def __init__(self, params: Sequence[torch.Tensor]) -> None:
        self.params = list(params)
        self.buckets: list[_Bucket] = []
        by_dtype: dict[torch.dtype, list[int]] = {}
        for i in reversed(range(len(self.params))):  # backward reaches the last variables first
            by_dtype.setdefault(self.params[i].dtype, []).append(i)
        for indices in by_dtype.values():
            current: list[int] = []
            size, cap = 0, FIRST_BUCKET_BYTES
            for i in indices:
                current.append(i)
                size += self.params[i].numel() * self.params[i].element_size()
                if size >= cap:
                    self.buckets.append(_Bucket(current, self.params))
                    current, size, cap = [], 0, BUCKET_BYTES
            if current:
                self.buckets.append(_Bucket(current, self.params))
        self.bucket_of = {i: b for b in self.buckets for i in b.indices}
        self.last_of = {b.flat_dtype: b for b in self.buckets}  # where riders of each dtype ride
        # The process group's own all-reduce, as DDP's reducer calls it: dist.all_reduce's Python checks and
        # logging cost a step more CPU than the launch itself.
        group = dist.group.WORLD
        if group is None:
            raise RuntimeError("GradientBuckets: torch.distributed has no default process group (init_process_group)")
        self.group = group
        self.sum = dist.AllreduceOptions()
        self.sum.reduceOp = dist.ReduceOp(dist.ReduceOp.SUM)
        # The last bucket in launch order starts when backward returns: only the others need gradient hooks.
        self.hooked = [i for b in self.buckets[:-1] for i in b.indices]

    def run(self, backward: Callable[[], Sequence[torch.Tensor | None]], riders: Sequence[torch.Tensor] = ()
            ) -> tuple[list[torch.Tensor | None], list[torch.Tensor]]:
        """``backward()``'s gradients of the variables (None: unused), each summed over the ranks, and the sums
        of ``riders``: tensors ready before backward, summed in the last bucket of their dtype (one collective
        fewer than their own all-reduce)."""
        buckets = self.buckets
        for b in buckets:
            b.pending, b.riders = len(b.indices), []
        seats = []  # each rider's bucket and place among that bucket's riders
        for r in riders:
            b = self.last_of[r.dtype]
            seats.append((b, len(b.indices) + len(b.riders)))
            b.riders.append(r)
        grads: list[torch.Tensor | None] = [None] * len(self.params)
        launched = 0
        handles = []
        if self.hooked:
            bucket_of = self.bucket_of

            def on_grad(i: int, g: torch.Tensor) -> None:
                nonlocal launched
                grads[i] = g
                bucket_of[i].pending -= 1
                while launched < len(buckets) and buckets[launched].pending == 0:  # in bucket order on every rank
                    self._launch(buckets[launched], grads)
                    launched += 1

            handles = [self.params[i].register_hook(functools.partial(on_grad, i)) for i in self.hooked]
        try:
            made = list(backward())
            if handles:
                for i, g in enumerate(made):  # the last bucket's, unused variables (no hook fired), any hooks missed
                    if grads[i] is None and g is not None:
                        grads[i] = g
            else:
                grads = list(made)
            for b in buckets[launched:]:
                self._launch(b, grads)
            for b in buckets:
                b.work.wait()
                # Hold no finished work past the step: a c10d work object that outlives its process group (kept
                # here until exit) can abort the interpreter at shutdown.
                b.work = None
        except BaseException:
            for b in buckets:  # an all-reduce may still be writing a launched bucket's buffer: make new ones
                b.work, b.layout, b.flat, b.views = None, None, None, []
            raise
        finally:
            for h in handles:
                h.remove()
        out: list[torch.Tensor | None] = [None] * len(self.params)
        for b in buckets:
            for i, view in zip(b.indices, b.views):
                if made[i] is not None:
                    out[i] = view
            b.riders = []
        return out, [b.views[k] for b, k in seats]

    def carries(self, dtype: torch.dtype) -> bool:
        """Whether a rider of ``dtype`` has a bucket to ride in."""
        return any(b.flat_dtype == dtype for b in self.buckets)

    def _launch(self, bucket: _Bucket, grads: list[torch.Tensor | None]) -> None:
        flat = bucket.fill([g if (g := grads[i]) is not None else torch.zeros_like(self.params[i])
                            for i in bucket.indices])
        bucket.work = self.group.allreduce([flat], self.sum)
