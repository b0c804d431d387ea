"""OneFlow's time shape: between ``unpack``/``repeat`` and ``pack``/``acc`` every op runs once per piece, so ops
that reduce or reshape axis 0 see one piece, as OneFlow's kernels did; ``blob.shape`` is the piece's; time dims
nest and ``pack``/``acc`` take them off by OneFlow's rules (``user/ops/{pack,acc}_op.cpp``). References are numpy
loops over the pieces."""

from __future__ import annotations

import numpy as np
from helpers.ops import check_op, expect_error, make_job, run

import flowtorch as flow

rng = np.random.default_rng(3737)


def _pieces(x: np.ndarray, n: int) -> list[np.ndarray]:
    return np.split(x, n, axis=0)


def test_a_reduction_over_axis_0_between_unpack_and_pack_sums_each_piece() -> None:
    x = rng.standard_normal((6, 4)).astype(np.float32)

    def f(a):
        return flow.pack(flow.math.reduce_sum(flow.unpack(a, 3), axis=0, keepdims=True), 3)

    def ref(a):
        return np.concatenate([p.sum(axis=0, keepdims=True) for p in _pieces(a, 3)])

    check_op(f, ref, x)


def test_a_reshape_between_unpack_and_pack_reshapes_each_piece_and_shapes_are_the_pieces() -> None:
    x = rng.standard_normal((6, 4)).astype(np.float32)
    shapes = []

    def body(a):
        piece = flow.unpack(a, 3)
        flat = flow.reshape(piece, (8,))
        out = flow.pack(flat, 3)
        shapes.extend([piece.shape, flat.shape, out.shape])
        return out

    got = make_job(body, [x])(x)
    np.testing.assert_array_equal(got, np.concatenate([p.reshape(8) for p in _pieces(x, 3)]))
    assert shapes == [(2, 4), (8,), (24,)]


def test_a_softmax_over_axis_0_of_each_piece() -> None:
    x = rng.standard_normal((6, 3)).astype(np.float32)

    def ref(a):
        out = []
        for p in _pieces(a, 2):
            e = np.exp(p - p.max(axis=0))
            out.append(e / e.sum(axis=0))
        return np.concatenate(out)

    check_op(lambda a: flow.pack(flow.nn.softmax(flow.unpack(a, 2), axis=0), 2), ref, x)


def test_nested_unpacks_come_off_innermost_first() -> None:
    x = rng.standard_normal((12, 2)).astype(np.float32)
    shapes = []

    def body(a):
        inner = flow.unpack(flow.unpack(a, 2), 3)  # time dims (2, 3): 6 pieces of 2 rows
        means = flow.math.reduce_mean(inner, axis=0, keepdims=True)  # one row per piece
        halves = flow.pack(means, 3)  # time dims (2,): 2 pieces of 3 rows
        shapes.extend([inner.shape, means.shape, halves.shape])
        return flow.acc(halves, 2)  # the two halves' rows added

    got = make_job(body, [x])(x)
    rows = np.stack([p.mean(axis=0) for p in _pieces(x, 6)])  # the 6 pieces in time order
    np.testing.assert_allclose(got, rows[:3] + rows[3:], rtol=1e-5, atol=1e-6)
    assert shapes == [(2, 2), (1, 2), (3, 2)]


def test_acc_of_a_divisor_of_the_last_time_dim_leaves_the_rest_and_its_gradient_is_repeat() -> None:
    x = rng.standard_normal((3, 2)).astype(np.float32)

    def f(a):
        twice = flow.acc(flow.repeat(a, 4), 2)  # time dims (4,) → (2,): each piece a + a
        return flow.acc(twice * 0.5, 2)  # → none: (a + a) / 2 + (a + a) / 2

    check_op(f, lambda a: 2.0 * a, x)


def test_ops_mixing_pieces_with_a_per_step_blob_use_it_in_every_piece() -> None:
    x = rng.standard_normal((4, 3)).astype(np.float32)
    scale = rng.standard_normal((1, 3)).astype(np.float32)
    got = run(lambda a, s: flow.pack(flow.unpack(a, 4) * s, 4), x, scale)
    np.testing.assert_allclose(got, x * scale, rtol=1e-6)


def test_time_shapes_are_checked_as_oneflow_checked_them() -> None:
    a, b = np.zeros((6, 4), np.float32), np.zeros((4, 4), np.float32)
    with expect_error(ValueError, r"flow.pack: argument 'input' must be a blob whose time shape ends with 2 pieces"):
        run(lambda x: flow.pack(flow.unpack(x, 3), 2), a)
    with expect_error(ValueError, r"time shapes of 3 pieces"):
        run(lambda x, y: flow.pack(flow.unpack(x, 3) + flow.unpack(y, 2), 3), a, b)
    with expect_error(ValueError, r"flow.acc: argument 'input' must be a blob of a multiple of 4 time pieces"):
        run(lambda x: flow.acc(flow.unpack(x, 3), 4), a)
    with expect_error(ValueError, r"comes \(3,\) times a step.*flow.pack or flow.acc it first"):
        run(lambda x: flow.unpack(x, 3), a)


def test_by_one_pack_and_acc_leave_a_per_step_blob_as_it_is() -> None:
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(run(lambda a: flow.acc(flow.pack(a, 1), 1), x), x)
