"""A OneFlow-style training program reading its batches with flow.data.ofrecord_reader, for
tests/dist/test_dist_readers.py: ``reader_worker.py DATA_DIR OUT.json``. Its reader is placed on two
devices, so one process reads as OneFlow's two devices did; on two processes each rank reads its own files."""

from __future__ import annotations

import json
import os
import sys

import oneflow as flow
import oneflow.typing as tp

data_dir, out_path = sys.argv[1], sys.argv[2]
rank = int(os.environ.get("RANK", "0"))
BATCH = 4


@flow.global_function(type="train")
def train() -> tp.Numpy:
    with flow.scope.placement("cpu", "0:0-1"):
        records = flow.data.ofrecord_reader(data_dir, batch_size=BATCH, data_part_num=2)
        x = flow.data.OFRecordRawDecoder(records, "x", shape=(2,), dtype=flow.float)
        ids = flow.data.OFRecordRawDecoder(records, "id", shape=(), dtype=flow.int32)
    seen.append(None)  # the body runs once
    pred = flow.layers.dense(x, 1, kernel_initializer=flow.constant_initializer(0.1), name="fit")
    target = flow.reshape(flow.cast(ids, flow.float), (BATCH, 1))
    loss = flow.math.square(pred - target * 0.5)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.001]), momentum=0).minimize(loss)
    flow.watch(ids, lambda v: seen.append(v.tolist()))
    return loss


config = flow.FunctionConfig()
config.train.num_gradient_accumulation_steps(2)


@flow.global_function(type="train", function_config=config)
def accumulated() -> tp.Numpy:
    # two micro-batches a call, one update: each micro-step's returns and gradients are its own, though the
    # gradient buckets' buffers are reused by the next micro-step
    with flow.scope.placement("cpu", "0:0-1"):
        records = flow.data.ofrecord_reader(data_dir, batch_size=BATCH, data_part_num=2)
        x = flow.data.OFRecordRawDecoder(records, "x", shape=(2,), dtype=flow.float)
        ids = flow.data.OFRecordRawDecoder(records, "id", shape=(), dtype=flow.int32)
    pred = flow.layers.dense(x, 1, kernel_initializer=flow.constant_initializer(0.1), name="acc")
    loss = flow.math.square(pred - flow.reshape(flow.cast(ids, flow.float), (BATCH, 1)) * 0.5)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.001]), momentum=0).minimize(loss)
    return loss


seen: list = []
losses = [train().ravel().tolist() for _ in range(5)]
accumulated_losses = [accumulated().ravel().tolist() for _ in range(3)]
if rank == 0:
    with open(out_path, "w") as f:
        plan = getattr(train.step, "plan", None)
        weights = flow.get_all_variables()
        json.dump({"losses": losses, "ids": seen[1:], "weight": weights["fit-weight"].numpy().tolist(),
                   "accumulated": accumulated_losses, "acc_weight": weights["acc-weight"].numpy().tolist(),
                   "local_inputs": None if plan is None else sorted(plan.local_inputs)}, f)
