"""Eager mode: every call runs the body anew, op by op; training gives lazy mode's numbers."""

from __future__ import annotations

import unittest
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


@pytest.fixture(autouse=True)
def lazy_after() -> Iterator[None]:
    """The switch outlives sessions (as in OneFlow): leave the next test in lazy mode."""
    yield
    flow.clear_default_session()
    flow.enable_eager_execution(False)


def fresh(eager: bool) -> None:
    flow.clear_default_session()
    flow.enable_eager_execution(eager)


def _sgd(lr: float = 0.1, momentum: float = 0.0) -> Any:
    return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=momentum)


# --- eager equals lazy ------------------------------------------------------------------------------------
def run_mlp(eager: bool, batches: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, Any]:
    fresh(eager)
    diffs: list[np.ndarray] = []
    hidden: list[np.ndarray] = []

    def keep_diff(d: tp.Numpy) -> None:
        diffs.append(d)

    def keep_hidden(h: tp.Numpy) -> None:
        hidden.append(h)

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((8, 5)), label: tp.Numpy.Placeholder((8,), dtype=flow.int32)) -> tp.Numpy:
        h = flow.layers.dense(x, 16, activation=flow.nn.relu, name="h",
                              kernel_initializer=flow.random_normal_initializer(stddev=0.4, seed=1))
        flow.watch(h, keep_hidden)
        logits = flow.layers.dense(h, 3, name="logits",
                                   kernel_initializer=flow.random_normal_initializer(stddev=0.4, seed=2))
        flow.watch_diff(logits, keep_diff)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(label, logits)
        _sgd(0.1, momentum=0.5).minimize(loss)
        return loss

    losses = [train(x, y) for x, y in batches]
    variables = {k: np.array(v.numpy()) for k, v in flow.get_all_variables().items()}
    return {"losses": losses, "variables": variables, "diffs": diffs, "hidden": hidden, "calls": train.body_calls}


def run_lenet(eager: bool, batches: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, Any]:
    fresh(eager)
    kernel_diffs: list[np.ndarray] = []

    def keep(d: tp.Numpy) -> None:
        kernel_diffs.append(d)

    @flow.global_function(type="train")
    def train(images: tp.Numpy.Placeholder((4, 1, 12, 12)),
              labels: tp.Numpy.Placeholder((4,), dtype=flow.int32)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3, seed=3)
        c1 = flow.layers.conv2d(images, 4, 3, padding="SAME", activation=flow.nn.relu, name="c1",
                                kernel_initializer=init)
        p1 = flow.nn.max_pool2d(c1, 2, 2, "VALID")
        c2 = flow.layers.conv2d(p1, 6, 3, activation=flow.nn.relu, name="c2", kernel_initializer=init)
        p2 = flow.nn.avg_pool2d(c2, 2, 2, "VALID")
        flat = flow.reshape(p2, (4, -1))
        logits = flow.layers.dense(flat, 10, name="fc", kernel_initializer=init)
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.01])).minimize(loss)
        flow.watch_diff(flow.get_variable("c1-weight", shape=(4, 1, 3, 3)), keep)
        return loss

    losses = [train(x, y) for x, y in batches]
    variables = {k: np.array(v.numpy()) for k, v in flow.get_all_variables().items()}
    return {"losses": losses, "variables": variables, "diffs": kernel_diffs, "calls": train.body_calls}


def assert_same_run(lazy: dict[str, Any], eager: dict[str, Any]) -> None:
    # lazy mode fuses matmul/conv with bias_add, eager runs them op by op: equal up to float rounding
    assert len(eager["losses"]) == len(lazy["losses"])
    for a, b in zip(lazy["losses"], eager["losses"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert sorted(eager["variables"]) == sorted(lazy["variables"])
    for name, value in lazy["variables"].items():
        np.testing.assert_allclose(eager["variables"][name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    assert len(eager["diffs"]) == len(lazy["diffs"]) == len(lazy["losses"])
    for a, b in zip(lazy["diffs"], eager["diffs"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_mlp_training_matches_lazy_mode_step_by_step() -> None:
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((8, 5)).astype(np.float32) for _ in range(2)]
    batches = [(x, x[:, :3].argmax(axis=1).astype(np.int32)) for x in xs] * 3  # a rule it can learn
    lazy = run_mlp(False, batches)
    eager = run_mlp(True, batches)
    assert lazy["calls"] == 1 and eager["calls"] == 6  # eager runs the body on every call
    assert_same_run(lazy, eager)
    for a, b in zip(lazy["hidden"], eager["hidden"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert len(eager["hidden"]) == 6
    assert eager["losses"][4].mean() < eager["losses"][0].mean()  # it trains
    assert eager["variables"]["System-Train-TrainStep-train"] == [6]


def test_lenet_training_matches_lazy_mode_step_by_step() -> None:
    rng = np.random.default_rng(1)
    batches = [(rng.standard_normal((4, 1, 12, 12)).astype(np.float32), rng.integers(0, 10, 4).astype(np.int32))
               for _ in range(4)]
    lazy = run_lenet(False, batches)
    eager = run_lenet(True, batches)
    assert_same_run(lazy, eager)
    assert "c1-weight-m" in eager["variables"]  # Adam's slots live in the session, as in lazy mode


# --- values in the body, results ----------------------------------------------------------------------------
def test_blobs_have_values_inside_the_body_and_each_call_runs_it() -> None:
    fresh(True)
    seen: list[Any] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3)), y: tp.ListNumpy.Placeholder((4,))) -> tp.Numpy:
        r = flow.math.relu(x)
        seen.append((r.numpy(), r.numpy(0), y.numpy(), y.numpy_size()))
        return r + 1.0

    for k in range(3):
        x = np.arange(6, dtype=np.float32).reshape(2, 3) - k
        y = np.arange(3, dtype=np.float32)  # a ListNumpy value may be smaller than its placeholder
        np.testing.assert_array_equal(job(x, [y]), np.maximum(x, 0) + 1)
        np.testing.assert_array_equal(seen[-1][0], np.maximum(x, 0))
        np.testing.assert_array_equal(seen[-1][1], np.maximum(x, 0))
        np.testing.assert_array_equal(seen[-1][2], y)
        assert seen[-1][3] == 1
    assert job.body_calls == 3


def test_dynamic_blobs_keep_their_static_shape() -> None:
    fresh(True)
    shapes: list[Any] = []

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((4, 3))) -> tp.ListNumpy:
        y = flow.math.relu(flow.identity(x))
        shapes.append((x.shape, y.shape, y.is_dynamic, y.numpy().shape))
        return y

    out = job([np.full((2, 3), -1.0, np.float32)])
    assert shapes == [((4, 3), (4, 3), True, (2, 3))]  # blob.shape is static, the value may be smaller
    np.testing.assert_array_equal(out[0], np.zeros((2, 3)))


def test_tensor_list_inputs_have_numpy_list() -> None:
    fresh(True)
    seen: list[Any] = []

    @flow.global_function()
    def job(x: tp.ListListNumpy.Placeholder((3, 4))) -> tp.ListListNumpy:
        seen.append((x.is_tensor_list, x.numpy_list(), x.numpy_list(0)))
        with pytest.raises(AssertionError, match="use numpy_list"):
            x.numpy()
        return x

    arrays = [np.ones((1, 4), np.float32), np.arange(8, dtype=np.float32).reshape(2, 4)]
    out = job([arrays])
    is_list, per_device, part = seen[0]
    assert is_list and len(per_device) == 1 and len(part) == 2
    for got in (per_device[0], part, out[0]):
        for a, b in zip(got, arrays):
            np.testing.assert_array_equal(a, b)


def test_eager_blob_api() -> None:
    fresh(True)
    names: list[str] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> None:
        names.append(x.logical_blob_name)
        assert repr(x).startswith("EagerBlob(")
        with pytest.raises(AssertionError, match="one device part"):
            x.numpy(1)
        with pytest.raises(AssertionError, match="numpy_list"):
            x.numpy_list()
        with pytest.raises(TypeError, match="ambiguous"):
            bool(x)

    assert job(np.zeros(2, np.float32)) is None
    # OneFlow's eager feed passes a Numpy placeholder on through an identity op
    assert names[0].startswith("Identity_") and names[0].endswith("/out")


def test_result_forms() -> None:
    fresh(True)

    @flow.global_function()
    def future_job(x: tp.Numpy.Placeholder((2,))):  # unannotated: a future
        return x * 3.0, {"half": x * 0.5}

    @flow.global_function()
    def callback_job(x: tp.Numpy.Placeholder((2,))) -> tp.Callback[tp.Numpy]:
        return x - 1.0

    x = np.array([1.0, 2.0], np.float32)
    future = future_job(x)
    triple, parts = future.get()
    np.testing.assert_array_equal(triple.numpy(), x * 3)
    np.testing.assert_array_equal(parts["half"].numpy_list()[0], x * 0.5)
    again = future.get()  # OneFlow's eager future may be read again
    np.testing.assert_array_equal(again[0].numpy(), x * 3)
    got: list[np.ndarray] = []
    future.async_get(lambda r: got.append(r[0].numpy()))
    np.testing.assert_array_equal(got[0], x * 3)

    out: list[np.ndarray] = []
    callback_job(x)(out.append)
    np.testing.assert_array_equal(out[0], x - 1)
    with pytest.raises(TypeError, match="callback expects a callable"):
        callback_job(x)(3)


def test_variables_persist_between_eager_calls_and_jobs() -> None:
    fresh(True)

    @flow.global_function(type="train")
    def train() -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(1.0))
        _sgd(0.5).minimize(flow.math.reduce_sum(w * w))
        return w  # the value before this call's update, as in lazy mode

    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(7.0))

    np.testing.assert_allclose(train(), [1, 1, 1])  # w -= 0.5 * 2w
    np.testing.assert_allclose(train(), [0, 0, 0])
    np.testing.assert_allclose(read(), [0, 0, 0])


def test_a_failing_body_leaves_nothing_behind() -> None:
    fresh(True)
    fail = {"on": True}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        if fail["on"]:
            raise ValueError("boom")
        return x + 1.0

    with pytest.raises(ValueError, match="boom"):
        job(np.zeros(2, np.float32))
    fail["on"] = False
    np.testing.assert_array_equal(job(np.zeros(2, np.float32)), [1, 1])


@pytest.mark.usefixtures("cpu_device")  # an index error on CUDA is a device-side assert
def test_op_errors_name_the_eager_job() -> None:
    fresh(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,)), i: tp.Numpy.Placeholder((1,), dtype=flow.int32)) -> tp.Numpy:
        return flow.gather(x, i)  # the index is only checked when the kernel runs

    with pytest.raises(IndexError, match=r"^eager job 'job', op 'Gather_\d+' \(while running it\): index out of range"):
        job(np.zeros(3, np.float32), np.array([7], np.int32))


# --- watches ---------------------------------------------------------------------------------------------
def test_watch_fires_inside_the_body_and_watch_diff_after_it() -> None:
    fresh(True)
    events: list[tuple[str, Any]] = []

    def on_value(v: tp.Numpy) -> None:
        events.append(("value", v))

    def on_diff(d: tp.Numpy) -> None:
        events.append(("diff", d))

    def on_input_diff(d: tp.Numpy) -> None:
        events.append(("input diff", d))

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2, 3))) -> None:
        w = flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(2.0))
        y = x * w
        flow.watch(y, on_value)
        events.append(("body", None))  # after the watch handler ran
        flow.watch_diff(w, on_diff)
        flow.watch_diff(x, on_input_diff)  # an input has no gradient: never called
        loss = flow.math.reduce_sum(y * y)
        _sgd(0.0).minimize(loss)

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    train(x)
    assert [e[0] for e in events] == ["value", "body", "diff"]
    np.testing.assert_allclose(events[0][1], x * 2)
    np.testing.assert_allclose(events[2][1], (2 * (x * 2) * x).sum(axis=0), rtol=1e-6)  # d sum(y²)/dw


def test_watch_diff_of_a_loss_and_of_a_predict_job() -> None:
    fresh(True)
    got: list[np.ndarray] = []

    def keep(d: tp.Numpy) -> None:
        got.append(d)

    @flow.global_function(type="train")
    def train() -> None:
        w = flow.get_variable("w", shape=(2,), initializer=flow.constant_initializer(1.0))
        loss = flow.math.reduce_sum(w * 3.0, keepdims=True)
        flow.watch_diff(loss, keep)
        _sgd(0.0).minimize(loss)

    @flow.global_function()
    def predict() -> None:
        w = flow.get_variable("w", shape=(2,), initializer=flow.constant_initializer(1.0))
        flow.watch_diff(w, keep)  # predict jobs have no backward: never called

    train()
    predict()
    assert len(got) == 1
    np.testing.assert_array_equal(got[0], [1.0])  # the ones seed


def test_watch_scope_sees_values_in_the_body_and_gradients_after_it() -> None:
    fresh(True)
    values: dict[str, Any] = {}
    grads: dict[str, Any] = {}
    in_body: list[list[str]] = []

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2,))) -> None:
        with flow.watch_scope(values, grads):
            w = flow.get_variable("w", shape=(2,), initializer=flow.constant_initializer(3.0))
            loss = flow.math.reduce_sum(x * w, keepdims=True)
        in_body.append(sorted(grads))
        _sgd(0.0).minimize(loss)

    x = np.array([1.0, 2.0], np.float32)
    train(x)
    assert "w/out" in values and in_body == [[]]  # gradients arrive after the body
    np.testing.assert_array_equal(values["w/out"]["blob"].numpy(), [3, 3])
    np.testing.assert_array_equal(grads["w/out"]["blob"].numpy(), x)


def test_watch_handler_errors_surface_from_the_call() -> None:
    fresh(True)

    def bad(v: tp.Numpy) -> None:
        raise RuntimeError("handler failed")

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.watch(x, bad)

    with pytest.raises(RuntimeError, match="handler failed"):
        job(np.zeros(2, np.float32))


# --- eager-only input checks -------------------------------------------------------------------------------
def test_eager_inputs_must_have_the_placeholder_dtype() -> None:
    # A lazy push converts float64 to float32; OneFlow's eager feed asserts the dtype instead.
    for eager in (False, True):
        fresh(eager)

        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
            return x + 0.0

        data = np.arange(3, dtype=np.float64)
        if eager:
            with pytest.raises(AssertionError, match=r"expected dtype float32.*received float64"):
                job(data)
            np.testing.assert_array_equal(job(data.astype(np.float32)), data)
        else:
            np.testing.assert_array_equal(job(data), data)


@pytest.mark.parametrize("value, match", [
    (np.zeros((2, 4), np.float32), "expected a list with one entry per device"),
    ([np.zeros((2, 4), np.float32), np.zeros((2, 4), np.float32)], "one entry per device"),
    ([np.zeros((3, 4), np.float32)], r"at most 8 elements"),
    ([np.zeros(8, np.float32)], "rank 2"),
    ([[1.0, 2.0]], "numpy.ndarray items"),
    ([np.zeros((2, 4), np.int32)], "expected dtype float32"),
])
def test_eager_list_numpy_checks(value: Any, match: str) -> None:
    fresh(True)

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((2, 4))) -> tp.ListNumpy:
        return x * 2.0

    with pytest.raises(AssertionError, match=match):
        job(value)


def test_eager_list_numpy_takes_a_tuple_and_a_smaller_array() -> None:
    fresh(True)

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((2, 4))) -> tp.ListNumpy:
        return x * 2.0

    small = np.ones((1, 4), np.float32)
    out = job((small,))
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_array_equal(out[0], small * 2)


def test_eager_numpy_shape_and_type_checks() -> None:
    fresh(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        return x

    with pytest.raises(AssertionError, match=r"expected shape \(2, 2\); received \(2, 3\)"):
        job(np.zeros((2, 3), np.float32))
    with pytest.raises(AssertionError, match="expected a numpy.ndarray; received list"):
        job([[0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(AssertionError, match="takes 1 argument"):
        job()


# --- the switch ------------------------------------------------------------------------------------------
def test_switch_reports_and_outlives_clear_default_session() -> None:
    assert flow.eager_execution_enabled() is False
    flow.enable_eager_execution()
    assert flow.eager_execution_enabled() is True
    flow.clear_default_session()  # OneFlow's switch is process-wide
    assert flow.eager_execution_enabled() is True
    flow.enable_eager_execution(False)
    assert flow.eager_execution_enabled() is False
    with pytest.raises(TypeError, match="must be a bool"):
        flow.enable_eager_execution("yes")


def test_switch_is_refused_once_a_lazy_job_is_defined() -> None:
    fresh(False)

    @flow.global_function()
    def lazy_job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x

    for value in (True, False):
        with pytest.raises(NotImplementedError, match="'lazy_job' defined in lazy mode"):
            flow.enable_eager_execution(value)
    flow.clear_default_session()
    flow.enable_eager_execution(True)  # a new session has no job
    assert flow.eager_execution_enabled()


def test_eager_jobs_are_not_registered_and_keep_their_mode() -> None:
    fresh(True)

    @flow.global_function()
    def eager_job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x + 1.0

    flow.enable_eager_execution(False)  # an eager job does not hold the switch (OneFlow registers lazy jobs only)

    @flow.global_function()
    def lazy_job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x + 2.0

    one = np.ones(1, np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(eager_job(one), [2])
        np.testing.assert_array_equal(lazy_job(one), [3])
    assert eager_job.body_calls == 2 and lazy_job.body_calls == 1


def test_switch_is_refused_inside_a_body() -> None:
    fresh(True)

    @flow.global_function()
    def job() -> None:
        flow.enable_eager_execution(False)

    with pytest.raises(NotImplementedError, match="inside a job body"):
        job()


def test_eager_job_of_a_cleared_session_is_refused() -> None:
    fresh(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x

    flow.clear_default_session()
    with pytest.raises(AssertionError, match="clear_default_session"):
        job(np.ones(1, np.float32))


def test_unittest_testcase_sets_the_switch_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    class Case(flow.unittest.TestCase):
        def runTest(self) -> None:
            pass

    monkeypatch.setenv("ONEFLOW_TEST_ENABLE_EAGER", "1")
    assert flow.unittest.env.eager_execution_enabled()
    Case().setUp()
    assert flow.eager_execution_enabled()
    monkeypatch.delenv("ONEFLOW_TEST_ENABLE_EAGER")
    Case().setUp()
    assert not flow.eager_execution_enabled()
    assert isinstance(Case(), unittest.TestCase)


def run_embedding(eager: bool, row_wise: bool) -> np.ndarray:
    """Two momentum steps on an embedding whose second batch leaves rows 0-1 out; returns the table."""
    fresh(eager)
    config = flow.FunctionConfig()
    if row_wise:
        config.indexed_slices_optimizer_conf({"include_op_names": {"op_name": ["emb"]}})

    @flow.global_function(type="train", function_config=config)
    def train(ids: tp.Numpy.Placeholder((3,), dtype=flow.int32)) -> None:
        emb = flow.get_variable("emb", shape=(4, 2), initializer=flow.constant_initializer(1.0))
        _sgd(0.1, momentum=0.9).minimize(flow.math.reduce_sum(flow.gather(emb, ids), axis=1))

    train(np.array([0, 1, 2], np.int32))
    train(np.array([2, 3, 3], np.int32))
    return flow.get_all_variables()["emb"].numpy()


def test_row_wise_updates_are_dense_in_eager_mode() -> None:
    # OneFlow's indexed-slices rewrite is a lazy-only pass: an eager job's momentum also moves untouched rows
    dense = run_embedding(False, row_wise=False)
    rows = run_embedding(False, row_wise=True)
    eager = run_embedding(True, row_wise=True)
    assert not np.allclose(rows, dense)
    np.testing.assert_allclose(eager, dense, rtol=1e-6)


def test_v01_generated_test_cases_start_lazy() -> None:
    from flowtorch._src.testing_v01 import ClearDefaultSession

    class Case(ClearDefaultSession, unittest.TestCase):
        def runTest(self) -> None:
            pass

    flow.enable_eager_execution(True)
    Case().setUp()  # OneFlow 0.1's runner mixin turns eager mode off
    assert not flow.eager_execution_enabled()


def test_data_ops_on_graph_values_run_in_eager_jobs() -> None:
    fresh(True)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 2, 4))) -> tp.Numpy:
        buffers = flow.tensor_to_tensor_buffer(x * 2.0, instance_dims=2)  # a data op in the graph
        return flow.tensor_buffer_to_tensor(buffers, dtype=flow.float32, instance_shape=[2, 4]) + 1.0

    x = np.random.default_rng(2).standard_normal((3, 2, 4)).astype(np.float32)
    for _ in range(2):
        np.testing.assert_allclose(job(x), x * 2 + 1, rtol=1e-6)


# --- what eager mode does not do ---------------------------------------------------------------------------
def test_data_ops_and_gradient_accumulation_are_refused() -> None:
    fresh(True)

    @flow.global_function()
    def data_job() -> tp.Numpy:
        return flow.random.coin_flip(2)

    with pytest.raises(NotImplementedError, match="readers and loaders is not supported in eager mode"):
        data_job()

    config = flow.FunctionConfig()
    config.train.num_gradient_accumulation_steps(2)

    @flow.global_function(type="train", function_config=config)
    def acc_job() -> None:
        w = flow.get_variable("w", shape=(1,), initializer=flow.constant_initializer(1.0))
        _sgd().minimize(w)

    with pytest.raises(NotImplementedError, match="num_gradient_accumulation_steps"):
        acc_job()
