"""Shape and value rules of a few ops as OneFlow's op definitions and kernels state them, against numpy:
``concat`` with ``max_dim_size`` and dynamic inputs (``user/ops/concat_op.cpp``), ``in_top_k`` on dynamic
inputs and non-finite rows (``in_top_k_op.cpp``, ``in_top_k_kernel_util.cpp``), ``argmax`` of a 1-D blob
(``argmax_op.cpp``: shape (1,)) and ``squeeze`` to no axes (``squeeze_op.cpp``: the same), the
``fused_cast_scale`` user op, the ``TestReshape`` test op on a dynamic input (v0.1.2 ``test_kernels.cpp``:
the run-time elements, then the unwritten rest) and ``identity`` / ``identity_n`` of a tensor list (v0.1.2's
system identity ops passed lists on)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def lazy_after() -> Iterator[None]:
    """The eager switch outlives sessions: leave the next test in lazy mode."""
    yield
    flow.clear_default_session()
    flow.enable_eager_execution(False)


def mirrored() -> flow.FunctionConfig:
    cfg = flow.FunctionConfig()
    cfg.default_logical_view(flow.scope.mirrored_view())
    return cfg


# --- concat(max_dim_size=) -----------------------------------------------------------------------------------
def test_concat_of_dynamic_inputs_has_max_dim_size_as_static_size() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function(function_config=mirrored())
    def job(a: tp.ListNumpy.Placeholder((6, 3)), b: tp.ListNumpy.Placeholder((6, 3))) -> tp.ListNumpy:
        out = flow.concat([a, b], axis=0, max_dim_size=6)  # only static inputs count at build: none here
        seen.update(shape=out.shape, dynamic=out.is_dynamic)
        return out

    a, b = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    (got,) = job([a], [b])
    assert seen == {"shape": (6, 3), "dynamic": True}
    np.testing.assert_array_equal(got, np.concatenate([a, b]))


def test_concat_of_static_and_dynamic_inputs() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function(function_config=mirrored())
    def job(a: tp.ListNumpy.Placeholder((2, 5)), b: tp.Numpy.Placeholder((2, 3))) -> tp.ListNumpy:
        fixed = flow.concat([b, b], axis=1)  # static only: the sum, not dynamic
        out = flow.concat([a, b], axis=1, max_dim_size=7)
        default = flow.concat([a, b], axis=1)  # no max_dim_size: every input's static size
        seen.update(fixed=(fixed.shape, fixed.is_dynamic), out=(out.shape, out.is_dynamic), default=default.shape)
        return out

    a, b = rng.normal(size=(2, 4)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)
    (got,) = job([a], b)
    assert seen == {"fixed": ((2, 6), False), "out": ((2, 7), True), "default": (2, 8)}
    np.testing.assert_array_equal(got, np.concatenate([a, b], axis=1))


def test_concat_max_dim_size_is_checked_against_static_inputs_then_at_run_time() -> None:
    @flow.global_function(function_config=mirrored())
    def too_small(a: tp.ListNumpy.Placeholder((4,)), b: tp.Numpy.Placeholder((5,))) -> tp.ListNumpy:
        return flow.concat([a, b], axis=0, max_dim_size=4)

    with pytest.raises(ValueError, match="max_dim_size"):
        too_small([np.ones(1, np.float32)], np.ones(5, np.float32))
    flow.clear_default_session()

    @flow.global_function(function_config=mirrored())
    def job(a: tp.ListNumpy.Placeholder((4,)), b: tp.Numpy.Placeholder((5,))) -> tp.ListNumpy:
        return flow.concat([a, b], axis=0, max_dim_size=7)

    (fits,) = job([np.full(2, 3.0, np.float32)], np.ones(5, np.float32))
    np.testing.assert_array_equal(fits, [3, 3, 1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="larger than max_dim_size 7"):
        job([np.ones(3, np.float32)], np.ones(5, np.float32))


def test_dynamic_concat_gradients_reach_each_input() -> None:
    grads: list[np.ndarray] = []

    @flow.global_function(type="train", function_config=mirrored())
    def job(a: tp.ListNumpy.Placeholder((5,)), b: tp.ListNumpy.Placeholder((5,))) -> tp.ListNumpy:
        w = flow.get_variable("w", shape=(1,), initializer=flow.constant_initializer(2.0))
        wa, wb = a * w, b * w
        out = flow.concat([wa, wb], axis=0, max_dim_size=5)
        flow.watch_diff(wa, lambda g: grads.append(g.numpy_list()[0]))
        flow.watch_diff(wb, lambda g: grads.append(g.numpy_list()[0]))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1e-3]), momentum=0).minimize(out)
        return out

    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0, 5.0], np.float32)
    (got,) = job([a], [b])
    np.testing.assert_array_equal(got, 2 * np.concatenate([a, b]))
    assert [g.tolist() for g in grads] == [[1.0, 1.0], [1.0, 1.0, 1.0]]


# --- in_top_k ------------------------------------------------------------------------------------------------
def in_top_k_ref(targets: np.ndarray, predictions: np.ndarray, k: int) -> np.ndarray:
    """A row is 1 when fewer than k classes score strictly higher than the target's class; a row with a
    non-finite score, or a target outside the classes, is 0."""
    out = np.zeros(len(targets), np.int8)
    for i, (t, row) in enumerate(zip(targets, predictions)):
        if 0 <= t < len(row) and np.isfinite(row).all():
            out[i] = int(sum(p > row[t] for p in row) < k)
    return out


def _in_top_k_case() -> tuple[np.ndarray, np.ndarray]:
    predictions = rng.random((6, 4)).astype(np.float32)
    predictions[1, 2] = np.inf
    predictions[3, 0] = predictions[3, 1] = 0.9  # a tie at the boundary
    targets = np.array([0, 1, 2, 1, 4, 3], np.int32)  # 4: not a class
    return targets, predictions


@pytest.mark.parametrize("k", [1, 2, 3])
def test_in_top_k_static(k: int) -> None:
    targets, predictions = _in_top_k_case()

    @flow.global_function()
    def job(t: tp.Numpy.Placeholder((6,), dtype=flow.int32), p: tp.Numpy.Placeholder((6, 4))) -> tp.Numpy:
        return flow.math.in_top_k(t, p, k=k)

    np.testing.assert_array_equal(job(targets, predictions), in_top_k_ref(targets, predictions, k))


def test_in_top_k_dynamic_inputs_agree_at_run_time_only() -> None:
    targets, predictions = _in_top_k_case()
    seen: dict[str, Any] = {}

    @flow.global_function(function_config=mirrored())
    def job(t: tp.ListNumpy.Placeholder((16,), dtype=flow.int64),
            p: tp.ListNumpy.Placeholder((11, 9))) -> tp.ListNumpy:
        out = flow.math.in_top_k(t, p, k=2)
        seen.update(shape=out.shape, dynamic=out.is_dynamic, dtype=out.dtype)
        return out

    (got,) = job([targets.astype(np.int64)], [predictions])
    assert seen == {"shape": (16,), "dynamic": True, "dtype": flow.int8}
    np.testing.assert_array_equal(got, in_top_k_ref(targets, predictions, 2))
    with pytest.raises(ValueError, match="5 targets for 6 rows"):
        job([targets[:5].astype(np.int64)], [predictions])


def test_in_top_k_static_shapes_still_checked() -> None:
    @flow.global_function()
    def job(t: tp.Numpy.Placeholder((5,), dtype=flow.int32), p: tp.Numpy.Placeholder((6, 4))) -> tp.Numpy:
        return flow.math.in_top_k(t, p, k=1)

    with pytest.raises(ValueError, match="targets"):
        job(np.zeros(5, np.int32), np.zeros((6, 4), np.float32))


# --- argmax --------------------------------------------------------------------------------------------------
def test_argmax_of_a_vector_has_shape_1() -> None:
    x = np.array([0.5, 3.0, -1.0, 3.0], np.float32)
    m = rng.normal(size=(3, 4)).astype(np.float32)
    shapes: list[tuple[int, ...]] = []

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((4,)), b: tp.Numpy.Placeholder((3, 4))) -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        outs = flow.math.argmax(a), flow.math.argmax(b), flow.math.argmax(b, axis=0)
        shapes.extend(o.shape for o in outs)
        return outs

    first, rows, cols = job(x, m)
    assert shapes == [(1,), (3,), (4,)]
    np.testing.assert_array_equal(first, np.array([1], np.int32))  # the first maximum
    np.testing.assert_array_equal(rows, np.argmax(m, axis=1).astype(np.int32))
    np.testing.assert_array_equal(cols, np.argmax(m, axis=0).astype(np.int32))
    assert first.dtype == np.int32


def test_squeezing_every_axis_leaves_shape_1() -> None:
    shapes: list[tuple[int, ...]] = []

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((1, 1, 1))) -> tuple[tp.Numpy, tp.Numpy]:
        outs = flow.squeeze(a), flow.squeeze(a, [0, 2])
        shapes.extend(o.shape for o in outs)
        return outs

    every, some = job(np.full((1, 1, 1), 7.0, np.float32))
    assert shapes == [(1,), (1,)]  # squeeze_op.cpp: an empty shape becomes (1,)
    np.testing.assert_array_equal(every, np.array([7.0], np.float32))
    np.testing.assert_array_equal(some, np.array([7.0], np.float32))


# --- fused_cast_scale ----------------------------------------------------------------------------------------
def _fused_cast_scale(x: Any, scalar: Any) -> Any:
    return (flow.user_op_builder("fcs").Op("fused_cast_scale").Input("x", [x]).Input("scalar", [scalar])
            .Output("y").Build().InferAndTryRun().RemoteBlobList()[0])


def test_fused_cast_scale_values_dtype_and_gradient() -> None:
    x = rng.normal(size=(3, 4))
    grads: list[np.ndarray] = []

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((3, 4), dtype=flow.float64)) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 4), dtype=flow.float64, initializer=flow.constant_initializer(1.0))
        s = flow.get_variable("s", shape=(1,), dtype=flow.float32, initializer=flow.constant_initializer(2.5))
        y = _fused_cast_scale(a * w, s)
        assert y.dtype == flow.float32 and y.shape == (3, 4)
        flow.watch_diff(w, lambda g: grads.append(np.array(g)))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1e-3]), momentum=0).minimize(y)
        return y

    got = job(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, x.astype(np.float32) * np.float32(2.5), rtol=1e-6)
    np.testing.assert_allclose(grads[0], 2.5 * x, rtol=1e-6)  # d sum(y) / d w = scalar * a


def test_fused_cast_scale_needs_a_one_element_scalar() -> None:
    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((3,)), s: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return _fused_cast_scale(a, s)

    with pytest.raises(ValueError, match="scalar"):
        job(np.ones(3, np.float32), np.ones(2, np.float32))


# --- TestReshape ---------------------------------------------------------------------------------------------
def _test_reshape(x: Any, shape: list[int]) -> Any:
    return (flow.user_op_builder("tr").Op("TestReshape").Input("in", [x]).Output("out")
            .Attr("shape", shape).Build().InferAndTryRun().RemoteBlobList()[0])


def test_test_reshape_of_a_dynamic_input_fills_its_static_buffer() -> None:
    @flow.global_function(function_config=mirrored())
    def job(x: tp.ListNumpy.Placeholder((10, 2))) -> tp.ListNumpy:
        return _test_reshape(x, [5, 4])

    small = rng.normal(size=(7, 2)).astype(np.float32)
    (got,) = job([small])
    expected = np.zeros(20, np.float32)
    expected[:14] = small.reshape(-1)
    np.testing.assert_array_equal(got, expected.reshape(5, 4))
    full = rng.normal(size=(10, 2)).astype(np.float32)
    np.testing.assert_array_equal(job([full])[0], full.reshape(5, 4))


# --- identity of a tensor list -------------------------------------------------------------------------------
@pytest.mark.parametrize("eager", [False, True])
def test_identity_passes_a_tensor_list_on(eager: bool) -> None:
    flow.enable_eager_execution(eager)
    kinds: list[bool] = []

    @flow.global_function(function_config=mirrored())
    def job(x: tp.ListListNumpy.Placeholder((3, 4)), y: tp.Numpy.Placeholder((2,))
            ) -> tuple[tp.ListListNumpy, tp.ListListNumpy, tp.Numpy]:
        a = flow.identity(x)
        b, c = flow.identity_n([a, y])
        kinds.extend(blob.is_tensor_list for blob in (a, b, c))
        return a, b, c

    parts = [np.full((1, 2), 1.0, np.float32), np.arange(4, dtype=np.float32).reshape(1, 4),
             np.zeros((1, 3), np.float32)]
    y = np.array([5.0, 6.0], np.float32)
    a, b, c = job([parts], y)
    assert kinds == [True, True, False]
    for got in (a, b):
        assert len(got) == 1 and len(got[0]) == 3
        for g, want in zip(got[0], parts):
            np.testing.assert_array_equal(g, want)
    np.testing.assert_array_equal(c, y)


def test_other_ops_still_refuse_a_tensor_list() -> None:
    @flow.global_function(function_config=mirrored())
    def job(x: tp.ListListNumpy.Placeholder((2, 3))) -> tp.ListListNumpy:
        return flow.nn.relu(x)

    with pytest.raises(TypeError, match="tensor list"):
        job([[np.ones((1, 3), np.float32)]])

