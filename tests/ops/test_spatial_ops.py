"""flow.reflection_pad2d (v0.3.4's padding reading) and flow.nn.PixelShuffle / PixelShufflev2: values,
gradients, dtypes, op names and argument errors."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, forward_and_grad, lbns, make_job, next_id, randn_from, run

import flowtorch as flow

rng = np.random.default_rng(11)


randn = randn_from(rng)


# --- reflection_pad2d -------------------------------------------------------------------------------------
def np_reflect(x, pad_h, pad_w):
    """Mirror about the edge elements, written as explicit index arithmetic (not np.pad)."""
    def index(size, pad):
        out = []
        for i in range(-pad, size + pad):
            j = abs(i)
            out.append(2 * (size - 1) - j if j >= size else j)
        return np.array(out)
    return x[:, :, index(x.shape[2], pad_h)][:, :, :, index(x.shape[3], pad_w)]


@pytest.mark.parametrize("padding,pad_h,pad_w", [(1, 1, 1), (2, 2, 2), ([0, 0, 1, 2], 1, 2), ((3, 3, 2, 3), 2, 3),
                                                 ([0, 0, 0, 0], 0, 0)])
def test_reflection_pad2d_values_and_grad(padding, pad_h, pad_w):
    x = randn(2, 3, 4, 5)
    check_op(lambda a: flow.reflection_pad2d(a, padding), lambda a: np_reflect(a, pad_h, pad_w), x)


def test_reflection_pad2d_grad_counts_each_mirror():
    # with an all-ones upstream gradient each input element receives how often it appears in the output
    x = randn(1, 1, 3, 3)
    _, g, _ = forward_and_grad(lambda a: flow.reflection_pad2d(a, 1), x, weight=np.ones((1, 1, 5, 5), np.float32))
    per_axis = np.array([1.0, 3.0, 1.0])  # the middle row/column is mirrored to both sides
    np.testing.assert_array_equal(g[0, 0], np.outer(per_axis, per_axis))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_reflection_pad2d_other_dtypes(dtype):
    x = (rng.standard_normal((2, 2, 3, 4)) * 10).astype(dtype)
    y = run(lambda a: flow.reflection_pad2d(a, [0, 0, 2, 1]), x)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, np_reflect(x, 2, 1))


def test_reflection_pad2d_op_name():
    x = randn(1, 1, 3, 3)
    seen = []

    def body(a):
        seen.append(flow.reflection_pad2d(a, 1))
        seen.append(flow.reflection_pad2d(a, 1, name="pad"))
        return seen[0]
    n = next_id() + 1  # the placeholder takes the next id
    make_job(body, [x])(x)
    assert lbns(seen) == [f"Reflection_Pad2d{n}/y_0", "pad/y_0"]


@pytest.mark.parametrize("padding,match", [
    (3, r"argument 'padding' must be less than H = 3"),
    ([0, 0, 1], r"argument 'padding' must be an int or a list/tuple of 4 ints"),
    ([0, 0, 3, 1], r"argument 'padding\[2\]' must be less than H = 3"),
    ([0, 0, 1, -1], r"argument 'padding\[3\]' must be a non-negative int"),
    ([0, 0, 1, 1.5], r"argument 'padding\[3\]' must be a non-negative int"),
    ("1", r"argument 'padding' must be a non-negative int"),
])
def test_reflection_pad2d_bad_padding(padding, match):
    x = randn(1, 1, 3, 5)
    with expect_error(ValueError, match="flow.reflection_pad2d: " + match):
        run(lambda a: flow.reflection_pad2d(a, padding), x)


def test_reflection_pad2d_needs_nchw():
    with expect_error(ValueError, match=r"argument 'x' must be a 4-D \(NCHW\) blob"):
        run(lambda a: flow.reflection_pad2d(a, 1), randn(3, 3, 3))


# --- PixelShuffle -------------------------------------------------------------------------------------------
def np_pixel_shuffle(x, fh, fw):
    """out[n, c, h·fh + i, w·fw + j] = x[n, c·fh·fw + i·fw + j, h, w], element by element."""
    n, channels, height, width = x.shape
    new_c = channels // (fh * fw)
    out = np.zeros((n, new_c, height * fh, width * fw), x.dtype)
    for c in range(new_c):
        for i in range(fh):
            for j in range(fw):
                out[:, c, i::fh, j::fw] = x[:, c * fh * fw + i * fw + j]
    return out


def test_pixel_shuffle_values_and_grad():
    x = randn(2, 8, 3, 2)
    check_op(lambda a: flow.nn.PixelShuffle(a, 2), lambda a: np_pixel_shuffle(a, 2, 2), x)


@pytest.mark.parametrize("fh,fw", [(2, 3), (3, 1), (1, 1)])
def test_pixel_shufflev2_values_and_grad(fh, fw):
    x = randn(2, 2 * fh * fw, 3, 2)
    check_op(lambda a: flow.nn.PixelShufflev2(a, fh, fw), lambda a: np_pixel_shuffle(a, fh, fw), x)


def test_pixel_shuffle_op_names():
    x = randn(1, 4, 2, 2)
    seen = []

    def body(a):
        seen.append(flow.nn.PixelShuffle(a, 2, name="ps"))
        seen.append(flow.nn.PixelShufflev2(a, 2, 2))
        return seen[0]
    n = next_id() + 1  # the placeholder takes the next id
    make_job(body, [x])(x)
    assert seen[0].op_name == "ps_reshape3"
    assert seen[1].op_name == f"PixelShufflev2{n}_reshape3"


@pytest.mark.parametrize("shape,factor,match", [
    ((1, 6, 2, 2), 2, r"flow.nn.PixelShuffle: argument 'input' must be a channel count divisible by 2 \* 2"),
    ((1, 4, 2, 2), 0, r"flow.nn.PixelShuffle: argument 'upscale_factor' must be a positive int"),
    ((4, 2, 2), 2, r"flow.nn.PixelShuffle: argument 'input' must be a 4-D \(NCHW\) blob"),
])
def test_pixel_shuffle_errors(shape, factor, match):
    with expect_error(ValueError, match=match):
        run(lambda a: flow.nn.PixelShuffle(a, factor), randn(*shape))
