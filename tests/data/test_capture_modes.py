"""A job fed by its data pipeline gives eager's numbers when its step is compiled (FLOWTORCH_CAPTURE=compile)
or replayed from a CUDA graph (emulated on CPU, as in tests/step/test_cuda_graph.py): fed values are
ordinary step inputs, copied into the graph's static buffers on every call."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers.data import float_feature, int_feature, write_dataset

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.step import graphed
from flowtorch.core.record import record_pb2

B, D, C, STEPS = 4, 5, 3, 8


@pytest.fixture
def data_dir(tmp_path):
    rng = np.random.default_rng(0)
    recs = [record_pb2.OFRecord(feature={"x": float_feature(*rng.standard_normal(D)), "y": int_feature(k % C)})
            for k in range(10)]
    return write_dataset(tmp_path / "ds", [recs[:6], recs[6:]])


def run(monkeypatch, data_dir, mode):
    monkeypatch.setenv("FLOWTORCH_CAPTURE", mode)
    monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "aot_eager")
    flow.clear_default_session()
    torch.manual_seed(0)

    @flow.global_function(type="train")
    def train() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=B, data_part_num=2, random_shuffle=True,
                                      shuffle_buffer_size=4, seed=5)
        x = flow.data.OFRecordRawDecoder(r, "x", shape=(D,), dtype=flow.float)
        y = flow.data.OFRecordRawDecoder(r, "y", shape=(), dtype=flow.int32)
        scale = flow.cast(flow.random.CoinFlip(batch_size=B, seed=9), flow.float) + 1.0
        w = flow.get_variable("w", shape=(D, C), initializer=flow.random_normal_initializer(seed=3))
        logits = flow.matmul(x * flow.reshape(scale, (B, 1)), w)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
        return loss

    losses = [train() for _ in range(STEPS)]
    return np.stack(losses), flow.get_all_variables()["w"].numpy(), train


@pytest.mark.parametrize("mode", ["compile", "cuda_graph"])
def test_data_fed_job_under_capture_equals_eager(monkeypatch, data_dir, mode):
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    eager_losses, eager_w, _ = run(monkeypatch, data_dir, "eager")
    losses, w, job = run(monkeypatch, data_dir, mode)
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w, eager_w, rtol=1e-6, atol=1e-7)
    assert len(set(np.round(losses[:, 0], 6))) > 1  # a new batch each step
    if mode == "cuda_graph":
        g = job.step.graphed
        assert not g.disabled and len(g.graphs) == 1
    else:
        assert job.step.forward is not job.step.module  # still compiled: no fallback
