"""gather family, slices, where/masked_fill, one_hot, sort: numpy values, gradients, names."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(4)


randn = randn_from(rng)


def test_gather_axes_and_index_shapes():
    p = randn(4, 5, 3)
    idx = np.array([[3, 0], [1, 1]], np.int32)
    check_op(lambda a, i: flow.gather(a, i), lambda a, i: np.take(a, i, axis=0), p, idx)
    check_op(lambda a, i: flow.gather(a, i, axis=1), lambda a, i: np.take(a, i, axis=1), p, idx)
    check_op(lambda a, i: flow.gather(a, i, axis=-1), lambda a, i: np.take(a, i, axis=2), p,
             np.array([2, 0], np.int64))


def test_batch_gather():
    p = randn(2, 4, 3)
    idx = np.array([[3, 0, 0], [1, 2, 3]], np.int32)
    ref = lambda a, i: np.stack([a[b][i[b]] for b in range(2)])  # noqa: E731
    check_op(lambda a, i: flow.gather(a, i, batch_dims=1), ref, p, idx)
    seen = []

    def body(a, i):
        seen.append(flow.gather(a, i, batch_dims=1))
        return seen[0]
    make_job(body, [p, idx])(p, idx)
    assert seen[0].op_name.startswith("BatchGather_")


def _batch_gather_ref(a, i):
    """OneFlow's batch_gather: the first indices.ndim - 1 axes are batch axes (numpy loop)."""
    nb = i.ndim - 1
    lead = i.shape[:nb]
    out = np.zeros(i.shape + a.shape[nb + 1:], a.dtype)
    for b in np.ndindex(*lead):
        for j in range(i.shape[-1]):
            out[b + (j,)] = a[b + (i[b + (j,)],)]
    return out


def test_gather_batch_dims_takes_batch_axes_from_the_indices():
    # BERT pretraining: params (B, S, H), positions (B, P), axis=2, batch_dims=2 -> (B, P, H)
    seq = randn(2, 5, 3)
    pos = np.array([[4, 0, 2, 2], [1, 3, 0, 4]], np.int32)
    check_op(lambda a, i: flow.gather(a, i, axis=2, batch_dims=2), _batch_gather_ref, seq, pos)
    # two batch axes from 3-D indices, whatever batch_dims says
    p4 = randn(2, 3, 4, 2)
    i3 = rng.integers(0, 4, (2, 3, 5)).astype(np.int64)
    check_op(lambda a, i: flow.gather(a, i, axis=1, batch_dims=1), _batch_gather_ref, p4, i3)
    shapes = []
    make_job(lambda a, i: shapes.append(flow.gather(a, i, axis=2, batch_dims=2).shape) or a, [seq, pos])(seq, pos)
    assert shapes == [(2, 4, 3)]


def test_gather_batch_dims_errors():
    p = randn(2, 5, 3)
    i = np.zeros((2, 4), np.int32)
    with expect_error(NotImplementedError, "axis == batch_dims"):
        run(lambda a, b: flow.gather(a, b, axis=2, batch_dims=1), p, i)
    with expect_error(AttributeError, "axis == batch_dims"):
        run(lambda a, b: flow.gather(a, b, axis=0, batch_dims=1), p, i)
    with expect_error(ValueError, "2 to 3 axes"):
        run(lambda a, b: flow.gather(a, b, batch_dims=1), p, np.zeros(4, np.int32))
    with expect_error(ValueError, "leading shape"):
        run(lambda a, b: flow.gather(a, b, batch_dims=1), p, np.zeros((3, 4), np.int32))


def test_gather_nd_and_dim_gather():
    p = randn(3, 4, 2)
    idx = np.array([[0, 1], [2, 3]], np.int32)
    check_op(lambda a, i: flow.gather_nd(a, i), lambda a, i: a[i[:, 0], i[:, 1]], p, idx)
    x = randn(3, 4)
    di = np.array([[0, 3], [1, 1], [2, 0]], np.int64)
    check_op(lambda a, i: flow.dim_gather(a, 1, i), lambda a, i: np.take_along_axis(a, i, 1), x, di)


@pytest.mark.parametrize("tups", [
    [(1, 3, 1)], [(None, None, 2), (1, None, None)], [(None, None, -1)], [(3, 0, -2), (None, None, -1)],
    [(-2, None, 1), (0, -1, 2)],
])
def test_slice_v2_python_semantics(tups):
    x = randn(5, 4)
    ref_index = tuple(slice(*t) for t in tups)
    check_op(lambda a: flow.slice_v2(a, list(tups)), lambda a: a[ref_index], x)


def test_slice_begin_size_and_reverse():
    x = randn(4, 5)
    check_op(lambda a: flow.slice(a, [1, -3], [2, -1]), lambda a: a[1:3, 2:], x)
    check_op(lambda a: flow.slice(a, [None, 0], [None, 2]), lambda a: a[:, 0:2], x)
    check_op(lambda a: flow.reverse(a, 1), lambda a: a[:, ::-1], x)
    check_op(lambda a: flow.reverse(a, [0, 1]), lambda a: a[::-1, ::-1], x)
    seen = []

    def body(a):
        seen.extend([flow.slice(a, [0, 0], [1, 1]), flow.reverse(a, 0)])
        return seen[0]
    n = next_id() + 1
    make_job(body, [x])(x)
    assert lbns(seen) == [f"SliceV2_{n}/y_0", f"Reverse_{n + 1}/y_0"]


def test_where_same_shape_and_broadcast_names():
    c = np.array([[1, 0, 1], [0, 0, 1]], np.int8)
    x, y = randn(2, 3), randn(2, 3)
    check_op(lambda a, b, cc: flow.where(cc, a, b), lambda a, b, cc: np.where(cc != 0, a, b), x, y, c)
    row = randn(3)
    seen = []

    def body(cc, a, b):
        seen.append(flow.where(cc, a, b))
        return seen[0]
    n = next_id() + 3
    out = make_job(body, [c, x, row])(c, x, row)
    np.testing.assert_allclose(out, np.where(c != 0, x, row))
    assert seen[0].logical_blob_name == f"Where_{n}/out_0"
    # one argument: OneFlow's argwhere (a dynamic blob, returned as ListNumpy)
    np.testing.assert_array_equal(run(lambda cc: flow.where(cc), c, ret=tp.ListNumpy)[0], np.argwhere(c))


def test_masked_fill():
    x = randn(2, 3)
    m = np.array([[1, 0, 0], [0, 1, 1]], np.int8)
    check_op(lambda a, mm: flow.masked_fill(a, mm, 2.5), lambda a, mm: np.where(mm != 0, 2.5, a), x, m)


def test_one_hot_axis_dtype_and_out_of_range():
    idx = np.array([0, 2, 1, 5], np.int32)
    out = run(lambda i: flow.one_hot(i, depth=3), idx)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.eye(3, dtype=np.float32)[[0, 2, 1]].tolist() + [[0, 0, 0]])
    out = run(lambda i: flow.one_hot(i, depth=3, on_value=5, off_value=-1, axis=0, dtype=flow.int32), idx[:3])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.where(np.eye(3)[[0, 2, 1]].T == 1, 5, -1))
    seen = []

    def body(i):
        seen.append(flow.one_hot(i, depth=4))
        return seen[0]
    n = next_id() + 1
    make_job(body, [idx])(idx)
    assert lbns(seen) == [f"OneHot_{n}/out_0"]


def test_sort_argsort():
    x = np.array([[3.0, 1.0, 2.0], [0.5, 0.7, -1.0]], np.float32)
    np.testing.assert_array_equal(run(flow.sort, x), np.sort(x, -1))
    np.testing.assert_array_equal(run(lambda a: flow.sort(a, "DESCENDING"), x), -np.sort(-x, -1))
    out = run(flow.argsort, x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.argsort(x, -1, kind="stable"))


def test_index_errors():
    x = randn(3, 4)
    with expect_error(TypeError, match=r"flow.gather: argument 'indices' must be an integer blob"):
        run(lambda a, i: flow.gather(a, i), x, np.zeros(2, np.float32))
    with expect_error(ValueError, match=r"flow.slice: argument 'begin' must be a list of 2 ints"):
        run(lambda a: flow.slice(a, [0], [1]), x)
    with expect_error(ValueError, match=r"flow.slice_v2: argument 'slice_tup_list' must be a non-zero step"):
        run(lambda a: flow.slice_v2(a, [(0, 2, 0)]), x)
    with expect_error(ValueError, match=r"flow.one_hot: argument 'depth' must be a positive int; received 0"):
        run(lambda i: flow.one_hot(i, 0), np.zeros(2, np.int32))
