"""Image decoders (Pillow-decoded pixels in RGB/BGR/GRAY), OneFlow's random crop window, the image
classification reader, and the tensor-buffer ops."""

from __future__ import annotations

import io

import numpy as np
import pytest
from helpers.data import (
    bytes_feature,
    gradient_image,
    int64_feature,
    int_feature,
    jpeg_bytes,
    png_bytes,
    png_gray,
    write_dataset,
)
from PIL import Image

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.data.image_decoders import crop_window
from flowtorch.core.record import record_pb2


def image_dataset(tmp_path, images, encode=png_bytes, labels=None):
    labels = labels if labels is not None else list(range(len(images)))
    recs = [record_pb2.OFRecord(feature={"encoded": bytes_feature(encode(im)), "class/label": int_feature(lab)})
            for im, lab in zip(images, labels)]
    return write_dataset(tmp_path / "imgs", [recs])


def decoded_list(data_dir, n, color_space, max_shape, random_crop=None):
    @flow.global_function()
    def job() -> tp.Bundle[tp.ListNumpy]:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=n)
        if random_crop is None:
            img = flow.data.OFRecordImageDecoder(r, "encoded", color_space=color_space)
        else:
            img = flow.data.OFRecordImageDecoderRandomCrop(r, "encoded", color_space=color_space, **random_crop)
        return flow.tensor_buffer_to_list_of_tensors(img, max_shape, flow.uint8, dynamic_out=True)

    return lambda: [per_device[0] for per_device in job()]


def test_decoder_gives_hwc_uint8_in_each_color_space(tmp_path):
    images = [gradient_image(5 + i, 7, seed=i) for i in range(3)]
    data_dir = image_dataset(tmp_path, images)
    rgb = decoded_list(data_dir, 3, "RGB", (8, 7, 3))()
    flow.clear_default_session()
    bgr = decoded_list(data_dir, 3, "BGR", (8, 7, 3))()
    flow.clear_default_session()
    gray = decoded_list(data_dir, 3, "GRAY", (8, 7, 1))()
    for im, a, b, g in zip(images, rgb, bgr, gray):
        np.testing.assert_array_equal(a, im)  # PNG is lossless
        np.testing.assert_array_equal(b, im[:, :, ::-1])
        np.testing.assert_array_equal(g, png_gray(im))
        assert a.dtype == np.uint8 and g.shape == im.shape[:2] + (1,)


def test_jpeg_decode_matches_pillow(tmp_path):
    im = gradient_image(16, 24, seed=3)
    data = jpeg_bytes(im, quality=80)
    data_dir = image_dataset(tmp_path, [im], encode=lambda _: data)
    (got,) = decoded_list(data_dir, 1, "RGB", (16, 24, 3))()
    np.testing.assert_array_equal(got, np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))


def test_undecodable_image_names_the_op_and_sample(tmp_path):
    write_dataset(tmp_path / "imgs", [[record_pb2.OFRecord(feature={"encoded": bytes_feature(b"not an image")})]])
    with pytest.raises(ValueError, match=r"OFRecordImageDecoder_\d+, sample 0: cannot decode the image \(12 bytes\)"):
        decoded_list(tmp_path / "imgs", 1, "RGB", (4, 4, 3))()


class ScriptedRng:
    """Stands in for numpy's Generator with scripted draws, to check the crop algorithm by hand."""

    def __init__(self, uniforms, integers):
        self.uniforms, self.integers_ = list(uniforms), list(integers)

    def uniform(self, low, high):
        u = self.uniforms.pop(0)
        return low + u * (high - low)

    def integers(self, low, high):
        v = self.integers_.pop(0)
        assert low <= v < high
        return v


def test_crop_window_first_attempt_that_fits():
    # area 0.5 of 100x80, ratio exp(0) = 1 → w = h = round(sqrt(4000)) = 63; anchors scripted
    rng = ScriptedRng([(0.5 - 0.08) / (1.0 - 0.08), 0.5], [10, 7])
    y, x, h, w = crop_window(80, 100, rng, (0.08, 1.0), (0.75, 4 / 3), 10)
    assert (h, w) == (63, 63) and (y, x) == (10, 7)


def test_crop_window_rejected_attempts_fall_back_to_the_clamped_whole_image():
    # every draw wants area 1.0 at ratio 4/3 of a 100x100 image: w = 115 > 100, rejected 3 times;
    # the fallback keeps the whole (square, ratio in range) image scaled by min(1, max_area/area) = 1
    rng = ScriptedRng([1.0, 1.0] * 3, [0, 0])
    assert crop_window(100, 100, rng, (0.08, 1.0), (0.75, 4 / 3), 3) == (0, 0, 100, 100)
    # a very wide image (ratio 4 > 4/3): min area cannot be reached within the ratio → (H, maxW)
    rng = ScriptedRng([], [0, 5])
    assert crop_window(10, 40, rng, (0.9, 1.0), (0.75, 4 / 3), 3) == (0, 5, 10, 13)


def test_random_crop_windows_are_inside_and_seeded(tmp_path):
    images = [gradient_image(20, 30, seed=i) for i in range(4)]
    data_dir = image_dataset(tmp_path, images)
    crop = {"seed": 17, "random_area": [0.1, 0.5], "random_aspect_ratio": [0.5, 2.0]}
    first = decoded_list(data_dir, 4, "RGB", (20, 30, 3), crop)()
    flow.clear_default_session()
    again = decoded_list(data_dir, 4, "RGB", (20, 30, 3), crop)()
    for im, a, b in zip(images, first, again):
        np.testing.assert_array_equal(a, b)
        h, w, _ = a.shape
        assert 0.1 * 600 * 0.5 <= h * w <= 0.5 * 600 * 1.5  # the area fraction, give or take rounding
        # the crop is a window of the image
        hits = [(y, x) for y in range(21 - h) for x in range(31 - w) if np.array_equal(im[y:y + h, x:x + w], a)]
        assert hits


def test_random_crop_module_names_and_arguments(tmp_path):
    data_dir = image_dataset(tmp_path, [gradient_image(4, 4)])
    seen = []

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=1)
        seen.append(flow.data.OFRecordImageDecoderRandomCrop(r, "encoded"))
        seen.append(flow.data.OFRecordImageDecoderRandomCrop(r, "encoded"))
        return flow.data.OFRecordRawDecoder(r, "class/label", shape=(), dtype=flow.int32)

    job()
    assert seen[0].op_name == "OFRecordImageDecoderRandomCrop"
    assert seen[1].op_name.startswith("OFRecordImageDecoderRandomCrop_")
    flow.clear_default_session()

    @flow.global_function()
    def bad() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=1)
        flow.data.OFRecordImageDecoderRandomCrop(r, "encoded", random_area=[0.9, 0.1])
        return flow.data.OFRecordRawDecoder(r, "class/label", shape=(), dtype=flow.int32)

    with pytest.raises(ValueError, match=r"argument 'random_area' must be a \[low, high\] pair.*received \[0.9, 0.1\]"):
        bad()


def test_classification_reader_gives_images_and_squeezed_int32_labels(tmp_path):
    images = [gradient_image(6, 5 + i, seed=i) for i in range(3)]
    recs = [record_pb2.OFRecord(feature={"img": bytes_feature(png_bytes(im)), "lab": int64_feature(2**33 + i)})
            for i, im in enumerate(images)]
    write_dataset(tmp_path / "ds", [recs])
    seen = {}

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.ListNumpy]:
        image, label = flow.data.ofrecord_image_classification_reader(str(tmp_path / "ds"), "img", "lab",
                                                                      batch_size=3, color_space="RGB")
        seen["label"] = label
        return label, flow.tensor_buffer_to_list_of_tensors(image, (6, 7, 3), flow.uint8, dynamic_out=True)[2]

    labels, last = job()
    np.testing.assert_array_equal(labels, np.array([2**33, 2**33 + 1, 2**33 + 2], np.int64).astype(np.int32))
    assert labels.dtype == np.int32 and seen["label"].op_name.startswith("Squeeze_")
    np.testing.assert_array_equal(last[0], images[2])
    flow.clear_default_session()
    with pytest.raises(ValueError, match="argument 'color_space' must be 'BGR' or 'RGB'"):
        flow.global_function()(lambda: flow.data.ofrecord_image_classification_reader(
            str(tmp_path / "ds"), "img", "lab", color_space="GRAY")[1])()


def test_tensor_buffer_round_trip_and_checks(tmp_path):
    x = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    write_dataset(tmp_path / "ds", [[record_pb2.OFRecord(feature={
        "x": record_pb2.Feature(float_list=record_pb2.FloatList(value=x[i].ravel().tolist()))}) for i in range(4)]])

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=4)
        t = flow.data.OFRecordRawDecoder(r, "x", shape=(3, 2), dtype=flow.float)
        buf = flow.tensor_to_tensor_buffer(t, instance_dims=1)
        assert buf.shape == (4, 3) and buf.dtype == flow.tensor_buffer
        back = flow.tensor_buffer_to_tensor(buf, flow.float, [2])
        parts = flow.tensor_buffer_to_list_of_tensors(buf, [1, 2], flow.float)
        gen = flow.gen_tensor_buffer([2], [[2, 2], [2, 2]], [1.5, -3.0])
        return back, flow.concat(parts[:3], axis=0), flow.tensor_buffer_to_tensor(gen, flow.float, [2, 2])

    back, first_three, gen = job()
    np.testing.assert_array_equal(back, x)
    np.testing.assert_array_equal(first_three, x.reshape(12, 1, 2)[:3].reshape(3, 2))
    np.testing.assert_array_equal(gen, [np.full((2, 2), 1.5), np.full((2, 2), -3.0)])
    flow.clear_default_session()

    @flow.global_function()
    def mismatch() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=4)
        t = flow.data.OFRecordRawDecoder(r, "x", shape=(3, 2), dtype=flow.float)
        return flow.tensor_buffer_to_tensor(flow.tensor_to_tensor_buffer(t, 1), flow.float, [3])

    with pytest.raises(ValueError, match=r"element 0 is \(2,\) float32; instance_shape \(3,\) float32 expected"):
        mismatch()


def test_image_feature_must_hold_one_encoded_image(tmp_path):
    write_dataset(tmp_path / "imgs", [[record_pb2.OFRecord(feature={"encoded": int_feature(1, 2)})]])
    with pytest.raises(ValueError, match=r"OFRecordImageDecoder_\d+: feature 'encoded' must be a bytes_list holding "
                                         r"one encoded image; it is int32_list with 0 bytes value\(s\)"):
        decoded_list(tmp_path / "imgs", 1, "RGB", (4, 4, 3))()
