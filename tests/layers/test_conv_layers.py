"""layers.conv2d (and conv1d/conv3d): names, weight shapes NCHW/NHWC, xavier default, bias, values."""

import math

import numpy as np
from helpers.ops import expect_error, lbns, make_job, next_id, run

import flowtorch as flow
import flowtorch.layers
import flowtorch.nn
from flowtorch._src import initializers

rng = np.random.default_rng(11)


def test_unnamed_conv2d_names_and_shapes():
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    seen = []

    def body(a):
        out = flow.layers.conv2d(a, 4, 3, padding="SAME", activation=flow.nn.relu)
        seen.extend(a.builder.all_blobs[1:])
        return out
    n = next_id() + 1
    y = make_job(body, [x])(x)
    assert y.shape == (2, 4, 6, 6)
    assert lbns(seen) == [f"Conv2D_{n}-weight/out", f"Conv2d_{n + 1}/out_0", f"Conv2D_{n}-bias/out",
                          f"Conv2D_{n}-bias_add/out_0", f"Conv2D_{n}-activation/out_0"]
    assert seen[0].shape == (4, 3, 3, 3) and seen[2].shape == (4,)


def test_named_conv2d_nhwc_groups_strides():
    x = rng.standard_normal((2, 7, 7, 4)).astype(np.float32)
    seen = []

    def body(a):
        out = flow.layers.conv2d(a, 6, (3, 2), strides=2, padding="VALID", data_format="NHWC", groups=2,
                                 name="conv1")
        seen.extend(a.builder.all_blobs[1:])
        return out
    y = make_job(body, [x])(x)
    assert y.shape == (2, 3, 3, 6)
    assert lbns(seen) == ["conv1-weight/out", "conv1/out_0", "conv1-bias/out", "conv1-bias_add/out_0"]
    assert seen[0].shape == (6, 3, 2, 2)


def test_default_kernel_initializer_is_xavier_uniform():
    x = np.zeros((1, 8, 5, 5), np.float32)
    weights = []

    def body(a):
        out = flow.layers.conv2d(a, 16, 3, name="c")
        flow.watch(flow.get_variable("c-weight"), lambda w: weights.append(np.array(w)))
        return out
    make_job(body, [x])(x)
    w = weights[0]
    # OneFlow's fans for NCHW weights (out, in, kh, kw): fan_in = in*kh*kw, fan_out = out*in*kh (see initializers.py)
    fan_in, fan_out = 8 * 3 * 3, 16 * 8 * 3
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(w).max() <= limit + 1e-6 and np.abs(w).max() > 0.5 * limit
    assert abs(w.mean()) < 0.1 * limit


def test_conv2d_layer_values():
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    y = run(lambda a: flow.layers.conv2d(a, 1, 2, kernel_initializer=initializers.ones_initializer(),
                                         bias_initializer=initializers.constant_initializer(0.5)), x)
    want = np.array([[x[0, :, i:i + 2, j:j + 2].sum() + 0.5 for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(y[0, 0], want, rtol=1e-5, atol=1e-5)


def test_conv1d_conv3d_layers():
    x1 = rng.standard_normal((2, 3, 8)).astype(np.float32)
    assert run(lambda a: flow.layers.conv1d(a, 5, 3, padding="SAME"), x1).shape == (2, 5, 8)
    x3 = rng.standard_normal((1, 2, 4, 4, 4)).astype(np.float32)
    assert run(lambda a: flow.layers.conv3d(a, 3, 2, strides=2), x3).shape == (1, 3, 2, 2, 2)


def test_conv_layer_errors():
    x = np.zeros((1, 3, 4, 4), np.float32)
    with expect_error(ValueError, match=r"flow.layers.conv2d: filters \(4\) and input channels \(3\) must be "
                                        r"divisible by groups \(2\)"):
        run(lambda a: flow.layers.conv2d(a, 4, 1, groups=2), x)
    with expect_error(ValueError, match=r"flow.layers.conv2d: argument 'kernel_size' must be an int or a list/tuple "
                                        r"of 2 positive ints; received \(1, 2, 3\)"):
        run(lambda a: flow.layers.conv2d(a, 4, (1, 2, 3)), x)
