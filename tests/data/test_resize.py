"""The OpenCV-geometry resampler (flowtorch._src.data.resize) against references written here: per-pixel
loops of cv::resize's formulas, block means, pixel copies, and torch's interpolate for float images."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from flowtorch._src.data import resize as rs

F32 = np.float32


def rand_image(h, w, c, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.uint8:
        return rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    return rng.uniform(0, 255, (h, w, c)).astype(np.float32)


def q11(w):
    # OpenCV's uint8 paths use weights in steps of 1/2048 (INTER_RESIZE_COEF_BITS = 11)
    return round(w * 2048) / 2048


def two_taps(s0, frac, src, fixed):
    """Taps s0 and s0 + 1 (clamped) with weights 1 - frac and frac, rounded to 1/2048 when ``fixed``."""
    w0, w1 = float(F32(1 - frac)), frac
    if fixed:
        w0, w1 = q11(w0), q11(w1)
    return [(s0, w0), (min(s0 + 1, src - 1), w1)]


def linear_taps(d, src, dst, fixed, rows=False):
    """cv::resize INTER_LINEAR source taps of output index d: [(index, weight), ...]. Past a border a column
    index moves onto it and loses its fraction; rows keep the fraction and both indices are clamped."""
    f = float(F32((d + 0.5) * (1.0 / (dst / src)) - 0.5))  # OpenCV casts the coordinate to float
    s0 = math.floor(f)
    a = float(F32(f - s0))
    if rows:
        return [(i, w) for (_, w), i in zip(two_taps(0, a, 2, fixed), (min(max(s0, 0), src - 1),
                                                                        min(max(s0 + 1, 0), src - 1)))]
    if s0 < 0:
        s0, a = 0, 0.0
    if s0 >= src - 1:
        s0, a = src - 1, 0.0
    return two_taps(s0, a, src, fixed)


def cubic_taps(d, src, dst, fixed):
    f = float(F32((d + 0.5) * (1.0 / (dst / src)) - 0.5))
    s0 = math.floor(f)
    x = f - s0
    a = -0.75

    def keys(t):  # Keys' kernel, a = -0.75
        t = abs(t)
        if t <= 1:
            return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
        if t < 2:
            return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
        return 0.0
    taps = [(min(max(s0 + k, 0), src - 1), keys(x - k)) for k in (-1, 0, 1, 2)]
    return [(i, q11(w) if fixed else w) for i, w in taps]


def area_taps(d, src, dst):
    """Exact overlap of output cell d (width src/dst) with each source pixel, over the cell width."""
    s = src / dst
    lo, hi = d * s, (d + 1) * s
    return [(k, (min(hi, k + 1) - max(lo, k)) / s) for k in range(int(math.floor(lo)), min(src, int(math.ceil(hi))))
            if min(hi, k + 1) - max(lo, k) > 1e-9]


def area_up_taps(d, src, dst, fixed, rows=False):
    """OpenCV's INTER_AREA grid when an axis is not shrunk on both: a 2-tap linear variant."""
    scale = 1.0 / (dst / src)
    s0 = math.floor(d * scale)
    f = float(F32((d + 1) - (s0 + 1) * (dst / src)))
    f = 0.0 if f <= 0 else f - math.floor(f)
    if rows:
        return [(i, w) for (_, w), i in zip(two_taps(0, f, 2, fixed), (min(s0, src - 1), min(s0 + 1, src - 1)))]
    if s0 >= src - 1:
        s0, f = src - 1, 0.0
    return two_taps(s0, f, src, fixed)


def loop_resize(img, w, h, taps_x, taps_y):
    """Direct per-pixel evaluation in float64: out[y, x] = sum_ij wy_i * wx_j * img[sy_i, sx_j]."""
    H, W, C = img.shape
    out = np.zeros((h, w, C))
    for y in range(h):
        for x in range(w):
            for sy, wy in taps_y(y, H, h):
                for sx, wx in taps_x(x, W, w):
                    out[y, x] += wy * wx * img[sy, sx].astype(np.float64)
    return out


def loop_resize_fixed(img, w, h, taps_x, taps_y):
    """uint8 2-tap resizing in OpenCV's integers, per pixel: columns summed with weights in 1/2048 steps, then
    rows as ((sum0 >> 4) * b0 >> 16) + ((sum1 >> 4) * b1 >> 16), rounded by (v + 2) >> 2 and saturated."""
    H, W, C = img.shape
    out = np.zeros((h, w, C), np.uint8)
    for y in range(h):
        (r0, b0), (r1, b1) = taps_y(y, H, h)
        for x in range(w):
            (c0, a0), (c1, a1) = taps_x(x, W, w)
            for c in range(C):
                sums = [int(img[r, c0, c]) * round(a0 * 2048) + int(img[r, c1, c]) * round(a1 * 2048) for r in (r0, r1)]
                v = ((sums[0] >> 4) * round(b0 * 2048) >> 16) + ((sums[1] >> 4) * round(b1 * 2048) >> 16)
                out[y, x, c] = min(max((v + 2) >> 2, 0), 255)
    return out


def assert_uint8_matches(got, exact):
    """uint8 output = exact value rounded half to even and saturated. The resampler sums in float32, so a value
    within float32 rounding of a .5 tie may round either way: there the result may differ by 1."""
    want = np.clip(np.rint(exact), 0, 255)
    near_tie = np.abs(exact - np.floor(exact) - 0.5) < 1e-3
    diff = np.abs(got.astype(np.int64) - want)
    assert diff.max() <= 1
    assert (diff[~near_tie] == 0).all()


SIZES = [((7, 9), (13, 5)), ((11, 6), (4, 9)), ((5, 5), (12, 12)), ((9, 13), (6, 4))]  # ((h, w), (dst_w, dst_h))


@pytest.mark.parametrize("mode,taps", [("linear", linear_taps), ("cubic", cubic_taps)])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("size", SIZES)
def test_linear_and_cubic_match_a_per_pixel_loop(mode, taps, dtype, size):
    (h, w), (dw, dh) = size
    img = rand_image(h, w, 3, dtype)
    fixed = dtype == np.uint8
    t = lambda d, s, n: taps(d, s, n, fixed)  # noqa: E731
    exact = loop_resize(img, dw, dh, t, t)
    got = rs.resize(img, dw, dh, mode)
    assert got.shape == (dh, dw, 3) and got.dtype == dtype
    if dtype == np.uint8 and mode == "linear":
        rows = lambda d, s, n: taps(d, s, n, True, rows=True)  # noqa: E731
        np.testing.assert_array_equal(got, loop_resize_fixed(img, dw, dh, t, rows))
    elif dtype == np.uint8:
        assert_uint8_matches(got, exact)
    else:
        # float32 sums of <= 16 terms of magnitude <= 255 * 1.5: a few ulp of 255
        np.testing.assert_allclose(got, exact, rtol=0, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("src,dst", [((23, 17), (10, 7)), ((9, 14), (4, 5)), ((30, 30), (7, 11))])
def test_area_shrink_weights_fractional_overlaps(dtype, src, dst):
    (h, w), (dw, dh) = src, dst
    img = rand_image(h, w, 1, dtype, seed=3)
    exact = loop_resize(img, dw, dh, area_taps, area_taps)
    got = rs.resize(img, dw, dh, "area")
    if dtype == np.uint8:
        assert_uint8_matches(got, exact)
    else:
        np.testing.assert_allclose(got, exact, rtol=0, atol=1e-3)  # float32 weights and sums


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_area_with_integer_factors_is_the_block_mean(dtype):
    img = rand_image(12, 18, 3, dtype, seed=1)
    blocks = img.astype(np.float64).reshape(4, 3, 6, 3, 3).mean(axis=(1, 3))
    got = rs.resize(img, 6, 4, "area")
    if dtype == np.uint8:
        np.testing.assert_array_equal(got, np.rint(blocks))  # a 3x3 mean is never a .5 tie
    else:
        np.testing.assert_allclose(got, blocks, rtol=1e-6)
        torch_area = F.adaptive_avg_pool2d(torch.from_numpy(img).permute(2, 0, 1)[None], (4, 6))[0].permute(1, 2, 0)
        np.testing.assert_allclose(got, torch_area.numpy(), rtol=1e-6)


def test_exact_half_size_rounds_ties_up_for_uint8_like_opencv():
    # OpenCV turns an exact 2x shrink (linear or area) into its 2x2 mean, whose uint8 code adds 2 before >> 2
    img = np.array([[0, 1], [0, 1]], np.uint8)[:, :, None]  # mean 0.5
    img = np.tile(img, (3, 4, 1))
    for mode in ("linear", "area"):
        got = rs.resize(img, 4, 3, mode)
        np.testing.assert_array_equal(got, np.ones((3, 4, 1), np.uint8))
    img2 = rand_image(8, 10, 3, np.uint8, seed=5)
    blocks = img2.astype(np.float64).reshape(4, 2, 5, 2, 3).mean(axis=(1, 3))
    np.testing.assert_array_equal(rs.resize(img2, 5, 4, "linear"), np.floor(blocks + 0.5))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_area_enlarging_uses_opencvs_linear_variant(dtype):
    img = rand_image(5, 4, 3, dtype, seed=2)
    fixed = dtype == np.uint8
    t = lambda d, s, n: area_up_taps(d, s, n, fixed)  # noqa: E731
    exact = loop_resize(img, 10, 13, t, t)
    got = rs.resize(img, 10, 13, "area")
    if dtype == np.uint8:
        rows = lambda d, s, n: area_up_taps(d, s, n, True, rows=True)  # noqa: E731
        np.testing.assert_array_equal(got, loop_resize_fixed(img, 10, 13, t, rows))
    else:
        np.testing.assert_allclose(got, exact, rtol=0, atol=1e-3)
    # with integer factors that grid copies pixels
    np.testing.assert_array_equal(rs.resize(img, 8, 15, "area"), img.repeat(3, axis=0).repeat(2, axis=1))


@pytest.mark.parametrize("src,dst", [((5, 7), (14, 15)), ((12, 9), (5, 4)), ((4, 4), (4, 9))])
def test_nearest_copies_pixels_at_floor_of_dst_times_src_over_dst(src, dst):
    (h, w), (dw, dh) = src, dst
    img = rand_image(h, w, 3, np.uint8, seed=4)
    rows = [y * h // dh for y in range(dh)]
    cols = [x * w // dw for x in range(dw)]
    np.testing.assert_array_equal(rs.resize(img, dw, dh, "nearest"), img[rows][:, cols])
    np.testing.assert_array_equal(rs.resize(img.astype(F32), dw, dh, "nearest"), img[rows][:, cols].astype(F32))


def test_nearest_keeps_opencvs_double_arithmetic():
    # OpenCV computes floor(d * (1 / (dst / src))) in doubles: 6 → 34 pixels, d = 17 reads pixel 2 where the
    # exact 17 * 6 / 34 = 3 (checked against cv2.resize 5.0 when this was written)
    img = np.arange(6, dtype=np.uint8).reshape(1, 6, 1)
    assert rs.resize(img, 34, 1, "nearest")[0, 16:19, 0].tolist() == [2, 2, 3]


@pytest.mark.parametrize("size", [(8, 6, 19, 14), (20, 16, 7, 9), (9, 9, 4, 22)])
def test_float_linear_cubic_nearest_agree_with_torch_interpolate(size):
    # torch's bilinear/bicubic (align_corners=False, no antialias) use the same half-pixel grid, clamped
    # borders and a = -0.75; "nearest" is OpenCV's floor rule. Differences are float32 rounding only.
    h, w, dh, dw = size
    img = rand_image(h, w, 3, np.float32, seed=6)
    t = torch.from_numpy(img).permute(2, 0, 1)[None].double()
    for mode, torch_mode in (("linear", "bilinear"), ("cubic", "bicubic"), ("nearest", "nearest")):
        kwargs = {} if torch_mode == "nearest" else {"align_corners": False}
        ref = F.interpolate(t, size=(dh, dw), mode=torch_mode, **kwargs)[0].permute(1, 2, 0).numpy()
        if (mode, dh * 2, dw * 2) == ("linear", h, w):
            continue  # OpenCV's 2x shortcut; the same mean, covered above
        np.testing.assert_allclose(rs.resize(img, dw, dh, mode), ref, rtol=0, atol=2e-3, err_msg=mode)


def test_uint8_saturates_and_rounds_half_to_even():
    # a hard edge enlarged with the cubic kernel overshoots below 0 and above 255
    img = np.zeros((4, 6, 1), np.uint8)
    img[:, 3:] = 255
    t = lambda d, s, n: cubic_taps(d, s, n, True)  # noqa: E731
    exact = loop_resize(img, 17, 4, t, t)
    assert exact.min() < -1 and exact.max() > 256
    got = rs.resize(img, 17, 4, "cubic")
    assert_uint8_matches(got, exact)
    assert got.min() == 0 and got.max() == 255
    # float → uint8 conversion (convertTo): half to even, saturated
    vals = np.array([[[0.5, 1.5, 2.5, -3.0, 255.5, 300.0]]], np.float32)
    np.testing.assert_array_equal(rs.to_dtype(vals, np.dtype(np.uint8)), [[[0, 2, 2, 0, 255, 255]]])


def test_same_size_is_a_copy_and_auto_picks_area_only_when_pixels_shrink():
    img = rand_image(5, 6, 3, np.uint8)
    for mode in rs.MODES:
        out = rs.resize(img, 6, 5, mode)
        np.testing.assert_array_equal(out, img)
        assert out is not img
    assert rs.auto_mode(10, 10, 10, 10) == "linear"
    assert rs.auto_mode(10, 10, 20, 4) == "area"  # one side grows, the pixel count shrinks
    assert rs.auto_mode(10, 10, 5, 21) == "linear"


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match=r"expected an HWC uint8 or float32 image; got shape \(4, 4\) uint8"):
        rs.resize(np.zeros((4, 4), np.uint8), 2, 2, "linear")
    with pytest.raises(ValueError, match="mode must be one of"):
        rs.resize(np.zeros((4, 4, 1), np.uint8), 2, 2, "lanczos")
    with pytest.raises(ValueError, match="must be positive; received 0x2"):
        rs.resize(np.zeros((4, 4, 1), np.uint8), 0, 2, "linear")
