"""``flow.experimental.logical_slice`` / ``logical_slice_assign`` against numpy slicing."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_logical_slice_values_and_name() -> None:
    names: list[str] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
        y = flow.experimental.logical_slice(x, [(1, 4, 2), (None, 5, 2)])
        names.append(y.logical_blob_name)
        return y

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(job(x), x[1:4:2, :5:2])
    assert names[0].startswith("LogicalSlice_") and names[0].endswith("/y_0")


def test_logical_slice_assign_writes_the_slice_of_the_variable_each_call() -> None:
    @flow.global_function()
    def write(v: tp.Numpy.Placeholder((2, 2))) -> None:
        var = flow.get_variable("table", shape=(3, 4), initializer=flow.zeros_initializer())
        flow.experimental.logical_slice_assign(var, v, [(1, 3, 1), (0, 4, 2)])

    value = np.array([[1, 2], [3, 4]], np.float32)
    write(value)
    want = np.zeros((3, 4), np.float32)
    want[1:3, 0:4:2] = value
    np.testing.assert_array_equal(flow.experimental.get_interface_blob_value("table"), want)


def test_logical_slice_ops_refuse_negative_steps_and_non_variables() -> None:
    @flow.global_function()
    def neg(x: tp.Numpy.Placeholder((4,))) -> tp.Numpy:
        return flow.experimental.logical_slice(x, [(None, None, -1)])

    with pytest.raises(ValueError, match="step > 0"):
        neg(np.zeros(4, np.float32))

    @flow.global_function()
    def not_var(x: tp.Numpy.Placeholder((4,)), v: tp.Numpy.Placeholder((2,))) -> None:
        flow.experimental.logical_slice_assign(x, v, [(0, 2, 1)])

    with pytest.raises(ValueError, match="variable blob"):
        not_var(np.zeros(4, np.float32), np.zeros(2, np.float32))
