"""GradientBuckets (dist/collectives.py), DDP's reducer for a step's variables, on 2 gloo processes: the sums are
exact whatever the buckets, unused variables stay None, dtypes never share a bucket, the buckets' all-reduces
are issued in one order on every rank even when backward makes the gradients in a different order, and later
steps on the same (reused) buffers, after one that failed, sum their own gradients and riders."""

from __future__ import annotations

import os
import socket

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from flowtorch._src.dist import collectives

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) stand-in; CUDA runs use nccl")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, port: int, queue) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    try:
        collectives.FIRST_BUCKET_BYTES, collectives.BUCKET_BYTES = 64, 100  # many small buckets
        gen = torch.Generator().manual_seed(rank)
        params = [torch.randn(n, generator=gen, requires_grad=True) for n in (10, 40, 3, 70, 5)]
        params.append(torch.randn(4, dtype=torch.float64, generator=gen, requires_grad=True))
        unused = torch.randn(6, generator=gen, requires_grad=True)
        params.insert(2, unused)
        x = torch.randn(8, generator=gen)
        # rank 1 uses its variables in another order, so its backward makes their gradients in another order
        order = range(len(params)) if rank == 0 else reversed(range(len(params)))
        loss = sum((p * x.sum()).square().sum() * (i + 1) for i in order for p in [params[i]] if p is not unused)
        buckets = collectives.GradientBuckets(params)
        assert len(buckets.buckets) > 3
        summed, _ = buckets.run(lambda: torch.autograd.grad(loss, params, allow_unused=True))
        local = torch.autograd.grad(sum((p * x.sum()).square().sum() * (i + 1) for i, p in enumerate(params)
                                        if p is not unused), [p for p in params if p is not unused])
        everyone = [None, None]
        dist.all_gather_object(everyone, [g.tolist() for g in local])
        first = [None if g is None else g.tolist() for g in summed]

        def fails_after_backward() -> list:  # the hooked buckets' all-reduces start, then the step fails
            torch.autograd.grad((params[0] * x.sum()).sum() + sum(p.sum() for p in params[1:] if p is not unused),
                                [p for p in params if p is not unused])
            raise RuntimeError("a failing step")
        try:
            buckets.run(fails_after_backward)
        except RuntimeError as exc:
            assert "a failing step" in str(exc)
        else:
            raise AssertionError("the failing step did not raise")
        # a second step runs on the same buckets' buffers, now with riders in the last float32 and float64 buckets
        again = [(p * (rank + 2.0)).sum() for p in params if p is not unused]
        riders = [torch.full((3,), rank + 1.0), torch.arange(2, dtype=torch.float64) * (rank + 1)]
        second, rode = buckets.run(lambda: torch.autograd.grad(sum(again), params, allow_unused=True), riders)
        queue.put((rank, first, everyone, [{p.dtype for p in (params[i] for i in b.indices)} for b in buckets.buckets],
                   [None if g is None else g.tolist() for g in second], [r.tolist() for r in rode]))
    finally:
        dist.destroy_process_group()


def test_buckets_sum_every_ranks_gradients_in_one_order():
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    mp.spawn(_worker, args=(_free_port(), queue), nprocs=2, join=True)
    results = {r: rest for r, *rest in (queue.get(timeout=60) for _ in range(2))}
    for rank in (0, 1):
        summed, everyone, dtypes, second, rode = results[rank]
        # d/dp of sum(p * (rank + 2)) summed over ranks 0 and 1: 2 + 3 everywhere
        assert second[2] is None
        for got, p_size in zip([g for g in second if g is not None], (10, 40, 3, 70, 5, 4)):
            assert got == [5.0] * p_size
        assert rode == [[3.0] * 3, [0.0, 3.0]]
        assert summed[2] is None  # the unused variable
        used = [g for g in summed if g is not None]
        for got, a, b in zip(used, everyone[0], everyone[1]):
            torch.testing.assert_close(torch.tensor(got), torch.tensor(a) + torch.tensor(b))
        assert all(len(d) == 1 for d in dtypes)
    assert results[0][0] == results[1][0]  # both ranks hold the same sums
