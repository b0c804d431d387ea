"""Train jobs of OneFlow's 2020 master and v0.1: ``train.primary_lr`` + ``train.model_update_conf`` with its warmup,
decay, clipping and weight decay, against a numpy re-computation of OneFlow's pipeline of June 2020 (the
``learning_rate_schedule`` kernel, the global-norm clip of ``autograd.cpp``, the update kernels' weight decay);
``@flow.function`` both ways, and the late-2019 ``flow.config.train.*`` set inside the body."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Tuple  # (OneFlow programs annotate with typing.Tuple)

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim import legacy

Returns = Tuple[tp.Numpy, tp.Numpy, tp.Numpy]

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [-0.7, 0.9, 0.4], [0.1, -0.4, 1.2]], np.float32)
Y = np.array([[1.0], [-0.5], [0.3], [2.0]], np.float32)
W0 = np.array([[0.2], [-0.1], [0.4]], np.float32)
B0 = np.array([0.05], np.float32)
STEPS = 6


def _model(x: Any, y: Any) -> tuple[Any, Any, Any]:
    w = flow.get_variable("dense-weight", shape=(3, 1), initializer=flow.constant_initializer(0.0))
    b = flow.get_variable("dense-bias", shape=(1,), initializer=flow.constant_initializer(0.0))
    loss = flow.math.reduce_sum(flow.math.square(flow.matmul(x, w) + b - y))
    flow.losses.add_loss(loss)
    return loss, w, b


def _run(job: Callable[..., Any], *args: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The variables each step read (before its update)."""
    flow.load_variables({"dense-weight": W0, "dense-bias": B0})
    return [tuple(np.array(v) for v in job(*args)[1:]) for _ in range(STEPS)]  # type: ignore[misc]


def _grads(w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = (X.astype(np.float64) @ w + b - Y) * 2.0
    return X.T.astype(np.float64) @ r, r.sum(axis=0)


def _clip(gs: list[np.ndarray], clip_norm: float) -> list[np.ndarray]:
    # OneFlow multiplies by min(1 / global_norm, 1 / clip_norm) (no "* clip_norm" at the end)
    factor = min(1.0 / math.sqrt(sum(float((g * g).sum()) for g in gs)), 1.0 / clip_norm)
    return [g * factor for g in gs]


def _f32(v: float) -> float:
    return float(np.float32(v))


def test_momentum_with_linear_warmup_polynomial_decay_clip_and_weight_decay() -> None:
    lr0, start, warm, decay_steps, end, power, beta, wd, clip = 0.1, 0.25, 2, 4, 0.01, 2.0, 0.9, 0.05, 0.5
    conf = {"momentum_conf": {"beta": beta},
            "warmup_conf": {"linear_conf": {"warmup_batches": warm, "start_multiplier": start}},
            "learning_rate_decay": {"polynomial_conf": {"decay_batches": decay_steps, "end_learning_rate": end,
                                                       "power": power}},
            "clip_conf": {"clip_by_global_norm": {"clip_norm": clip}},
            "weight_decay_conf": {"weight_decay_rate": wd, "excludes": {"pattern": ["bias"]}}}
    flow.clear_default_session()
    cfg = flow.function_config()
    cfg.train.primary_lr(lr0)
    cfg.train.model_update_conf(conf)

    @flow.function(cfg)
    def train(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
        return _model(x, y)

    seen = _run(train, X, Y)

    def lr(t: int) -> float:  # learning_rate_schedule_kernel.cpp: a warmup replaces the decay while it lasts
        base = _f32(lr0)
        if t < warm:
            return _f32(base * (start + (1 - start) * t / warm))
        return _f32((base - end) * (1 - min(t, decay_steps) / decay_steps) ** power + end)

    w, b = W0.astype(np.float64), B0.astype(np.float64)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for t in range(STEPS):
        np.testing.assert_allclose(seen[t][0], w, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(seen[t][1], b, rtol=2e-5, atol=1e-6)
        gw, gb = _clip(list(_grads(w, b)), clip)
        vw, vb = beta * vw - lr(t) * gw, beta * vb - lr(t) * gb
        w = w + vw - lr(t) * wd * w  # the weight decays; "dense-bias" matches the excluded pattern
        b = b + vb


def test_adam_with_constant_warmup_and_piecewise_constant_values() -> None:
    lr0, mult, warm, bounds, values = 0.05, 0.5, 2, [3], [0.02, 0.004]
    b1, b2, eps, wd = 0.8, 0.95, 1e-6, 0.1
    conf = {"adam_conf": {"beta1": b1, "beta2": b2, "epsilon": eps},
            "warmup_conf": {"constant_conf": {"warmup_batches": warm, "multiplier": mult}},
            "learning_rate_decay": {"piecewise_constant_conf": {"boundaries": bounds, "values": values}},
            "weight_decay_conf": {"weight_decay_rate": wd, "includes": {"pattern": ["weight"]}}}
    flow.clear_default_session()
    cfg = flow.function_config()
    cfg.train.primary_lr(lr0)
    cfg.train.model_update_conf(conf)

    @flow.function(cfg)
    def train(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
        return _model(x, y)

    seen = _run(train, X, Y)

    def lr(t: int) -> float:  # the warmup scales primary_lr; the decay's segments give their own values
        if t < warm:
            return _f32(_f32(lr0) * mult)
        return _f32(values[0] if t <= bounds[0] else values[1])

    w, b = W0.astype(np.float64), B0.astype(np.float64)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(STEPS):
        np.testing.assert_allclose(seen[t][0], w, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(seen[t][1], b, rtol=2e-5, atol=1e-6)
        new = []
        for i, (p, g) in enumerate(zip((w, b), _grads(w, b))):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            decay = wd if i == 0 else 0.0  # only "dense-weight" matches the included pattern
            new.append(p - lr(t) * (m[i] / (np.sqrt(v[i]) + eps) + decay * p))
        w, b = new


def test_bare_function_with_the_train_conf_set_in_its_body() -> None:
    """OneFlow-Benchmark's programs of early 2020: ``@flow.function`` bare, ``flow.config.train.*`` inside the body,
    ``flow.config.default_data_type`` outside it."""
    lr0 = 0.05
    flow.clear_default_session()
    flow.config.default_data_type(flow.float)

    @flow.function
    def train(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
        flow.config.train.primary_lr(lr0)
        flow.config.train.model_update_conf(dict(naive_conf={}))
        return _model(x, y)

    seen = _run(train, X, Y)
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    for t in range(STEPS):
        np.testing.assert_allclose(seen[t][0], w, rtol=2e-5, atol=1e-6)
        gw, gb = _grads(w, b)
        w, b = w - _f32(lr0) * gw, b - _f32(lr0) * gb


def test_a_predict_function_and_the_conf_checks() -> None:
    flow.clear_default_session()

    @flow.function()
    def predict(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.math.square(x)
    np.testing.assert_array_equal(predict(np.array([2.0, -3.0], np.float32)), [4.0, 9.0])

    box = flow.Box()
    assert not box.has_value()
    box.value_setter(7)
    assert box.has_value() and box.value == 7

    for conf, message in [({"rmsprop_conf": {}, "weight_decay_conf": {"weight_decay_rate": 0.1}}, "no weight decay"),
                          ({"naive_conf": {}, "learning_rate_decay": {"cosine_conf": {}}}, "decay_batches"),
                          ({"naive_conf": {}, "warmup_conf": {"step_conf": {}}}, "linear_conf"),
                          ({"naive_conf": {}, "momentum_conf": {}}, "exactly one update rule")]:
        flow.clear_default_session()
        cfg = flow.function_config()
        cfg.train.primary_lr(0.1)
        cfg.train.model_update_conf(conf)

        @flow.function(cfg)
        def bad(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
            return _model(x, y)
        with pytest.raises((ArgumentError, ValueError), match=message):
            bad(X, Y)


def _train_with(conf: dict[str, Any], lr0: float) -> list[tuple[np.ndarray, np.ndarray]]:
    flow.clear_default_session()
    cfg = flow.function_config()
    cfg.train.primary_lr(lr0)
    cfg.train.model_update_conf(conf)

    @flow.function(cfg)
    def train(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
        return _model(x, y)
    return _run(train, X, Y)


def test_rmsprop_takes_no_history_at_its_first_step() -> None:
    lr0, d, eps = 0.01, 0.9, 1e-8
    seen = _train_with({"rmsprop_conf": {"decay_rate": d, "epsilon": eps}}, lr0)
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    ms = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(STEPS):
        np.testing.assert_allclose(seen[t][0], w, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(seen[t][1], b, rtol=2e-5, atol=1e-6)
        decay = 0.0 if t == 0 else d  # rmsprop_model_update_kernel.cpp: cur_decay_rate
        new = []
        for i, (p, g) in enumerate(zip((w, b), _grads(w, b))):
            ms[i] = (1 - decay) * g * g + decay * ms[i]
            new.append(p - _f32(lr0) * g / np.sqrt(ms[i] + eps))
        w, b = new


def test_bias_corrected_adam_keeps_the_corrected_moments() -> None:
    lr0, b1, b2, eps = 0.02, 0.8, 0.9, 1e-6
    seen = _train_with({"adam_conf": {"beta1": b1, "beta2": b2, "epsilon": eps, "do_bias_correction": True}}, lr0)
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    b1_t, b2_t = b1, b2  # the helper variables start at beta and are multiplied from the second step on
    for t in range(STEPS):
        if t > 0:
            b1_t, b2_t = b1_t * b1, b2_t * b2
        np.testing.assert_allclose(seen[t][0], w, rtol=5e-5, atol=2e-6)
        np.testing.assert_allclose(seen[t][1], b, rtol=5e-5, atol=2e-6)
        new = []
        for i, (p, g) in enumerate(zip((w, b), _grads(w, b))):
            m[i] = (b1 * m[i] + (1 - b1) * g) / (1 - b1_t)
            v[i] = (b2 * v[i] + (1 - b2) * g * g) / (1 - b2_t)
            new.append(p - _f32(lr0) * m[i] / (np.sqrt(v[i]) + eps))
        w, b = new


@pytest.mark.parametrize("rule", ["rmsprop", "adam"])
def test_the_legacy_rules_read_the_same_numbers_from_device_tensors(rule: str) -> None:
    """The capturable path (a CUDA graph reads the step's numbers from 0-d tensors) gives the eager numbers."""
    conf = {"rmsprop": {"rmsprop_conf": {"decay_rate": 0.9}},
            "adam": {"adam_conf": {"beta1": 0.8, "do_bias_correction": True}}}[rule]
    opts = [legacy.optimizer_from_conf(conf, 0.05, flow.function_config()) for _ in range(2)]
    rng = np.random.default_rng(3)
    w0 = torch.tensor(rng.normal(size=(3, 2)), dtype=torch.float32)
    ws = [w0.clone(), w0.clone()]
    slots: list[dict[str, torch.Tensor]] = [{}, {}]

    class Slots:
        def __init__(self, store: dict[str, torch.Tensor]) -> None:
            self.store = store

        def get(self, name: str, like: torch.Tensor) -> torch.Tensor:
            return self.store.setdefault(name, torch.zeros_like(like))
    for step in range(3):
        g = torch.tensor(rng.normal(size=(3, 2)), dtype=torch.float32)
        opts[0].apply([("w", ws[0])], [g], step, 1, Slots(slots[0]))
        numbers = {k: torch.tensor(v, dtype=torch.float64) for k, v in opts[1].numbers_for(step).items()}
        opts[1].apply([("w", ws[1])], [g], step, 1, Slots(slots[1]), numbers=numbers)
        torch.testing.assert_close(ws[1], ws[0], rtol=1e-6, atol=1e-7)


def test_a_secondary_rate_is_named_in_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    flow.clear_default_session()
    cfg = flow.function_config()
    cfg.train.primary_lr(0.1)
    cfg.train.secondary_lr(0.2)
    cfg.train.model_update_conf({"naive_conf": {}})

    @flow.function(cfg)
    def train(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
        return _model(x, y)
    with caplog.at_level("WARNING", logger="flowtorch"):
        train(X, Y)
    assert any("secondary_lr(0.2) is not applied" in r.getMessage() for r in caplog.records)


def test_late_2019_jobs_clip_each_variable_and_regularize_by_model_name() -> None:
    """A bare ``@flow.function`` is late 2019's API: its update kernels clipped each variable's gradient by its own
    norm (``clip_norm / max(|g|, clip_norm)``), then added ``train.weight_l1/l2`` to the variables made with
    ``model_name="weight"`` and ``train.bias_l1/l2`` to the biases'."""
    lr0, clip, w_l2, b_l1 = 0.05, 0.8, 0.1, 0.02
    flow.clear_default_session()

    @flow.function
    def train(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 1))) -> Returns:
        flow.config.train.primary_lr(lr0)
        flow.config.train.model_update_conf({"naive_conf": {},
                                             "clip_conf": {"clip_by_global_norm": {"clip_norm": clip}}})
        flow.config.train.weight_l2(w_l2)
        flow.config.train.bias_l1(b_l1)
        w = flow.get_variable("dense-weight", shape=(3, 1), initializer=flow.constant_initializer(0.0),
                              model_name="weight")
        b = flow.get_variable("dense-bias", shape=(1,), initializer=flow.constant_initializer(0.0), model_name="bias")
        loss = flow.math.reduce_sum(flow.math.square(flow.matmul(x, w) + b - y))
        flow.losses.add_loss(loss)
        return loss, w, b

    seen = _run(train, X, Y)
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    for t in range(STEPS):
        np.testing.assert_allclose(seen[t][0], w, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(seen[t][1], b, rtol=2e-5, atol=1e-6)
        gw, gb = (g * min(1.0, clip / np.sqrt((g * g).sum())) for g in _grads(w, b))
        w, b = w - _f32(lr0) * (gw + w_l2 * w), b - _f32(lr0) * (gb + b_l1 * np.sign(b))
