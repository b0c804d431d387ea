
"""Tuple-of-placeholder parameters, v0.1 list/tuple ``*TensorDef`` defaults, and the namespace helpers the
OneFlow op tests lean on (``dtypes``, ``convert_oneflow_dtype_to_numpy_dtype``, views, distribution)."""

from __future__ import annotations

from typing import Tuple

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_tuple_annotation_gives_a_tuple_of_blobs_and_takes_a_tuple_of_arrays() -> None:
    seen: list[type] = []

    @flow.global_function()
    def add_all(xs: Tuple[tp.Numpy.Placeholder((2, 3)), tp.Numpy.Placeholder((2, 3)),
                          tp.Numpy.Placeholder((2, 3), dtype=flow.float64)]) -> tp.Numpy:
        seen.append(type(xs))
        return flow.math.add_n([xs[0], xs[1], flow.cast(xs[2], flow.float32)])

    rng = np.random.default_rng(0)
    a, b = rng.random((2, 3), np.float32), rng.random((2, 3), np.float32)
    c = rng.random((2, 3))
    np.testing.assert_allclose(add_all((a, b, c)), a + b + c.astype(np.float32), rtol=1e-6)
    assert seen == [tuple]


def test_nested_tuples_mixed_with_plain_parameters_keep_their_order() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,)),
            pair: Tuple[tp.Numpy.Placeholder((3,)), Tuple[tp.Numpy.Placeholder((3,))]]) -> tp.Numpy:
        return x * 100.0 + pair[0] * 10.0 + pair[1][0]

    x, y, z = (np.full(3, v, np.float32) for v in (1, 2, 3))
    np.testing.assert_array_equal(job(x, (y, (z,))), np.full(3, 123, np.float32))


def test_tuple_of_list_numpy_placeholders_takes_per_device_lists() -> None:
    @flow.global_function()
    def job(xs: Tuple[tp.ListNumpy.Placeholder((4,))]) -> Tuple[tp.ListNumpy]:
        return (xs[0] * 2.0,)

    (out,) = job(([np.ones(3, np.float32)],))
    np.testing.assert_array_equal(out[0], np.full(3, 2, np.float32))


def test_a_call_with_the_wrong_structure_names_the_job_and_the_argument() -> None:
    @flow.global_function()
    def pairjob(xs: Tuple[tp.Numpy.Placeholder((2,)), tp.Numpy.Placeholder((2,))]) -> tp.Numpy:
        return xs[0] + xs[1]

    one = np.zeros(2, np.float32)
    with pytest.raises(AssertionError, match=r"pairjob.*'xs'.*tuple of 2"):
        pairjob((one,))
    with pytest.raises(AssertionError, match=r"pairjob.*'xs'.*tuple of 2"):
        pairjob([one, one])
    with pytest.raises(AssertionError, match=r"xs\[1\]"):
        pairjob((one, np.zeros(3, np.float32)))


def test_bad_tuple_annotations_are_refused_at_decoration() -> None:
    with pytest.raises(TypeError, match="cannot be omitted"):
        @flow.global_function()
        def ellipsis(xs: Tuple[tp.Numpy.Placeholder((2,)), ...]) -> tp.Numpy:
            return xs[0]
    with pytest.raises(NotImplementedError, match="invalid parameter annotation"):
        @flow.global_function()
        def bad(xs: Tuple[tp.Numpy, tp.Numpy]) -> tp.Numpy:
            return xs[0]


def test_v01_list_of_fixed_tensor_defs_as_one_default() -> None:
    @flow.global_function()
    def concat(xs=[flow.FixedTensorDef((2, 2)), flow.FixedTensorDef((2, 2))]):  # noqa: B006 - v0.1 style
        return flow.concat(list(xs), axis=0)

    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    out = concat([a, a + 4]).get().numpy()
    np.testing.assert_array_equal(out, np.arange(8, dtype=np.float32).reshape(4, 2))


def test_dtype_helpers_match_oneflow_tables() -> None:
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.float) is np.float32
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.double) is np.float64
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.int8) is np.int8
    assert flow.convert_oneflow_dtype_to_numpy_dtype(flow.uint8) is np.uint8
    every = flow.dtypes()
    assert flow.int64 in every and flow.record in every and flow.tensor_buffer in every
    with pytest.raises(NotImplementedError, match="tensor_buffer"):
        flow.convert_oneflow_dtype_to_numpy_dtype(flow.tensor_buffer)


def test_view_cast_and_distribution_hints_leave_values_alone() -> None:
    tags: list[str] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"):
            y = flow.cast_to_current_logical_view(x).with_distribute(flow.distribute.split(0))
            y = y.with_broadcast_distribute() * 2.0
        tags.append(y.parallel_conf.device_tag())
        assert y.parallel_size == 1
        with pytest.raises(TypeError, match="with_distribute"):
            y.with_distribute("S(0)")
        return y

    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(job(x), x * 2)
    assert tags == ["cpu"]
    with flow.device_prior_placement("cpu", "0:0"):
        assert flow.current_scope().device_parallel_desc_symbol.device_tag == "cpu"
