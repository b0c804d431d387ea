"""flow.assign, flow.experimental.ssp_variable_proxy (+ function_config.enable_ssp) and the categorical
ordinal encoder: state kept in variables across steps, against plain Python references."""

import numpy as np
import pytest
from helpers.ops import expect_error

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(13)


# --- assign ---------------------------------------------------------------------------------------------------
def test_assign_writes_the_variable_for_later_jobs():
    value = rng.standard_normal((3, 4)).astype(np.float32)

    @flow.global_function()
    def write(v: tp.Numpy.Placeholder((3, 4))) -> None:
        var = flow.get_variable("w", shape=(3, 4), initializer=flow.zeros_initializer())
        assert flow.assign(var, v * 2.0) is None

    @flow.global_function()
    def read() -> tp.Numpy:
        return flow.math.relu(flow.get_variable("w", shape=(3, 4), initializer=flow.zeros_initializer()))

    np.testing.assert_array_equal(read(), np.zeros((3, 4), np.float32))
    write(value)
    np.testing.assert_allclose(read(), np.maximum(2 * value, 0), rtol=1e-6)


def test_assign_checks_its_arguments():
    @flow.global_function()
    def not_a_variable(v: tp.Numpy.Placeholder((2,))) -> None:
        flow.assign(v + 1.0, v)
    with expect_error(ValueError, "flow.assign: argument 'ref' must be a variable blob"):
        not_a_variable(np.zeros(2, np.float32))

    @flow.global_function()
    def wrong_shape(v: tp.Numpy.Placeholder((3,))) -> None:
        flow.assign(flow.get_variable("z", shape=(2,), initializer=flow.zeros_initializer()), v)
    with expect_error(ValueError, "flow.assign: argument 'value' must be a blob of ref's shape"):
        wrong_shape(np.zeros(3, np.float32))


# --- ssp_variable_proxy -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("buffer_size", [1, 2, 3])
def test_ssp_value_is_the_variable_buffer_size_minus_one_steps_ago(buffer_size):
    @flow.global_function()
    def step() -> tp.Numpy:
        w = flow.get_variable("w", shape=(2,), initializer=flow.zeros_initializer())
        ref, value = flow.experimental.ssp_variable_proxy(w, buffer_size=buffer_size)
        assert ref is w and value.op_name.startswith("SspVariableProxy_")
        flow.assign(ref, ref + flow.constant_like(ref, 1.0))  # W(t + 1) = W(t) + 1
        return value

    got = [step()[0] for _ in range(7)]
    # value of step t = W(t - buffer_size + 1), with W(k) = k and the initial value before step 0
    assert got == [float(max(t - buffer_size + 1, 0)) for t in range(7)]


def test_enable_ssp_trains_on_stale_values():
    cfg = flow.FunctionConfig()
    cfg.enable_ssp(True)

    @flow.global_function(type="train", function_config=cfg)
    def step() -> tp.Numpy:
        with flow.experimental.scope.config(ssp_num_stages=3, ssp_stage_id=1):  # buffer of 2
            w = flow.get_variable("w", shape=(4,), initializer=flow.zeros_initializer())
        loss = w * 1.0
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [-4.0]), momentum=0).minimize(loss)
        return loss
    # each step adds 4 · (1/4) = 1 to w; the loss shows w one step late
    assert [step()[0] for _ in range(4)] == [0.0, 0.0, 1.0, 2.0]


def test_enable_ssp_needs_the_stage_scope():
    cfg = flow.FunctionConfig()
    cfg.enable_ssp()

    @flow.global_function(type="train", function_config=cfg)
    def step() -> tp.Numpy:
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1.0]), momentum=0).minimize(w * 1.0)
        return w
    with expect_error(ValueError, "enables ssp, so variable 'w' must be created inside"):
        step()


# --- categorical ordinal encoder ---------------------------------------------------------------------------------
def encode_ref(table, size, keys):
    """OneFlow's CPU kernel, key by key: linear probing from key mod capacity (key as unsigned 64-bit)."""
    cap = len(table) // 2
    out = []
    for h in keys.tolist():
        p = (h % 2 ** 64) % cap
        for _ in range(cap):
            if table[2 * p] == h:
                out.append(table[2 * p + 1])
                break
            if table[2 * p] == 0:
                size += 1
                table[2 * p], table[2 * p + 1] = h, size
                out.append(size)
                break
            p = (p + 1) % cap
    return out, size


@pytest.mark.parametrize("dtype,np_dtype", [(flow.int32, np.int32), (flow.int64, np.int64)])
def test_categorical_ordinal_encoder_matches_oneflow_cpu_kernel(dtype, np_dtype):
    capacity = 64

    @flow.global_function()
    def encode(x: tp.Numpy.Placeholder((20,), dtype=dtype)) -> tp.Numpy:
        return flow.layers.categorical_ordinal_encoder(x, capacity=capacity, name="enc")

    tokens = np.array([5, -7, 64, 0, 128, 3, 69, -1, 2 ** 30, 70], np_dtype)
    table, size = [0] * (2 * capacity), 0
    for _ in range(4):
        x = tokens[rng.integers(0, len(tokens), 20)]
        expected, size = encode_ref(table, size, x)
        out = encode(x)
        assert out.dtype == np_dtype
        assert out.tolist() == expected
    variables = flow.get_all_variables()
    assert variables["enc-Table"].numpy().tolist() == table
    assert variables["enc-Size"].numpy().tolist() == [size]


def test_categorical_ordinal_encode_errors():
    @flow.global_function()
    def float_keys(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        return flow.layers.categorical_ordinal_encoder(x, capacity=4)
    with expect_error(ValueError, "categorical_ordinal_encode: argument 'input_tensor' must be an int32 or int64"):
        float_keys(np.zeros(3, np.float32))

    @flow.global_function()
    def full(x: tp.Numpy.Placeholder((5,), dtype=flow.int64)) -> tp.Numpy:
        return flow.layers.categorical_ordinal_encoder(x, capacity=3)
    with expect_error(RuntimeError, "the table of capacity 3 is full"):
        full(np.arange(1, 6, dtype=np.int64))


def test_eager_assign_121_in_eager_mode_only():
    value = rng.standard_normal((2, 3)).astype(np.float32)
    flow.enable_eager_execution(True)
    try:
        @flow.global_function()
        def write(v: tp.Numpy.Placeholder((2, 3))) -> None:
            var = flow.get_variable("e", shape=(2, 3), initializer=flow.zeros_initializer())
            assert flow.experimental.eager_assign_121(var, v) is var

        @flow.global_function()
        def read() -> tp.Numpy:
            return flow.get_variable("e", shape=(2, 3), initializer=flow.zeros_initializer()) * 1.0
        write(value)
        np.testing.assert_array_equal(read(), value)
    finally:
        flow.clear_default_session()
        flow.enable_eager_execution(False)

    @flow.global_function()
    def lazy(v: tp.Numpy.Placeholder((2, 3))) -> None:
        flow.experimental.eager_assign_121(flow.get_variable("e", shape=(2, 3),
                                                             initializer=flow.zeros_initializer()), v)
    with expect_error(AssertionError, "eager_assign_121 needs eager execution"):
        lazy(value)


def test_host_state_ops_make_a_captured_step_run_eagerly(monkeypatch):
    from flowtorch._src.step import graphed
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    monkeypatch.setenv("FLOWTORCH_CAPTURE", "cuda_graph")

    @flow.global_function()
    def step(x: tp.Numpy.Placeholder((3,), dtype=flow.int64)) -> tp.Numpy:
        w = flow.get_variable("w", shape=(1,), initializer=flow.zeros_initializer())
        ref, value = flow.experimental.ssp_variable_proxy(w, buffer_size=2)
        flow.assign(ref, ref + flow.constant_like(ref, 1.0))
        codes = flow.layers.categorical_ordinal_encoder(x, capacity=8)
        return value + flow.cast(flow.math.reduce_sum(codes), flow.float32)

    got = [step(np.array([4, 4, 9 + t], np.int64))[0] for t in range(6)]
    # stale w: 0, 0, 1, 2, 3, 4; codes: 1 + 1 + (2, 3, 4, …) as each step brings a new key
    assert got == [float(max(t - 1, 0) + 2 + t + 2) for t in range(6)]
