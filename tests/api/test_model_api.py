"""``flow.model.*`` (v0.4.0's ``Model.fit``, lazy style): jobs built from a Model's steps, fed by a
NumpyDataModule or a DataModule, callbacks at the right steps, snapshots saved and loaded; each step's
numbers checked against a numpy replay of the same SGD."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.checkpoint
import flowtorch.model

LR = 0.1
W0 = np.array([[0.5], [-0.25], [1.0]], dtype=np.float32)
B0 = np.array([0.125], dtype=np.float32)
W_TRUE = np.array([[1.5], [2.0], [-1.0]], dtype=np.float32)


def batch_for(step_idx: int, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """A different batch per step, so feeding the wrong step's batch shows in the losses."""
    rng = np.random.default_rng(100 + step_idx)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = (x @ W_TRUE + 0.5).astype(np.float32)
    return x, y


def sgd_replay(w: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray, lr: float = LR
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-sample squared errors and one SGD step on their mean (OneFlow scales a (N,) loss's gradient by 1/N)."""
    w64, b64 = w.astype(np.float64), b.astype(np.float64)
    err = x @ w64 + b64 - y
    loss = (err**2).reshape(-1)
    grad_w = 2 * x.T @ err / len(x)
    grad_b = 2 * err.sum(axis=0) / len(x)
    return loss, w64 - lr * grad_w, b64 - lr * grad_b


class Regression(flow.model.Model):
    def __init__(self, lr: float = LR, **kwargs):
        super().__init__(is_deprecated_function_style=True, **kwargs)
        self.lr = lr

    def forward(self, x):
        w = flow.get_variable("w", shape=(3, 1), initializer=flow.constant_initializer(0.0))
        b = flow.get_variable("b", shape=(1,), initializer=flow.constant_initializer(0.0))
        return flow.matmul(x, w) + b

    def training_step(self, batch, optimizer_idx):
        assert optimizer_idx == 0
        x, y = batch
        pred = self(x)
        loss = flow.reshape(flow.math.square(pred - y), (-1,))
        return loss, pred

    def validation_step(self, batch):
        x, _ = batch
        return self(x)

    def configure_optimizers(self):
        return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [self.lr]), momentum=0)


class Batches(flow.model.NumpyDataModule):
    def __init__(self):
        super().__init__()
        self.calls: list[tuple[int, int]] = []

    def forward(self, step_idx, optimizer_idx):
        self.calls.append((step_idx, optimizer_idx))
        return batch_for(step_idx)


class Recorder(flow.model.Callback):
    def __init__(self):
        self.train: list[tuple[int, int, object]] = []
        self.val: list[tuple[int, object]] = []

    def on_training_step_end(self, step_idx, outputs, optimizer_idx):  # v0.4 callers pass keywords
        self.train.append((step_idx, optimizer_idx, outputs))

    def on_validation_step_end(self, step_idx, outputs):
        self.val.append((step_idx, outputs))


def training_config(data: flow.model.DataModule) -> flow.model.TrainingConfig:
    cfg = flow.model.TrainingConfig()
    exe = flow.ExecutionConfig()
    exe.default_data_type(flow.float)
    cfg.config_execution(exe)
    cfg.config_data(data)
    return cfg


def snapshot_of(w: np.ndarray, b: np.ndarray, path: str) -> str:
    """A snapshot holding ``w`` and ``b``, written by a throwaway job's session."""
    @flow.global_function()
    def make() -> flow.typing.Numpy:
        return flow.get_variable("w", shape=(3, 1), initializer=flow.zeros_initializer()) + \
            flow.get_variable("b", shape=(1,), initializer=flow.zeros_initializer())

    flow.load_variables({"w": w, "b": b})
    flow.checkpoint.save(path)
    flow.clear_default_session()
    return path


@pytest.fixture
def start_snapshot(tmp_path) -> str:
    return snapshot_of(W0, B0, str(tmp_path / "start"))


def replay(steps: int, w: np.ndarray = W0, b: np.ndarray = B0):
    """Per step: (loss, w, b after the step), from numpy."""
    out = []
    for step in range(steps):
        loss, w, b = sgd_replay(w, b, *batch_for(step))
        out.append((loss, w, b))
    return out


def test_top_level_names():
    assert flow.Model is flow.model.Model
    assert flow.ExecutionConfig is flow.FunctionConfig
    assert issubclass(flow.model.NumpyDataModule, flow.model.DataModule)


def test_fit_trains_with_numpy_batches_like_sgd(start_snapshot):
    data, rec = Batches(), Recorder()
    ck = flow.model.CheckpointConfig()
    ck.config_load(dirpath=start_snapshot)
    Regression().fit(training_config=training_config(data), checkpoint_config=ck, callbacks=rec, max_steps=5)

    expected = replay(5)
    assert [(s, o) for s, o, _ in rec.train] == [(i, 0) for i in range(5)]
    w, b = W0, B0
    for (step, _, outputs), (loss, w_next, b_next) in zip(rec.train, expected):
        got_loss, got_pred = outputs
        np.testing.assert_allclose(got_loss.numpy(), loss, rtol=1e-5, atol=1e-5)
        x, _ = batch_for(step)
        np.testing.assert_allclose(got_pred.numpy(), x @ w + b, rtol=1e-5, atol=1e-5)
        w, b = w_next, b_next
    final = flow.get_all_variables()
    np.testing.assert_allclose(final["w"].numpy(), expected[-1][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(final["b"].numpy(), expected[-1][2], rtol=1e-5, atol=1e-6)
    # the first batch (drawn to type the job) is fed at step 0; later steps ask for their own
    assert data.calls == [(i, 0) for i in range(5)]


def test_validation_runs_after_every_interval_with_updated_weights(start_snapshot):
    rec = Recorder()
    val = flow.model.ValidationConfig()
    val.config_data(Batches())
    val.config_step_interval(3)
    ck = flow.model.CheckpointConfig()
    ck.config_load(dirpath=start_snapshot)
    Regression().fit(training_config=training_config(Batches()), validation_config=val, checkpoint_config=ck,
                     callbacks=[rec], max_steps=7)

    assert [s for s, _ in rec.val] == [2, 5]
    expected = replay(7)
    for step, outputs in rec.val:
        _, w, b = expected[step]  # validation follows the step's update
        x, _ = batch_for(step)
        np.testing.assert_allclose(outputs.numpy(), x @ w + b, rtol=1e-5, atol=1e-5)


def test_validation_only(start_snapshot):
    rec = Recorder()
    val = flow.model.ValidationConfig()
    val.config_data(Batches())
    val.config_step_interval(1)
    ck = flow.model.CheckpointConfig()
    ck.config_load(dirpath=start_snapshot)
    Regression().fit(validation_config=val, checkpoint_config=ck, callbacks=rec, max_steps=2)
    assert rec.train == [] and [s for s, _ in rec.val] == [0, 1]
    for step, outputs in rec.val:
        x, _ = batch_for(step)
        np.testing.assert_allclose(outputs.numpy(), x @ W0 + B0, rtol=1e-6)


def test_checkpoints_saved_at_interval_and_loaded(tmp_path, start_snapshot):
    save_to = str(tmp_path / "run")
    ck = flow.model.CheckpointConfig()
    ck.config_load(dirpath=start_snapshot)
    ck.config_save(dirpath=save_to, step_interval=2)
    Regression().fit(training_config=training_config(Batches()), checkpoint_config=ck, max_steps=5)

    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("run")) == ["run-1", "run-3"]
    expected = replay(5)
    for step in (1, 3):
        saved = flow.checkpoint.get(f"{save_to}-{step}")
        np.testing.assert_allclose(saved["w"].numpy(), expected[step][1], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(saved["b"].numpy(), expected[step][2], rtol=1e-5, atol=1e-6)

    # a new fit loading run-3 starts where step 3 ended
    rec = Recorder()
    again = flow.model.CheckpointConfig()
    again.config_load(dirpath=f"{save_to}-3")
    Regression().fit(training_config=training_config(Batches()), checkpoint_config=again, callbacks=rec,
                     max_steps=1)
    loss, _, _ = sgd_replay(expected[3][1], expected[3][2], *batch_for(0))
    np.testing.assert_allclose(rec.train[0][2][0].numpy(), loss, rtol=1e-5, atol=1e-5)


class TwoParts(flow.model.Model):
    """Two optimizers, two train jobs: job 0 fits ``a``, job 1 fits ``c`` (each its own rate and batch)."""

    def forward(self, x):
        return x

    def training_step(self, batch, optimizer_idx):
        (x,) = batch
        name = "a" if optimizer_idx == 0 else "c"
        v = flow.get_variable(name, shape=(1,), initializer=flow.constant_initializer(1.0))
        return flow.math.square(x * v - 3.0)

    def configure_optimizers(self):
        return [flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0)
                for lr in (0.01, 0.02)]


class PerOptimizer(flow.model.NumpyDataModule):
    def forward(self, step_idx, optimizer_idx):
        return (np.full((4,), 1.0 + step_idx + optimizer_idx, dtype=np.float32),)


def test_one_train_job_per_optimizer_in_order():
    rec = Recorder()
    TwoParts(is_deprecated_function_style=True).fit(training_config=training_config(PerOptimizer()),
                                                    callbacks=rec, max_steps=3)
    assert [(s, o) for s, o, _ in rec.train] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    values = {0: 1.0, 1: 1.0}
    for step, opt, outputs in rec.train:
        x = 1.0 + step + opt
        np.testing.assert_allclose(outputs.numpy(), np.full(4, (x * values[opt] - 3.0) ** 2), rtol=1e-5)
        values[opt] -= (0.01, 0.02)[opt] * 2 * (x * values[opt] - 3.0) * x  # mean over 4 equal samples
    final = flow.get_all_variables()
    np.testing.assert_allclose(final["a"].numpy(), [values[0]], rtol=1e-5)
    np.testing.assert_allclose(final["c"].numpy(), [values[1]], rtol=1e-5)


def constant_batch() -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(24, dtype=np.float32).reshape(8, 3) * 0.1 - 1.0
    return x, x.sum(axis=1, keepdims=True) + 0.5


class Constants(flow.model.DataModule):
    """A DataModule builds its batch inside the job: here from graph ops (no files needed)."""

    def forward(self, step_idx=0, optimizer_idx=0):
        x = flow.reshape(flow.cast(flow.range(24), flow.float), (8, 3)) * 0.1 - 1.0
        return x, flow.math.reduce_sum(x, axis=1, keepdims=True) + 0.5


def test_data_module_batches_are_built_in_the_job(start_snapshot):
    rec = Recorder()
    ck = flow.model.CheckpointConfig()
    ck.config_load(dirpath=start_snapshot)
    Regression().fit(training_config=training_config(Constants()), checkpoint_config=ck, callbacks=rec,
                     max_steps=3)
    assert len(rec.train) == 3
    w, b = W0, B0
    for _, _, (loss, _) in rec.train:
        expected, w, b = sgd_replay(w, b, *constant_batch())
        np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-5, atol=1e-5)


# -------------------------------------------------------------------------------------------- bad configs


def test_default_style_is_the_eager_one_and_refused():
    class Eager(Regression):
        def __init__(self):
            flow.model.Model.__init__(self)

    with pytest.raises(NotImplementedError, match="is_deprecated_function_style=True"):
        Eager().fit(training_config=training_config(Batches()), max_steps=1)


def test_invalid_training_configs():
    cfg = flow.model.TrainingConfig()
    assert not cfg.check_valid() and "data is None" in cfg.error_msg
    with pytest.raises(ValueError, match="training_config is not valid: model.TrainingConfig data is None"):
        Regression().fit(training_config=cfg, max_steps=1)
    cfg.config_data(Batches())
    cfg.config_execution("not a config")
    with pytest.raises(ValueError, match="exe_cfg is not ExecutionConfig"):
        Regression().fit(training_config=cfg, max_steps=1)
    with pytest.raises(ValueError, match="training_config must be a model.TrainingConfig; received "
                                         "ValidationConfig"):
        Regression().fit(training_config=flow.model.ValidationConfig(), max_steps=1)


def test_invalid_validation_and_checkpoint_configs():
    val = flow.model.ValidationConfig()
    val.config_data(Batches())
    val.config_step_interval(0)
    with pytest.raises(ValueError, match="step_interval is <= 0 or is not int"):
        Regression().fit(validation_config=val, max_steps=1)
    ck = flow.model.CheckpointConfig()
    with pytest.raises(ValueError, match="dirpath should not be None"):
        ck.config_save()
    with pytest.raises(ValueError, match="step_interval must be an int > 0; received 0"):
        ck.config_save("somewhere", step_interval=0)
    with pytest.raises(ValueError, match="dirpath should not be None"):
        ck.config_load()


def test_model_must_define_the_configured_steps():
    class NoValidation(Regression):
        validation_step = flow.model.Model.validation_step

    val = flow.model.ValidationConfig()
    val.config_data(Batches())
    with pytest.raises(ValueError, match=r"NoValidation.validation_step\(\) is not defined"):
        NoValidation().fit(validation_config=val, max_steps=1)

    class BadOptimizers(Regression):
        def configure_optimizers(self):
            return "sgd"

    with pytest.raises(ValueError, match=r"configure_optimizers\(\) must return a flow.optimizer Optimizer"):
        BadOptimizers().fit(training_config=training_config(Batches()), max_steps=1)


def test_bad_callbacks_data_and_steps():
    with pytest.raises(ValueError, match="callbacks must be a model.Callback or a list"):
        Regression().fit(training_config=training_config(Batches()), callbacks=[object()], max_steps=1)
    with pytest.raises(ValueError, match="max_steps must be an int >= 0"):
        Regression().fit(training_config=training_config(Batches()), max_steps=-1)

    class Lists(flow.model.NumpyDataModule):
        def forward(self, step_idx, optimizer_idx):
            return list(batch_for(step_idx))

    with pytest.raises(ValueError, match="must return a tuple of numpy arrays; Lists.forward"):
        Regression().fit(training_config=training_config(Lists()), max_steps=1)


def test_nothing_configured_logs_and_returns(caplog):
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        Regression().fit(max_steps=3)
    assert "will do nothing" in caplog.text


def test_a_failing_step_names_itself():
    class Boom(flow.model.Callback):
        def on_training_step_end(self, outputs, step_idx, optimizer_idx):
            if step_idx == 1:
                raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom") as info:
        Regression().fit(training_config=training_config(Batches()), callbacks=Boom(), max_steps=3)
    assert "step_idx 1, training failed" in "".join(getattr(info.value, "__notes__", []))


def test_existing_save_directory_is_refused(tmp_path):
    (tmp_path / "out-0").mkdir()
    (tmp_path / "out-0" / "keep").write_text("x")
    ck = flow.model.CheckpointConfig()
    ck.config_save(dirpath=os.fspath(tmp_path / "out"), step_interval=1)
    with pytest.raises(AssertionError, match="already exists"):
        Regression().fit(training_config=training_config(Batches()), checkpoint_config=ck, max_steps=1)


@pytest.fixture
def eager_mode():
    flow.enable_eager_execution(True)
    yield
    flow.clear_default_session()
    flow.enable_eager_execution(False)


@pytest.mark.usefixtures("eager_mode")
def test_fit_in_eager_mode_runs_the_same_steps():
    """With flow.enable_eager_execution(True) the jobs run eagerly (v0.4's eager global functions)."""
    rec = Recorder()
    val = flow.model.ValidationConfig()
    val.config_data(Batches())
    val.config_step_interval(2)
    Regression().fit(training_config=training_config(Batches()), validation_config=val, callbacks=rec, max_steps=4)
    expected = replay(4, np.zeros((3, 1), np.float32), np.zeros(1, np.float32))
    assert [(s, o) for s, o, _ in rec.train] == [(i, 0) for i in range(4)]
    for (_, _, (loss, _)), (want, _, _) in zip(rec.train, expected):
        np.testing.assert_allclose(loss.numpy(), want, rtol=1e-5, atol=1e-5)
    assert [s for s, _ in rec.val] == [1, 3]
    x, _ = batch_for(3)
    np.testing.assert_allclose(rec.val[1][1].numpy(), x @ expected[3][1] + expected[3][2], rtol=1e-5, atol=1e-5)
