"""OneFlow v0.1.2's ``image_target_resize(images, target_size, max_size)``: its sizes (shorter side to target, the
longer capped), its ``(h, w)`` size and scale rows, and the object ops reading those rows as v0.1.2's kernels did,
against numpy/torch references written here; v0.3.4's keyword call keeps ``(w, h)``."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.data.image_ops import target_size_v01

F32 = np.float32
SHAPES = [(4, 10), (6, 5), (3, 3)]  # (h, w)


def v012_size(h, w, target, max_size):
    """(new_h, new_w): v0.1.2's rule, written from its kernel's description, with Python's half-to-even round."""
    short, long = min(h, w), max(h, w)
    new_short, new_long = target, round(long / short * target)
    if new_long > max_size:
        new_long = max_size
        new_short = round(max_size * short / long)
    return (new_long, new_short) if w < h else (new_short, new_long)


@pytest.mark.parametrize(("h", "w", "target", "max_size", "want"), [
    (480, 640, 800, 1333, (800, 1067)),  # 1066.67 → 1067
    (640, 427, 800, 1333, (1199, 800)),  # portrait: the width is the shorter side
    (300, 1000, 800, 1333, (400, 1333)),  # 2666.7 > 1333: capped, 399.9 → 400
    (4, 10, 3, 6, (2, 6)),  # 7.5 → 8 > 6: capped, 2.4 → 2
    (2, 5, 2, 9, (2, 5)),  # no change
    (4, 2, 3, 9, (6, 3)),
])
def test_v012_sizes(h, w, target, max_size, want):
    assert target_size_v01(h, w, target, max_size) == want == v012_size(h, w, target, max_size)


def bilinear(image, new_h, new_w):
    """Float HWC bilinear resampling with half-pixel centres and no antialiasing (OpenCV's INTER_LINEAR)."""
    t = torch.from_numpy(image).permute(2, 0, 1)[None]
    return F.interpolate(t, size=(new_h, new_w), mode="bilinear", align_corners=False)[0].permute(1, 2, 0).numpy()


def images(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0, 255, (h, w, 3)).astype(F32) for h, w in SHAPES]


def test_v012_call_gives_h_w_rows_and_bilinear_images():
    names = []

    @flow.global_function()
    def job(x: tp.ListListNumpy.Placeholder((3, 6, 10, 3))) -> tuple[tp.ListListNumpy, tp.Numpy, tp.Numpy]:
        out, size, scale = flow.image_target_resize(flow.tensor_list_to_tensor_buffer(x), 4, 9)
        names.extend([out.lbn, size.lbn, scale.lbn])
        return flow.tensor_buffer_to_tensor_list(out, shape=(9, 9, 3), dtype=flow.float), size, scale

    ims = images()
    out, size, scale = job([[a[None] for a in ims]])
    want = [v012_size(h, w, 4, 9) for h, w in SHAPES]
    assert want == [(4, 9), (5, 4), (4, 4)]  # 10 / 4 * 4 = 10 > 9: capped; 4.8 → 5
    np.testing.assert_array_equal(size, want)
    assert size.dtype == np.int32 and scale.dtype == F32
    np.testing.assert_array_equal(scale, [[F32(nh) / F32(h), F32(nw) / F32(w)]
                                          for (nh, nw), (h, w) in zip(want, SHAPES)])
    for got, a, (nh, nw) in zip(out[0], ims, want):
        np.testing.assert_allclose(got[0], bilinear(a, nh, nw), atol=2e-3)
    assert [re.sub(r"_\d+/", "_n/", n) for n in names] == ["ImageTargetResize_n/out_0", "ImageTargetResize_n/size_0",
                                                         "ImageTargetResize_n/scale_0"]


def test_v012_name_and_the_keyword_call_of_v034():
    names = []

    @flow.global_function()
    def job(x: tp.ListListNumpy.Placeholder((3, 6, 10, 3))) -> tuple[tp.Numpy, tp.Numpy]:
        buf = flow.tensor_list_to_tensor_buffer(x)
        _, old, _ = flow.image.target_resize(buf, 4, 9, "old_resize")  # v0.1.2's fourth argument: the name
        _, new, _ = flow.image.target_resize(buf, 4, max_size=9, interpolation_type="bilinear")
        names.append(old.lbn)
        return old, new

    old, new = job([[a[None] for a in images()]])
    np.testing.assert_array_equal(old, new[:, ::-1])  # v0.3.4's rows are (w, h)
    assert names == ["old_resize/size_0"]


def test_object_ops_read_v012_rows_as_h_w():
    """Boxes scaled by the v0.1.2 scale, flipped in the new size and drawn as masks of it, each checked against
    numpy arithmetic on the (h, w) rows the test reads itself."""
    rng = np.random.default_rng(3)
    boxes = [rng.uniform(0, 3, (2, 4)).astype(F32) for _ in SHAPES]
    polys = [np.array([[0, 0], [2, 0], [2, 1], [0, 1]], F32) for _ in SHAPES]
    index = [np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], np.int32) for _ in SHAPES]

    @flow.global_function()
    def job(x: tp.ListListNumpy.Placeholder((3, 6, 10, 3)), b: tp.ListListNumpy.Placeholder((3, 2, 4)),
            p: tp.ListListNumpy.Placeholder((3, 4, 2)), i: tp.ListListNumpy.Placeholder((3, 4, 3), dtype=flow.int32)
            ) -> tuple[tp.Numpy, tp.Numpy, tp.ListListNumpy, tp.ListListNumpy, tp.ListListNumpy]:
        _, size, scale = flow.image_target_resize(flow.tensor_list_to_tensor_buffer(x), 4, 9)
        scaled = flow.object_bbox_scale(flow.tensor_list_to_tensor_buffer(b), scale)
        flipped = flow.object_bbox_flip(scaled, size, 1)
        masks = flow.object_segmentation_polygon_to_mask(flow.tensor_list_to_tensor_buffer(p),
                                                          flow.tensor_list_to_tensor_buffer(i), size)
        return (size, scale, flow.tensor_buffer_to_tensor_list(scaled, shape=(2, 4), dtype=flow.float),
                flow.tensor_buffer_to_tensor_list(flipped, shape=(2, 4), dtype=flow.float),
                flow.tensor_buffer_to_tensor_list(masks, shape=(1, 9, 9), dtype=flow.int8))

    size, scale, scaled, flipped, masks = job([[a[None] for a in images()]], [[a[None] for a in boxes]],
                                              [[a[None] for a in polys]], [[a[None] for a in index]])
    for k, ((h, w), (sh, sw)) in enumerate(zip(size, scale)):
        want = boxes[k] * np.array([sw, sh, sw, sh], F32)
        np.testing.assert_array_equal(scaled[0][k][0], want)
        flip = want.copy()
        flip[:, 0], flip[:, 2] = F32(w) - want[:, 2] - 1, F32(w) - want[:, 0] - 1
        np.testing.assert_array_equal(flipped[0][k][0], flip)
        mask = np.zeros((1, h, w), np.int8)
        mask[0, 0:2, 0:3] = 1  # the rectangle (0, 0)-(2, 1) filled with its outline
        np.testing.assert_array_equal(masks[0][k][0], mask)


def test_v034_calls_keep_their_errors():
    @flow.global_function()
    def job(x: tp.ListListNumpy.Placeholder((3, 6, 10, 3))) -> tp.Numpy:
        _, size, _ = flow.image.target_resize(flow.tensor_list_to_tensor_buffer(x), 4, 9, 12)  # min 9 > target 4
        return size

    with pytest.raises(ValueError, match=r"argument 'min_size' must be 0 \(none\) or <= target_size \(4\)"):
        job([[a[None] for a in images()]])
    flow.clear_default_session()
