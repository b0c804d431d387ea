"""Capture once, replay every call: the body runs once, variables persist, the seeds' ReluJob works."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_body_runs_once_over_100_calls() -> None:
    calls = {"n": 0}

    @flow.global_function()
    def double(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        calls["n"] += 1
        return x * 2.0

    rng = np.random.default_rng(0)
    for _ in range(100):
        data = rng.standard_normal(3).astype(np.float32)
        np.testing.assert_allclose(double(data), data * 2, rtol=1e-6)
    assert calls["n"] == 1


def test_all_registered_bodies_build_at_first_call_in_order() -> None:
    order: list[str] = []

    @flow.global_function()
    def first(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        order.append("first")
        return x

    @flow.global_function()
    def second(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        order.append("second")
        return x

    assert order == []  # decoration never runs a body
    second(np.zeros(1, np.float32))
    assert order == ["first", "second"]
    first(np.zeros(1, np.float32))
    assert order == ["first", "second"]


def test_job_declared_after_start_builds_at_its_first_call() -> None:
    @flow.global_function()
    def early(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x + 1.0

    early(np.zeros(2, np.float32))

    @flow.global_function()
    def late(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x - 1.0

    np.testing.assert_array_equal(late(np.zeros(2, np.float32)), [-1, -1])


def test_seed_relu_job_with_fixed_tensor_def_and_get() -> None:
    # Seed 002: the v0.1 job takes a FixedTensorDef default, watches relu(x) and returns nothing.
    seen: list[np.ndarray] = []

    def cb(y) -> None:  # unannotated: receives a local blob
        seen.append(y.ndarray())

    @flow.global_function()
    def ReluJob(x=flow.FixedTensorDef((10,))):  # the seed's name
        y = flow.nn.relu(x)
        flow.watch(y, cb)

    flow.config.gpu_device_num(1)
    data = np.random.uniform(-1, 1, 10).astype(np.float32)
    future = ReluJob(data)
    assert future.get() is None
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], np.maximum(data, 0))


def test_seed_relu_job_returning_the_future_of_a_blob() -> None:
    @flow.global_function()
    def ReluJob(x=flow.FixedTensorDef((10,))):
        return flow.nn.relu(x)

    data = np.linspace(-1, 1, 10, dtype=np.float32)
    out = ReluJob(data).get()
    np.testing.assert_array_equal(out.numpy(), np.maximum(data, 0))
    np.testing.assert_array_equal(out.ndarray(), np.maximum(data, 0))


def test_seed_relu_job_with_numpy_placeholder() -> None:
    # Seeds 000/001: a typed handler gets an ndarray equal to relu of the input.
    seen: list[np.ndarray] = []

    def watch_handler(y: tp.Numpy) -> None:
        seen.append(y)

    @flow.global_function()
    def ReluJob(x: tp.Numpy.Placeholder((5,), dtype=flow.float)) -> None:
        y = flow.nn.relu(x)
        flow.watch(y, watch_handler)

    data = np.array([0.15727027, 0.45887455, 0.10939325, 0.66666406, -0.62354755], np.float32)
    assert ReluJob(data) is None
    flow.sync_default_session()
    assert isinstance(seen[0], np.ndarray)
    np.testing.assert_array_equal(seen[0], np.maximum(data, 0))
    assert seen[0][-1] == 0 and seen[0][0] == data[0]


def test_variables_live_in_one_store_shared_across_jobs() -> None:
    init = flow.constant_initializer(3.0) if hasattr(flow, "constant_initializer") else None
    if init is None:
        pytest.skip("initializers not available")

    @flow.global_function()
    def read_a() -> tp.Numpy:
        return flow.get_variable("shared", shape=(2,), initializer=init)

    @flow.global_function()
    def read_b() -> tp.Numpy:
        return flow.get_variable("shared", shape=(2,), initializer=flow.constant_initializer(7.0)) * 2.0

    np.testing.assert_array_equal(read_a(), [3, 3])
    np.testing.assert_array_equal(read_b(), [6, 6])  # the first creation's value wins: one variable


def test_graph_is_replayed_not_the_python_body() -> None:
    @flow.global_function()
    def affine(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.constant(2.0, shape=(3, 4))
        return flow.matmul(x, w) + 1.0

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(affine(x), x @ np.full((3, 4), 2.0, np.float32) + 1.0)
    code = affine.step.module.code
    assert "matmul" in code and "input_0" in code
