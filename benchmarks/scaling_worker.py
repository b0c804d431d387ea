"""One contender of benchmarks/scaling.py, in one process of a launch.

``scaling_worker.py flowtorch|ddp mlp|resnet OUT.json STEPS [cpu|cuda]``: the same model as a OneFlow job run by
``python -m flowtorch --nproc N`` (the consistent view: rank 0 feeds the logical batch), or hand-written
under ``torch.nn.parallel.DistributedDataParallel`` started by torchrun (each rank makes its own part of the
batch; batch norm uses each rank's own statistics in both, as OneFlow's devices did). On ``cuda`` DDP runs on
``cuda:<LOCAL_RANK>`` over nccl and flowtorch on its default device (CUDA, one GPU per process); on ``cpu``
(the default) DDP runs over gloo, and scaling.py gives flowtorch's launcher ``FLOWTORCH_DEVICE=cpu``.
flowtorch returns the whole logical loss every step (gathered, as OneFlow returned it); DDP fetches its rank's.
Rank 0 writes the images per second.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import torch

MODES = ("flowtorch", "ddp")
GLOBAL_BATCH = {"mlp": 128, "resnet": 32}
WARMUP = 20


def _oneflow_job(model: str):
    import oneflow as flow
    import oneflow.typing as tp

    batch = GLOBAL_BATCH[model]
    shape = (batch, 784) if model == "mlp" else (batch, 3, 32, 32)
    init = flow.random_normal_initializer(stddev=0.05)

    def conv_bn(x, filters, name, relu=True):
        y = flow.layers.conv2d(x, filters, 3, padding="SAME", use_bias=False, kernel_initializer=init, name=name)
        y = flow.layers.batch_normalization(y, axis=1, momentum=0.9, name=name + "_bn")
        return flow.nn.relu(y) if relu else y

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder(shape), y: tp.Numpy.Placeholder((batch,), dtype=flow.int32)) -> tp.Numpy:
        if model == "mlp":
            h = flow.layers.dense(x, 512, activation=flow.nn.relu, kernel_initializer=init, name="fc1")
        else:
            h = conv_bn(x, 16, "stem")
            for i in range(2):
                h = flow.nn.relu(h + conv_bn(conv_bn(h, 16, f"b{i}a"), 16, f"b{i}b", relu=False))
            h = flow.math.reduce_mean(h, axis=[2, 3])
        logits = flow.layers.dense(h, 10, kernel_initializer=init, name="out")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0.9).minimize(loss)
        return loss

    rng = np.random.RandomState(0)
    x = rng.randn(*shape).astype(np.float32)
    y = rng.randint(0, 10, batch).astype(np.int32)
    return lambda: float(train(x, y).mean())


class _Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1, bias=False), torch.nn.BatchNorm2d(16),
                                     torch.nn.ReLU())
        self.b = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1, bias=False), torch.nn.BatchNorm2d(16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.b(self.a(x)))


def ddp_device() -> torch.device:
    """The device of this rank's DDP replica: its GPU when the process group is nccl's, else the CPU."""
    if torch.distributed.get_backend() == "nccl":
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    return torch.device("cpu")


def _ddp_step(model: str):
    from torch.nn.parallel import DistributedDataParallel

    device = ddp_device()
    world = torch.distributed.get_world_size()
    batch = GLOBAL_BATCH[model] // world
    if model == "mlp":
        net = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
        x = torch.randn(batch, 784)
    else:
        net = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1, bias=False), torch.nn.BatchNorm2d(16),
                                  torch.nn.ReLU(), _Block(), _Block(), torch.nn.AdaptiveAvgPool2d(1),
                                  torch.nn.Flatten(), torch.nn.Linear(16, 10))
        x = torch.randn(batch, 3, 32, 32)
    y = torch.randint(0, 10, (batch,))
    net, x, y = net.to(device), x.to(device), y.to(device)
    net = DistributedDataParallel(net, device_ids=[device.index] if device.type == "cuda" else None)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def main() -> None:
    mode, model, out, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    device = sys.argv[5] if len(sys.argv) > 5 else "cpu"
    if mode == "ddp":
        if device == "cuda":
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        torch.distributed.init_process_group("nccl" if device == "cuda" else "gloo")
        step = _ddp_step(model)
    else:
        step = _oneflow_job(model)
    for _ in range(WARMUP):
        step()
    if torch.distributed.is_initialized():
        torch.distributed.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = time.perf_counter() - start
    if int(os.environ.get("RANK", "0")) == 0:
        with open(out, "w") as f:
            json.dump({"images_per_s": GLOBAL_BATCH[model] * steps / seconds, "ms_per_step": seconds / steps * 1e3}, f)
    if mode == "ddp":
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
