"""Hostile input values (issue 11): casts that would change values are refused, read-only arrays are copied."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.capture import signature


def _plus_one(dtype: object, shape: tuple[int, ...] = (2,)) -> flow.global_function:
    @flow.global_function()
    def j(x: tp.Numpy.Placeholder(shape, dtype=dtype)) -> tp.Numpy:
        return x + 1
    return j


def test_int64_outside_int32_is_refused_and_the_job_still_works() -> None:
    j = _plus_one(flow.int32)
    with pytest.raises(TypeError) as info:
        j(np.array([2**33 + 5, 1], np.int64))
    assert str(info.value) == (
        "job 'j', argument 'x' (#0): expected int32; received int64 values outside int32's range "
        "[-2147483648, 2147483647] (8589934597 at index (0,)): cast explicitly")
    out = j(np.array([2**31 - 2, -2**31], np.int64))  # the bounds themselves are fine
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.array([2**31 - 1, -2**31 + 1], np.int32))


@pytest.mark.parametrize("dtype, value, message", [
    (flow.int32, np.array([[0, 1, 2], [3, -2**40, 2**40]], np.int64),
     ("expected int32; received int64 values outside int32's range [-2147483648, 2147483647] "
      "(-1099511627776 at index (1, 1) and 1 more): cast explicitly")),
    (flow.uint8, np.array([[0, 255, 256], [-1, 1, 2]], np.int64),
     ("expected uint8; received int64 values outside uint8's range [0, 255] (256 at index (0, 2) and 1 more): "
      "cast explicitly")),
    (flow.int8, np.array([[0, 1, 2], [3, 4, 200]], np.uint8),
     "expected int8; received uint8 values outside int8's range [-128, 127] (200 at index (1, 2)): cast explicitly"),
    (flow.uint8, np.asfortranarray([[0, 1, -3], [-4, 5, 6]], np.int8),  # first in index order, not memory order
     ("expected uint8; received int8 values outside uint8's range [0, 255] (-3 at index (0, 2) and 1 more): "
      "cast explicitly")),
    (flow.float32, np.array([[0.5, np.nan, np.inf], [-1e39, 1e300, 2.0]]),
     ("expected float32; received float64 values outside float32's range [-3.4028235e+38, 3.4028235e+38] "
      "(-1e+39 at index (1, 0) and 1 more): they would become inf; cast explicitly")),
    (flow.float16, np.array([[1, 2, 3], [4, 5, 70000]], np.int32),
     ("expected float16; received int32 values outside float16's range [-65504, 65504] (70000 at index (1, 2)): "
      "they would become inf; cast explicitly")),
], ids=["int64-int32", "int64-uint8", "uint8-int8", "int8F-uint8", "float64-float32", "int32-float16"])
def test_lossy_values_are_a_type_error_naming_the_first(dtype: object, value: np.ndarray, message: str) -> None:
    j = _plus_one(dtype, (2, 3))
    with pytest.raises(TypeError) as info:
        j(value)
    assert str(info.value) == f"job 'j', argument 'x' (#0): {message}"


@pytest.mark.parametrize("dtype, value", [
    (flow.float32, np.array([0.1, 1 / 3, np.nan, -np.inf, 3.4028235e38, 1e-50])),  # rounding, NaN/inf, underflow
    (flow.float16, np.array([65519.0, -1e-9, np.inf, np.nan, 0.1, 2.0], np.float32)),  # 65519 rounds to 65504
    (flow.int32, np.array([-2**31, 2**31 - 1, 0, 1, 2, 3], np.int64)),
    (flow.uint8, np.array([0, 255, 1, 2, 3, 4], np.int64)),
    (flow.int8, np.array([0, 127, 1, 2, 3, 4], np.uint8)),
    (flow.int64, np.array([0, 255, 1, 2, 3, 4], np.uint8)),
    (flow.int32, np.array([True, False, True, True, False, False])),
    (flow.float32, np.array([2**62, -2**62, 0, 1, 2, 3], np.int64)),  # rounds, stays in range
], ids=["float64-float32", "float32-float16", "int64-int32", "int64-uint8", "uint8-int8", "uint8-int64", "bool-int32",
        "int64-float32"])
def test_value_preserving_conversions_are_cast_as_numpy_does(dtype: object, value: np.ndarray) -> None:
    @flow.global_function()
    def j(x: tp.Numpy.Placeholder((6,), dtype=dtype)) -> tp.Numpy:
        return flow.identity(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning either
        out = j(value)
    expected = value.astype(dtype.numpy_dtype)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def test_kinds_that_cannot_convert_keep_their_message() -> None:
    j = _plus_one(flow.int32)
    with pytest.raises(TypeError) as info:
        j(np.array([1.0, 2.0]))
    assert str(info.value) == ("job 'j', argument 'x' (#0): expected dtype int32; received float64, which cannot "
                               "be converted to int32 without losing its meaning (cast it explicitly)")
    with pytest.raises(TypeError, match=r"received complex128, which cannot be converted to int32"):
        j(np.array([1j, 2]))
    np.testing.assert_array_equal(j(np.array([True, False])), [2, 1])


def test_list_numpy_and_tensor_list_items_are_range_checked() -> None:
    @flow.global_function()
    def lists(x: tp.ListNumpy.Placeholder((4,), dtype=flow.int8),
              y: tp.ListListNumpy.Placeholder((4,), dtype=flow.int8)) -> tuple[tp.ListNumpy, tp.ListListNumpy]:
        return x, y

    good = [np.array([1, 2], np.int64)], [[np.array([3], np.int64), np.array([4, 5], np.uint8)]]
    with pytest.raises(TypeError) as info:
        lists([np.array([1, -129], np.int64)], good[1])
    assert str(info.value) == ("job 'lists', argument 'x' (#0): expected int8; received int64 values outside int8's "
                               "range [-128, 127] (-129 at index (1,)): cast explicitly")
    with pytest.raises(TypeError) as info:
        lists(good[0], [[np.array([3], np.int64), np.array([4, 128], np.uint8)]])
    assert str(info.value) == ("job 'lists', argument 'y' (#1), tensor 1 of the list: expected int8; received uint8 "
                               "values outside int8's range [-128, 127] (128 at index (1,)): cast explicitly")
    (x,), ((y0, y1),) = lists(*good)
    assert x.dtype == y0.dtype == y1.dtype == np.int8
    np.testing.assert_array_equal(x, [1, 2])
    np.testing.assert_array_equal(y1, [4, 5])


def test_rejected_values_leave_a_train_job_s_variables_untouched() -> None:
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2,)), labels: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
        w = flow.get_variable("w", shape=(2,), initializer=flow.constant_initializer(1.0))
        loss = flow.math.reduce_sum(x * w) + flow.math.reduce_sum(flow.cast(labels, flow.float))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return w

    x = np.array([1.0, 2.0], np.float32)
    train(x, np.array([1, 2], np.int32))

    def snapshot() -> dict[str, np.ndarray]:
        return {k: v.numpy().copy() for k, v in flow.get_all_variables().items()}

    before = snapshot()
    with pytest.raises(TypeError, match=r"'train', argument 'labels' \(#1\).*2147483648 at index \(1,\)"):
        train(x, np.array([0, 2**31], np.int64))
    with pytest.raises(TypeError, match=r"'train', argument 'x' \(#0\).*1e\+40 at index \(0,\)"):
        train(np.array([1e40, 0.0]), np.array([1, 2], np.int32))
    after = snapshot()
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    seen = train(x, np.array([1, 2], np.int64))  # the job reads w before its update ...
    np.testing.assert_array_equal(seen, before["w"])
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), before["w"] - 0.1 * x, rtol=1e-6)  # ... one step


@pytest.fixture
def read_only_to_torch(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The shapes of read-only arrays handed to ``torch.from_numpy`` (torch warns about them only once per
    process, so a warning filter alone misses all but the first)."""
    seen: list[tuple[int, ...]] = []
    original = torch.from_numpy

    def spy(array: np.ndarray) -> torch.Tensor:
        if not array.flags.writeable:
            seen.append(array.shape)
        return original(array)
    monkeypatch.setattr(torch, "from_numpy", spy)
    return seen


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def test_read_only_inputs_are_copied_without_a_warning(read_only_to_torch: list[tuple[int, ...]]) -> None:
    @flow.global_function()
    def j(x: tp.Numpy.Placeholder((2, 3)), n: tp.ListNumpy.Placeholder((4,), dtype=flow.int32)
          ) -> tuple[tp.Numpy, tp.ListNumpy]:
        return x * 2.0 + 1.0, n + 1

    x = np.frombuffer(np.arange(6, dtype=np.float32).tobytes(), np.float32).reshape(2, 3)  # read-only memory
    n = _read_only(np.array([5, 6, 7], np.int32))
    assert not x.flags.writeable
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            out, (m,) = j(x, [n])
            np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3) * 2 + 1)
            np.testing.assert_array_equal(m, [6, 7, 8])
    assert [str(w.message) for w in caught] == []
    assert read_only_to_torch == []
    np.testing.assert_array_equal(n, [5, 6, 7])


def test_read_only_inputs_of_callback_jobs(read_only_to_torch: list[tuple[int, ...]]) -> None:
    @flow.global_function()
    def j(x: tp.Numpy.Placeholder((3,)), k: tp.Numpy.Placeholder((3,), dtype=flow.int32)
          ) -> tp.Callback[tuple[tp.Numpy, tp.Numpy]]:
        return x * 2.0 + 1.0, k * 3

    got: list[tuple[np.ndarray, np.ndarray]] = []
    x = np.array([1.0, 2.0, 3.0], np.float32)
    k = _read_only(np.array([1, -2, 3], np.int64))  # read-only and converted
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(3):
            j(_read_only(x + i), k)(got.append)
        flow.sync_default_session()
    assert [str(w.message) for w in caught] == []
    assert read_only_to_torch == []
    assert len(got) == 3
    for i, (a, b) in enumerate(got):
        np.testing.assert_array_equal(a, (x + i) * 2 + 1)
        np.testing.assert_array_equal(b, [3, -6, 9])


def test_conversion_copies_read_only_arrays_and_keeps_writable_ones_in_place() -> None:
    spec = signature.InputSpec("x", tp.Numpy.Placeholder((2, 2)))
    writable = np.ones((2, 2), np.float32)
    tensor = signature.convert_input(writable, spec, flow.float32, "j", 0, "cpu")
    assert np.shares_memory(tensor.numpy(), writable)  # a blocking call's step reads it in place
    read_only = _read_only(np.ones((2, 2), np.float32))
    tensor = signature.convert_input(read_only, spec, flow.float32, "j", 0, "cpu")
    assert not np.shares_memory(tensor.numpy(), read_only) and tensor.numpy().flags.writeable
    np.testing.assert_array_equal(tensor.numpy(), read_only)
