"""A OneFlow-style data-parallel program for tests/dist/test_data_parallel.py, run on 1, 2 or 4 processes.

Rank 0's arrays are the logical batch; the other ranks feed the same arrays (``DP_SAME_DATA=1``) or, with
``FLOWTORCH_DIST_FEED=rank0``, different ones; their variables start from different random values, so that only a
correct split, broadcast and gradient sum gives one process's numbers. Writes what rank 0 saw as JSON:
``dp_worker.py OUT.json [LOAD_DIR] [SAVE_DIR]``.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import oneflow as flow
import oneflow.typing as tp
import torch

out_path = sys.argv[1]
load_dir = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
save_dir = sys.argv[3] if len(sys.argv) > 3 else None
rank = int(os.environ.get("RANK", "0"))
torch.manual_seed(100 + rank)  # different initial values on every rank: build must make them equal

seen: dict[str, list] = {"hidden": [], "d_logits": [], "d_weight": [], "d_split": []}
BATCH, FEATURES, CLASSES = 8, 12, 7  # CLASSES + 1 units split over 1, 2 or 4 ranks


def mlp(x, name: str):
    init = flow.random_normal_initializer(stddev=0.3)
    hidden = flow.layers.dense(x, 16, activation=flow.nn.relu, name=f"{name}_hidden", kernel_initializer=init)
    return hidden, flow.layers.dense(hidden, CLASSES, name=f"{name}_out", kernel_initializer=init)


@flow.global_function(type="train")
def per_sample(x: tp.Numpy.Placeholder((BATCH, FEATURES)),
               y: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
    hidden, logits = mlp(x, "a")
    flow.watch(hidden, lambda v: seen["hidden"].append(v.tolist()))
    flow.watch_diff(logits, lambda g: seen["d_logits"].append(g.tolist()))
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
    return loss


@flow.global_function(type="train")
def batch_mean(x: tp.Numpy.Placeholder((BATCH, FEATURES)),
               y: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
    _, logits = mlp(x, "b")
    loss = flow.math.reduce_mean(flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    weight = flow.get_variable("b_out-weight", shape=(CLASSES, 16))
    flow.watch_diff(weight, lambda g: seen["d_weight"].append(g.tolist()))
    flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.01])).minimize(loss)
    return loss


@flow.global_function(type="train")
def conv_bn(x: tp.Numpy.Placeholder((BATCH, 2, 5, 5)),
            y: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
    # a ResNet-style block: as on OneFlow's devices, each rank's batch norm uses its own part's statistics
    init = flow.random_normal_initializer(stddev=0.3)
    conv = flow.layers.conv2d(x, 4, 3, padding="SAME", name="c_conv", kernel_initializer=init)
    normed = flow.layers.batch_normalization(conv, axis=1, momentum=0.9, name="c_bn")
    block = flow.nn.relu(normed + conv)
    logits = flow.layers.dense(flow.reshape(block, (BATCH, -1)), CLASSES, name="c_out", kernel_initializer=init)
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0.9).minimize(loss)
    return loss


@flow.global_function(type="train")
def hybrid(x: tp.Numpy.Placeholder((BATCH, FEATURES)),
           y: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
    # hybrid_parallelism_mlp.py's layout: the output layer's units split over the devices
    init = flow.random_normal_initializer(stddev=0.3)
    hidden = flow.layers.dense(x, 16, activation=flow.nn.relu, name="h_hidden", kernel_initializer=init)
    logits = flow.layers.dense(hidden, CLASSES + 1, name="h_out", kernel_initializer=init,
                               model_distribute=flow.distribute.split(axis=0))
    flow.watch_diff(flow.get_variable("h_out-weight", shape=(CLASSES + 1, 16)),
                    lambda g: seen["d_split"].append(g.tolist()))
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
    return loss


@flow.global_function(type="train")
def later(x: tp.Numpy.Placeholder((BATCH, FEATURES)),
          y: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Callback[tp.Numpy]:
    # results delivered after later steps ran: each must be its own step's (the gradient buckets are reused)
    _, logits = mlp(x, "e")
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
    return loss


@flow.global_function()
def predict(x: tp.Numpy.Placeholder((BATCH, FEATURES))) -> tp.Numpy:
    return flow.nn.softmax(mlp(x, "a")[1])


def variables() -> dict[str, list]:
    return {k: v.numpy().tolist() for k, v in sorted(flow.get_all_variables().items())}


if load_dir:
    flow.load_variables(flow.checkpoint.get(load_dir))
loaded = variables()
# rank 0's data is the logical batch: the others draw the same (DP_SAME_DATA=1, each rank slicing its own copy) or,
# with FLOWTORCH_DIST_FEED=rank0, something else that must be ignored for rank 0's, which is sent
rng = np.random.RandomState(7 + (0 if os.environ.get("DP_SAME_DATA") else 1000 * rank))
losses = {"per_sample": [], "batch_mean": [], "conv_bn": [], "hybrid": [], "later": []}
for _ in range(4):
    x = rng.randn(BATCH, FEATURES).astype(np.float32)
    y = rng.randint(0, CLASSES, BATCH).astype(np.int32)
    losses["per_sample"].append(per_sample(x, y).tolist())
    losses["batch_mean"].append(batch_mean(x, y).tolist())
    losses["conv_bn"].append(conv_bn(rng.randn(BATCH, 2, 5, 5).astype(np.float32), y).tolist())
    losses["hybrid"].append(hybrid(x, y).tolist())
    later(x, y)(lambda loss: losses["later"].append(loss.tolist()))
flow.sync_default_session()
probs = predict(np.random.RandomState(3).randn(BATCH, FEATURES).astype(np.float32)).tolist()
if save_dir:
    flow.checkpoint.save(save_dir)
if rank == 0:
    with open(out_path, "w") as f:
        plan = getattr(hybrid.step, "plan", None)  # the ops the split graph runs whole (None on one process)
        json.dump({"loaded": loaded, "losses": losses, "probs": probs, "final": variables(),
                   "hybrid_whole_ops": None if plan is None else plan.gathered_ops, **seen}, f)
