"""OneFlow's mirrored view (``tp.ListNumpy``: one array per device) for tests/dist/test_data_parallel.py.

Every rank is handed the whole list and takes its own part; results come back as one part per device and a
watch sees the parts merged. ``mirrored_worker.py OUT.json`` writes what rank 0 saw.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np
import oneflow as flow
import oneflow.typing as tp
import torch

rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
torch.manual_seed(10 + rank)  # different initial values per rank: the build makes them equal
BATCH = 8
PER = BATCH // world
seen: list = []


def config():
    cfg = flow.function_config()
    cfg.default_logical_view(flow.scope.mirrored_view())
    return cfg


@flow.global_function(type="train", function_config=config())
def train_job(images: tp.ListNumpy.Placeholder((PER, 6)),
              labels: tp.ListNumpy.Placeholder((PER,), dtype=flow.int32)) -> tp.ListNumpy:
    init = flow.random_normal_initializer(stddev=0.5)
    hidden = flow.layers.dense(images, 7, activation=flow.nn.relu, name="dense1", kernel_initializer=init)
    flow.watch(hidden, lambda h: seen.append(h.tolist()))
    logits = flow.layers.dense(hidden, 3, name="dense2", kernel_initializer=init)
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
    return loss


@flow.global_function(function_config=config())
def relu_parts(a: tp.ListNumpy.Placeholder((5, 2))):
    return flow.nn.relu(a)  # the old API's future: .get().numpy_list() holds every device's part


rng = np.random.RandomState(0)
parts, losses = [], []
for _ in range(3):
    x = rng.randn(BATCH, 6).astype(np.float32)
    y = rng.randint(0, 3, BATCH).astype(np.int32)
    out = train_job([x[r * PER:(r + 1) * PER] for r in range(world)], [y[r * PER:(r + 1) * PER] for r in range(world)])
    parts.append(len(out))
    losses.append(np.concatenate(out).tolist())
dynamic = [rng.randn(3 + r, 1 + r % 2).astype(np.float32) for r in range(world)]  # parts of different shapes
got = relu_parts(dynamic).get().numpy_list()
dynamic_ok = len(got) == world and all(np.array_equal(g, np.maximum(d, 0)) for g, d in zip(got, dynamic))
final = {k: v.numpy().tolist() for k, v in sorted(flow.get_all_variables().items())}
with tempfile.TemporaryDirectory() as tmp:  # a different path on every rank: rank 0's is the one read
    flow.checkpoint.save(os.path.join(tmp, "snap"))
    got_names = sorted(flow.checkpoint.get(os.path.join(tmp, "snap")))
# OneFlow loaded once: values given on rank 0 alone (a per-process temporary path, say) reach every rank
flow.load_variables({"dense2-bias": np.array([1.0, 2.0, 3.0], np.float32)} if rank == 0 else {})
bias = flow.get_all_variables()["dense2-bias"].numpy()
if world > 1:
    import torch.distributed as dist
    seen_bias = [None] * world
    dist.all_gather_object(seen_bias, bias.tolist())
else:
    seen_bias = [bias.tolist()]
if rank == 0:
    with open(sys.argv[1], "w") as f:
        json.dump({"got_names": got_names, "loaded_on_rank0": seen_bias, "dynamic_ok": dynamic_ok, "parts": parts,
                   "losses": losses, "seen": seen, "final": final}, f)
