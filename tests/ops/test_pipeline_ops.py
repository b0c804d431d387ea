"""flow.unpack / flow.pack / flow.repeat / flow.acc: one step carries all time pieces; values and
gradients equal running the ops piece by piece (numpy). More in test_time_shape.py."""

import numpy as np
from helpers.ops import expect_error, forward_and_grad, lbns, make_job, run

import flowtorch as flow

rng = np.random.default_rng(9)


def test_unpack_then_pack_is_the_identity_with_per_piece_shapes():
    x = rng.standard_normal((6, 4)).astype(np.float32)
    seen = []

    def body(a):
        pieces = flow.unpack(a, 3)
        seen.append(pieces)
        out = flow.pack(pieces, 3)
        seen.append(out)
        return out
    np.testing.assert_array_equal(make_job(body, [x])(x), x)
    assert seen[0].shape == (2, 4) and seen[1].shape == (6, 4)
    assert lbns(seen)[0].startswith("Unpack_") and lbns(seen)[1].startswith("Pack_")


def test_ops_between_unpack_and_pack_run_per_piece():
    x = rng.standard_normal((6, 4)).astype(np.float32)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal((2, 5)).astype(np.float32)  # a per-piece blob

    def f(a, wm, bias):
        return flow.pack(flow.math.tanh(flow.matmul(flow.unpack(a, 3), wm) + bias), 3)
    y, g, lw = forward_and_grad(f, x, w, b)
    pieces = [np.tanh(x[2 * i:2 * i + 2] @ w + b) for i in range(3)]
    np.testing.assert_allclose(y, np.concatenate(pieces), rtol=1e-5, atol=1e-6)
    dpre = lw * (1 - y.astype(np.float64) ** 2)
    np.testing.assert_allclose(g, dpre @ w.T, rtol=1e-4, atol=1e-5)


def test_repeat_then_acc_sums_the_pieces_and_its_gradient():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    seen = []

    def body(a):
        out = flow.acc(flow.repeat(a, 4) * 2.0, 4)
        seen.append(out)
        return out
    np.testing.assert_allclose(make_job(body, [x])(x), 8.0 * x, rtol=1e-6)
    assert seen[0].shape == (3, 4) and lbns(seen)[0].startswith("Acc_")
    y, g, w = forward_and_grad(lambda a: flow.acc(flow.repeat(a, 3), 3), x)
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)
    np.testing.assert_allclose(g, 3 * w, rtol=1e-6)


def test_repeat_then_pack_tiles_along_axis_0():
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(run(lambda a: flow.pack(flow.repeat(a, 2), 2), x), np.concatenate([x, x]))


def test_pipeline_argument_errors():
    x = np.zeros((5, 2), np.float32)
    with expect_error(ValueError, "flow.unpack: argument 'input' must be a blob whose axis 0 divides into 2"):
        run(lambda a: flow.unpack(a, 2), x)
    with expect_error(ValueError, "flow.acc: argument 'max_acc_num' must be a positive int"):
        run(lambda a: flow.acc(a, 0), x)
    with expect_error(ValueError, r"flow.pack: argument 'input' must be a blob whose time shape ends with 5 pieces"):
        run(lambda a: flow.pack(a, 5), x)
