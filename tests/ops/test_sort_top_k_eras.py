"""flow.sort / flow.argsort / flow.math.top_k called as OneFlow v0.3.4 wrote them (sort's axis, top_k's axis) and as
v0.1.2 did (no axis): values against numpy, tie order, op names, and the calls that stay errors."""

import re

import numpy as np
import pytest
from helpers.ops import expect_error, lbns, make_job, run

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(11)


def np_argsort(x, axis, descending):
    """Stable indices along ``axis``; descending keeps equal values in index order."""
    moved = np.moveaxis(x, axis, -1)
    keys = -moved.astype(np.float64) if descending else moved
    return np.moveaxis(np.argsort(keys, axis=-1, kind="stable"), -1, axis).astype(np.int32)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort_along_any_axis(axis, direction):
    x = rng.integers(0, 5, (3, 4, 5)).astype(np.int32)  # many equal values: the order of ties shows
    want = np_argsort(x, axis, direction == "DESCENDING")
    got = run(lambda a: flow.argsort(a, axis, direction), x)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(run(lambda a: flow.sort(a, axis, direction), x),
                                  np.take_along_axis(x, want, axis))


def test_v012_sort_calls_without_an_axis():
    x = rng.standard_normal((2, 6)).astype(np.float32)
    desc = -np.sort(-x, -1)
    np.testing.assert_array_equal(run(lambda a: flow.sort(a, "DESCENDING"), x), desc)
    np.testing.assert_array_equal(run(lambda a: flow.sort(a, direction="DESCENDING"), x), desc)
    np.testing.assert_array_equal(run(lambda a: flow.argsort(a, "ASCENDING"), x), np.argsort(x, -1))
    seen = []

    def body(a):
        seen.append(flow.sort(a, "DESCENDING", "my_sort"))  # v0.1.2's third argument: the name
        seen.append(flow.argsort(a, "ASCENDING", None))
        return seen[0]

    np.testing.assert_array_equal(make_job(body, [x])(x), desc)
    assert lbns(seen)[0] == "my_sort/out_0"
    assert re.fullmatch(r"ArgSort_\d+/out_0", lbns(seen)[1])


def test_sort_names_a_moved_axis_as_oneflow():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    seen = []

    def body(a):
        seen.append(flow.sort(a, 0, name="s"))
        return seen[0]

    np.testing.assert_array_equal(make_job(body, [x])(x), np.sort(x, 0))
    assert lbns(seen) == ["s_inverse_transpose/output_0"]


def test_sort_errors():
    x = np.zeros((2, 3), np.float32)
    with expect_error(ValueError, match=r"flow.sort: argument 'axis' must be an int in \[-2, 2\); received 2"):
        run(lambda a: flow.sort(a, 2), x)
    with expect_error(ValueError, match=r"flow.argsort: argument 'direction' must be one of 'ASCENDING', "
                                        r"'DESCENDING'; received 'UP'"):
        run(lambda a: flow.argsort(a, -1, "UP"), x)
    with expect_error(ValueError, match=r"flow.sort: argument 'direction' must be given once"):
        run(lambda a: flow.sort(a, "ASCENDING", direction="DESCENDING"), x)
    with expect_error(ValueError, match=r"flow.sort: argument 'name' must be given once"):
        run(lambda a: flow.sort(a, "ASCENDING", "n1", name="n2"), x)


def np_top_k(x, k):
    """OneFlow's top_k: indices of the k largest along the last axis, equal values in index order."""
    return np_argsort(x, -1, True)[..., :k]


def test_top_k_breaks_ties_by_index():
    x = rng.integers(0, 4, (6, 9)).astype(np.int64)
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, k=4), x), np_top_k(x, 4))
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, 0, 2), x),  # v0.3.4: axis 0, k 2
                                  np_argsort(x, 0, True)[:2])


def test_v012_top_k_calls():
    x = rng.integers(0, 50, (4, 30)).astype(np.int32)
    # v0.1.2's (input, k, sorted): a bool third argument
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, 5, True), x), np_top_k(x, 5))
    # an int second argument that is no axis of the input can only be v0.1.2's k
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, 7), x), np_top_k(x, 7))
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, 200, True), x), np_top_k(x, 30))
    seen = []

    def body(a):
        seen.append(flow.math.top_k(a, 3, False, "v012_top_k"))  # the fourth: its name
        return seen[0]

    np.testing.assert_array_equal(make_job(body, [x])(x), np_top_k(x, 3))
    assert lbns(seen) == ["v012_top_k/out_0"]
    # an axis of the input stays v0.3.4's axis (k 1)
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, 1), x), np_top_k(x, 1))
    np.testing.assert_array_equal(run(lambda a: flow.math.top_k(a, 0), x), np_argsort(x, 0, True)[:1])


def test_top_k_of_a_dynamic_input_caps_k_at_its_run_time_size():
    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((12,), dtype=flow.float32)) -> tp.ListNumpy:
        return flow.math.top_k(x, 10, True)  # v0.1.2's k=10 (10 is no axis of a 1-D input)

    x = rng.standard_normal(6).astype(np.float32)
    (out,) = job([x])
    np.testing.assert_array_equal(out, np.argsort(-x, kind="stable").astype(np.int32))
    flow.clear_default_session()


def test_top_k_errors():
    x = np.zeros((2, 3), np.float32)
    with expect_error(ValueError, match=r"flow.math.top_k: argument 'name' must be given once"):
        run(lambda a: flow.math.top_k(a, 2, True, "a", name="b"), x)
    with expect_error(ValueError, match=r"flow.math.top_k: argument 'k' must be a positive int; received 0"):
        run(lambda a: flow.math.top_k(a, 0, True), x)
