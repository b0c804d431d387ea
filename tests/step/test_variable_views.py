"""A train job that returns or watches a view of a trainable variable (identity, reshape, squeeze,
expand_dims, transpose of it) gives the value the forward pass read, as OneFlow's did (its return and watch
ops copy before the update), not the value after the optimizer's in-place update. Whether a blob shares
the variable's memory is decided once, at build, from the ops between it and the variable."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.step import graphed


@pytest.fixture(autouse=True)
def lazy_after() -> Iterator[None]:
    """The eager switch outlives sessions: leave the next test in lazy mode."""
    yield
    flow.clear_default_session()
    flow.enable_eager_execution(False)


LR = 0.5
SHAPE = (1, 4, 1)
STEPS = 3

VIEWS: dict[str, Callable[[Any], Any]] = {
    "identity": lambda x: flow.identity(x),
    "reshape": lambda x: flow.reshape(x, (4,)),
    "squeeze": lambda x: flow.squeeze(x, [0, 2]),
    "expand_dims": lambda x: flow.expand_dims(x, 0),
    "transpose": lambda x: flow.transpose(x, [2, 1, 0]),
    "chain": lambda x: flow.reshape(flow.identity(flow.squeeze(x, [2])), (2, 2)),
}


def _train_job(view: Callable[[Any], Any], watched: list[np.ndarray]) -> Callable[[], np.ndarray]:
    @flow.global_function(type="train")
    def job() -> tp.Numpy:
        x = flow.get_variable("w", shape=SHAPE, dtype=flow.float, initializer=flow.ones_initializer())
        out = view(x)
        flow.watch(flow.identity(x), lambda v: watched.append(np.array(v)))
        # the loss is the variable itself (its sum): its gradient is ones, OneFlow scales it by 1/4
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(
            flow.reshape(x, (4,)))
        return out

    return job


def _forward_values() -> list[float]:
    """The variable's value at the start of each step: w -= LR * 1/4 per step (numpy, OneFlow's rule)."""
    w, out = 1.0, []
    for _ in range(STEPS):
        out.append(w)
        w -= LR * 1.0 / 4
    return out


@pytest.mark.parametrize("eager", [False, True])
@pytest.mark.parametrize("kind", list(VIEWS))
def test_returned_view_of_a_variable_is_its_forward_value(kind: str, eager: bool) -> None:
    flow.enable_eager_execution(eager)
    watched: list[np.ndarray] = []
    job = _train_job(VIEWS[kind], watched)
    results = [job() for _ in range(STEPS)]
    expected = _forward_values()
    for got, seen, want in zip(results, watched, expected):
        reference = np.full(SHAPE, want, np.float32)
        if kind == "chain":
            reference = reference.reshape(2, 2)
        else:
            reference = {"reshape": reference.reshape(4), "squeeze": reference.reshape(4),
                         "expand_dims": reference[None], "transpose": reference.transpose(2, 1, 0)}.get(kind,
                                                                                                    reference)
        np.testing.assert_array_equal(got, reference)
        np.testing.assert_array_equal(seen, np.full(SHAPE, want, np.float32))
    final = flow.get_all_variables()["w"].numpy()
    np.testing.assert_allclose(final, np.full(SHAPE, expected[-1] - LR / 4, np.float32))


def test_only_views_of_variables_are_copied() -> None:
    """The build-time decision: a result with memory of its own (x * 2, a reduction) is not copied again."""
    @flow.global_function(type="train")
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        x = flow.get_variable("w", shape=SHAPE, dtype=flow.float, initializer=flow.ones_initializer())
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(
            flow.reshape(x, (4,)))
        return x, flow.squeeze(x, [0]), x * 2.0, flow.math.reduce_sum(x)

    x, squeezed, doubled, total = job()
    assert job.step.clone_returns == [True, True, False, False]
    np.testing.assert_array_equal(x, np.ones(SHAPE, np.float32))
    np.testing.assert_array_equal(squeezed, np.ones((4, 1), np.float32))
    np.testing.assert_array_equal(doubled, np.full(SHAPE, 2.0, np.float32))
    np.testing.assert_array_equal(total, np.array([4.0], np.float32))


def test_a_view_returned_from_an_emulated_cuda_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replays of a captured step (emulated on the CPU) keep returning the forward value: the copy is taken
    inside the graph, before the update the graph also holds."""
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    monkeypatch.setenv("FLOWTORCH_CAPTURE", "cuda_graph")
    flow.clear_default_session()
    watched: list[np.ndarray] = []
    job = _train_job(VIEWS["squeeze"], watched)
    steps = 6  # past the warm-up calls, so several come from the graph
    results = [job() for _ in range(steps)]
    assert job.step.graphed is not None and job.step.graphed.graphs
    w = 1.0
    for got, seen in zip(results, watched):
        np.testing.assert_array_equal(got, np.full((4,), w, np.float32))
        np.testing.assert_array_equal(seen, np.full(SHAPE, w, np.float32))
        w -= LR / 4
