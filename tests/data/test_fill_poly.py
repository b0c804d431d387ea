"""fill_poly (OpenCV 3.4's fillPoly, LINE_8) against a per-pixel reference written here: an error-term line
walker for the outlines and a row-by-row active-edge scan in Python integers for the even-odd fill."""

from __future__ import annotations

import numpy as np
import pytest

from flowtorch._src.data.fill_poly import clip_line, fill_poly, line_pixels


def c_div(a, b):
    """C integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def ref_clip(w, h, p, q):
    """Cohen-Sutherland clipping in C integer arithmetic: the outcode of each end picks the border it moves
    onto, first along y, then along x."""
    (x1, y1), (x2, y2) = p, q

    def code(x, y):
        return (x < 0) | (x > w - 1) << 1 | (y < 0) << 2 | (y > h - 1) << 3

    c1, c2 = code(x1, y1), code(x2, y2)
    if c1 & c2 or not c1 | c2:
        return None if c1 | c2 else (x1, y1, x2, y2)
    if c1 & 12:
        yb = 0 if c1 & 4 else h - 1
        x1, y1 = x1 + c_div((yb - y1) * (x2 - x1), y2 - y1), yb
        c1 = code(x1, 0) & 3
    if c2 & 12:
        yb = 0 if c2 & 4 else h - 1
        x2, y2 = x2 + c_div((yb - y2) * (x2 - x1), y2 - y1), yb
        c2 = code(x2, 0) & 3
    if not c1 & c2 and c1 | c2:
        if c1:
            xb = 0 if c1 & 1 else w - 1
            x1, y1, c1 = xb, y1 + c_div((xb - x1) * (y2 - y1), x2 - x1), 0
        if c2:
            xb = 0 if c2 & 1 else w - 1
            x2, y2, c2 = xb, y2 + c_div((xb - x2) * (y2 - y1), x2 - x1), 0
    return (x1, y1, x2, y2) if not c1 | c2 else None


def ref_line(w, h, p, q):
    """8-connected line pixels: step along the longer axis, and along the shorter one whenever the error
    term (long - 2 * short at the start) is negative; walked from the left end."""
    seg = ref_clip(w, h, p, q)
    if seg is None:
        return []
    x1, y1, x2, y2 = seg
    if x2 < x1:
        x1, y1, x2, y2 = x2, y2, x1, y1
    dx, dy = x2 - x1, abs(y2 - y1)
    sy = 1 if y2 >= y1 else -1
    steep = dy > dx
    long, short = (dy, dx) if steep else (dx, dy)
    err = long - 2 * short
    x, y = x1, y1
    out = []
    for _ in range(long + 1):
        out.append((x, y))
        diagonal = err < 0
        err += -2 * short + (2 * long if diagonal else 0)
        if steep:
            y += sy
            x += 1 if diagonal else 0
        else:
            x += 1
            y += sy if diagonal else 0
    return out


def ref_fill(h, w, polygons):
    mask = np.zeros((h, w), np.int8)
    edges = []
    for poly in polygons:
        pts = [tuple(int(v) for v in pt) for pt in poly]
        for k, q in enumerate(pts):
            p = pts[k - 1]
            for x, y in ref_line(w, h, p, q):
                mask[y, x] = 1
            if p[1] != q[1]:
                top, bottom = (p, q) if p[1] < q[1] else (q, p)
                step = c_div((q[0] - p[0]) * 65536, q[1] - p[1])
                edges.append((top[1], bottom[1], top[0] * 65536, step))
    if len(edges) < 2:
        return mask
    for y in range(max(0, min(e[0] for e in edges)), min(h, max(e[1] for e in edges))):
        xs = sorted(x0 + (y - y0) * step for y0, y1, x0, step in edges if y0 <= y < y1)
        for a, b in zip(xs[0::2], xs[1::2]):
            first, last = -((-a) // 65536), b // 65536  # ceil, floor of 16.16 fixed point
            first, last = max(first, 0), min(last, w - 1)
            if first <= last:
                mask[y, first:last + 1] = 1
    return mask


def test_triangle_and_square():
    square = np.array([[1, 1], [5, 1], [5, 4], [1, 4]])
    expected = np.zeros((6, 7), np.int8)
    expected[1:5, 1:6] = 1
    np.testing.assert_array_equal(fill_poly(6, 7, [square]), expected)
    tri = np.array([[0, 0], [6, 0], [0, 6]])
    y, x = np.mgrid[0:7, 0:7]
    np.testing.assert_array_equal(fill_poly(7, 7, [tri]), (x + y <= 6).astype(np.int8))


def test_a_hole_cancels_and_lines_stay():
    outer = np.array([[0, 0], [9, 0], [9, 9], [0, 9]])
    inner = np.array([[3, 3], [6, 3], [6, 6], [3, 6]])
    got = fill_poly(10, 10, [outer, inner])
    assert got[1, 1] == 1 and got[4, 4] == 0 and got[5, 5] == 0
    assert got[3, 3:7].all() and got[6, 3:7].all()  # the hole's outline is drawn
    np.testing.assert_array_equal(got, ref_fill(10, 10, [outer, inner]))


@pytest.mark.parametrize("seed", range(6))
def test_random_polygons_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        h, w = (int(v) for v in rng.integers(1, 30, 2))
        spread = 0.3 if seed % 2 else 0.0  # odd seeds reach outside the image
        polys = [np.stack([np.rint(rng.uniform(-spread, 1 + spread, n) * w),
                           np.rint(rng.uniform(-spread, 1 + spread, n) * h)], 1).astype(np.int64)
                 for n in rng.integers(1, 8, int(rng.integers(1, 4)))]
        np.testing.assert_array_equal(fill_poly(h, w, polys), ref_fill(h, w, polys))


def test_lines_and_clipping():
    for p, q in [((0, 0), (7, 3)), ((7, 3), (0, 0)), ((2, 9), (3, 0)), ((-5, 2), (12, 6)), ((4, -3), (4, 20)),
                 ((-4, -4), (-1, -9))]:
        ys, xs = line_pixels(10, 10, *p, *q)
        assert sorted(zip(xs.tolist(), ys.tolist())) == sorted(ref_line(10, 10, p, q))
    assert clip_line(10, 10, -5, 2, 12, 6) == ref_clip(10, 10, (-5, 2), (12, 6))
    assert clip_line(10, 10, -4, -4, -1, -9) is None
