"""``flow.experimental.get/set_interface_blob_value`` and ``enable_typing_check``."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_interface_blob_values_read_and_write_variables_between_calls() -> None:
    @flow.global_function()
    def add() -> tp.Numpy:
        x = flow.get_variable("x", shape=(2, 3), initializer=flow.random_uniform_initializer())
        y = flow.get_variable("y", shape=(2, 3), initializer=flow.random_uniform_initializer())
        return flow.math.add_n([x, y])

    rng = np.random.default_rng(0)
    xv, yv = rng.random((2, 3), np.float32), rng.random((2, 3), np.float32)
    flow.experimental.set_interface_blob_value("x", xv)  # builds the job first, as OneFlow does
    flow.experimental.set_interface_blob_value("y", yv)
    np.testing.assert_array_equal(flow.experimental.get_interface_blob_value("x"), xv)
    np.testing.assert_array_equal(add(), xv + yv)
    with pytest.raises(KeyError, match="no interface blob named 'z'"):
        flow.experimental.get_interface_blob_value("z")
    with pytest.raises(AssertionError, match="expects shape"):
        flow.experimental.set_interface_blob_value("x", np.zeros((3, 2), np.float32))
    np.testing.assert_array_equal(flow.experimental.get_interface_blob_value("x"), xv)  # untouched


def test_typing_check_requires_annotations() -> None:
    flow.experimental.enable_typing_check(True)
    try:
        with pytest.raises(NotImplementedError, match="no return annotation"):
            @flow.global_function()
            def no_return(x: tp.Numpy.Placeholder((2,))):
                return x
        with pytest.raises(NotImplementedError, match="parameter x is not annotated"):
            @flow.global_function()
            def old_style(x=flow.FixedTensorDef((2,))) -> tp.Numpy:
                return x
    finally:
        flow.experimental.enable_typing_check(False)

    @flow.global_function()
    def fine(x=flow.FixedTensorDef((2,))):
        return x
    np.testing.assert_array_equal(fine(np.ones(2, np.float32)).get().numpy(), np.ones(2, np.float32))
