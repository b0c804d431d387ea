"""Convolution and pooling against numpy references: SAME (OneFlow's SAME_LOWER) / SAME_UPPER / VALID /
explicit padding, NCHW and NHWC, strides, dilation, groups, gradients and names."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, randn_from, run

import flowtorch as flow
import flowtorch.nn

rng = np.random.default_rng(6)


randn = randn_from(rng)


# --- numpy references --------------------------------------------------------------------------------------
def np_conv2d(x, w, stride=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    """NCHW x, (O, C/groups, kh, kw) w, explicit (before, after) pads per spatial axis."""
    xp = np.pad(x, [(0, 0), (0, 0), pads[0], pads[1]])
    n, c, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh, ow = (h - eh) // stride[0] + 1, (wd - ew) // stride[1] + 1
    og = o // groups
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride[0]:i * stride[0] + eh:dilation[0], j * stride[1]:j * stride[1] + ew:dilation[1]]
            for g in range(groups):
                out[:, g * og:(g + 1) * og, i, j] = np.einsum("nckl,ockl->no", patch[:, g * cg:(g + 1) * cg],
                                                              w[g * og:(g + 1) * og])
    return out


def np_pool2d(x, k, s, pads, kind):
    n, c, h, wd = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), pads[0], pads[1]], constant_values=fill)
    real = np.pad(np.ones((h, wd)), [pads[0], pads[1]])
    oh, ow = (xp.shape[2] - k[0]) // s[0] + 1, (xp.shape[3] - k[1]) // s[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = real[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum()
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


def np_conv_transpose2d(x, w, stride, left, out_hw):
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    fh, fw = (h - 1) * stride[0] + kh, (wd - 1) * stride[1] + kw
    full = np.zeros((n, o, max(fh, left[0] + out_hw[0]), max(fw, left[1] + out_hw[1])))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w)
    return full[:, :, left[0]:left[0] + out_hw[0], left[1]:left[1] + out_hw[1]]


def nhwc(a):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1))


# --- SAME padding ------------------------------------------------------------------------------------------
def test_same_padding_puts_the_odd_element_before_like_oneflow_v03():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4)
    w = np.ones((1, 1, 1, 2), np.float32)
    out = run(lambda a, b: flow.nn.conv2d(a, b, 1, "SAME"), x, w)
    np.testing.assert_array_equal(out.reshape(-1), [0, 1, 3, 5])  # SAME_LOWER: pad (1, 0)
    upper = run(lambda a, b: flow.nn.conv2d(a, b, 1, "SAME_UPPER"), x, w)
    np.testing.assert_array_equal(upper.reshape(-1), [1, 3, 5, 3])  # TensorFlow's side
    compat = run(lambda a, b: flow.nn.compat_conv2d(a, b, 1, "SAME"), x, w)
    np.testing.assert_array_equal(compat.reshape(-1), [1, 3, 5, 3])


@pytest.mark.parametrize("hw,k,s,d", [((6, 7), (3, 3), (2, 2), (1, 1)), ((5, 5), (2, 4), (1, 2), (1, 1)),
                                      ((7, 6), (3, 2), (2, 1), (2, 1)), ((28, 28), (5, 5), (1, 1), (1, 1))])
def test_conv2d_same_matches_numpy_with_asymmetric_pads(hw, k, s, d):
    x, w = randn(2, 3, *hw), randn(4, 3, *k)
    pads = []
    for i in range(2):
        eff = (k[i] - 1) * d[i] + 1
        out = -(-hw[i] // s[i])
        needed = max(0, (out - 1) * s[i] + eff - hw[i])
        pads.append((needed - needed // 2, needed // 2))
    y = run(lambda a, b: flow.nn.conv2d(a, b, list(s), "SAME", dilations=list(d)), x, w)
    assert y.shape[2:] == tuple(-(-hw[i] // s[i]) for i in range(2))
    np.testing.assert_allclose(y, np_conv2d(x, w, s, pads, d), rtol=1e-4, atol=1e-4)
    y = run(lambda a, b: flow.nn.conv2d(nhwc_blob(a), b, list(s), "SAME", "NHWC", list(d)), x,
            np.ascontiguousarray(w.transpose(0, 2, 3, 1)))
    np.testing.assert_allclose(y, nhwc(np_conv2d(x, w, s, pads, d)), rtol=1e-4, atol=1e-4)


def nhwc_blob(a):
    return flow.transpose(a, [0, 2, 3, 1])


def test_conv2d_valid_explicit_groups_and_gradients():
    x, w = randn(1, 4, 5, 5), randn(6, 2, 3, 3)
    check_op(lambda a, b: flow.nn.conv2d(a, b, 1, "VALID", groups=2), lambda a, b: np_conv2d(a, b, groups=2), x, w,
             rtol=1e-4, atol=1e-4, grad_rtol=2e-3, grad_atol=2e-3)
    pads = [(0, 0), (0, 0), (2, 1), (0, 1)]
    check_op(lambda a, b: flow.nn.conv2d(a, b, [2, 1], pads, groups=2),
             lambda a, b: np_conv2d(a, b, (2, 1), ((2, 1), (0, 1)), groups=2), x, w, rtol=1e-4, atol=1e-4,
             grad_rtol=2e-3, grad_atol=2e-3)
    wf = randn(6, 4, 2, 2)
    check_op(lambda a, b: flow.nn.conv2d(b, a, 2, "SAME"), lambda a, b: np_conv2d(b, a, (2, 2), ((0, 0), (0, 0))),
             wf, x[:, :, :4, :4], rtol=1e-4, atol=1e-4, grad_rtol=2e-3, grad_atol=2e-3)  # gradient w.r.t. filters


def test_conv1d_and_conv3d_shapes_and_values():
    x, w = randn(2, 3, 9), randn(4, 3, 3)
    y = run(lambda a, b: flow.nn.conv1d(a, b, 2, "SAME"), x, w)
    ref = np_conv2d(x[:, :, None], w[:, :, None], (1, 2), ((0, 0), (1, 1)))[:, :, 0]
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    x3, w3 = randn(1, 2, 4, 5, 6), randn(3, 2, 2, 3, 3)
    assert run(lambda a, b: flow.nn.conv3d(a, b, 1, "VALID"), x3, w3).shape == (1, 3, 3, 3, 4)
    assert run(lambda a, b: flow.nn.conv3d(a, b, 2, "SAME"), x3, w3).shape == (1, 3, 2, 3, 3)


# --- pooling ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("hw,k,s,padding", [((8, 8), 2, 2, "SAME"), ((7, 6), 3, 2, "SAME"), ((5, 5), 3, 1, "SAME"),
                                            ((6, 6), 3, 2, "VALID"), ((5, 6), (2, 3), (1, 2), "SAME_UPPER"),
                                            ((5, 5), 3, 2, [[0, 0], [0, 0], [1, 0], [2, 1]])])
def test_pool2d_against_numpy(kind, hw, k, s, padding):
    x = randn(2, 3, *hw)
    kk = (k, k) if isinstance(k, int) else k
    ss = (s, s) if isinstance(s, int) else s
    if isinstance(padding, list):
        pads = (tuple(padding[2]), tuple(padding[3]))
    elif padding == "VALID":
        pads = ((0, 0), (0, 0))
    else:
        pads = []
        for i in range(2):
            out = -(-hw[i] // ss[i])
            needed = max(0, (out - 1) * ss[i] + kk[i] - hw[i])
            small, large = needed // 2, needed - needed // 2
            pads.append((large, small) if padding == "SAME" else (small, large))
    op = flow.nn.max_pool2d if kind == "max" else flow.nn.avg_pool2d
    want = np_pool2d(x, kk, ss, pads, kind)
    check_op(lambda a: op(a, k, s, padding), lambda a: np_pool2d(a, kk, ss, pads, kind), x, rtol=1e-5, atol=1e-6,
             grad=kind == "avg")
    y = run(lambda a: op(nhwc_blob(a), k, s, padding if not isinstance(padding, list)
                         else [padding[0], padding[2], padding[3], padding[1]], "NHWC"), x)
    np.testing.assert_allclose(y, nhwc(want), rtol=1e-5, atol=1e-6)


def test_max_pool_gradient_goes_to_the_maximum():
    x = rng.permutation(32).astype(np.float32).reshape(1, 2, 4, 4)
    check_op(lambda a: flow.nn.max_pool2d(a, 2, 2, "SAME"), lambda a: np_pool2d(a, (2, 2), (2, 2), ((0, 0), (0, 0)),
                                                                                  "max"), x)


def test_pool1d_pool3d_and_ceil_mode():
    x = randn(2, 3, 7)
    y = run(lambda a: flow.nn.max_pool1d(a, 3, 2, "SAME", data_format="NCW"), x)
    np.testing.assert_allclose(y, np_pool2d(x[:, :, None], (1, 3), (1, 2), ((0, 0), (1, 1)), "max")[:, :, 0])
    x3 = randn(1, 2, 4, 4, 4)
    assert run(lambda a: flow.nn.avg_pool3d(a, 2, 2, "VALID"), x3).shape == (1, 2, 2, 2, 2)
    x2 = randn(1, 1, 5, 5)
    y = run(lambda a: flow.nn.max_pool2d(a, 2, 2, [[0, 0], [0, 0], [0, 0], [0, 0]], ceil_mode=True), x2)
    np.testing.assert_allclose(y, np_pool2d(x2, (2, 2), (2, 2), ((0, 1), (0, 1)), "max"))


# --- transposed convolution ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("hw,k,s,padding,out_hw", [((3, 3), (3, 3), (2, 2), "VALID", (7, 7)),
                                                   ((3, 4), (3, 2), (2, 2), "VALID", (8, 9)),
                                                   ((3, 3), (3, 3), (2, 2), "SAME", (6, 6)),
                                                   ((4, 3), (4, 3), (1, 2), "SAME", (4, 5))])
def test_conv2d_transpose_against_numpy(hw, k, s, padding, out_hw):
    x, w = randn(2, 3, *hw), randn(3, 2, *k)
    left = (0, 0) if padding == "VALID" else tuple(max(0, (hw[i] - 1) * s[i] + k[i] - out_hw[i]) // 2 for i in range(2))
    check_op(lambda a, b: flow.nn.conv2d_transpose(a, b, output_shape=(2, 2) + out_hw, strides=list(s),
                                                   padding=padding),
             lambda a, b: np_conv_transpose2d(a, b, s, left, out_hw), x, w, rtol=1e-4, atol=1e-4, grad_rtol=2e-3,
             grad_atol=2e-3)
    y = run(lambda a, b: flow.nn.conv2d_transpose(input=nhwc_blob(a), filters=b, output_shape=(2,) + out_hw + (2,),
                                                  strides=list(s), padding=padding, data_format="NHWC"),
            x, np.ascontiguousarray(w.transpose(0, 2, 3, 1)))
    np.testing.assert_allclose(y, nhwc(np_conv_transpose2d(x, w, s, left, out_hw)), rtol=1e-4, atol=1e-4)


# --- names and errors --------------------------------------------------------------------------------------------
def test_conv_pool_names():
    x, w = randn(1, 2, 6, 6), randn(3, 2, 3, 3)
    seen = []

    def body(a, b):
        c = flow.nn.conv2d(a, b, 1, "SAME")
        seen.extend([c, flow.nn.max_pool2d(c, 2, 2, "SAME"), flow.nn.avg_pool2d(c, 2, 2, "VALID"),
                     flow.nn.conv2d(a, b, 2, "VALID", name="conv")])
        return c
    n = next_id() + 2
    make_job(body, [x, w])(x, w)
    assert lbns(seen) == [f"Conv2d_{n}/out_0", f"MaxPool2D_{n + 1}/y_0", f"AvgPool2D_{n + 2}/y_0", "conv/out_0"]


def test_conv_pool_errors():
    x, w = randn(1, 2, 6, 6), randn(3, 2, 3, 3)
    with expect_error(ValueError, match=r"flow.nn.conv2d: argument 'padding' must be \"SAME\", \"VALID\", "
                                        r"\"SAME_LOWER\", \"SAME_UPPER\" or a list of pads; received 'same-ish'"):
        run(lambda a, b: flow.nn.conv2d(a, b, 1, "same-ish"), x, w)
    with expect_error(ValueError, match=r"flow.nn.conv2d: argument 'data_format' must be \"NCHW\" or \"NHWC\"; "
                                        r"received 'NCWH'"):
        run(lambda a, b: flow.nn.conv2d(a, b, 1, "VALID", data_format="NCWH"), x, w)
    with expect_error(ValueError, match=r"flow.nn.conv2d: argument 'filters' must be shape \(out, in/groups=1"):
        run(lambda a, b: flow.nn.conv2d(a, b, 1, "VALID", groups=2), x, w)
    with expect_error(ValueError, match=r"flow.nn.max_pool2d: argument 'strides' must be an int or a list/tuple of 2 "
                                        r"positive ints; received \[1, 2, 3\]"):
        run(lambda a: flow.nn.max_pool2d(a, 2, [1, 2, 3], "SAME"), x)
    with expect_error(ValueError, match=r"flow.nn.conv2d_transpose: argument 'output_shape'"):
        run(lambda a, b: flow.nn.conv2d_transpose(a, b, output_shape=(1, 2, 99, 99), strides=1), randn(1, 3, 4, 4), w)
