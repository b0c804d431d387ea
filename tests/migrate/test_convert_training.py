"""Checkpoints written by flowtorch's own model IO after training (dense + batch norm + Adam, so optimizer
slots and the train-step counter exist) survive conversion and load back with identical values."""

from __future__ import annotations

import os

import numpy as np
from test_convert import files_of

import flowtorch as flow
import flowtorch.checkpoint  # makes flow.checkpoint available, as `import oneflow` does
import flowtorch.train
import flowtorch.typing as tp
from flowtorch._src.io import checkpoint as ckpt
from flowtorch._src.migrate.convert import convert

RNG = np.random.default_rng(7)
X = RNG.standard_normal((8, 5)).astype(np.float32)
Y = RNG.integers(0, 3, 8).astype(np.int32)


def _declare_v03_job():
    """The v0.3 style: typing annotations, flow.optimizer.Adam."""

    @flow.global_function(type="train")
    def train_job(x: tp.Numpy.Placeholder((8, 5)), y: tp.Numpy.Placeholder((8,), dtype=flow.int32)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.5, seed=1)
        h = flow.layers.dense(x, 6, activation=flow.nn.relu, kernel_initializer=init, name="dense1")
        h = flow.layers.batch_normalization(h, axis=1, name="bn1")
        logits = flow.layers.dense(h, 3, kernel_initializer=init, name="dense2")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.01])).minimize(loss)
        return loss

    return train_job


def _declare_v01_job():
    """The v0.1 style: function config with train conf, FixedTensorDef, add_loss, ``.get()``."""
    cfg = flow.function_config()
    cfg.default_data_type(flow.float)
    cfg.train.primary_lr(0.01)
    cfg.train.model_update_conf({"adam_conf": {"beta1": 0.9}})

    @flow.global_function(cfg)
    def train_job(x=flow.FixedTensorDef((8, 5)), y=flow.FixedTensorDef((8,), dtype=flow.int32)):
        init = flow.random_normal_initializer(stddev=0.5, seed=1)
        h = flow.layers.dense(x, 6, activation=flow.nn.relu, kernel_initializer=init, name="dense1")
        h = flow.layers.batch_normalization(h, axis=1, name="bn1")
        logits = flow.layers.dense(h, 3, kernel_initializer=init, name="dense2")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.losses.add_loss(loss)
        return loss

    return train_job


def _values() -> dict[str, np.ndarray]:
    return {name: blob.numpy() for name, blob in ckpt.get_all_variables().items()}


def _assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert got.keys() == want.keys()
    for name, value in want.items():
        assert got[name].dtype == value.dtype and got[name].tobytes() == value.tobytes(), name


def test_trained_snapshot_converts_and_loads_back_identically(tmp_path) -> None:
    job = _declare_v03_job()
    for _ in range(2):
        job(X, Y)
    snap = str(tmp_path / "snap")
    flow.checkpoint.save(snap)
    trained = _values()
    assert {"bn1-moving_mean", "dense1-weight-m", "dense2-bias-v", "System-Train-TrainStep-train_job"} <= set(trained)
    next_loss = job(X, Y)  # the step a resumed run must reproduce

    for name in ("m.safetensors", "m.pt"):
        result = convert(snap, str(tmp_path / name))
        assert len(result.variables) == len(trained)
        back = str(tmp_path / f"back-{name.replace('.', '-')}")
        convert(str(tmp_path / name), back)
        assert files_of(back) == files_of(snap)

        flow.clear_default_session()
        job = _declare_v03_job()
        ckpt.load_variables(flow.checkpoint.get(back))
        _assert_same(_values(), trained)
        np.testing.assert_array_equal(job(X, Y), next_loss)


def test_legacy_era_snapshot_converts_with_like(tmp_path) -> None:
    flow.config.enable_legacy_model_io(True)
    job = _declare_v01_job()
    checkpoint = flow.train.CheckPoint()
    checkpoint.init()
    job(X, Y).get()
    legacy = str(tmp_path / "legacy")
    checkpoint.save(legacy)
    layout = str(tmp_path / "layout")
    flow.checkpoint.save(layout)  # the same variables with meta files
    trained = _values()
    assert all(os.listdir(os.path.join(legacy, n)) == ["out"] for n in trained)

    convert(legacy, str(tmp_path / "m.safetensors"), like=layout)
    convert(str(tmp_path / "m.safetensors"), str(tmp_path / "new"))
    assert files_of(tmp_path / "new") == files_of(layout)
    convert(str(tmp_path / "m.safetensors"), str(tmp_path / "legacy-again"), legacy=True)
    assert files_of(tmp_path / "legacy-again") == files_of(legacy)

    flow.clear_default_session()
    flow.config.enable_legacy_model_io(True)
    _declare_v01_job()
    flow.train.CheckPoint().load(str(tmp_path / "legacy-again"))
    _assert_same(_values(), trained)
