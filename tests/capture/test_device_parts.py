"""A program that asked for N devices and runs in one process (no launcher): a job given N mirrored parts runs once
per part, as each of OneFlow's devices ran the job on its own part (v0.1.2's 1n2c tests); a train job's update
sums the parts' gradients, as the N processes of ``--nproc N`` do."""

from __future__ import annotations

from typing import Tuple

import numpy as np

import flowtorch as flow
import flowtorch.typing as tp


def test_a_predict_job_runs_each_device_part_on_its_own() -> None:
    flow.config.gpu_device_num(2)

    @flow.global_function()
    def per_device(x: tp.ListNumpy.Placeholder((4, 3))) -> Tuple[tp.ListNumpy, tp.ListNumpy]:
        return flow.math.abs(x), flow.math.reduce_sum(x, axis=[0])  # a reduce over each device's own rows

    parts = [np.array([[-1.0, 2.0, -3.0]], np.float32), np.arange(-6, 6, dtype=np.float32).reshape(4, 3)]
    absolute, sums = per_device(parts)
    assert len(absolute) == len(sums) == 2
    for got, part in zip(absolute, parts):
        np.testing.assert_array_equal(got, np.abs(part))
    for got, part in zip(sums, parts):
        np.testing.assert_array_equal(got, part.sum(axis=0))


def test_old_api_mirrored_defs_give_every_part() -> None:
    flow.config.gpu_device_num(2)
    config = flow.FunctionConfig()
    config.default_distribute_strategy(flow.distribute.mirrored_strategy())

    @flow.global_function(config)
    def relu(a=flow.MirroredTensorDef((5, 2))):
        return flow.math.relu(a)

    parts = [np.array([[-1.0], [2.0]], np.float32), np.array([[3.0, -4.0]], np.float32)]
    got = relu(parts).get().numpy_list()
    assert [g.shape for g in got] == [(2, 1), (1, 2)]
    for g, p in zip(got, parts):
        np.testing.assert_array_equal(g, np.maximum(p, 0))


def test_a_train_job_sums_the_parts_gradients_into_one_update() -> None:
    flow.config.gpu_device_num(2)

    @flow.global_function(type="train")
    def train(x: tp.ListNumpy.Placeholder((2,))) -> tp.ListNumpy:
        w = flow.get_variable("w", (2,), initializer=flow.ones_initializer())
        loss = x * w
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss

    x1, x2 = np.array([1.0, 2.0], np.float32), np.array([3.0, 5.0], np.float32)
    losses = train([x1, x2])
    np.testing.assert_array_equal(losses[0], x1)  # each device's loss with the weights before the update
    np.testing.assert_array_equal(losses[1], x2)
    # d loss / d w summed over the devices, OneFlow's 1/n over the 4 loss elements of both parts
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), 1 - 0.1 * (x1 + x2) / 4, rtol=1e-6)
