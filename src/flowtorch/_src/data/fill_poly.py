"""``cv::fillPoly(mask, polygons, 1, LINE_8)`` with integer vertices, as OpenCV 3.4 draws it (the OpenCV
OneFlow built: ``modules/imgproc/src/drawing.cpp``, ``CollectPolyEdges`` / ``FillEdgeCollection``).

Two passes set pixels to 1:

* **Outlines.** Every edge is drawn as an 8-connected line (``LineIterator``), clipped to the image
  (``clipLine``, integer arithmetic truncating toward zero).
* **Even-odd fill.** Each non-horizontal edge, top vertex ``(x0, y0)`` to bottom ``(x1, y1)``, is active
  on rows ``y0 <= y < y1`` at ``x = x0 + (y - y0) * dx`` in 16.16 fixed point, ``dx`` the truncated
  quotient ``(x1 - x0) * 2**16 / (y1 - y0)``. On each row the active edges' x values are sorted and paired
  (first with second, third with fourth …); each pair fills columns ``ceil(a) .. floor(b)``. All
  polygons of one mask share the edge list, so overlaps cancel (holes).

OpenCV 4 shifts edges by half a pixel and clips them differently: its masks differ from these along
some edges.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_SHIFT = 16
_ONE = 1 << _SHIFT


def _tdiv(a: int, b: int) -> int:
    """C's integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def clip_line(width: int, height: int, x1: int, y1: int, x2: int, y2: int) -> tuple[int, int, int, int] | None:
    """OpenCV's ``clipLine``: the part of the segment inside the image, None when none is."""
    right, bottom = width - 1, height - 1
    c1 = (x1 < 0) + (x1 > right) * 2 + (y1 < 0) * 4 + (y1 > bottom) * 8
    c2 = (x2 < 0) + (x2 > right) * 2 + (y2 < 0) * 4 + (y2 > bottom) * 8
    if (c1 & c2) == 0 and (c1 | c2) != 0:
        if c1 & 12:
            a = 0 if c1 < 8 else bottom
            x1 += _tdiv((a - y1) * (x2 - x1), y2 - y1)
            y1 = a
            c1 = (x1 < 0) + (x1 > right) * 2
        if c2 & 12:
            a = 0 if c2 < 8 else bottom
            x2 += _tdiv((a - y2) * (x2 - x1), y2 - y1)
            y2 = a
            c2 = (x2 < 0) + (x2 > right) * 2
        if (c1 & c2) == 0 and (c1 | c2) != 0:
            if c1:
                a = 0 if c1 == 1 else right
                y1 += _tdiv((a - x1) * (y2 - y1), x2 - x1)
                x1 = a
                c1 = 0
            if c2:
                a = 0 if c2 == 1 else right
                y2 += _tdiv((a - x2) * (y2 - y1), x2 - x1)
                x2 = a
                c2 = 0
    return (x1, y1, x2, y2) if (c1 | c2) == 0 else None


def line_pixels(width: int, height: int, x1: int, y1: int, x2: int, y2: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ys, xs)`` of OpenCV's 8-connected ``LineIterator`` from ``(x1, y1)`` to ``(x2, y2)``, walked left
    to right, after clipping."""
    if not (0 <= x1 < width and 0 <= x2 < width and 0 <= y1 < height and 0 <= y2 < height):
        clipped = clip_line(width, height, x1, y1, x2, y2)
        if clipped is None:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        x1, y1, x2, y2 = clipped
    if x2 < x1:
        x1, y1, x2, y2 = x2, y2, x1, y1
    dx, dy = x2 - x1, y2 - y1
    sy = -1 if dy < 0 else 1
    dy = abs(dy)
    major, minor = max(dx, dy), min(dx, dy)
    k = np.arange(major + 1, dtype=np.int64)
    # the minor axis advances after step k when the error term (major - 2*minor initially) goes negative;
    # in closed form it has advanced ceil((2*minor*k - major) / (2*major)) times at step k
    c = (2 * minor * k + major - 1) // (2 * major) if major else k
    if dy > dx:
        return y1 + sy * k, x1 + c
    return y1 + sy * c, x1 + k


def fill_poly(height: int, width: int, polygons: Sequence[np.ndarray]) -> np.ndarray:
    """An int8 ``(height, width)`` mask of ``polygons`` (each an ``(n, 2)`` int array of ``(x, y)``)."""
    mask = np.zeros((height, width), np.int8)
    y0s, y1s, xs, dxs = [], [], [], []
    for poly in polygons:
        pts = np.asarray(poly, np.int64).reshape(-1, 2)
        prev = pts[np.arange(len(pts)) - 1]  # edge i runs from point i-1 to point i (the first closes)
        for (px, py), (qx, qy) in zip(prev.tolist(), pts.tolist()):
            ly, lx = line_pixels(width, height, px, py, qx, qy)
            mask[ly, lx] = 1
            if py == qy:
                continue
            top_x, top_y, bottom_y = (px, py, qy) if py < qy else (qx, qy, py)
            y0s.append(top_y)
            y1s.append(bottom_y)
            xs.append(top_x << _SHIFT)
            dxs.append(_tdiv((qx - px) << _SHIFT, qy - py))
    if len(y0s) >= 2:
        _fill_edges(mask, np.array(y0s), np.array(y1s), np.array(xs), np.array(dxs))
    return mask


def _fill_edges(mask: np.ndarray, y0: np.ndarray, y1: np.ndarray, x0: np.ndarray, dx: np.ndarray) -> None:
    height, width = mask.shape
    lo = np.clip(y0, 0, height)
    hi = np.clip(y1, 0, height)
    rows = np.maximum(hi - lo, 0)
    if not rows.any():
        return
    edge = np.repeat(np.arange(len(y0)), rows)
    y = np.repeat(lo, rows) + (np.arange(int(rows.sum())) - np.repeat(np.cumsum(rows) - rows, rows))
    x = x0[edge] + (y - y0[edge]) * dx[edge]
    order = np.lexsort((x, y))
    y, x = y[order], x[order]
    # every row holds an even number of crossings (closed polygons): pair them in order
    a, b = x[0::2], x[1::2]
    row = y[0::2]
    first = (a + _ONE - 1) >> _SHIFT
    last = b >> _SHIFT
    keep = (first < width) & (last >= 0)
    first = np.maximum(first[keep], 0)
    last = np.minimum(last[keep], width - 1)
    row = row[keep]
    spans = first <= last
    row, first, last = row[spans], first[spans], last[spans]
    marks = np.zeros((height, width + 1), np.int32)
    np.add.at(marks, (row, first), 1)
    np.add.at(marks, (row, last + 1), -1)
    mask[np.cumsum(marks[:, :width], axis=1) > 0] = 1
