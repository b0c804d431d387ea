"""``tp.ListListNumpy`` inputs are tensor lists: ``tensor_list_split`` and the tensor-buffer round trip, in
lazy and eager jobs, against the numpy arrays passed in."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def _lists(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.random((1, 5, 4), np.float32), rng.random((1, 3, 4), np.float32)]


@pytest.mark.parametrize("eager", [False, True])
def test_tensor_list_split_gives_each_tensor_without_its_leading_one(eager: bool) -> None:
    flow.enable_eager_execution(eager)
    try:
        names: list[str] = []

        @flow.global_function()
        def split(x: tp.ListListNumpy.Placeholder((2, 5, 4))) -> tuple[tp.ListNumpy, tp.ListNumpy]:
            a, b = flow.tensor_list_split(x)
            names.extend([a.logical_blob_name, b.logical_blob_name])
            assert a.is_dynamic and a.shape == (5, 4)
            return a, b

        items = _lists(0)
        a, b = split([items])
        np.testing.assert_array_equal(a[0], items[0][0])
        np.testing.assert_array_equal(b[0], items[1][0])
        assert names[0].startswith("TensorListSplit_") and names[0].endswith("/out_0")
        assert names[1].endswith("/out_1")
    finally:
        flow.clear_default_session()
        flow.enable_eager_execution(False)


def test_eager_split_values_are_readable_in_the_body() -> None:
    flow.enable_eager_execution(True)
    try:
        seen: list[np.ndarray] = []

        @flow.global_function()
        def body(x: tp.ListListNumpy.Placeholder((2, 5, 4))) -> None:
            for part in flow.tensor_list_split(x):
                seen.append(part.numpy())

        items = _lists(1)
        body([items])
        assert [s.shape for s in seen] == [(5, 4), (3, 4)]
        np.testing.assert_array_equal(seen[1], items[1][0])
    finally:
        flow.clear_default_session()
        flow.enable_eager_execution(False)


def test_list_to_buffer_and_back_returns_the_same_tensors_as_list_list_numpy() -> None:
    @flow.global_function()
    def round_trip(x: tp.ListListNumpy.Placeholder((2, 5, 4))) -> tp.ListListNumpy:
        buf = flow.tensor_list_to_tensor_buffer(x)
        return flow.tensor_buffer_to_tensor_list(buf, shape=(5, 4), dtype=flow.float)

    items = _lists(2)
    out = round_trip([items])
    assert len(out) == 1 and len(out[0]) == 2
    for got, want in zip(out[0], items):
        np.testing.assert_array_equal(got, want)


def test_tensor_list_inputs_are_checked_against_the_declared_list() -> None:
    @flow.global_function()
    def split(x: tp.ListListNumpy.Placeholder((2, 5, 4))) -> tuple[tp.ListNumpy, tp.ListNumpy]:
        return flow.tensor_list_split(x)

    with pytest.raises(AssertionError, match=r"split.*'x'.*at most 40"):
        split([[np.zeros((1, 5, 4), np.float32)] * 3])
    with pytest.raises(AssertionError, match="rank 3"):
        split([[np.zeros((5, 4), np.float32)]])
    with pytest.raises(ValueError, match="holds 1 tensors"):
        split([[np.zeros((1, 5, 4), np.float32)]])


def test_tensor_list_split_refuses_a_plain_blob() -> None:
    @flow.global_function()
    def bad(x: tp.Numpy.Placeholder((2, 5, 4))) -> tp.Numpy:
        return flow.tensor_list_split(x)[0]

    with pytest.raises(TypeError, match="tensor_list_split.*tensor list"):
        bad(np.zeros((2, 5, 4), np.float32))
