"""function_config().train.num_gradient_accumulation_steps(n): n micro-steps per call, each with the next
batch of the job's data loader, one update with the mean gradient, returns packed along axis 0."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

SEQ = 4
LR = 0.01


pytestmark = pytest.mark.usefixtures("in_process")


def tokens(tmp_path: Path) -> str:
    """A Megatron MMIDIDX v1 dataset (uint16 tokens), one sequence per document."""
    docs = [np.arange(k, k + 7, dtype=np.uint16) % 13 for k in range(0, 60, 7)]
    prefix = tmp_path / "tok"
    Path(f"{prefix}.bin").write_bytes(b"".join(d.tobytes() for d in docs))
    sizes = np.array([len(d) for d in docs], "<i4")
    offsets = np.concatenate([[0], np.cumsum(sizes * 2)[:-1]]).astype("<i8")
    header = b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, 8, len(docs), len(docs) + 1)
    Path(f"{prefix}.idx").write_bytes(header + sizes.tobytes() + offsets.tobytes()
                                      + np.arange(len(docs) + 1, dtype="<i8").tobytes())
    return str(prefix)


def samples(prefix: str, batch: int) -> np.ndarray:
    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.data.megatron_gpt_mmap_data_loader(prefix, SEQ, 64, batch, shuffle=False)
    out = read()
    flow.clear_default_session()
    return out.astype(np.float64)


def train_job(prefix: str, batch: int, steps: int | None, seen: list) -> object:
    cfg = flow.function_config()
    if steps is not None:
        assert hasattr(cfg.train, "num_gradient_accumulation_steps")
        cfg.train.num_gradient_accumulation_steps(steps)

    @flow.global_function("train", cfg)
    def job() -> tp.Numpy:
        x = flow.cast(flow.data.megatron_gpt_mmap_data_loader(prefix, SEQ, 64, batch, shuffle=False), flow.float)
        w = flow.get_variable("w", shape=(SEQ + 1, 1), initializer=flow.constant_initializer(0.01))
        err = flow.matmul(x, w) - 1.0
        loss = flow.math.reduce_mean(err * err)
        flow.watch(loss, lambda v: seen.append(v.numpy().copy()))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(loss)
        return loss
    return job


def test_accumulated_call_updates_once_with_the_mean_gradient(tmp_path):
    prefix = tokens(tmp_path)
    x = samples(prefix, 4)  # the 4 samples the two micro-steps of 2 read
    seen: list = []
    job = train_job(prefix, 2, 2, seen)
    losses = job()
    w0 = np.full((SEQ + 1, 1), 0.01)
    per_sample = ((x @ w0 - 1.0) ** 2).ravel()
    np.testing.assert_allclose(losses, [per_sample[:2].mean(), per_sample[2:].mean()], rtol=1e-5)
    assert [v.shape for v in seen] == [(1,), (1,)]  # the watch fires once per micro-step
    grad = (2 * (x @ w0 - 1.0) * x).mean(axis=0).reshape(-1, 1)  # mean over all 4 samples
    store = default_session().variables
    np.testing.assert_allclose(store["w"].numpy(), w0 - LR * grad, rtol=1e-5)
    assert store["System-Train-TrainStep-job"].numpy().tolist() == [1]
    second = job()  # the next call reads samples 4..7
    x8 = samples_after(prefix)
    w1 = w0 - LR * grad
    np.testing.assert_allclose(second, [((x8[4:6] @ w1 - 1) ** 2).mean(), ((x8[6:8] @ w1 - 1) ** 2).mean()], rtol=1e-5)


def samples_after(prefix: str) -> np.ndarray:
    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.data.megatron_gpt_mmap_data_loader(prefix, SEQ, 64, 8, shuffle=False)
    return read().astype(np.float64)


def test_accumulation_matches_one_step_on_the_whole_batch(tmp_path):
    prefix = tokens(tmp_path)
    train_job(prefix, 2, 3, [])()
    accumulated = default_session().variables["w"].numpy()
    flow.clear_default_session()
    train_job(prefix, 6, None, [])()
    np.testing.assert_allclose(accumulated, default_session().variables["w"].numpy(), rtol=1e-5)


def test_accumulation_option_checks_and_scope():
    cfg = flow.function_config()
    with pytest.raises(AssertionError, match="takes a positive int"):
        cfg.train.num_gradient_accumulation_steps(0)
    cfg.train.num_gradient_accumulation_steps(2)

    @flow.global_function("train", cfg)
    def fed(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        w = flow.get_variable("v", shape=(2,), initializer=flow.zeros_initializer())
        loss = flow.math.reduce_sum(x * w)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss
    # refused before the job builds anything, so a second call refuses again instead of running n
    # micro-steps on the same array, and no variable or optimizer state was created
    for _ in range(2):
        with pytest.raises(NotImplementedError, match="with fed placeholder arguments is not supported"):
            fed(np.ones(2, np.float32))
    assert "v" not in default_session().variables
    assert not any(name.startswith("System-Train-TrainStep") for name in default_session().variables)
    flow.clear_default_session()

    @flow.global_function("predict", cfg)  # OneFlow's pass rewrites train jobs only
    def predict(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x * 2.0
    np.testing.assert_array_equal(predict(np.ones(2, np.float32)), [2.0, 2.0])

