"""The pipeline's copies: private at the call and after the step, pinned buffers reused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from flowtorch._src.runtime import transfer

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def test_host_transfer_copies_outputs_after_the_step() -> None:
    pipe = transfer.HostTransfer()
    array = np.arange(6, dtype=np.float32)
    staged = pipe.stage(torch.from_numpy(array))  # the step reads it before the call returns: not copied
    moved, release = pipe.to_device([staged])
    assert release is None
    np.testing.assert_array_equal(moved[0].numpy(), np.arange(6))
    out = moved[0] * 2
    host = pipe.to_host([out, None])
    out.fill_(0.0)  # the next step writes the same storage
    host.wait()
    np.testing.assert_array_equal(host.values[0].numpy(), np.arange(6) * 2)
    assert host.values[1] is None


def test_the_pool_reuses_buffers_by_shape_and_dtype() -> None:
    pool = transfer.PinnedPool(pin=False)  # the CPU stand-in for pinned memory
    for _ in range(100):  # a ring: at most 3 steps in flight
        held = [pool.take((4, 3), torch.float32) for _ in range(3)]
        pool.give(held)
    assert pool.allocated == 3
    other = pool.take((4, 3), torch.int32)
    assert other.dtype == torch.int32 and pool.allocated == 4


@cuda
def test_cuda_transfer_round_trip_through_pinned_buffers_and_events() -> None:
    pipe = transfer.CudaTransfer("cuda")
    results = []
    for i in range(20):
        staged = pipe.stage(torch.full((8, 5), float(i)))
        assert staged.is_pinned()
        moved, release = pipe.to_device([staged])
        out = moved[0] * 2 + 1
        host = pipe.to_host([out], release)
        out.fill_(-7.0)  # ordered after the copy: the compute stream waits for it
        results.append(host)
    for i, host in enumerate(results):
        host.wait()
        np.testing.assert_array_equal(host.values[0].numpy(), np.full((8, 5), 2.0 * i + 1))
        host.release()
    assert pipe.pool.allocated <= 40  # 20 inputs and 20 outputs at most, reused from now on
