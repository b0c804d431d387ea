"""OneFlow exports flowtorch lacked (issue 28): ``scatter_nd``, ``nonzero``, one-argument ``where``,
``elem_cnt``, ``util.unique_str``, ``experimental.name_scope``, ``deprecated.*`` and blob truthiness, each
against numpy or OneFlow's documented behaviour."""

from __future__ import annotations

from typing import Any, Tuple  # (OneFlow programs annotate with typing.Tuple)

import numpy as np
import pytest
from helpers.ops import forward_and_grad, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp

randn = randn_from(np.random.default_rng(28))


def _np_scatter_nd(indices: np.ndarray, updates: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, np.float64)
    k = indices.shape[-1]
    for idx, upd in zip(indices.reshape(-1, k), updates.reshape((-1,) + shape[k:])):
        out[tuple(idx)] += upd  # repeated indices add up, as OneFlow's zero-then-scatter-add kernel
    return out


@pytest.mark.parametrize("indices, shape", [
    (np.array([[0], [4], [2]], np.int32), (5, 3)),  # OneFlow's docstring example: whole rows
    (np.array([[1, 2], [0, 0], [1, 2]], np.int32), (2, 4)),  # single elements, one index repeated
])
def test_scatter_nd_matches_numpy_and_its_updates_get_gathered_gradients(indices: np.ndarray,
                                                                          shape: tuple[int, ...]) -> None:
    updates = randn(*(indices.shape[:-1] + shape[indices.shape[-1]:]))
    y, grad, w = forward_and_grad(lambda u, i: flow.scatter_nd(i, u, shape), updates, indices)
    np.testing.assert_allclose(y, _np_scatter_nd(indices, updates, shape), rtol=1e-6)
    # d sum(scatter_nd(u) * w) / du[j] = w[indices[j]]
    np.testing.assert_allclose(grad, w[tuple(indices[..., k] for k in range(indices.shape[-1]))], rtol=1e-6)


def test_scatter_nd_names_and_refusals() -> None:
    names: list[str] = []

    def body(i: Any, u: Any) -> Any:
        out = flow.scatter_nd(i, u, (4,))
        names.append(out.logical_blob_name)
        with pytest.raises(ValueError, match="updates"):
            flow.scatter_nd(i, u, (4, 2))  # updates would need shape (2, 2)
        with pytest.raises(TypeError, match="integer"):
            flow.scatter_nd(u, u, (4,))
        return out
    out = run(body, np.array([[3], [1]], np.int32), np.array([5.0, 7.0], np.float32))
    np.testing.assert_array_equal(out, [0.0, 7.0, 0.0, 5.0])
    assert names[0].startswith("ScatterNd_") and names[0].endswith("/out_0")


def test_nonzero_is_the_transposed_argwhere_and_where_of_one_argument_is_argwhere() -> None:
    a = np.array([[0, 3, 0], [1, 0, 2]], np.int32)
    got = run(lambda x: (flow.nonzero(x), flow.where(x)), a, ret=Tuple[tp.ListNumpy, tp.ListNumpy])
    np.testing.assert_array_equal(got[0][0], np.stack(np.nonzero(a)))  # (ndim, count)
    np.testing.assert_array_equal(got[1][0], np.argwhere(a))  # (count, ndim)
    assert got[0][0].dtype == np.int32


def test_elem_cnt_counts_elements_of_static_and_dynamic_blobs() -> None:
    x = randn(4, 5)

    def body(b: Any) -> Any:
        picked = flow.argwhere(b > 0.0)  # a dynamic blob: its count at run time
        return flow.elem_cnt(b), flow.elem_cnt(picked, dtype=flow.int64)
    got = run(body, x, ret=Tuple[tp.Numpy, tp.Numpy])
    np.testing.assert_array_equal(got[0], [20])
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[1], [2 * int((x > 0).sum())])  # count × ndim
    assert got[1].dtype == np.int64


def test_unique_str_name_scopes_and_deprecated_names() -> None:
    a, b = flow.util.unique_str("Probe_"), flow.util.unique_str("Probe_")
    assert a.startswith("Probe_") and b.startswith("Probe_") and a != b
    names: list[str] = []

    def body(x: Any) -> Any:
        with flow.experimental.name_scope("outer"), flow.deprecated.variable_scope("inner"):
            w = flow.get_variable("w", shape=(2,), initializer=flow.ones_initializer())
        names.append(w.op_name)
        return x * w
    run(body, np.ones(2, np.float32))
    assert names == ["outer-inner-w"]
    with pytest.raises(NotImplementedError, match="--nproc"):
        flow.deprecated.init_worker()
    with pytest.raises(NotImplementedError, match="--nproc"):
        flow.deprecated.delete_worker()


def test_a_blob_is_true_as_oneflow_blobs_were() -> None:
    taken: list[str] = []

    def body(x: Any) -> Any:
        y = flow.math.relu(x)
        if y:  # OneFlow's blobs defined no __bool__: always true
            taken.append("yes")
        return y
    run(body, np.ones(2, np.float32))
    assert taken == ["yes"]


def _np_gelu_grad(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    from math import erf, exp, pi, sqrt
    cdf = np.vectorize(lambda v: 0.5 * (1.0 + erf(v / sqrt(2.0))))(x)
    pdf = np.vectorize(lambda v: exp(-0.5 * v * v) / sqrt(2.0 * pi))(x)
    return dy * (cdf + x * pdf)


@pytest.mark.parametrize("op, ref, first", [
    (lambda y, dy: flow.math.sigmoid_grad(y, dy), lambda y, dy: dy * y * (1 - y), "sigmoid"),
    (lambda y, dy: flow.math.tanh_grad(y, dy), lambda y, dy: dy * (1 - y * y), "tanh"),
    (lambda x, dy: flow.math.gelu_grad(x, dy), _np_gelu_grad, "x"),
])
def test_activation_grad_ops_match_the_derivative(op: Any, ref: Any, first: str) -> None:
    x = randn(3, 4).astype(np.float64)
    a = {"sigmoid": 1 / (1 + np.exp(-x)), "tanh": np.tanh(x), "x": x}[first].astype(np.float32)
    dy = randn(3, 4)
    np.testing.assert_allclose(run(op, a, dy), ref(a.astype(np.float64), dy.astype(np.float64)), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("axis", [None, 0])
def test_softmax_grad_matches_the_softmax_jacobian(axis: int | None) -> None:
    x, dy = randn(3, 4), randn(3, 4)
    ax = -1 if axis is None else axis
    y = np.exp(x - x.max(axis=ax, keepdims=True))
    y = (y / y.sum(axis=ax, keepdims=True)).astype(np.float32)
    want = y * (dy - (dy * y).sum(axis=ax, keepdims=True))
    np.testing.assert_allclose(run(lambda a, b: flow.nn.softmax_grad(a, b, axis=axis), y, dy), want, rtol=1e-5,
                               atol=1e-6)


def test_two_stage_reduces_constant_scalar_and_small_queries() -> None:
    x = randn(3, 4)

    def body(b: Any) -> Any:
        return (flow.math.two_stage_reduce_max(b, axis=1), flow.math.two_stage_reduce_min(b, axis=[0], keepdims=True),
                flow.constant_scalar(2.5, dtype=flow.float))
    mx, mn, c = run(body, x, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    np.testing.assert_array_equal(mx, x.max(axis=1))
    np.testing.assert_array_equal(mn, x.min(axis=0, keepdims=True))
    np.testing.assert_array_equal(c, [2.5])
    assert flow.current_machine_id() == 0
    assert not flow.scope.mirrored_view_enabled() and not flow.scope.consistent_view_enabled()
    with flow.scope.mirrored_view():
        assert flow.scope.mirrored_view_enabled() and flow.distribute.mirrored_strategy_enabled()
        with flow.scope.consistent_view():
            assert flow.scope.consistent_view_enabled() and not flow.scope.mirrored_view_enabled()
    assert flow.config.legacy_model_io_enabled() is False
    assert flow.config.compute_thread_pool_size(4) is not None  # accepted and recorded


@pytest.mark.parametrize("call, hint", [
    (lambda: flow.sysconfig.get_lib(), "torch.utils.cpp_extension"),
    (lambda: flow.sysconfig.get_include(), "torch.utils.cpp_extension"),
    (lambda: flow.tensorrt.write_int8_calibration("x"), "Torch-TensorRT"),
    (lambda: flow.config.load_library_now("op.so"), "rewrite the op with torch"),
])
def test_names_without_meaning_on_pytorch_refuse_clearly(call: Any, hint: str) -> None:
    with pytest.raises(NotImplementedError, match=hint):
        call()


def test_v01_keras_names_system_assign_and_placement_queries() -> None:
    x = randn(2, 3)
    seen: list[Any] = []

    def body(b: Any) -> Any:
        v = flow.get_variable("v", shape=(2, 3), initializer=flow.zeros_initializer())
        flow.system.assign(v, b)
        seen.append(flow.placement.current_scope().device_parallel_desc_symbol.device_tag)
        with pytest.raises(Exception, match="alpha=0"):
            flow.keras.activations.relu(b, alpha=0.1)
        return (flow.keras.activations.relu(b), flow.keras.activations.sigmoid(b), flow.keras.activations.tanh(b),
                flow.keras.maths.add(b, b))
    relu, sig, tanh, twice = run(body, x, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy])
    np.testing.assert_allclose(relu, np.maximum(x, 0))
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)
    np.testing.assert_allclose(tanh, np.tanh(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(twice, 2 * x)
    np.testing.assert_array_equal(flow.get_all_variables()["v"].numpy(), x)  # system.assign wrote it
    assert seen == [flow.current_scope().device_parallel_desc_symbol.device_tag]
    with flow.device("cpu:0"):
        assert flow.current_scope().device_parallel_desc_symbol.machine_device_ids == ("0:0",)
    with pytest.raises(ValueError, match="cpu:<id>"):
        flow.device("tpu:0")


def test_gen_seed_queries_and_checked_no_ops() -> None:
    assert flow.random.gen_seed(7) == (7, True)
    seed, has_seed = flow.random.gen_seed()
    assert has_seed and isinstance(seed, int)
    with flow.scope.mirrored_view():
        assert flow.random.gen_seed() == (-1, False)  # OneFlow's mirrored form
    flow.distribute.assert_is_valid_distribute(flow.distribute.split(0))
    with pytest.raises(AssertionError, match="not a valid distribute"):
        flow.distribute.assert_is_valid_distribute("S(0)")
    flow.inter_job_reuse_mem_strategy("reuse_mem_priority")
    flow.inter_job_reuse_mem_strategy("custom_parallelism", job_name_groups=[["a", "b"], ["c"]])
    with pytest.raises(ValueError, match="strategy_str"):
        flow.inter_job_reuse_mem_strategy("fastest")
    with pytest.raises(ValueError, match="job_name_groups"):
        flow.inter_job_reuse_mem_strategy("custom_parallelism")


def test_v01_eager_switch_is_the_eager_execution_switch() -> None:
    assert flow.env.enable_eager_environment is flow.enable_eager_execution
    assert flow.current_resource is flow.env.current_resource


@pytest.mark.parametrize("padding, fmt, want", [
    ("SAME_LOWER", "NCHW", ((1, 0), (1, 0))),  # size 4, kernel 3, stride 2: one pad, before (OneFlow's same_lower)
    ("SAME_UPPER", "NCHW", ((0, 1), (0, 1))),  # ... after
    ("SAME_UPPER", "NHWC", ((0, 1), (0, 1))),
])
def test_same_padding_pads_as_oneflow_computes_and_pad_grad_crops(padding: str, fmt: str,
                                                                   want: tuple[tuple[int, int], ...]) -> None:
    x = randn(1, 2, 4, 4) if fmt == "NCHW" else randn(1, 4, 4, 2)
    spatial = (2, 3) if fmt == "NCHW" else (1, 2)
    pads = [(0, 0)] * 4
    for axis, p in zip(spatial, want):
        pads[axis] = p
    y, grad, w = forward_and_grad(lambda b: flow.same_padding(b, padding, fmt, (3, 3), (2, 2), (1, 1)), x)
    np.testing.assert_array_equal(y, np.pad(x, pads))
    crop = tuple(slice(b, s - a) for (b, a), s in zip(pads, w.shape))
    np.testing.assert_array_equal(grad, w[crop])  # the gradient is the crop
    cropped = run(lambda b: flow.pad_grad(b, [list(p) for p in pads]), np.pad(x, pads))
    np.testing.assert_array_equal(cropped, x)


def test_same_padding_keeps_a_stride_one_window_size_and_refuses_bad_arguments() -> None:
    x = np.ones((1, 1, 3, 3), np.float32)
    out = run(lambda b: flow.same_padding(b, "SAME_UPPER", "NCHW", [3, 3], [1, 1], [1, 1]), x)
    np.testing.assert_array_equal(out, np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)]))

    def body(b: Any) -> Any:
        with pytest.raises(ValueError, match="padding"):
            flow.same_padding(b, "VALID", "NCHW", [3, 3], [1, 1], [1, 1])
        with pytest.raises(ValueError, match="kernel_size"):
            flow.same_padding(b, "SAME_UPPER", "NCHW", [3], [1, 1], [1, 1])
        with pytest.raises(ValueError, match="paddings"):
            flow.pad_grad(b, [(0, 0), (0, 0), (2, 2), (0, 0)])
        return b
    run(body, x)
