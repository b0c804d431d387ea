"""identity_n, parallel_cast, unique_with_counts, argwhere, tensor_scatter_nd_update/add, cast_to_static_shape
and the dynamic-shape rules, against numpy references written from OneFlow v0.4's op definitions."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, randn_from, run, zero_var

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(11)


randn = randn_from(rng)


# --- identity_n, parallel_cast -------------------------------------------------------------------------------
def test_identity_n_values_gradients_and_names():
    x, y = randn(2, 3), randn(4)
    check_op(lambda a, b: flow.identity_n([b, a])[1], lambda a, b: a, x, y)
    seen = []

    def body(a, b):
        seen.extend(flow.identity_n([a, b, a]))
        return seen[2]
    n = next_id() + 2  # Input_n, Input_n+1 first
    out = make_job(body, [x, y])(x, y)
    np.testing.assert_array_equal(out, x)
    assert lbns(seen) == [f"IdentityN_{n}/out_0", f"IdentityN_{n}/out_1", f"IdentityN_{n}/out_2"]
    assert [b.shape for b in seen] == [(2, 3), (4,), (2, 3)]
    single = []
    make_job(lambda a: single.extend(flow.identity_n([a], name="idn")) or single[0], [y])(y)
    assert isinstance(single, list) and lbns(single) == ["idn/out_0"]


def test_parallel_cast_is_an_identity_and_checks_distributes():
    x = randn(3, 2)
    check_op(lambda a: flow.parallel_cast(a, distribute=flow.distribute.split(0),
                                          gradient_distribute=flow.distribute.broadcast()), lambda a: a, x)
    seen = []
    n = next_id() + 1
    make_job(lambda a: seen.append(flow.parallel_cast(a)) or seen[0], [x])(x)
    assert lbns(seen) == [f"ParallelCast_{n}/out_0"]
    with expect_error(ValueError, "unsupported distribute"):
        run(lambda a: flow.parallel_cast(a, distribute=flow.distribute.auto()), x)


# --- unique_with_counts --------------------------------------------------------------------------------------
def unique_ref(x):
    """First-occurrence order (OneFlow's CPU kernel), by a plain loop."""
    y, idx, count = [], [], []
    for v in x.tolist():
        if v not in y:
            y.append(v)
            count.append(0)
        j = y.index(v)
        idx.append(j)
        count[j] += 1
    return np.array(y), np.array(idx), np.array(count)


@pytest.mark.parametrize("dtype,out_idx", [(np.int32, flow.int32), (np.int64, flow.int64), (np.float32, flow.int32)])
def test_unique_with_counts(dtype, out_idx):
    x = rng.integers(0, 6, 20).astype(dtype)
    got = run(lambda a: list(flow.experimental.unique_with_counts(a, out_idx=out_idx)), x, ret=list[tp.Numpy])
    y, idx, count, num = got
    ry, ridx, rcount = unique_ref(x)
    k = len(ry)
    assert num.tolist() == [k] and num.dtype == out_idx.numpy_dtype
    assert y.shape == idx.shape == count.shape == x.shape and y.dtype == x.dtype
    np.testing.assert_array_equal(y[:k], ry)
    np.testing.assert_array_equal(idx, ridx)
    assert idx.dtype == count.dtype == out_idx.numpy_dtype
    np.testing.assert_array_equal(count[:k], rcount)
    np.testing.assert_array_equal(y[idx], x)
    assert set(y[k:].tolist()) <= {ry[0]} and not count[k:].any()  # flowtorch's fill past num_unique


def test_unique_with_counts_names_and_errors():
    x = np.array([3, 1, 3], np.int32)
    seen = []
    n = next_id() + 1
    make_job(lambda a: seen.extend(flow.experimental.unique_with_counts(a)) or seen[0], [x])(x)
    assert lbns(seen) == [f"UniqueWithCounts_{n}/{b}_0" for b in ("y", "idx", "count", "num_unique")]
    assert [b.shape for b in seen] == [(3,), (3,), (3,), (1,)]
    with expect_error(ValueError, "1-D"):
        run(lambda a: flow.experimental.unique_with_counts(a)[0], np.zeros((2, 2), np.int32))
    with expect_error(ValueError, "out_idx"):
        run(lambda a: flow.experimental.unique_with_counts(a, out_idx=flow.float)[0], x)


# --- argwhere --------------------------------------------------------------------------------------------------
def test_argwhere_values_static_bound_and_names():
    c = (randn(3, 4) > 0.2).astype(np.int8)
    seen = []

    def body(a):
        seen.append(flow.argwhere(a))
        return seen[0]
    n = next_id() + 1
    got = make_job(body, [c], ret=tp.ListNumpy)(c)[0]
    np.testing.assert_array_equal(got, np.argwhere(c))
    assert got.dtype == np.int32
    b = seen[0]
    assert b.is_dynamic and b.shape == (12, 2) and lbns(seen) == [f"SyncDynamicResize_{n + 1}/out"]
    assert flow.argwhere is not None
    none = run(lambda a: flow.argwhere(a, dtype=flow.int64), np.zeros(5, np.float32), ret=tp.ListNumpy)[0]
    assert none.shape == (0, 1) and none.dtype == np.int64


def test_dynamic_blobs_propagate_and_cannot_be_returned_as_numpy():
    c = np.array([1, 0, 1, 1], np.int32)
    seen = {}

    def body(a):
        idx = flow.argwhere(a)
        vals = flow.gather_nd(params=a, indices=idx)
        seen["vals"] = vals
        seen["plus"] = vals + flow.constant(1, dtype=flow.int32)
        seen["sum"] = flow.math.reduce_sum(a)
        return seen["plus"]
    out = make_job(body, [c], ret=tp.ListNumpy)(c)[0]
    np.testing.assert_array_equal(out, [2, 2, 2])
    assert seen["vals"].is_dynamic and seen["plus"].is_dynamic and not seen["sum"].is_dynamic
    with expect_error(TypeError, "only fixed shaped blob"):
        run(lambda a: flow.argwhere(a), c, ret=tp.Numpy)


# --- tensor_scatter_nd_update / add --------------------------------------------------------------------------
def scatter_update_ref(p, u, i):
    out = p.astype(np.float64)
    for j in np.ndindex(*i.shape[:-1]):
        out[tuple(i[j])] = u[j]
    return out


def scatter_add_ref(p, u, i):
    out = p.astype(np.float64)
    for j in np.ndindex(*i.shape[:-1]):
        out[tuple(i[j])] += u[j]
    return out


def test_tensor_scatter_nd_update_values_and_both_gradients():
    p, u = randn(5, 3), randn(3, 3)
    i = np.array([[0], [4], [2]], np.int32)
    check_op(lambda a, b, c: flow.tensor_scatter_nd_update(params=a, indices=c, updates=b), scatter_update_ref,
             p, u, i)
    check_op(lambda b, a, c: flow.tensor_scatter_nd_update(a, c, b), lambda b, a, c: scatter_update_ref(a, b, c),
             u, p, i)
    # index pairs into the first two axes, slices of the rest
    p3, u2 = randn(3, 4, 2), randn(2, 2)
    i2 = np.array([[2, 1], [0, 3]], np.int64)
    check_op(lambda a, b, c: flow.tensor_scatter_nd_update(a, c, b), scatter_update_ref, p3, u2, i2)


def test_tensor_scatter_nd_add_accumulates_repeated_indices():
    p, u = randn(4, 2), randn(4, 2)
    i = np.array([[1], [3], [1], [0]], np.int32)
    check_op(lambda a, b, c: flow.tensor_scatter_nd_add(a, c, b), scatter_add_ref, p, u, i)
    check_op(lambda b, a, c: flow.tensor_scatter_nd_add(a, c, b), lambda b, a, c: scatter_add_ref(a, b, c), u, p, i)


def test_tensor_scatter_nd_names_and_shape_checks():
    p, u, i = randn(5, 3), randn(2, 3), np.array([[1], [2]], np.int32)
    seen = []

    def body(a, b, c):
        seen.extend([flow.tensor_scatter_nd_update(a, c, b), flow.tensor_scatter_nd_add(a, c, b, name="tsa")])
        return seen[0]
    n = next_id() + 3
    make_job(body, [p, u, i])(p, u, i)
    assert lbns(seen) == [f"TensorScatterNdUpdate_{n}/out_0", "tsa/out_0"]
    with expect_error(ValueError, r"shape \(2, 3\)"):
        run(lambda a, b, c: flow.tensor_scatter_nd_update(a, c, b), p, randn(2, 2), i)
    with expect_error(TypeError, "integer blob"):
        run(lambda a, b, c: flow.tensor_scatter_nd_update(a, c, b), p, u, i.astype(np.float32))


# --- cast_to_static_shape ---------------------------------------------------------------------------------------
def test_cast_to_static_shape():
    x = randn(3)
    seen = []

    def body(a):
        seen.append(flow.cast_to_static_shape(a))
        return seen[0]
    make_job(body, [x])(x)
    assert seen[0].op_name.startswith("Input_")  # static: the blob itself, no op (as OneFlow)

    @flow.global_function()
    def full(a: tp.ListNumpy.Placeholder((3,))) -> tp.Numpy:
        s = flow.cast_to_static_shape(a)
        assert not s.is_dynamic and s.shape == (3,) and s.op_name.startswith("CastToStaticShape_")
        return s

    np.testing.assert_array_equal(full([x]), x)
    with pytest.raises(RuntimeError, match=r"shape \(2,\) in this step, not its static shape \(3,\)"):
        full([x[:2]])


def hybrid_embedding(ids, n_hf, table_hf, table_lf):
    """W3's _hybrid_embedding (wdl_train_eval_with_hybrid_embd.py) on flat ids."""
    y, idx, _, _ = flow.experimental.unique_with_counts(ids)
    hf_c = flow.constant(n_hf, dtype=flow.int32)
    hf_i = flow.argwhere(flow.math.less(y, hf_c))
    lf_i = flow.argwhere(flow.math.greater_equal(y, hf_c))
    hf_e = flow.gather(params=table_hf, indices=flow.gather_nd(params=y, indices=hf_i))
    lf_e = flow.gather(params=table_lf, indices=flow.gather_nd(params=y, indices=lf_i) - hf_c)
    e = flow.reshape(flow.zeros_like(y, dtype=flow.float), (-1, 1)) * flow.constant(0.0, dtype=flow.float,
                                                                                    shape=(1, table_hf.shape[1]))
    e = flow.tensor_scatter_nd_update(params=e, updates=hf_e, indices=hf_i)
    e = flow.tensor_scatter_nd_update(params=e, updates=lf_e, indices=lf_i)
    return flow.cast_to_static_shape(flow.gather(params=e, indices=idx))


def test_hybrid_embedding_matches_one_table_with_gradients():
    """The unique/argwhere/scatter path equals a gather from the stacked tables; gradients reach each table's
    rows (numpy: w * count of each id)."""
    ids = np.array([7, 1, 7, 3, 9, 1, 1, 2, 8, 3], np.int32)
    hf0, lf0 = randn(5, 2), randn(6, 2)
    w = randn(10, 2)
    grads = {}

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((10,), dtype=flow.int32), wb: tp.Numpy.Placeholder((10, 2))) -> tp.Numpy:
        hf = flow.get_variable("hf", shape=(5, 2), initializer=flow.zeros_initializer()) + flow.constant_like(
            zero_var("hf0", (5, 2)), 0.0)
        lf = flow.get_variable("lf", shape=(6, 2), initializer=flow.zeros_initializer())
        flow.watch_diff(hf, lambda g: grads.__setitem__("hf", g))
        flow.watch_diff(lf, lambda g: grads.__setitem__("lf", g))
        out = hybrid_embedding(x, 5, hf, lf)
        assert out.shape == (10, 2) and not out.is_dynamic
        flow.losses.add_loss(flow.math.reduce_sum(out * wb))
        return out

    flow.load_variables({"hf": hf0, "lf": lf0})
    got = job(ids, w)
    table = np.concatenate([hf0, lf0])
    np.testing.assert_allclose(got, table[ids], rtol=1e-6)
    want = np.zeros((11, 2), np.float64)
    np.add.at(want, ids, w)
    np.testing.assert_allclose(grads["hf"], want[:5], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads["lf"], want[5:], rtol=1e-5, atol=1e-6)
