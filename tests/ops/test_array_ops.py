"""Shape ops, concat/stack, pad, constants, range: numpy values, gradients and names."""

import numpy as np
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, randn_from, run

import flowtorch as flow

rng = np.random.default_rng(3)


randn = randn_from(rng)


def test_flatten_squeeze_expand_dims():
    x = randn(2, 1, 3, 1)
    check_op(lambda a: flow.flatten(a), lambda a: a.reshape(-1), x)
    check_op(lambda a: flow.flatten(a, start_dim=1, end_dim=2), lambda a: a.reshape(2, 3, 1), x)
    check_op(lambda a: flow.squeeze(a), lambda a: a.reshape(2, 3), x)
    check_op(lambda a: flow.squeeze(a, axis=[-1]), lambda a: a.reshape(2, 1, 3), x)
    check_op(lambda a: flow.expand_dims(a, 0), lambda a: a[None], x)
    check_op(lambda a: flow.expand_dims(a, -1), lambda a: a[..., None], x)


def test_concat_and_stack_any_axis():
    a, b = randn(2, 3), randn(2, 5)
    check_op(lambda p, q: flow.concat([p, q], axis=1), lambda p, q: np.concatenate([p, q], 1), a, b)
    check_op(lambda p, q: flow.concat(values=[p, q], axis=-1), lambda p, q: np.concatenate([p, q], 1), a, b)
    c = randn(2, 3)
    for axis in (0, 1, 2, -1):
        check_op(lambda p, q, ax=axis: flow.stack([p, q], axis=ax), lambda p, q, ax=axis: np.stack([p, q], ax), a, c)


def test_concat_stack_names():
    a, b = randn(2, 3), randn(2, 3)
    seen = []

    def body(p, q):
        seen.extend([flow.concat([p, q], axis=0), flow.stack([p, q], axis=1)])
        return seen[0]
    n = next_id() + 2
    make_job(body, [a, b])(a, b)
    assert lbns(seen) == [f"Concat_{n}/out_0", f"Stack_{n + 1}concat/out_0"]


def test_reshape_like_broadcast_like_pad():
    x = randn(2, 6)
    like = np.zeros((3, 4), np.float32)
    check_op(lambda a, b: flow.reshape_like(a, b), lambda a, b: a.reshape(3, 4), x, like)
    v = randn(3)
    big = np.zeros((2, 3), np.float32)
    check_op(lambda a, b: flow.broadcast_like(a, b, broadcast_axes=[0]), lambda a, b: np.broadcast_to(a, (2, 3)),
             v, big)
    col = randn(2, 1)
    check_op(lambda a, b: flow.broadcast_like(a, b, broadcast_axes=[1]), lambda a, b: np.broadcast_to(a, (2, 3)),
             col, big)
    check_op(lambda a: flow.pad(a, [(1, 0), (2, 3)], constant_value=1.5),
             lambda a: np.pad(a, [(1, 0), (2, 3)], constant_values=1.5), randn(2, 3))


def test_constant_like_family_is_a_system_op_with_bare_out():
    x = randn(2, 3)
    seen = []

    def body(a):
        seen.extend([flow.zeros_like(a), flow.ones_like(a), flow.constant_like(a, 7, dtype=flow.int32),
                     flow.zeros((2, 2)), flow.ones((3,), dtype=flow.int32)])
        return seen[2]
    n = next_id() + 1
    out = make_job(body, [x])(x)
    assert out.dtype == np.int32 and (out == 7).all()
    assert lbns(seen)[:3] == [f"ConstantLike_{n}/out", f"ConstantLike_{n + 1}/out", f"ConstantLike_{n + 2}/out"]
    assert lbns(seen)[3:] == [f"Zeros_{n + 3}constant/out_0", f"Ones_{n + 4}constant/out_0"]
    np.testing.assert_array_equal(run(lambda a: flow.ones_like(a), x), np.ones_like(x))


def test_range():
    x = np.zeros(1, np.float32)
    np.testing.assert_array_equal(run(lambda a: flow.range(5) + flow.cast(a, flow.int64), x), np.arange(5))
    out = run(lambda a: flow.range(2, 11, 3, dtype=flow.int32), x)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [2, 5, 8])
    with expect_error(ValueError, match="flow.range: need limit > start"):
        run(lambda a: flow.range(3, 1), x)


def test_cast_same_dtype_adds_no_op():
    x = randn(2)
    seen = []

    def body(a):
        seen.extend([flow.cast(a, flow.float32), flow.cast(a, flow.float64)])
        return seen[1]
    out = make_job(body, [x])(x)
    assert out.dtype == np.float64
    assert seen[0].op_name.startswith("Input_") and seen[1].op_name.startswith("Cast_")


def test_shape_errors():
    x = randn(2, 3)
    with expect_error(ValueError, match=r"flow.squeeze: argument 'axis' must be axes of size 1 of Input_\d+/out "
                                        r"\(2, 3\); received \[0\]"):
        run(lambda a: flow.squeeze(a, axis=[0]), x)
    with expect_error(ValueError, match=r"flow.concat: argument 'inputs' must be blobs matching"):
        run(lambda a, b: flow.concat([a, b], axis=0), x, randn(2, 4))
    with expect_error(ValueError, match=r"flow.concat: argument 'inputs' must be a list or tuple of blobs"):
        run(lambda a: flow.concat(a), x)
    with expect_error(ValueError, match=r"flow.pad: argument 'paddings' must be 2 \(before, after\) pairs"):
        run(lambda a: flow.pad(a, [(1, 1)]), x)
