"""function_config.enable_auto_mixed_precision: the forward under torch.autocast, OneFlow's dynamic loss scale."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session

B, D, H, C = 16, 32, 64, 4


def _define(amp: bool, policy: object = None, lr: float = 0.05):
    config = flow.FunctionConfig()
    config.enable_auto_mixed_precision(amp)

    @flow.global_function(type="train", function_config=config)
    def train(x: tp.Numpy.Placeholder((B, D)), y: tp.Numpy.Placeholder((B,), dtype=flow.int32)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.1, seed=1)
        hidden = flow.layers.dense(x, H, activation=flow.nn.relu, kernel_initializer=init, name="h")
        logits = flow.layers.dense(hidden, C, kernel_initializer=init, name="o")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0.9,
                           loss_scale_policy=policy).minimize(loss)
        return loss
    return train


def _data(step: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(step)
    return rng.standard_normal((B, D)).astype(np.float32), rng.integers(0, C, B).astype(np.int32)


def _losses(amp: bool, steps: int = 20) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    flow.clear_default_session()
    train = _define(amp)
    losses = np.stack([train(*_data(i)) for i in range(steps)])
    return losses, {k: v.numpy() for k, v in flow.get_all_variables().items()}


def test_mixed_precision_trains_to_the_float32_numbers_within_low_precision_tolerance() -> None:
    fp32, w32 = _losses(False)
    mixed, w16 = _losses(True)
    assert mixed.dtype == np.float32  # returned blobs keep their declared type
    # The matmuls run in bfloat16 on CPU (8-bit mantissa, 2**-8 relative rounding) and float16 on CUDA
    # (11-bit); over 20 steps the per-example losses stay within 3 % of the float32 run.
    np.testing.assert_allclose(mixed, fp32, rtol=3e-2, atol=3e-2)
    assert not np.array_equal(mixed, fp32)  # the low precision really ran
    for name in ("h-weight", "o-weight"):  # a ReLU near 0 may switch: compare whole tensors, not elements
        assert np.linalg.norm(w16[name] - w32[name]) < 0.05 * np.linalg.norm(w32[name]), name
    assert not torch.is_autocast_enabled("cpu")  # the caller's autocast state is as before


def test_dynamic_loss_scale_grows_after_finite_steps_and_skips_a_non_finite_one() -> None:
    policy = flow.optimizer.loss_scale.dynamic_loss_scale(initial_loss_scale=2.0**10, increment_period=3,
                                                          multiplier=2.0)
    train = _define(True, policy)
    scaler = None
    for i in range(3):
        train(*_data(i))
        scaler = default_session().jobs["train"].step.scaler
    assert scaler is not None and float(scaler.scale) == 2.0**11  # three finite steps: S *= 2
    before = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    x, y = _data(3)
    x[0, 0] = np.inf  # every gradient of this step is inf or nan
    train(x, y)
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    assert float(scaler.scale) == 2.0**10  # halved
    assert int(after["System-Train-TrainStep-train"][0]) == 4  # the counter advances
    for name in ("h-weight", "h-bias", "o-weight", "o-bias"):
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)  # the update was skipped
    loss = train(*_data(4))
    assert np.isfinite(loss).all()


def test_scaled_gradients_are_unscaled_before_the_update() -> None:
    policy = flow.optimizer.loss_scale.dynamic_loss_scale(initial_loss_scale=2.0**12)
    flow.clear_default_session()
    scaled = _define(True, policy)
    a = [scaled(*_data(i)) for i in range(5)]
    flow.clear_default_session()
    plain = _define(True)
    b = [plain(*_data(i)) for i in range(5)]
    # S = 2**12 is a power of two: scaling and unscaling change no bit of a finite gradient
    np.testing.assert_array_equal(np.stack(a), np.stack(b))


@pytest.mark.parametrize("amp", [False, True])
def test_autocast_is_only_on_during_the_forward(amp: bool) -> None:
    seen: list[bool] = []

    config = flow.FunctionConfig()
    config.enable_auto_mixed_precision(amp)

    @flow.global_function(function_config=config)
    def predict(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.ones_initializer())
        return flow.matmul(x, w)

    out = predict(np.ones((2, 3), np.float32))
    seen.append(torch.is_autocast_enabled("cpu"))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.full((2, 2), 3.0))  # exact in bfloat16 and float16 too
    assert seen == [False]


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU emulation of CUDA graphs")
def test_a_captured_step_keeps_the_dynamic_loss_scale_as_eager_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scale's schedule and the skipped update of a non-finite step run in the graph (emulated here):
    the same losses, variables, optimizer slots and scale as eager steps, a non-finite step after the capture
    included."""
    from flowtorch._src.step import graphed
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)

    def run(capture: str) -> tuple[np.ndarray, dict[str, np.ndarray], float]:
        monkeypatch.setenv("FLOWTORCH_CAPTURE", capture)
        flow.clear_default_session()
        policy = flow.optimizer.loss_scale.dynamic_loss_scale(initial_loss_scale=2.0**10, increment_period=2,
                                                              multiplier=2.0)
        train = _define(True, policy)
        losses = []
        for i in range(10):
            x, y = _data(i)
            if i == 6:  # after the capture (step 3): every gradient inf or nan
                x[0, 0] = np.inf
            losses.append(train(x, y))
        step = default_session().jobs["train"].step
        if capture == "cuda_graph":
            assert step.graphed is not None and next(iter(step.graphed.graphs.values())).updates
        return np.stack(losses), {k: v.numpy() for k, v in flow.get_all_variables().items()}, float(step.scaler.scale)

    eager, graph = run("eager"), run("cuda_graph")
    np.testing.assert_array_equal(graph[0][:6], eager[0][:6])
    np.testing.assert_array_equal(graph[0][7:], eager[0][7:])
    assert graph[1].keys() == eager[1].keys()
    for name in eager[1]:
        np.testing.assert_array_equal(graph[1][name], eager[1][name], err_msg=name)
    assert graph[2] == eager[2]
