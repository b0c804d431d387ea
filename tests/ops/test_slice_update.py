"""``flow.slice_update`` and ``slice_v2`` on dynamic blobs, against numpy slicing."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.ops import make_job, zero_var

import flowtorch as flow
import flowtorch.typing as tp


@pytest.mark.parametrize("tups", [[(1, 3, 1)], [(None, None, 2), (0, 3, 2)], [(None, None, -2), (4, 0, -1)]])
def test_slice_update_values_and_both_gradients(tups: list[tuple]) -> None:
    rng = np.random.default_rng(1)
    x = rng.random((4, 5), np.float32)
    index = tuple(slice(*t) for t in tups)
    u = rng.random(x[index].shape, np.float32)
    w = rng.random((4, 5), np.float32)
    grads: dict[str, np.ndarray] = {}

    def body(xb, ub, wb):
        xv = xb + zero_var("xv", x.shape)
        uv = ub + zero_var("uv", u.shape)
        flow.watch_diff(xv, lambda g: grads.setdefault("x", np.array(g)))
        flow.watch_diff(uv, lambda g: grads.setdefault("u", np.array(g)))
        y = flow.slice_update(xv, uv, tups)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(
            flow.math.reduce_sum(y * wb))
        return y

    y = make_job(body, (x, u, w), job_type="train")(x, u, w)
    want = x.copy()
    want[index] = u
    np.testing.assert_allclose(y, want)
    dx = w.copy()
    dx[index] = 0
    np.testing.assert_allclose(grads["x"], dx)
    np.testing.assert_allclose(grads["u"], w[index])


def test_slice_update_refuses_an_update_of_the_wrong_shape() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 5)), u: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return flow.slice_update(x, u, [(1, 3, 1)])

    with pytest.raises(ValueError, match=r"slice_update.*update.*\(2, 5\)"):
        job(np.zeros((4, 5), np.float32), np.zeros((2, 2), np.float32))


def test_slice_v2_of_a_dynamic_blob_resolves_bounds_against_the_fed_shape() -> None:
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((5, 6))) -> tp.ListNumpy:
        return flow.slice_v2(x, [(None, None, None), (2, None, None)])

    small = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(job([small])[0], small[:, 2:])
    odd = np.arange(28, dtype=np.float32).reshape(4, 7)  # OneFlow checks only the element count
    np.testing.assert_array_equal(job([odd])[0], odd[:, 2:])
