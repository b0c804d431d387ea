"""Watches keep working when the step is compiled, with no graph break (FLOWTORCH_CAPTURE=compile)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.watch import taps


def _build(values: list, grads: list):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w_c", shape=(3, 2), initializer=flow.constant_initializer(0.5))
        h = flow.nn.relu(flow.matmul(x, w))
        flow.watch(h, lambda v: values.append(v.numpy()))
        flow.watch_diff(h, lambda g: grads.append(g.numpy()))
        loss = flow.math.reduce_sum(h * h, axis=1)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss
    return train


def _run(monkeypatch: pytest.MonkeyPatch, mode: str) -> tuple[list, list, list, object]:
    monkeypatch.setenv("FLOWTORCH_CAPTURE", mode)
    monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "aot_eager")
    flow.clear_default_session()
    values: list = []
    grads: list = []
    job = _build(values, grads)
    x = np.array([[1, -2, 3], [0.5, 0.5, 0.5], [-1, -1, 2], [2, 0, 1]], np.float32)
    losses = [job(x) for _ in range(3)]
    return losses, values, grads, job


def test_compiled_step_matches_eager_with_watches(monkeypatch: pytest.MonkeyPatch) -> None:
    eager = _run(monkeypatch, "eager")
    compiled = _run(monkeypatch, "compile")
    assert compiled[3].step.forward is not compiled[3].step.module  # really compiled, no fallback
    for a, b in zip(eager[:3], compiled[:3]):
        assert len(a) == len(b) == 3
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5)


def test_compiled_step_with_watches_has_no_graph_break(monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, _, job = _run(monkeypatch, "compile")
    step = job.step
    targets = {n.target for n in step.module.graph.nodes if n.op == "call_function"}
    assert taps.compiled_value_tap in targets and taps.compiled_diff_tap in targets
    x = torch.ones(4, 3, device=step.var_tensors[0].device)  # where the session's variables are
    explanation = torch._dynamo.explain(step.module)(x, *step.var_tensors)
    assert explanation.graph_break_count == 0
    assert explanation.graph_count == 1


def test_unknown_capture_mode_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWTORCH_CAPTURE", "warp")

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x

    with pytest.raises(ValueError, match="FLOWTORCH_CAPTURE must be one of auto, eager, compile"):
        job(np.ones(1, np.float32))


def test_default_capture_is_graph_replay_on_cuda_and_eager_replay_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    from flowtorch._src.step.compile import capture_mode

    monkeypatch.delenv("FLOWTORCH_CAPTURE", raising=False)
    assert capture_mode("cpu") == "eager"
    assert capture_mode("cuda:0") == ("cuda_graph" if torch.cuda.is_available() else "eager")
    monkeypatch.setenv("FLOWTORCH_CAPTURE", "eager")
    assert capture_mode("cuda:0") == "eager"  # the knob turns it off


def test_a_compiled_gradient_tap_reaches_the_step_from_autograds_device_thread() -> None:
    # On CUDA the backward pass runs on autograd's device thread, not the caller's: the gradient tap of a
    # compiled graph must still find the step's record there (seen as missing watch_diff values on an H100).
    import threading

    record = taps.StepRecord(0, 1)
    taps.set_record(record)
    try:
        grad = torch.arange(3.0)
        worker = threading.Thread(target=torch.ops.flowtorch.grad_tap, args=(grad, 0))
        worker.start()
        worker.join()
    finally:
        taps.set_record(None)
    assert record.grads[0] is not None
    np.testing.assert_array_equal(record.grads[0].numpy(), [0.0, 1.0, 2.0])
