"""Every result form of spec §1: None, Numpy, List*, nested Tuple/List/Dict, Bundle, Callback, the old future."""

from __future__ import annotations

import logging
import traceback
from typing import Dict, List, Tuple  # OneFlow programs annotate with typing's names

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.runtime import results

X = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], np.float32)


def test_none_returns_none() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> None:
        flow.nn.relu(x)

    assert job(X) is None


def test_numpy_is_a_fresh_array_each_call() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.identity(x)

    first = job(X)
    second = job(X)
    assert first is not second and not np.shares_memory(first, X) and not np.shares_memory(first, second)
    first[0, 0] = 100.0
    np.testing.assert_array_equal(job(X), X)


def test_full_reduction_has_shape_1() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.math.reduce_sum(x), flow.math.reduce_mean(x)

    total, mean = job(X)
    assert total.shape == (1,) and mean.shape == (1,)
    np.testing.assert_allclose(total, [X.sum()])
    np.testing.assert_allclose(mean, [X.mean()], rtol=1e-6)


def test_list_numpy_and_list_list_numpy() -> None:
    @flow.global_function()
    def a(x: tp.Numpy.Placeholder((2, 3))) -> tp.ListNumpy:
        return flow.nn.relu(x)

    @flow.global_function()
    def b(x: tp.Numpy.Placeholder((2, 3))) -> tp.ListListNumpy:
        return flow.nn.relu(x)

    out_a, out_b = a(X), b(X)
    assert isinstance(out_a, list) and len(out_a) == 1
    np.testing.assert_array_equal(out_a[0], np.maximum(X, 0))
    assert isinstance(out_b[0], list)
    np.testing.assert_array_equal(out_b[0][0], np.maximum(X, 0))


def test_nested_tuple_list_dict() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))
            ) -> Tuple[tp.Numpy, List[tp.Numpy], Dict[str, Tuple[tp.Numpy, tp.ListNumpy]]]:
        r = flow.nn.relu(x)
        return x, [r, r * 2.0], {"sum": (flow.math.reduce_sum(x), r)}

    x, (r, r2), d = job(X)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(r2, 2 * np.maximum(X, 0))
    assert set(d) == {"sum"}
    np.testing.assert_allclose(d["sum"][0], [X.sum()])
    assert isinstance(d["sum"][1], list)
    np.testing.assert_array_equal(d["sum"][1][0], r)


def test_bundle_keeps_container_types_and_int_keys() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Bundle[tp.Numpy]:
        return {0: x, 1: [flow.nn.relu(x), (x * 3.0,)]}

    out = job(X)
    assert isinstance(out, dict) and set(out) == {0, 1}
    assert isinstance(out[1], list) and isinstance(out[1][1], tuple)
    np.testing.assert_array_equal(out[1][1][0], 3 * X)


def test_callback_registrar_delivers_in_order() -> None:
    got: list[tuple[int, float]] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Callback[Tuple[tp.Numpy, tp.Numpy]]:
        return x, flow.math.reduce_sum(x)

    for i in range(3):
        def cb(result: Tuple[tp.Numpy, tp.Numpy], i: int = i) -> None:
            got.append((i, float(result[1][0])))
        job(X * i)(cb)
    flow.sync_default_session()
    assert got == [(0, 0.0), (1, float(X.sum())), (2, float(2 * X.sum()))]


def test_a_callback_exception_comes_out_of_a_later_call_as_a_callback_error() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Callback[tp.Numpy]:
        return x

    def bad(_: tp.Numpy) -> None:
        raise ValueError("boom in callback")

    job(X)(bad)  # the registration never raises it
    with pytest.raises(flow.CallbackError, match="the callback of call 1 of job 'job' raised ValueError") as info:
        flow.sync_default_session()
    flow.sync_default_session()  # (once)
    assert isinstance(info.value.__cause__, ValueError) and info.value.call == 1
    assert any(frame.name == "bad" for frame in traceback.extract_tb(info.value.__cause__.__traceback__))
    got: list[np.ndarray] = []
    job(X)(got.append)  # the job keeps working
    job(X)(bad)
    raised = 0
    while True:
        try:
            job(X)(got.append)  # refused (nothing of it happens) if the error of call 3 came first
        except flow.CallbackError as exc:
            assert exc.call == 3 and "boom in callback" in str(exc)
            raised += 1
            continue
        break
    try:
        flow.sync_default_session()  # ... else the sync raises it
    except flow.CallbackError as exc:
        assert exc.call == 3
        raised += 1
    assert raised == 1 and len(got) == 2  # every call made was delivered
    np.testing.assert_array_equal(got[0], X)


def test_old_future_get_and_local_blob_api(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(results, "_noticed", set())  # OneFlow's notice is logged once per process and method
    @flow.global_function()
    def job(x=flow.FixedTensorDef((2, 3))):
        return flow.nn.relu(x)

    blob = job(X).get()
    expected = np.maximum(X, 0)
    np.testing.assert_array_equal(blob.numpy(), expected)
    np.testing.assert_array_equal(blob.numpy(0), expected)
    np.testing.assert_array_equal(blob.numpy_list()[0], expected)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        np.testing.assert_array_equal(blob.ndarray(), expected)
        np.testing.assert_array_equal(blob.ndarray(), expected)
        np.testing.assert_array_equal(blob.ndarray_list()[0], expected)
    assert [r.getMessage() for r in caplog.records] == [
        "LocalBlob.ndarray is deprecated, please use LocalBlob.numpy instead",
        "LocalBlob.ndarray_list is deprecated, please use LocalBlob.numpy_list instead"]
    # attribute and operator forwarding to the ndarray
    assert blob.shape == (2, 3) and blob.size == 6
    assert blob.mean() == pytest.approx(expected.mean())
    np.testing.assert_array_equal(blob[1], expected[1])
    np.testing.assert_array_equal(blob + 1, expected + 1)


def test_old_future_async_get_and_single_fetch() -> None:
    @flow.global_function()
    def job(x=flow.FixedTensorDef((2, 3))):
        return {"r": flow.nn.relu(x)}

    got = []
    job(X).async_get(lambda d: got.append(d["r"].numpy()))
    flow.sync_default_session()
    np.testing.assert_array_equal(got[0], np.maximum(X, 0))
    future = job(X)
    future.get()
    with pytest.raises(AssertionError, match="already fetched"):
        future.get()


@pytest.mark.parametrize("ann, exc, text", [
    (int, NotImplementedError, "invalid return annotation"),
    (tp.Callback, TypeError, "cannot be omitted"),
    (Tuple, TypeError, "cannot be omitted"),
    (tp.Bundle[int], NotImplementedError, "invalid return annotation"),
])
def test_bad_return_annotations_fail_at_decoration(ann: object, exc: type[BaseException], text: str) -> None:
    def job(x: tp.Numpy.Placeholder((2,))):  # type: ignore[no-untyped-def]
        return x
    job.__annotations__["return"] = ann
    with pytest.raises(exc, match=text):
        flow.global_function()(job)


def test_return_not_matching_annotation_fails_at_build() -> None:
    @flow.global_function()
    def pair(x: tp.Numpy.Placeholder((2,))) -> Tuple[tp.Numpy, tp.Numpy]:
        return x, x, x

    with pytest.raises(TypeError, match=r"does not matched return annotation.*pair.*length compare: 3 v.s. 2"):
        pair(np.zeros(2, np.float32))


def test_non_blob_return_fails_at_build() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return 3

    with pytest.raises(TypeError, match="returns RemoteBlob or list/tuple/dict nested RemoteBlob only"):
        job(np.zeros(2, np.float32))


def test_none_annotation_with_a_returned_blob_fails() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> None:
        return x

    with pytest.raises(TypeError, match="does not matched return annotation None"):
        job(np.zeros(2, np.float32))


def test_dynamic_blob_cannot_be_returned_as_numpy() -> None:
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((2,))) -> tp.Numpy:
        return x

    with pytest.raises(TypeError, match="only fixed shaped blob compatible to oneflow.typing.Numpy"):
        job([np.zeros(2, np.float32)])


def test_dict_key_type_is_checked() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> Dict[str, tp.Numpy]:
        return {1: x}

    with pytest.raises(TypeError, match="key 1"):
        job(np.zeros(2, np.float32))
