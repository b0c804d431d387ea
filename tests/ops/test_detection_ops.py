"""``flow.detection.*`` of OneFlow v0.1.2 (Mask R-CNN) and ``flow.layers.affine_channel``, each against a
numpy reference written from the last OneFlow kernels of these ops (+1 box sizes, unaligned RoIAlign …),
with gradients where OneFlow had them (roi_align, upsample_nearest, affine_channel)."""

from __future__ import annotations

import math
from typing import Any, Tuple  # (OneFlow programs annotate with typing.Tuple)

import numpy as np
import pytest
from helpers.ops import expect_error, forward_and_grad, make_job, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import ArgumentError

rng = np.random.default_rng(112)
randn = randn_from(rng)
WEIGHTS = {"weight_x": 10.0, "weight_y": 10.0, "weight_w": 5.0, "weight_h": 5.0}


def random_boxes(n: int, size: float = 40.0) -> np.ndarray:
    xy = rng.uniform(0, size, (n, 2))
    wh = rng.uniform(1, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


# --- numpy references ---------------------------------------------------------------------------------------
def np_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros((len(a), len(b)), np.float64)
    for i, p in enumerate(a.astype(np.float64)):
        for j, q in enumerate(b.astype(np.float64)):
            iw = min(p[2], q[2]) - max(p[0], q[0]) + 1
            ih = min(p[3], q[3]) - max(p[1], q[1]) + 1
            if iw > 0 and ih > 0:
                area = (p[2] - p[0] + 1) * (p[3] - p[1] + 1) + (q[2] - q[0] + 1) * (q[3] - q[1] + 1)
                out[i, j] = iw * ih / (area - iw * ih)
    return out


def np_encode(ref: np.ndarray, box: np.ndarray, w: dict[str, float]) -> np.ndarray:
    rw, rh = ref[:, 2] - ref[:, 0] + 1, ref[:, 3] - ref[:, 1] + 1
    bw, bh = box[:, 2] - box[:, 0] + 1, box[:, 3] - box[:, 1] + 1
    return np.stack([w["weight_x"] * ((ref[:, 0] + rw / 2) - (box[:, 0] + bw / 2)) / bw,
                     w["weight_y"] * ((ref[:, 1] + rh / 2) - (box[:, 1] + bh / 2)) / bh,
                     w["weight_w"] * np.log(rw / bw), w["weight_h"] * np.log(rh / bh)], axis=1)


def np_decode(ref: np.ndarray, delta: np.ndarray, w: dict[str, float]) -> np.ndarray:
    out = np.zeros(delta.shape, np.float64)
    per_ref = delta.shape[1] // 4
    for i in range(len(ref)):
        rw, rh = ref[i, 2] - ref[i, 0] + 1, ref[i, 3] - ref[i, 1] + 1
        cx, cy = ref[i, 0] + rw / 2, ref[i, 1] + rh / 2
        for k in range(per_ref):
            dx, dy, dw, dh = delta[i, 4 * k:4 * k + 4] / [w["weight_x"], w["weight_y"], w["weight_w"], w["weight_h"]]
            px, py, pw, ph = dx * rw + cx, dy * rh + cy, math.exp(dw) * rw, math.exp(dh) * rh
            out[i, 4 * k:4 * k + 4] = [px - pw / 2, py - ph / 2, px + pw / 2 - 1, py + ph / 2 - 1]
    return out


def np_nms(boxes: np.ndarray, threshold: float, top_n: int) -> np.ndarray:
    iou = np_iou(boxes, boxes)
    keep: list[int] = []
    for i in range(len(boxes)):
        if (top_n <= 0 or len(keep) < top_n) and all(iou[k, i] <= threshold for k in keep):
            keep.append(i)
    mask = np.zeros(len(boxes), np.int8)
    mask[keep] = 1
    return mask


def np_roi_align_taps(shape: tuple[int, ...], rois: np.ndarray, ph: int, pw: int, scale: float,
                      ratio: int) -> list[list[tuple[tuple[int, int, int, int], float]]]:
    """For each output element (row-major over (R, C, ph, pw)), the input elements it reads and their
    weights, from OneFlow's RoiAlignForward (the backward kernel scatters with the same weights)."""
    _, c, h, w = shape
    taps = []
    for roi in rois.astype(np.float64):
        n = int(roi[0])
        sw, sh, ew, eh = roi[1] * scale, roi[2] * scale, roi[3] * scale, roi[4] * scale
        rh, rw = max(eh - sh, 1.0), max(ew - sw, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for ch in range(c):
            for i in range(ph):
                for j in range(pw):
                    cell: list[tuple[tuple[int, int, int, int], float]] = []
                    for gi in range(gh):
                        for gj in range(gw):
                            y = sh + i * bh + (gi + 0.5) * bh / gh
                            x = sw + j * bw + (gj + 0.5) * bw / gw
                            if y < -1 or y > h or x < -1 or x > w:
                                continue
                            y0, x0 = (0 if y <= 0 else int(y)), (0 if x <= 0 else int(x))
                            if y0 >= h - 1:
                                y0 = y1 = h - 1
                                y = float(y0)
                            else:
                                y1 = y0 + 1
                            if x0 >= w - 1:
                                x0 = x1 = w - 1
                                x = float(x0)
                            else:
                                x1 = x0 + 1
                            ly, lx = y - y0, x - x0
                            k = 1.0 / (gh * gw)
                            cell += [((n, ch, y0, x0), (1 - ly) * (1 - lx) * k), ((n, ch, y0, x1), (1 - ly) * lx * k),
                                     ((n, ch, y1, x0), ly * (1 - lx) * k), ((n, ch, y1, x1), ly * lx * k)]
                    taps.append(cell)
    return taps


def np_masks_crop_and_resize(masks: np.ndarray, rois: np.ndarray, mh: int, mw: int) -> np.ndarray:
    n, c, h, w = masks.shape
    out = np.zeros((n, c, mh, mw), np.float64)
    for r in range(n):
        x0, y0, x1, y1 = np.rint(rois[r].astype(np.float64))
        for i in range(mh):
            for j in range(mw):
                yc = max(y0 + (i + 0.5) * (y1 - y0) / mh - 0.5, 0.0)
                xc = max(x0 + (j + 0.5) * (x1 - x0) / mw - 0.5, 0.0)
                yl, xl = int(math.floor(yc)), int(math.floor(xc))
                yh, xh = min(yl + 1, h - 1), min(xl + 1, w - 1)
                ay, ax = yc - yl, xc - xl
                m = masks[r].astype(np.float64)
                out[r, :, i, j] = ((1 - ay) * ((1 - ax) * m[:, yl, xl] + ax * m[:, yl, xh])
                                   + ay * ((1 - ax) * m[:, yh, xl] + ax * m[:, yh, xh]))
    return out


# --- boxes --------------------------------------------------------------------------------------------------
def test_calc_iou_matrix_uses_plus_one_sizes_and_zero_for_disjoint_boxes() -> None:
    a = np.concatenate([random_boxes(6), [[0, 0, 9, 9], [100, 100, 110, 110]]]).astype(np.float32)
    b = np.concatenate([random_boxes(4), [[0, 0, 9, 9], [10, 0, 19, 9]]]).astype(np.float32)
    got = run(lambda p, q: flow.detection.calc_iou_matrix(p, q), a, b)
    assert got.dtype == np.float32 and got.shape == (8, 6)
    np.testing.assert_allclose(got, np_iou(a, b), rtol=1e-5, atol=1e-6)
    assert got[6, 4] == 1.0 and got[6, 5] == 0.0  # (x2 - x1 + 1): boxes 0..9 and 10..19 just touch


def test_box_encode_and_decode_match_numpy_and_invert_each_other() -> None:
    ref, box = random_boxes(7), random_boxes(7)
    delta2 = randn(7, 8) * 0.5  # two deltas per ref box (per class)

    def body(r: Any, b: Any, d: Any) -> Any:
        enc = flow.detection.box_encode(r, b, WEIGHTS)
        back = flow.detection.box_decode(b, enc, WEIGHTS)
        return enc, back, flow.detection.box_decode(r, d, WEIGHTS, name="dec")
    enc, back, dec = run(body, ref, box, delta2, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    np.testing.assert_allclose(enc, np_encode(ref.astype(np.float64), box.astype(np.float64), WEIGHTS),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(back, ref, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(dec, np_decode(ref.astype(np.float64), delta2.astype(np.float64), WEIGHTS),
                               rtol=1e-5, atol=1e-4)


def test_level_map_maps_box_scales_to_fpn_levels() -> None:
    sides = np.array([10, 111, 112, 223, 224, 447, 448, 895, 896, 5000], np.float32)
    boxes = np.stack([np.zeros_like(sides), np.zeros_like(sides), sides - 1, sides - 1], axis=1).reshape(2, 5, 4)
    got = run(lambda b: flow.detection.level_map(b), boxes)
    # floor(4 + log2(side / 224 + 1e-6)) clipped to [2, 5], counted from 2
    want = np.clip(np.floor(4 + np.log2(sides / 224 + 1e-6)), 2, 5) - 2
    assert got.dtype == np.int32 and got.shape == (2, 5)
    np.testing.assert_array_equal(got.reshape(-1), want)


def test_anchor_generate_gives_detectrons_anchors_cell_by_cell() -> None:
    img = np.zeros((1, 40, 70, 3), np.float32)
    got = run(lambda x: flow.detection.anchor_generate(x, 16, [0.5, 1.0, 2.0], [128, 256, 512]), img)
    # the classic Faster R-CNN anchors of stride 16: for each ratio, each scale
    cell = np.array([[-84, -40, 99, 55], [-176, -88, 191, 103], [-360, -184, 375, 199],
                     [-56, -56, 71, 71], [-120, -120, 135, 135], [-248, -248, 263, 263],
                     [-36, -80, 51, 95], [-80, -168, 95, 183], [-168, -344, 183, 359]], np.float32)
    fh, fw = math.ceil(40 / 16), math.ceil(70 / 16)
    want = np.concatenate([cell + [16 * x, 16 * y, 16 * x, 16 * y] for y in range(fh) for x in range(fw)])
    assert got.shape == (fh * fw * 9, 4) and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    one = run(lambda x: flow.detection.anchor_generate(x, 8, [1.0], 32), img)  # a bare scale, as OneFlow took
    np.testing.assert_array_equal(one[:2], [[-12, -12, 19, 19], [-4, -12, 27, 19]])  # 3.5 ± 15.5


def test_box_filters_and_clipping() -> None:
    boxes = np.array([[-1, 0, 10, 10], [0, 0, 29, 19], [0, 0, 30, 19], [5, 5, 5.5, 9], [0, -0.5, 8, 8]],
                     np.float32)
    size = np.array([20, 30], np.int32)  # (height, width)

    def body(b: Any, s: Any) -> Any:
        return (flow.detection.identify_non_small_boxes(b, min_size=1.0),
                flow.detection.identify_outside_anchors(b, s), flow.detection.identify_outside_anchors(b, s, 0.5),
                flow.detection.clip_to_image(b, s))
    small, out0, out_tol, clipped = run(body, boxes, size, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy])
    assert small.dtype == out0.dtype == np.int8
    np.testing.assert_array_equal(small, [1, 1, 1, 0, 1])  # x2 - x1 >= 1, no +1 here
    np.testing.assert_array_equal(out0, [1, 0, 1, 0, 1])  # x2 >= width is outside
    np.testing.assert_array_equal(out_tol, [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(clipped, np.stack([np.clip(boxes[:, 0], 0, 29), np.clip(boxes[:, 1], 0, 19),
                                                     np.clip(boxes[:, 2], 0, 29), np.clip(boxes[:, 3], 0, 19)], 1))


@pytest.mark.parametrize("threshold, top_n", [(0.5, 1000), (0.3, 3), (0.7, -1)])
def test_nms_keeps_boxes_greedily_in_the_given_order(threshold: float, top_n: int) -> None:
    base = random_boxes(12, size=30.0)
    boxes = np.concatenate([base, base[:4] + 1.0, base[4:6] + 0.5]).astype(np.float32)  # near-duplicates
    got = run(lambda b: flow.detection.nms(b, nms_iou_threshold=threshold, post_nms_top_n=top_n), boxes)
    assert got.dtype == np.int8 and got.shape == (18,)
    np.testing.assert_array_equal(got, np_nms(boxes, threshold, top_n))
    assert 0 < got.sum() < 18


# --- dynamic index blobs ------------------------------------------------------------------------------------
def _indices(mask: Any) -> Any:
    # (k, 1) → (k,); flow.squeeze would bake the static length into its reshape
    return flow.math.reduce_sum(flow.argwhere(mask), axis=[1])


def test_pos_neg_sampler_takes_the_first_indices_as_dynamic_blobs() -> None:
    labels = np.array([1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0], np.int32)
    shapes: list[Any] = []

    def body(x: Any) -> Any:
        pos, neg = flow.detection.pos_neg_sampler(_indices(x > 0), _indices(x == 0), total_subsample_num=8,
                                                  pos_fraction=0.25)
        same = flow.detection.maskrcnn_positive_negative_sample(_indices(x > 0), _indices(x == 0), 10, 0.5)
        shapes.append((pos.shape, neg.shape, pos.is_dynamic, neg.is_dynamic, pos.lbn, neg.lbn))
        return pos, neg, same[0], same[1]
    pos, neg, pos2, neg2 = make_job(body, [labels], ret=Tuple[tp.ListNumpy, tp.ListNumpy, tp.ListNumpy,
                                                              tp.ListNumpy])(labels)
    np.testing.assert_array_equal(pos[0], [0, 2])  # int(8 · 0.25) = 2 positives
    np.testing.assert_array_equal(neg[0], [1, 4, 5, 6, 8, 9])  # 8 − 2 negatives
    np.testing.assert_array_equal(pos2[0], [0, 2, 3, 7])  # only 4 positives of 5 wanted
    np.testing.assert_array_equal(neg2[0], [1, 4, 5, 6, 8, 9])  # 10 − 4 of the 8 negatives
    assert shapes[0][:4] == ((2,), (8,), True, True)
    assert shapes[0][4].endswith("/sampled_pos_inds") and shapes[0][5].endswith("/sampled_neg_inds")


def test_extract_piece_slice_id_and_maskrcnn_split_follow_run_time_lengths() -> None:
    x = np.array([3, 0, 5, 0, 0, 7, 1], np.float32)
    feats = randn(7, 3)

    def body(a: Any, f: Any) -> Any:
        first, second = _indices(a > 2.0), _indices(a <= 2.0)
        ids = flow.detection.extract_piece_slice_id([first, second])
        assert len(ids) == 2 and ids[1].lbn.endswith("/out_1") and ids[0].is_dynamic
        parts = flow.detection.maskrcnn_split(f, [first, second])
        assert parts[0].shape == (7, 3) and parts[0].is_dynamic
        return ids[0], ids[1], parts[0], parts[1]
    got = make_job(body, [x, feats], ret=Tuple[tp.ListNumpy, tp.ListNumpy, tp.ListNumpy, tp.ListNumpy])(x, feats)
    np.testing.assert_array_equal(got[0][0], [0, 0, 0])
    np.testing.assert_array_equal(got[1][0], [1, 1, 1, 1])
    assert got[0][0].dtype == np.int32
    np.testing.assert_array_equal(got[2][0], feats[:3])
    np.testing.assert_array_equal(got[3][0], feats[3:])


# --- roi_align, masks, upsampling ---------------------------------------------------------------------------
@pytest.mark.parametrize("scale, ratio", [(0.25, 2), (0.5, -1), (1.0, 1)])
def test_roi_align_forward_and_gradient_follow_oneflows_kernels(scale: float, ratio: int) -> None:
    x = randn(2, 3, 9, 11)
    rois = np.array([[0, 2, 3, 30, 25], [1, -6, -3, 20, 12], [1, 35, 30, 44, 40], [0, 5, 5, 5.5, 5.5],
                     [0, -20, -20, -2, -2]], np.float32)
    y, grad, w = forward_and_grad(lambda a, r: flow.detection.roi_align(a, r, 3, 2, spatial_scale=scale,
                                                                        sampling_ratio=ratio), x, rois)
    taps = np_roi_align_taps(x.shape, rois, 3, 2, scale, ratio)
    want = np.array([sum(x[i] * k for i, k in cell) for cell in taps]).reshape(5, 3, 3, 2)
    assert y.shape == (5, 3, 3, 2)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    want_grad = np.zeros(x.shape, np.float64)
    for cell, dy in zip(taps, w.reshape(-1)):
        for i, k in cell:
            want_grad[i] += dy * k
    np.testing.assert_allclose(grad, want_grad, rtol=1e-5, atol=1e-5)


def test_roi_align_names_and_checks() -> None:
    def body(x: Any, r: Any) -> Any:
        y = flow.detection.roi_align(x, r, 2, 2)
        assert y.lbn.startswith("RoiAlign_") and y.lbn.endswith("/out")
        assert flow.detection.roi_align(x, r, 2, 2, name="pool").lbn == "pool/out"
        with pytest.raises(ArgumentError, match="rois"):
            flow.detection.roi_align(x, flow.reshape(r, (5, 2)), 2, 2)
        with pytest.raises(ArgumentError, match="pooled_h"):
            flow.detection.roi_align(x, r, 0, 2)
        return y
    run(body, randn(1, 2, 4, 4), np.zeros((2, 5), np.float32))


@pytest.mark.parametrize("threshold", [0.5, 9.0])  # some rois picked, none
def test_box_ops_take_a_run_time_number_of_boxes(threshold: float) -> None:
    x = randn(1, 2, 6, 6)
    rois = np.array([[0, 0, 0, 3, 3], [0, 1, 2, 5, 4], [0, 2, 2, 2, 2]], np.float32)
    score = np.array([0.9, 0.1, 0.7], np.float32)

    def body(a: Any, r: Any, s: Any) -> Any:
        picked = flow.gather(r, _indices(s > threshold))
        keep = flow.detection.nms(flow.slice(picked, [None, 1], [None, 4]), 0.5)
        pooled = flow.detection.roi_align(a, picked, 2, 2, spatial_scale=1.0)
        assert pooled.is_dynamic and keep.is_dynamic and pooled.shape == (3, 2, 2, 2)
        return pooled, keep
    pooled, keep = make_job(body, [x, rois, score], ret=Tuple[tp.ListNumpy, tp.ListNumpy])(x, rois, score)
    chosen = rois[score > threshold]
    taps = np_roi_align_taps(x.shape, chosen, 2, 2, 1.0, 2)
    want = np.array([sum(x[i] * k for i, k in cell) for cell in taps]).reshape(len(chosen), 2, 2, 2)
    np.testing.assert_allclose(pooled[0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(keep[0], np_nms(chosen[:, 1:], 0.5, 1000))


def test_masks_crop_and_resize_samples_pixel_centres_of_the_rounded_roi() -> None:
    masks = (rng.uniform(size=(3, 2, 12, 10)) > 0.5).astype(np.int8)
    rois = np.array([[0, 0, 9, 11], [2.4, 1.5, 7.6, 9.5], [3, 4, 5, 6]], np.float32)
    got = run(lambda m, r: flow.detection.masks_crop_and_resize(m, r, 5, 4), masks, rois)
    assert got.dtype == np.float32 and got.shape == (3, 2, 5, 4)
    np.testing.assert_allclose(got, np_masks_crop_and_resize(masks, rois, 5, 4), rtol=1e-5, atol=1e-6)


def test_upsample_nearest_repeats_pixels_and_sums_the_gradient_back() -> None:
    x = randn(2, 3, 4, 5)
    y, grad, w = forward_and_grad(lambda a: flow.detection.upsample_nearest(a, 3, "channels_first"), x)
    np.testing.assert_array_equal(y, x.repeat(3, axis=2).repeat(3, axis=3))
    np.testing.assert_allclose(grad, w.reshape(2, 3, 4, 3, 5, 3).sum(axis=(3, 5)), rtol=1e-6)
    with expect_error(ArgumentError, match="channels_first"):
        run(lambda a: flow.detection.upsample_nearest(a, 2, "channels_last"), x)


# --- affine_channel -----------------------------------------------------------------------------------------
def test_affine_channel_makes_scale_and_bias_variables_and_its_gradient() -> None:
    x = randn(2, 3, 4)
    names: list[str] = []

    def layer(a: Any) -> Any:
        out = flow.layers.affine_channel(a, axis=1, scale_initializer=flow.constant_initializer(0.0),
                                         bias_initializer=flow.zeros_initializer(), name="ac")
        names.append(out.lbn)
        return out
    y, grad, w = forward_and_grad(layer, x)
    np.testing.assert_array_equal(y, np.zeros_like(x))  # OneFlow's default: scale and bias start at zero
    np.testing.assert_array_equal(grad, np.zeros_like(x))
    assert names[-1] == "ac_bias_add/out_0"
    flow.clear_default_session()

    def job(a: Any) -> Any:
        out = flow.detection.affine_channel(a, axis=-2, scale_initializer=flow.constant_initializer(1.0),
                                            activation=flow.math.relu)
        return out
    y2, grad2, w2 = forward_and_grad(job, x)
    np.testing.assert_allclose(y2, np.maximum(x, 0), rtol=1e-6)
    np.testing.assert_allclose(grad2, w2 * (x > 0), rtol=1e-6)
    flow.clear_default_session()

    def shaped(a: Any) -> Any:
        return flow.layers.affine_channel(a, axis=1, name="sh", scale_initializer=flow.random_uniform_initializer(),
                                          bias_initializer=flow.random_normal_initializer())
    got = make_job(shaped, [x])(x)
    variables = flow.get_all_variables()
    scale, bias = variables["sh-scale"].numpy(), variables["sh-bias"].numpy()
    assert scale.shape == (1, 3, 1) and bias.shape == (3,)
    np.testing.assert_allclose(got, x * scale + bias.reshape(1, 3, 1), rtol=1e-6)
