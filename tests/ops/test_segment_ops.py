"""unsorted_segment_sum(_like), unsorted_batch_segment_sum and experimental.indexed_slices_reduce_sum:
values and gradients against plain numpy loops."""

import numpy as np
import pytest
from helpers.ops import expect_error, forward_and_grad, lbns, make_job, run

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(5)


def segment_sum_ref(data, ids, num_segments, axis):
    """Loop over the id positions: row ``data[..., idx, ...]`` goes to ``out[..., ids[idx], ...]``."""
    k = ids.ndim
    out_shape = data.shape[:axis] + (num_segments,) + data.shape[axis + k:]
    out = np.zeros(out_shape, np.float64)
    for idx in np.ndindex(*ids.shape):
        seg = ids[idx]
        if 0 <= seg < num_segments:
            src = (slice(None),) * axis + idx
            out[(slice(None),) * axis + (seg,)] += data[src]
    return out


def segment_grad_ref(dy, ids, axis, data_shape):
    """OneFlow's gradient: gather dy at the ids (0 for ids out of range)."""
    k = ids.ndim
    g = np.zeros(data_shape, np.float64)
    for idx in np.ndindex(*ids.shape):
        seg = ids[idx]
        if 0 <= seg < dy.shape[axis]:
            g[(slice(None),) * axis + idx] = dy[(slice(None),) * axis + (seg,)]
    assert g.ndim == len(data_shape) and k >= 1
    return g


@pytest.mark.parametrize("data_shape,ids_shape,axis", [((6, 3), (6,), 0), ((2, 6, 3), (6,), 1),
                                                       ((2, 4, 5, 3), (4, 5), 1), ((3, 7), (7,), 1)])
def test_unsorted_segment_sum_values_and_gradient(data_shape, ids_shape, axis):
    num_segments = 4
    data = rng.standard_normal(data_shape).astype(np.float32)
    ids = rng.integers(0, num_segments, ids_shape).astype(np.int32)
    y, g, w = forward_and_grad(lambda d, i: flow.math.unsorted_segment_sum(d, i, num_segments, axis=axis), data, ids)
    np.testing.assert_allclose(y, segment_sum_ref(data, ids, num_segments, axis), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g, segment_grad_ref(w, ids, axis, data.shape), rtol=1e-6)


def test_ids_out_of_range_are_dropped_and_get_no_gradient():
    data = rng.standard_normal((5, 2)).astype(np.float32)
    ids = np.array([0, 3, -1, 2, 7], np.int64)
    y, g, w = forward_and_grad(lambda d, i: flow.math.unsorted_segment_sum(d, i, 3), data, ids)
    np.testing.assert_allclose(y, segment_sum_ref(data, ids, 3, 0), rtol=1e-6)
    np.testing.assert_array_equal(g[[1, 2, 4]], 0)
    np.testing.assert_allclose(g[[0, 3]], w[[0, 2]])


def test_unsorted_segment_sum_like_takes_like_shape_and_names():
    data = rng.standard_normal((2, 5, 3)).astype(np.float32)
    ids = rng.integers(0, 4, (5,)).astype(np.int32)
    like = np.zeros((2, 4, 3), np.float32)
    seen = []

    def body(d, i, lk):
        out = flow.math.unsorted_segment_sum_like(d, i, lk, axis=1)
        seen.append(out)
        return out
    y = make_job(body, (data, ids, like))(data, ids, like)
    np.testing.assert_allclose(y, segment_sum_ref(data, ids, 4, 1), rtol=1e-5, atol=1e-6)
    assert lbns(seen)[0].startswith("UnsortedSegmentSumLike_") and lbns(seen)[0].endswith("/out_0")
    named = run(lambda d, i: flow.unsorted_segment_sum(d, i, 4, axis=1, name="seg"), data, ids)
    np.testing.assert_allclose(named, y, rtol=1e-6)


def test_float16_sums_accumulate_in_float32():
    data = np.full((4096, 1), 0.1, np.float16)
    ids = np.zeros((4096,), np.int32)

    def body(d, i):
        return flow.cast(flow.math.unsorted_segment_sum(flow.cast(d, flow.float16), i, 1), flow.float32)
    y = run(body, data.astype(np.float32), ids)
    expected = np.float16(np.float32(np.float16(0.1)) * 4096)  # one rounding at the end
    np.testing.assert_array_equal(y, [[expected]])


def test_unsorted_batch_segment_sum_values_and_gradient():
    data = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    ids = rng.integers(0, 6, (2, 3, 5)).astype(np.int32)
    y, g, w = forward_and_grad(lambda d, i: flow.math.unsorted_batch_segment_sum(d, i, 6), data, ids)
    ref = np.zeros((2, 3, 6, 4))
    grad = np.zeros(data.shape)
    for b0, b1, j in np.ndindex(2, 3, 5):
        ref[b0, b1, ids[b0, b1, j]] += data[b0, b1, j]
        grad[b0, b1, j] = w[b0, b1, ids[b0, b1, j]]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g, grad, rtol=1e-6)


def test_indexed_slices_reduce_sum_merges_rows_in_first_occurrence_order():
    indices = np.array([[4, 1], [4, 9], [1, 1]], np.int32)
    values = rng.standard_normal((3, 2, 3)).astype(np.float32)

    def body(i, v):
        return flow.experimental.indexed_slices_reduce_sum(i, v)
    ret = tuple[tp.Numpy, tp.Numpy, tp.Numpy]
    y_idx, y_val, n = make_job(body, (indices, values), ret=ret)(indices, values)
    assert n.dtype == np.int64 and n.tolist() == [3]
    np.testing.assert_array_equal(y_idx[:3], [4, 1, 9])
    flat = values.reshape(6, 3)
    expected = [flat[[0, 2]].sum(0), flat[[1, 4, 5]].sum(0), flat[3]]
    np.testing.assert_allclose(y_val[:3], expected, rtol=1e-6)
    np.testing.assert_array_equal(y_val[3:], 0)
    assert y_idx.shape == (6,) and y_val.shape == (6, 3)


def test_segment_argument_errors_name_the_op():
    data = np.zeros((4, 2), np.float32)
    with expect_error(ValueError, "unsorted_segment_sum: argument 'segment_ids' must be an int32 or int64 blob"):
        run(lambda d, i: flow.math.unsorted_segment_sum(d, i, 3), data, np.zeros(4, np.float32))
    with expect_error(ValueError, "argument 'segment_ids' must be a blob of shape"):
        run(lambda d, i: flow.math.unsorted_segment_sum(d, i, 3), data, np.zeros(3, np.int32))
    with expect_error(ValueError, "argument 'num_segments' must be a positive int"):
        run(lambda d, i: flow.math.unsorted_segment_sum(d, i, 0), data, np.zeros(4, np.int32))
    with expect_error(ValueError, "unsorted_batch_segment_sum: argument 'segment_ids'"):
        run(lambda d, i: flow.math.unsorted_batch_segment_sum(d, i, 3), data, np.zeros((3, 2), np.int32))
