"""OneFlow-style training programs on a generated MNIST-format file, and optimizers end to end.

The optimizer references are independent numpy code written from spec §6 (gradient of sum(loss)
divided by the loss's element count; SGD momentum v = βv − lr·g, w += v; Adam without bias correction
unless asked; …) for a linear model whose gradient numpy computes in closed form.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.mnist import make_synthetic_mnist

B = 50


@pytest.fixture
def mnist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    make_synthetic_mnist(str(tmp_path / "mnist.npz"), n_train=1000, n_test=500, seed=3)
    monkeypatch.chdir(tmp_path)
    return flow.data.load_mnist(B, B)  # a synthetic file: not checked against the real file's sha256


def _mlp(images):
    init = flow.truncated_normal(0.1)
    x = flow.reshape(images, [images.shape[0], -1])
    hidden = flow.layers.dense(x, 128, activation=flow.nn.relu, kernel_initializer=init, name="hidden")
    return flow.layers.dense(hidden, 10, kernel_initializer=init, name="output")


def _lenet(images, train: bool):
    init = flow.truncated_normal(0.1)
    c1 = flow.layers.conv2d(images, 8, 5, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                            name="conv1")
    p1 = flow.nn.max_pool2d(c1, ksize=2, strides=2, padding="SAME", name="pool1", data_format="NCHW")
    c2 = flow.layers.conv2d(p1, 16, 5, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                            name="conv2")
    p2 = flow.nn.max_pool2d(c2, ksize=2, strides=2, padding="SAME", name="pool2", data_format="NCHW")
    x = flow.reshape(p2, [p2.shape[0], -1])
    hidden = flow.layers.dense(x, 64, activation=flow.nn.relu, kernel_initializer=init, name="dense1")
    if train:
        hidden = flow.nn.dropout(hidden, rate=0.3, name="dropout")
    return flow.layers.dense(hidden, 10, kernel_initializer=init, name="dense2")


def _train_and_eval(mnist, model, epochs: int) -> tuple[list[float], float]:
    (train_x, train_y), (test_x, test_y) = mnist
    torch.manual_seed(0)  # unseeded initializers and dropout draw from torch's default generator

    @flow.global_function(type="train")
    def train_job(images: tp.Numpy.Placeholder((B, 1, 28, 28), dtype=flow.float),
                  labels: tp.Numpy.Placeholder((B,), dtype=flow.int32)) -> tp.Numpy:
        logits = model(images, True)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="softmax_loss")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss

    @flow.global_function(type="predict")
    def eval_job(images: tp.Numpy.Placeholder((B, 1, 28, 28), dtype=flow.float)) -> tp.Numpy:
        return model(images, False)

    losses = []
    for _ in range(epochs):
        for images, labels in zip(train_x, train_y):
            losses.append(float(train_job(images, labels).mean()))
    correct = sum(int((eval_job(x).argmax(1) == y).sum()) for x, y in zip(test_x, test_y))
    return losses, correct / (len(test_y) * B)


def test_mlp_trains_on_mnist_format_data(mnist) -> None:
    losses, accuracy = _train_and_eval(mnist, lambda x, train: _mlp(x), epochs=2)
    assert np.mean(losses[-10:]) < 0.25 * np.mean(losses[:5])
    assert accuracy >= 0.95, accuracy


def test_lenet_trains_on_mnist_format_data(mnist) -> None:
    losses, accuracy = _train_and_eval(mnist, _lenet, epochs=3)
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:3])
    assert accuracy >= 0.9, accuracy


# --- optimizers end to end against numpy ------------------------------------------------------------
X = np.random.default_rng(7).standard_normal((6, 4)).astype(np.float32)
T = np.random.default_rng(8).standard_normal((6, 3)).astype(np.float32)
W0 = np.random.default_rng(9).standard_normal((4, 3)).astype(np.float32) * 0.5


def _run_job(make_optimizer, steps: int = 5) -> list[np.ndarray]:
    """Loss (6,3) = (x@w - t)^2: its element count is 18, so OneFlow scales the raw gradient by 1/18."""
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((6, 4)), t: tp.Numpy.Placeholder((6, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(4, 3), initializer=flow.zeros_initializer())
        d = flow.matmul(x, w) - t
        make_optimizer().minimize(d * d)
        return w

    flow.load_variables({"w": W0})
    return [train(X, T) for _ in range(steps)] + [flow.get_all_variables()["w"].numpy()]


def _grad(w: np.ndarray) -> np.ndarray:
    return (2.0 * X.T @ (X @ w - T)) / 18.0


def _const(lr: float):
    return flow.optimizer.PiecewiseConstantScheduler([], [lr])


def _reference(update, steps: int = 5) -> list[np.ndarray]:
    w = W0.astype(np.float64)
    state: dict[str, np.ndarray] = {}
    out = []
    for t in range(steps):
        out.append(w.copy())
        w = update(w, _grad(w), state, t)
    return out + [w]


def _sgd(lr: float, beta: float):
    def update(w, g, s, t):
        if beta == 0:
            return w - lr * g
        s["v"] = beta * s.get("v", 0.0) - lr * g
        return w + s["v"]
    return update


def _adam(lr, b1=0.9, b2=0.999, eps=1e-8, bias_correction=False, wd=0.0):
    def update(w, g, s, t):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        rate = lr * np.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1)) if bias_correction else lr
        return w - rate * (s["m"] / (np.sqrt(s["v"]) + eps) + wd * w)
    return update


def _rmsprop(lr, decay=0.99, eps=1e-8):
    def update(w, g, s, t):
        s["ms"] = decay * s.get("ms", 0.0) + (1 - decay) * g * g
        return w - lr * g / np.sqrt(s["ms"] + eps)
    return update


def _lars(lr, beta=0.9, eps=1e-9, coeff=1e-4):
    def update(w, g, s, t):
        local = coeff * np.linalg.norm(w) / (np.linalg.norm(g) + eps)
        s["v"] = beta * s.get("v", 0.0) - lr * local * g
        return w + s["v"]
    return update


CASES = {
    "sgd": (lambda: flow.optimizer.SGD(_const(0.1), momentum=0), _sgd(0.1, 0.0)),
    "sgd_momentum_default": (lambda: flow.optimizer.SGD(_const(0.1)), _sgd(0.1, 0.9)),
    "adam": (lambda: flow.optimizer.Adam(_const(0.01)), _adam(0.01)),
    "adam_bias_correction": (lambda: flow.optimizer.Adam(_const(0.01), do_bias_correction=True),
                             _adam(0.01, bias_correction=True)),
    "adamw": (lambda: flow.optimizer.AdamW(_const(0.01), weight_decay=0.1), _adam(0.01, wd=0.1)),
    "rmsprop": (lambda: flow.optimizer.RMSProp(_const(0.01)), _rmsprop(0.01)),
    "lars": (lambda: flow.optimizer.LARS(_const(0.1)), _lars(0.1)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_five_steps_equal_the_numpy_reference(case: str) -> None:
    make, update = CASES[case]
    got = _run_job(make)
    expected = _reference(update)
    for step, (a, b) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=f"{case}, value before step {step}")


def test_optimizer_state_appears_under_oneflow_names() -> None:
    _run_job(lambda: flow.optimizer.Adam(_const(0.01)), steps=2)
    names = set(flow.get_all_variables())
    assert {"w", "w-m", "w-v", "System-Train-TrainStep-train"} <= names
    assert flow.get_all_variables()["System-Train-TrainStep-train"].numpy().tolist() == [2]


def test_v01_train_config_with_add_loss() -> None:
    cfg = flow.function_config()
    cfg.default_data_type(flow.float)
    cfg.train.primary_lr(0.1)
    cfg.train.model_update_conf({"momentum_conf": {"beta": 0.5}})

    @flow.global_function(cfg)
    def train(x=flow.FixedTensorDef((6, 4)), t=flow.FixedTensorDef((6, 3))):
        w = flow.get_variable("w", shape=(4, 3), initializer=flow.zeros_initializer())
        d = flow.matmul(x, w) - t
        flow.losses.add_loss(d * d)
        return w

    flow.load_variables({"w": W0})
    got = [train(X, T).get().numpy() for _ in range(3)]
    for a, b in zip(got, _reference(_sgd(0.1, 0.5), steps=3)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_train_job_without_loss_fails_clearly() -> None:
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x

    with pytest.raises(RuntimeError, match="Loss blob not found"):
        train(np.zeros(2, np.float32))


def test_add_loss_in_a_predict_job_fails() -> None:
    @flow.global_function()
    def predict(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        flow.losses.add_loss(x)
        return x

    with pytest.raises(NotImplementedError, match="predict job"):
        predict(np.zeros(2, np.float32))
