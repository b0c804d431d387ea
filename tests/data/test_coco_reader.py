"""flow.data.coco_reader over a small COCO dataset written here (JPEGs drawn with numpy, an instances json):
which images it keeps, each output against the json, and its batch order (shards over the placement's
devices, aspect groups, seeded shuffles) against orders worked out by hand."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from PIL import Image

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.data.rng import MT19937, cxx_shuffle

CATEGORIES = [2, 5, 9]  # labels 1, 2, 3
# id: (width, height, annotations as (category, bbox, polygons, iscrowd))
SQUARE = [[2.0, 2.0, 8.0, 2.0, 8.0, 7.5, 2.0, 7.5]]
IMAGES = {
    31: (20, 12, [(5, [1.0, 1.0, 6.0, 4.0], SQUARE, 0), (9, [15.0, 8.0, 10.0, 10.0], SQUARE + SQUARE, 0)]),
    5: (16, 24, [(2, [0.5, 0.5, 3.0, 3.0], SQUARE, 0)]),
    12: (18, 10, []),  # no annotation: skipped
    47: (14, 20, [(9, [2.0, 3.0, 0.5, 4.0], SQUARE, 0), (2, [1.0, 1.0, 5.0, 5.0], SQUARE, 0),
                  (5, [0.0, 0.0, 9.0, 9.0], None, 1)]),  # a crowd annotation: ignored
    9: (22, 15, [(5, [3.0, 2.0, 1.0, 1.0], SQUARE, 0)]),  # only a 1x1 box: skipped
    20: (12, 12, [(2, [-3.0, -2.0, 8.0, 20.0], [[1.0, 1.0, 6.0, 1.0, 6.0, 6.0, 1.0, 6.0, 1.0, 3.0]], 0)]),
    40: (15, 25, [(9, [4.0, 4.0, 4.0, 4.0], SQUARE, 0)]),
}
KEPT = [5, 20, 31, 40, 47]  # sorted ids; aspect groups (height // width): 1, 1, 0, 1, 1


pytestmark = pytest.mark.usefixtures("in_process")


@pytest.fixture
def coco(tmp_path):
    rng = np.random.default_rng(0)
    (tmp_path / "img").mkdir()
    images, annos = [], []
    for image_id, (w, h, objects) in IMAGES.items():
        buf = io.BytesIO()
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(buf, format="JPEG")
        (tmp_path / "img" / f"{image_id}.jpg").write_bytes(buf.getvalue())
        images.append({"id": image_id, "file_name": f"{image_id}.jpg", "width": w, "height": h})
        for k, (cat, bbox, polys, crowd) in enumerate(objects):
            segm = polys if not crowd else {"counts": [4, 2], "size": [h, w]}
            annos.append({"id": 100 * image_id + k, "image_id": image_id, "category_id": cat, "bbox": bbox,
                          "segmentation": segm, "iscrowd": crowd, "area": 1.0})
    doc = {"images": images, "annotations": annos, "categories": [{"id": c, "name": str(c)} for c in CATEGORIES]}
    (tmp_path / "instances.json").write_text(json.dumps(doc))
    return tmp_path


def reader(coco, batch_size, **kwargs):
    kwargs.setdefault("name", "COCOReader")
    return flow.data.coco_reader(str(coco / "instances.json"), str(coco / "img"), batch_size, **kwargs)


def ids_job(coco, batch_size, devices="0:0", **kwargs):
    @flow.global_function()
    def job() -> tp.Numpy:
        with flow.scope.placement("cpu", devices):
            return reader(coco, batch_size, **kwargs)[1]
    return job


def expected_boxes(image_id):
    """[x, y, w, h] → [x1, y1, x2, y2] with x2 = x + max(w - 1, 0), clipped to the image; empty boxes dropped."""
    w, h, objects = IMAGES[image_id]
    out = []
    for _, (x, y, bw, bh), _, crowd in objects:
        if crowd:
            continue
        x1, x2 = (min(max(v, 0), w - 1) for v in (x, x + max(bw - 1, 0)))
        y1, y2 = (min(max(v, 0), h - 1) for v in (y, y + max(bh - 1, 0)))
        if x2 > x1 and y2 > y1:
            out.append([x1, y1, x2, y2])
    return np.array(out, np.float32).reshape(-1, 4)


def test_outputs_follow_the_annotation_file(coco):
    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, list[tp.ListNumpy], list[tp.ListNumpy], list[tp.ListNumpy],
                       list[tp.ListNumpy], list[tp.ListNumpy]]:
        image, image_id, size, bbox, label, segm, segm_index = reader(coco, 5, shuffle=False,
                                                                      group_by_aspect_ratio=False)
        assert image.is_tensor_buffer and bbox.is_tensor_buffer and image_id.dtype is flow.int64
        assert image.logical_blob_name == "COCOReader/image_0" and size.shape == (5, 2)

        def listed(buf, shape, dtype):
            return flow.tensor_buffer_to_list_of_tensors(buf, shape, dtype, dynamic_out=True)
        return (image_id, size, listed(image, (4096,), flow.int8), listed(bbox, (8, 4), flow.float),
                listed(label, (8,), flow.int32), listed(segm, (32, 2), flow.float), listed(segm_index, (32, 3),
                                                                                            flow.int32))

    ids, sizes, files, bbox, label, segm, segm_index = job()
    np.testing.assert_array_equal(ids, KEPT)
    np.testing.assert_array_equal(sizes, [[IMAGES[i][1], IMAGES[i][0]] for i in KEPT])  # (height, width)
    for k, image_id in enumerate(KEPT):
        objects = [o for o in IMAGES[image_id][2] if not o[3]]
        assert files[k][0].tobytes() == (coco / "img" / f"{image_id}.jpg").read_bytes()
        np.testing.assert_array_equal(bbox[k][0], expected_boxes(image_id))
        np.testing.assert_array_equal(label[k][0], [CATEGORIES.index(o[0]) + 1 for o in objects])
        points = [v for o in objects for poly in o[2] for v in poly]
        np.testing.assert_array_equal(segm[k][0], np.array(points, np.float32).reshape(-1, 2))
        index = [(p, q, a) for a, o in enumerate(objects) for q, poly in enumerate(o[2]) for p in range(len(poly) // 2)]
        np.testing.assert_array_equal(segm_index[k][0], np.array(index).reshape(-1, 3))
    # image 47's 0.5-wide box is empty once converted and is dropped; its label stays
    assert len(bbox[4][0]) == 1 and len(label[4][0]) == 2


def test_decoded_images_and_masks_downstream(coco):
    @flow.global_function()
    def job() -> tuple[tp.Numpy, list[tp.ListNumpy]]:
        image, image_id = reader(coco, 5, shuffle=False, group_by_aspect_ratio=False)[:2]
        decoded = flow.image.decode(image, dtype=flow.uint8)
        return image_id, flow.tensor_buffer_to_list_of_tensors(decoded, (25, 20, 3), flow.uint8, dynamic_out=True)

    ids, images = job()
    for image_id, (img,) in zip(ids, images):
        pil = np.asarray(Image.open(coco / "img" / f"{image_id}.jpg").convert("RGB"))[:, :, ::-1]
        np.testing.assert_array_equal(img, pil)


def test_v012_call_without_a_name(coco):
    """OneFlow v0.1.2 named the reader ``COCOReader_<n>``; its object ops read the (h, w) image size as such, so
    a horizontal flip mirrors the boxes in each image's width (v0.3.4's, given a name, read (w, h))."""
    names = []

    @flow.global_function()
    def job() -> tuple[tp.Numpy, list[tp.ListNumpy], list[tp.ListNumpy]]:
        _, image_id, size, bbox = reader(coco, 5, shuffle=False, group_by_aspect_ratio=False, name=None)[:4]
        _, _, named_size, named_bbox = reader(coco, 5, shuffle=False, group_by_aspect_ratio=False, name="named")[:4]
        names.extend([image_id.lbn, named_size.lbn])
        flipped = flow.object_bbox_flip(bbox, size, 1)
        named_flipped = flow.object_bbox_flip(named_bbox, named_size, 1)
        return (image_id, flow.tensor_buffer_to_list_of_tensors(flipped, (8, 4), flow.float, dynamic_out=True),
                flow.tensor_buffer_to_list_of_tensors(named_flipped, (8, 4), flow.float, dynamic_out=True))

    ids, flipped, named_flipped = job()
    np.testing.assert_array_equal(ids, KEPT)
    assert re.fullmatch(r"COCOReader_\d+/image_id_0", names[0]) and names[1] == "named/image_size_0"
    for k, image_id in enumerate(KEPT):
        w, h, _ = IMAGES[image_id]
        boxes = expected_boxes(image_id)
        for got, width in ((flipped[k][0], w), (named_flipped[k][0], h)):  # the named reader's rows read (w, h)
            want = boxes.copy()
            want[:, 0], want[:, 2] = width - boxes[:, 2] - 1, width - boxes[:, 0] - 1
            np.testing.assert_array_equal(got, want)


def test_one_device_groups_images_by_aspect(coco):
    # KEPT indices 0..4 have groups 1, 1, 0, 1, 1. Batch 2, one device, sequence 0 1 2 3 4 0 1 2 …:
    # [0 1]; then 2 opens a group-0 batch while 3 4 (group 1) wait as one chunk and 0 1 as a second one,
    # until the next 2 completes it: [2 2]; the earliest waiting chunk opens each next batch: [3 4], [0 1];
    # with none left the sequence goes on: [3 4], [0 1].
    job = ids_job(coco, 2, shuffle=False)
    got = [job().tolist() for _ in range(6)]
    order = [[0, 1], [2, 2], [3, 4], [0, 1], [3, 4], [0, 1]]
    assert got == [[KEPT[i] for i in batch] for batch in order]


def test_two_devices_stride_and_contiguous_shards(coco):
    # stride: device 0 reads 0 2 4 1 3 0 …, device 1 reads 1 3 0 2 4 1 … (every 2nd index, wrapping)
    job = ids_job(coco, 4, devices="0:0-1", shuffle=False, group_by_aspect_ratio=False)
    got = [job().tolist() for _ in range(3)]
    assert got == [[KEPT[i] for i in b] for b in ([0, 2, 1, 3], [4, 1, 0, 2], [3, 0, 4, 1])]
    flow.clear_default_session()
    # contiguous: shards of ceil(5 / 2) = 3; device 0 reads 0 1 2, jumps over shard 1 (to 6, wrapped to 1),
    # reads 1 2 3, jumps to 7 (2) …; device 1 starts at 3: 3 4, wraps to 0, 0 → jumps to 4, …
    job = ids_job(coco, 4, devices="0:0-1", shuffle=False, group_by_aspect_ratio=False, stride_partition=False)
    got = [job().tolist() for _ in range(3)]
    assert got == [[KEPT[i] for i in b] for b in ([0, 1, 3, 4], [2, 1, 0, 4], [2, 3, 0, 1])]


def test_seeded_shuffle_reshuffles_each_epoch_as_oneflow(coco):
    job = ids_job(coco, 5, shuffle=True, random_seed=77, group_by_aspect_ratio=False)
    first, second = job().tolist(), job().tolist()
    epoch0 = cxx_shuffle(np.arange(5), MT19937(77))  # std::mt19937(seed + epoch), std::shuffle
    epoch1 = cxx_shuffle(epoch0, MT19937(78))  # each epoch shuffles the previous order
    assert first == [KEPT[i] for i in epoch0] and second == [KEPT[i] for i in epoch1]
    assert sorted(first) == sorted(second) == KEPT and first != second
    flow.clear_default_session()
    assert ids_job(coco, 5, shuffle=True, random_seed=77, group_by_aspect_ratio=False)().tolist() == first


def test_batches_are_the_same_in_worker_processes(coco, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "2")

    def make_job():
        @flow.global_function()
        def job() -> tuple[tp.Numpy, list[tp.ListNumpy]]:
            outputs = reader(coco, 2, random_seed=3)
            return outputs[1], flow.tensor_buffer_to_list_of_tensors(outputs[3], (8, 4), flow.float, dynamic_out=True)
        return job

    job = make_job()
    got = [job() for _ in range(4)]
    flow.clear_default_session()
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "0")
    job = make_job()
    want = [job() for _ in range(4)]
    for (ids_a, boxes_a), (ids_b, boxes_b) in zip(got, want):
        np.testing.assert_array_equal(ids_a, ids_b)
        for a, b in zip(boxes_a, boxes_b):
            np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("kwargs,error,message", [
    ({"name": ""}, ValueError, r"argument 'name' must be a non-empty str"),
    ({"batch_size": 3, "devices": "0:0-1"}, ValueError,
     r"argument 'batch_size' must be a multiple of the placement's 2 devices"),
    ({"batch_size": 4, "devices": "0:0-3", "stride_partition": False}, ValueError,
     r"5 images cannot be cut into 4 contiguous shards of 2"),
    ({"annotation_file": "nowhere.json"}, FileNotFoundError, r"annotation_file .*nowhere.json' does not exist"),
])
def test_argument_errors(coco, kwargs, error, message):
    devices = kwargs.pop("devices", "0:0")
    batch_size = kwargs.pop("batch_size", 2)
    annotation = kwargs.pop("annotation_file", str(coco / "instances.json"))

    @flow.global_function()
    def job() -> tp.Numpy:
        with flow.scope.placement("cpu", devices):
            return flow.data.coco_reader(annotation, str(coco / "img"), batch_size,
                                         **{"name": "COCOReader", **kwargs})[1]

    with pytest.raises(error, match=message):
        job()


def test_a_missing_image_file_is_named(coco):
    (coco / "img" / "5.jpg").unlink()
    with pytest.raises(FileNotFoundError, match="5.jpg"):
        ids_job(coco, 2, shuffle=False)()
