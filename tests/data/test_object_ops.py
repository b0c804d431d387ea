"""flow.object_bbox_flip/scale, object_segmentation_polygon_flip/scale/to_mask (and flow.detection.*) in jobs,
on boxes and polygons fed from job inputs (the ops then run in the job graph) or decoded from OFRecords (in
the loader), against numpy references and the per-pixel fillPoly reference of test_fill_poly."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.data import float_feature, int_feature, write_dataset
from test_fill_poly import ref_fill

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch.core.record import record_pb2

N, K = 3, 4  # images, boxes (or points) per image
SIZES = np.array([[40, 30], [25, 50], [64, 64]], np.int32)  # (w, h)


pytestmark = pytest.mark.usefixtures("in_process")


def boxes(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 20, (N, K, 2))
    return np.concatenate([xy, xy + rng.uniform(1, 10, (N, K, 2))], axis=2).astype(dtype)


def flip_boxes_ref(b, sizes, codes):
    out = b.copy()
    for i, c in enumerate(codes):
        w, h = b.dtype.type(sizes[i, 0]), b.dtype.type(sizes[i, 1])
        if c & 1:
            out[i, :, 0], out[i, :, 2] = w - b[i, :, 2] - 1, w - b[i, :, 0] - 1
        if c & 16:
            out[i, :, 1], out[i, :, 3] = h - b[i, :, 3] - 1, h - b[i, :, 1] - 1
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("code", [0, 1, 16, 17])
def test_bbox_flip_of_job_inputs(dtype, code):
    b = boxes(dtype)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((N, K, 4), dtype=dtype), size: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)
            ) -> tp.Numpy:
        out = flow.object_bbox_flip(flow.tensor_to_tensor_buffer(x, instance_dims=2), size, code)
        assert out.is_tensor_buffer and out.shape == (N,)
        return flow.tensor_buffer_to_tensor(out, dtype, [K, 4])

    np.testing.assert_array_equal(job(b, SIZES), flip_boxes_ref(b, SIZES, [code] * N))


def test_bbox_flip_codes_from_a_blob_and_the_detection_namespace():
    b = boxes()
    codes = np.array([1, 16, 17], np.int8)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((N, K, 4)), size: tp.Numpy.Placeholder((N, 2), dtype=flow.int32),
            c: tp.Numpy.Placeholder((N,), dtype=flow.int8)) -> tp.Numpy:
        out = flow.detection.object_bbox_flip(flow.tensor_to_tensor_buffer(x, instance_dims=2), size, c)
        assert out.op_name.startswith("ObjectBboxFlip_") and out.blob_name == "out_0"
        return flow.tensor_buffer_to_tensor(out, flow.float, [K, 4])

    np.testing.assert_array_equal(job(b, SIZES, codes), flip_boxes_ref(b, SIZES, codes))


def test_bbox_and_polygon_scale():
    b = boxes()
    pts = boxes(seed=1)[:, :, :2].copy()
    scale = np.array([[0.5, 2.0], [1.25, 0.75], [3.0, 1.0]], np.float32)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((N, K, 4)), p: tp.Numpy.Placeholder((N, K, 2)), s: tp.Numpy.Placeholder((N, 2))
            ) -> tuple[tp.Numpy, tp.Numpy]:
        sb = flow.object_bbox_scale(flow.tensor_to_tensor_buffer(x, instance_dims=2), s)
        sp = flow.object_segmentation_polygon_scale(flow.tensor_to_tensor_buffer(p, instance_dims=2), s)
        assert sp.op_name.startswith("ObjectSegmPolyFilp_")  # OneFlow's prefix, typo included
        return (flow.tensor_buffer_to_tensor(sb, flow.float, [K, 4]),
                flow.tensor_buffer_to_tensor(sp, flow.float, [K, 2]))

    got_b, got_p = job(b, pts, scale)
    np.testing.assert_array_equal(got_b, b * np.tile(scale, 2)[:, None, :])
    np.testing.assert_array_equal(got_p, pts * scale[:, None, :])


@pytest.mark.parametrize("code", [1, 16, 17])
def test_polygon_flip_mirrors_points_without_the_minus_one(code):
    pts = boxes(seed=2)[:, :, :2].copy()

    @flow.global_function()
    def job(p: tp.Numpy.Placeholder((N, K, 2)), size: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)) -> tp.Numpy:
        out = flow.object_segmentation_polygon_flip(flow.tensor_to_tensor_buffer(p, instance_dims=2), size, code)
        return flow.tensor_buffer_to_tensor(out, flow.float, [K, 2])

    want = pts.copy()
    if code & 1:
        want[:, :, 0] = SIZES[:, None, 0] - pts[:, :, 0]
    if code & 16:
        want[:, :, 1] = SIZES[:, None, 1] - pts[:, :, 1]
    np.testing.assert_array_equal(job(pts, SIZES), want)


def test_polygons_to_masks():
    # per image: segment 0 is one quadrilateral, segment 1 two triangles (with a .5 coordinate: rounded to even)
    quad = [[2.0, 2.0], [14.5, 3.0], [13.0, 11.0], [3.0, 10.0]]
    tri_a = [[1.0, 12.0], [8.0, 12.0], [4.0, 15.5]]
    tri_b = [[9.0, 1.0], [15.0, 1.0], [15.0, 6.0]]
    points = np.array(quad + tri_a + tri_b, np.float32)
    index = np.array([[k, 0, 0] for k in range(4)] + [[k, 0, 1] for k in range(3)] + [[k, 1, 1] for k in range(3)],
                     np.int32)
    polys = np.stack([points, points * [1.0, 0.9], points + 0.5]).astype(np.float32)
    size = np.array([[16, 16], [12, 16], [16, 18]], np.int32)

    @flow.global_function()
    def job(p: tp.Numpy.Placeholder((N, 10, 2)), i: tp.Numpy.Placeholder((N, 10, 3), dtype=flow.int32),
            s: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)) -> tp.Numpy:
        masks = flow.object_segmentation_polygon_to_mask(flow.tensor_to_tensor_buffer(p, instance_dims=2),
                                                         flow.tensor_to_tensor_buffer(i, instance_dims=2), s)
        assert masks.op_name.startswith("ObjectSegmPolyToMask_")
        return flow.tensor_buffer_to_tensor(masks, flow.int8, [2, 18, 16])

    with pytest.raises(ValueError, match=r"element 0 is \(2, 16, 16\) int8; instance_shape \(2, 18, 16\)"):
        job(polys, np.broadcast_to(index, (N, 10, 3)), size)
    flow.clear_default_session()
    size[:] = [16, 18]

    @flow.global_function()
    def same_size(p: tp.Numpy.Placeholder((N, 10, 2)), i: tp.Numpy.Placeholder((N, 10, 3), dtype=flow.int32),
                  s: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)) -> tp.Numpy:
        masks = flow.object_segmentation_polygon_to_mask(flow.tensor_to_tensor_buffer(p, instance_dims=2),
                                                         flow.tensor_to_tensor_buffer(i, instance_dims=2), s)
        return flow.tensor_buffer_to_tensor(masks, flow.int8, [2, 18, 16])

    got = same_size(polys, np.broadcast_to(index, (N, 10, 3)).copy(), size)
    for n in range(N):
        pts = np.rint(polys[n]).astype(np.int64)  # round half to even, as std::nearbyint
        np.testing.assert_array_equal(got[n, 0], ref_fill(18, 16, [pts[:4]]))
        np.testing.assert_array_equal(got[n, 1], ref_fill(18, 16, [pts[4:7], pts[7:]]))
    assert got[0, 0, 3, 14] == 1 and got[0, 0, 3, 15] == 0  # the vertex (14.5, 3) rounds to (14, 3)


def test_ops_run_in_the_loader_on_decoded_records(tmp_path):
    b = boxes()
    records = [record_pb2.OFRecord(feature={"b": float_feature(*b[i].ravel().tolist()),
                                            "size": int_feature(*SIZES[i].tolist())}) for i in range(N)]
    write_dataset(tmp_path / "ds", [records])

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=N)
        raw = flow.data.OFRecordRawDecoder(r, "b", shape=(K, 4), dtype=flow.float)
        size = flow.data.OFRecordRawDecoder(r, "size", shape=(2,), dtype=flow.int32)
        buf = flow.tensor_to_tensor_buffer(raw, instance_dims=2)
        flipped = flow.object_bbox_flip(buf, size, 1)
        assert not flipped.in_graph  # every input comes from the pipeline
        return flow.tensor_buffer_to_tensor(flipped, flow.float, [K, 4]), size

    got, size = job()
    np.testing.assert_array_equal(size, SIZES)
    np.testing.assert_array_equal(got, flip_boxes_ref(b, SIZES, [1] * N))


def test_argument_and_runtime_errors():
    @flow.global_function()
    def bad_code(x: tp.Numpy.Placeholder((N, K, 4)), size: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)):
        flow.object_bbox_flip(flow.tensor_to_tensor_buffer(x, instance_dims=2), size, 2)

    with pytest.raises(ValueError, match=r"flow.object_bbox_flip: argument 'flip_code' must be 0, 1 \(left-right\)"):
        bad_code(boxes(), SIZES)
    flow.clear_default_session()

    @flow.global_function()
    def bad_size(x: tp.Numpy.Placeholder((N, K, 4)), size: tp.Numpy.Placeholder((N, 2))):
        flow.object_bbox_flip(flow.tensor_to_tensor_buffer(x, instance_dims=2), size, 1)

    with pytest.raises(ValueError, match=r"argument 'image_size' must be a int32 blob of shape \(3, 2\); received "
                                         r"Input_\d+/out of dtype oneflow.float32"):
        bad_size(boxes(), SIZES.astype(np.float32))
    flow.clear_default_session()

    @flow.global_function()
    def static_boxes(x: tp.Numpy.Placeholder((N, 2)), size: tp.Numpy.Placeholder((N, 2))):
        flow.object_bbox_scale(x, size)

    with pytest.raises(TypeError, match=r"object_bbox_scale: argument 'bbox' must be a data blob holding "
                                        r"tensor_buffer values"):
        static_boxes(np.zeros((N, 2), np.float32), np.zeros((N, 2), np.float32))
    flow.clear_default_session()

    @flow.global_function()
    def three_columns(x: tp.Numpy.Placeholder((N, K, 3)), s: tp.Numpy.Placeholder((N, 2))) -> tp.Numpy:
        out = flow.object_bbox_scale(flow.tensor_to_tensor_buffer(x, instance_dims=2), s)
        return flow.tensor_buffer_to_tensor(out, flow.float, [K, 3])

    with pytest.raises(ValueError, match=r"ObjectBboxScale_\d+, sample 0: expected float32 or float64 boxes of shape "
                                         r"\(n, 4\); got float32 \(4, 3\)"):
        three_columns(np.zeros((N, K, 3), np.float32), np.ones((N, 2), np.float32))
    flow.clear_default_session()

    @flow.global_function()
    def bad_index(p: tp.Numpy.Placeholder((1, 4, 2)), i: tp.Numpy.Placeholder((1, 4, 3), dtype=flow.int32),
                  s: tp.Numpy.Placeholder((1, 2), dtype=flow.int32)) -> tp.Numpy:
        m = flow.object_segmentation_polygon_to_mask(flow.tensor_to_tensor_buffer(p, instance_dims=2),
                                                     flow.tensor_to_tensor_buffer(i, instance_dims=2), s)
        return flow.tensor_buffer_to_tensor(m, flow.int8, [1, 4, 4])

    skips_a_point = np.array([[[0, 0, 0], [1, 0, 0], [3, 0, 0], [4, 0, 0]]], np.int32)
    with pytest.raises(ValueError, match=r"poly_index row 2 is \(point 3, polygon 0, segment 0\)"):
        bad_index(np.ones((1, 4, 2), np.float32), skips_a_point, np.array([[4, 4]], np.int32))


def test_oneflow_v01_reads_fed_image_sizes_as_height_then_width(monkeypatch):
    # v0.1.2's kernels read image_size rows as (h, w), v0.2.0's as (w, h); a fed size cannot say which, so the
    # program says which OneFlow it was written for
    monkeypatch.setenv("FLOWTORCH_ONEFLOW_VERSION", "0.1")
    b = boxes()

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((N, K, 4)), size: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)) -> tp.Numpy:
        out = flow.object_bbox_flip(flow.tensor_to_tensor_buffer(x, instance_dims=2), size, 17)
        return flow.tensor_buffer_to_tensor(out, flow.float32, [K, 4])

    np.testing.assert_array_equal(job(b, SIZES[:, ::-1].copy()), flip_boxes_ref(b, SIZES, [17] * N))
    monkeypatch.setenv("FLOWTORCH_ONEFLOW_VERSION", "0.9")
    flow.clear_default_session()

    @flow.global_function()
    def again(x: tp.Numpy.Placeholder((N, K, 4)), size: tp.Numpy.Placeholder((N, 2), dtype=flow.int32)) -> tp.Numpy:
        out = flow.object_bbox_flip(flow.tensor_to_tensor_buffer(x, instance_dims=2), size, 17)
        return flow.tensor_buffer_to_tensor(out, flow.float32, [K, 4])

    with pytest.raises(ValueError, match="FLOWTORCH_ONEFLOW_VERSION"):
        again(b, SIZES)
