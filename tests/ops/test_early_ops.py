"""Ops only OneFlow v0.1.0–v0.3.3 or its master of early 2020 exported (``ops/early_ops.py``), each against numpy
or the formula of OneFlow's kernel of the time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers.ops import forward_and_grad, randn_from, run

import flowtorch as flow
from flowtorch._src.errors import ArgumentError

randn = randn_from(np.random.default_rng(37))


def test_copy_passes_the_blob_on_as_a_new_op() -> None:
    x = randn(3, 4)
    names: list[str] = []

    def body(b: Any) -> Any:
        y = flow.copy(b)
        names.append(y.logical_blob_name)
        return y
    np.testing.assert_array_equal(run(body, x), x)
    assert names[0].startswith("Copy_") and names[0].endswith("/out")
    y, grad, w = forward_and_grad(flow.copy, x)
    np.testing.assert_array_equal(grad, w)  # d sum(copy(x) * w) / dx = w


@pytest.mark.parametrize("op, ref", [(flow.experimental.broadcast_maximum, np.maximum),
                                     (flow.experimental.broadcast_minimum, np.minimum)])
def test_experimental_broadcast_maximum_minimum_broadcast_as_numpy(op: Any, ref: Any) -> None:
    a, b, one = randn(2, 1, 4), randn(3, 1), randn(1)
    np.testing.assert_array_equal(run(op, a, b), ref(a, b))
    np.testing.assert_array_equal(run(op, one, a), ref(one, a))  # a (1,) blob takes the other's shape
    with pytest.raises(ArgumentError, match="data type"):
        run(op, a, b.astype(np.float64))
    with pytest.raises(ArgumentError, match="broadcasts"):
        run(op, randn(2, 3), randn(4))


def test_naive_logical_and_keeps_the_lhs_type_and_shape() -> None:
    lhs = np.array([[0, 2, -1], [3, 0, 0]], np.int32)
    rhs = np.array([[5, 1, 0], [7, 0, 9]], np.int32)
    out = run(flow.math.naive_logical_and, lhs, rhs)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ((lhs != 0) & (rhs != 0)).astype(np.int32))
    f = np.array([0.5, 0.0, -2.0], np.float32)
    np.testing.assert_array_equal(run(flow.math.naive_logical_and, f, np.array([1, 1, 0], np.float32)),
                                  np.array([1, 0, 0], np.float32))
    with pytest.raises(ArgumentError, match="shape"):
        run(flow.math.naive_logical_and, lhs, rhs[:1])


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_local_gather_takes_rows_along_the_axis(axis: int) -> None:
    params = randn(4, 5, 3)
    indices = np.array([[2, 0], [1, 1]], np.int32)
    np.testing.assert_array_equal(run(lambda p, i: flow.local_gather(p, i, axis=axis), params, indices),
                                  np.take(params, indices, axis=axis))


def test_local_scatter_nd_update_writes_the_updates() -> None:
    params = randn(5, 2)
    indices = np.array([[4], [1]], np.int32)
    updates = randn(2, 2)
    expected = params.copy()
    expected[[4, 1]] = updates
    np.testing.assert_array_equal(run(flow.local_scatter_nd_update, params, indices, updates), expected)


def test_local_nonzero_gives_int32_coordinates_in_row_major_order() -> None:
    x = np.array([[0, 1.5, 0], [2.0, 0, -3.0]], np.float32)
    coords: list[np.ndarray] = []

    def body(b: Any) -> Any:
        out = flow.local_nonzero(b)
        assert out.is_dynamic and out.dtype == flow.int32
        flow.watch(out, lambda v: coords.append(np.array(v)))
        return b
    run(body, x)
    np.testing.assert_array_equal(coords[0], np.argwhere(x != 0).astype(np.int32))


def test_piece_slice_splits_the_first_axis_into_dynamic_pieces() -> None:
    x = randn(3, 2, 4)
    seen: list[np.ndarray] = []

    def body(b: Any) -> Any:
        pieces = flow.piece_slice(b, 3)
        assert len(pieces) == 3 and all(p.shape == (2, 4) and p.is_dynamic for p in pieces)
        for p in pieces:
            flow.watch(p, lambda v: seen.append(np.array(v)))
        return b
    run(body, x)
    for i in range(3):
        np.testing.assert_array_equal(seen[i], x[i])
    with pytest.raises(ArgumentError, match="output_size"):
        run(lambda b: flow.piece_slice(b, 2)[0], x)


@pytest.mark.parametrize("beta, scale", [(1.0, 1.0), (0.5, 2.0), (0.0, 1.0)])
def test_detection_smooth_l1_is_the_scaled_huber_of_the_kernel(beta: float, scale: float) -> None:
    pred, label = randn(4, 3), randn(4, 3)
    d = np.abs(pred - label)
    expected = np.where(d < beta, 0.5 * d * d / max(beta, 1e-30), d - 0.5 * beta) * scale
    out = run(lambda p, t: flow.detection.smooth_l1(p, t, beta=beta, scale=scale), pred, label)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-7)


def test_math_mish_is_x_tanh_softplus() -> None:
    x = np.array([-3.0, -0.5, 0.0, 0.5, 2.0], np.float32)
    np.testing.assert_allclose(run(flow.math.mish, x), x * np.tanh(np.log1p(np.exp(x))), rtol=1e-5, atol=1e-7)


def test_op_lib_is_custom_op_module_under_its_v0_3_1_argument_names(tmp_path: Any) -> None:
    folder = tmp_path / "twice"
    folder.mkdir()
    (folder / "twice_py_api.py").write_text("VALUE = 2\n")
    lib = flow.experimental.op_lib("twice", lib_path=str(tmp_path)).py_api()
    assert lib.api is not None and lib.api.VALUE == 2
    with pytest.raises(NotImplementedError, match="register_user_op"):
        lib.cpp_def()


def test_static_shape_is_the_january_2020_name_of_shape() -> None:
    shapes: list[tuple[int, ...]] = []

    def body(b: Any) -> Any:
        y = flow.math.reduce_sum(b, axis=1)
        found = flow.local_nonzero(b)
        shapes.extend([b.static_shape, y.static_shape, found.static_shape])
        return y
    run(body, randn(4, 3))
    assert shapes == [(4, 3), (4,), (12, 2)]  # a dynamic blob's: its upper bound
    assert flow.FixedTensorDef((2, 5)).static_shape == (2, 5)
