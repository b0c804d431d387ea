"""flow.image.* and data.ImageDecoderRandomCropResize run in real jobs over PNG/JPEG OFRecords, each checked
against a numpy/Pillow/torch reference written here: shapes, dtypes, values, names and argument errors."""

from __future__ import annotations

import io
import logging
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from helpers.data import (
    bytes_feature,
    image_dataset,
    int_feature,
    jpeg_bytes,
    noise_image,
    png_bytes,
    png_gray,
    write_dataset,
)
from PIL import Image

import flowtorch as flow
import flowtorch.image
import flowtorch.typing as tp
from flowtorch._src.data import resize as rs
from flowtorch._src.data.image_decoders import crop_window
from flowtorch._src.data.image_ops import ImageDecoderRandomCropResize, keep_aspect_size
from flowtorch.core.record import record_pb2

image = flowtorch.image
F32 = np.float32
# (h, w) of the three PNG images most tests read
SHAPES = [(7, 11), (8, 9), (10, 6)]
IMAGES = [noise_image(h, w, seed=i) for i, (h, w) in enumerate(SHAPES)]


pytestmark = pytest.mark.usefixtures("in_process")  # the pipeline runs in the test's process: fast


@pytest.fixture
def ds(tmp_path):
    return image_dataset(tmp_path / "ds", IMAGES)


def reader(path, n=3):
    return flow.data.ofrecord_reader(str(path), batch_size=n)


def rgb(r):
    return flow.data.OFRecordImageDecoder(r, "img", color_space="RGB")


def pixel_copy(img, dw, dh):
    # INTER_NEAREST: source index floor(d * src / dst)
    h, w = img.shape[:2]
    return img[[y * h // dh for y in range(dh)]][:, [x * w // dw for x in range(dw)]]


def padded(images, shape, dtype):
    out = np.zeros((len(images),) + shape, dtype)
    for i, a in enumerate(images):
        out[i, :a.shape[0], :a.shape[1]] = a
    return out


# ---- image.Resize ----------------------------------------------------------------------------------------

def test_resize_to_fixed_size_copies_pixels_and_reports_w_h_scales(ds):
    names = []

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        im = rgb(reader(ds))
        out, scale, none = image.Resize(im, target_size=(5, 4), interpolation_type="nearest_neighbor")
        as_float, _, _ = image.resize(im, target_size=(5, 4), interpolation_type="nn", dtype=flow.float32)
        assert none is None
        names.extend([out.lbn, scale.lbn])
        return out, scale, as_float

    out, scale, as_float = job()
    ref = np.stack([pixel_copy(a, 5, 4) for a in IMAGES])
    assert out.shape == (3, 4, 5, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(as_float, ref.astype(F32))
    np.testing.assert_array_equal(scale, [[F32(5) / F32(w), F32(4) / F32(h)] for h, w in SHAPES])
    assert re.fullmatch(r"ImageResize_\d+/out_0", names[0]) and re.fullmatch(r"ImageResize_\d+/scale_0", names[1])


def test_resize_float_bilinear_matches_torch_and_auto_shrink_is_the_area_mean(tmp_path):
    imgs = [noise_image(8, 12, seed=s) for s in range(2)]
    data = image_dataset(tmp_path / "ds", imgs)

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        r = reader(data, 2)
        as_float = image.decode(flow.data.OFRecordBytesDecoder(r, "img"), dtype=flow.float, color_space="RGB")
        up, _, _ = image.Resize(as_float, target_size=(17, 11), dtype=flow.float, interpolation_type="bilinear")
        half, _, _ = image.Resize(rgb(r), target_size=(6, 4))  # "auto": fewer pixels → area
        return up, half

    up, half = job()
    t = torch.from_numpy(np.stack(imgs)).permute(0, 3, 1, 2).double()
    ref = F.interpolate(t, size=(11, 17), mode="bilinear", align_corners=False).permute(0, 2, 3, 1).numpy()
    np.testing.assert_allclose(up, ref, rtol=0, atol=1e-3)  # float32 sums vs float64: well under 1e-3
    blocks = np.stack(imgs).astype(np.float64).reshape(2, 4, 2, 6, 2, 3).mean(axis=(2, 4))
    np.testing.assert_array_equal(half, np.floor(blocks + 0.5))  # OpenCV's 2x2 mean rounds .5 up


def test_resize_gray_images_and_a_channel_mismatch(ds):
    @flow.global_function()
    def gray() -> tp.Numpy:
        im = flow.data.OFRecordImageDecoder(reader(ds), "img", color_space="GRAY")
        return image.Resize(im, target_size=(4, 4), channels=1, interpolation_type="nn")[0]

    out = gray()
    gray_ref = [png_gray(a) for a in IMAGES]
    np.testing.assert_array_equal(out, np.stack([pixel_copy(a, 4, 4) for a in gray_ref]))

    @flow.global_function()
    def mismatch() -> tp.Numpy:
        im = flow.data.OFRecordImageDecoder(reader(ds), "img", color_space="GRAY")
        return image.Resize(im, target_size=(4, 4))[0]

    with pytest.raises(ValueError, match=r"ImageResize_\d+, sample 0: expected an HWC uint8/float32 image with 3 "
                                         r"channel\(s\); got uint8 \(7, 11, 1\)"):
        mismatch()


@pytest.mark.parametrize("h,w,target,side,lo,hi,expected", [
    # the examples of the behavioural spec (§2.9), from OneFlow's kernel arithmetic
    (349, 367, 256, "shorter", 0, 0, (269, 256)),
    (4, 6, 3, "shorter", 0, 0, (4, 3)),         # 4.5 rounds to even
    (4, 10, 3, "shorter", 0, 0, (8, 3)),        # 7.5 rounds to even
    (480, 640, 800, "shorter", 0, 1333, (1067, 800)),
    (480, 1920, 800, "shorter", 0, 1333, (1333, 333)),
    (375, 500, 1000, "longer", 600, 0, (1000, 750)),
    (100, 1000, 1000, "longer", 600, 0, (6000, 600)),
    (6, 4, 3, "shorter", 0, 0, (3, 4)),         # portrait: the width is the shorter side
])
def test_keep_aspect_sizes_follow_oneflows_rounding(h, w, target, side, lo, hi, expected):
    assert keep_aspect_size(h, w, target, lo, hi, side == "longer") == expected


def test_keep_aspect_resize_keeps_dtype_and_returns_scale_then_size(tmp_path):
    imgs = [noise_image(4, 6, seed=1), noise_image(4, 10, seed=2), noise_image(6, 4, seed=3)]
    data = image_dataset(tmp_path / "ds", imgs)
    names = []

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        r = reader(data)
        out, scale, size = image.Resize(rgb(r), target_size=3, keep_aspect_ratio=True, interpolation_type="nn")
        assert out.is_tensor_buffer and scale.dtype is flow.float32 and size.dtype is flow.int32
        names.extend([out.lbn, scale.lbn, size.lbn])
        dec = image.decode(flow.data.OFRecordBytesDecoder(r, "img"), dtype=flow.float32, color_space="RGB")
        longer, _, _ = image.Resize(dec, target_size=5, keep_aspect_ratio=True, resize_side="longer", min_size=3,
                                    interpolation_type="nn")
        return (image.batch_align(out, (4, 8, 3), flow.uint8, 1), scale, size,
                image.batch_align(longer, (8, 8, 3), flow.float32, 1))

    out, scale, size, longer = job()
    sizes = [(4, 3), (8, 3), (3, 4)]  # (w, h): the shorter side becomes 3; 4.5 → 4 and 7.5 → 8
    np.testing.assert_array_equal(size, sizes)
    assert size.dtype == np.int32 and scale.dtype == np.float32
    np.testing.assert_array_equal(scale, [[F32(nw) / F32(a.shape[1]), F32(nh) / F32(a.shape[0])]
                                          for (nw, nh), a in zip(sizes, imgs)])
    np.testing.assert_array_equal(out, padded([pixel_copy(a, nw, nh) for (nw, nh), a in zip(sizes, imgs)],
                                              (4, 8, 3), np.uint8))
    # "longer" to 5 with min_size 3: 4x6 → 5x3 (3.33 → 3), 4x10 → 2 < 3 so the shorter becomes 3: 8x3 again
    lsizes = [(5, 3), (8, 3), (3, 5)]
    np.testing.assert_array_equal(longer, padded([pixel_copy(a, nw, nh).astype(F32)
                                                  for (nw, nh), a in zip(lsizes, imgs)], (8, 8, 3), F32))
    assert re.fullmatch(r"ImageResize_\d+/out_0", names[0])
    # OneFlow's python converts the scale buffer first, then the size buffer
    s_id, z_id = (int(re.fullmatch(r"TensorBufferToTensor_(\d+)/out_0", n).group(1)) for n in names[1:])
    assert s_id < z_id


def test_target_resize_returns_size_before_scale(tmp_path):
    data = image_dataset(tmp_path / "ds", [noise_image(4, 10, seed=2)])
    names = []

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        out, size, scale = flow.image.target_resize(rgb(reader(data, 1)), 3, max_size=6, interpolation_type="nn")
        names.append(out.lbn)
        return size, scale

    size, scale = job()
    np.testing.assert_array_equal(size, [[6, 2]])  # 8 > max_size 6: the longer side becomes 6, 6 * 0.4 = 2.4 → 2
    np.testing.assert_array_equal(scale, [[F32(6) / F32(10), F32(2) / F32(4)]])
    assert re.fullmatch(r"ImageTargetResize_\d+/out_0", names[0])


def test_deprecated_arguments_return_only_the_image(ds, caplog):
    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = reader(ds)
        im = rgb(r)
        gray_im = flow.data.OFRecordImageDecoder(r, "img", color_space="GRAY")
        with caplog.at_level(logging.WARNING, logger="flowtorch"):
            fixed = image.Resize(im, resize_x=5, resize_y=4, interpolation_type="nn")
            gray = image.resize(gray_im, target_size=(3, 2), color_space="gray", interp_type="NN")
            shorter = image.resize(im, resize_shorter=3, interp_type="NN")
        record = [r for r in caplog.records if "has been deprecated" in r.getMessage()]
        assert [r.getMessage().split(":")[1].split(" has")[0].strip() for r in record] == [
            "resize_x and resize_y", "color_space", "interp_type", "interp_type", "resize_shorter"]
        assert all(r.pathname == __file__ for r in record)  # the record points at the caller's line
        assert shorter.is_tensor_buffer
        return fixed, gray, image.batch_align(shorter, (5, 5, 3), flow.uint8, 1)

    fixed, gray, shorter = job()
    np.testing.assert_array_equal(fixed, np.stack([pixel_copy(a, 5, 4) for a in IMAGES]))
    gray_ref = [png_gray(a) for a in IMAGES]
    np.testing.assert_array_equal(gray, np.stack([pixel_copy(a, 3, 2) for a in gray_ref]))
    sizes = [keep_aspect_size(h, w, 3, 0, 0, False) for h, w in SHAPES]
    np.testing.assert_array_equal(shorter, padded([pixel_copy(a, nw, nh) for (nw, nh), a in zip(sizes, IMAGES)],
                                                  (5, 5, 3), np.uint8))


@pytest.mark.parametrize("kwargs,message", [
    ({"target_size": 224}, r"'target_size' must be a \(width, height\) pair of positive ints when keep_aspect"),
    ({"target_size": (4, 0)}, r"'target_size' must be a \(width, height\) pair"),
    ({"target_size": (4, 4), "keep_aspect_ratio": True}, r"'target_size' must be a positive int when keep_aspect"),
    ({"target_size": 10, "keep_aspect_ratio": True, "max_size": 5}, r"'max_size' must be 0 \(none\) or >= "
                                                                     r"target_size \(10\); received 5"),
    ({"target_size": 10, "keep_aspect_ratio": True, "min_size": 20}, r"'min_size' must be 0 \(none\) or <="),
    ({"target_size": 10, "keep_aspect_ratio": True, "resize_side": "both"}, r"'resize_side' must be 'shorter' or"),
    ({"target_size": (4, 4), "channels": 2}, r"'channels' must be 1 or 3; received 2"),
    ({"target_size": (4, 4), "dtype": flow.int32}, r"'dtype' must be flow.uint8 or flow.float32"),
    ({"target_size": (4, 4), "interpolation_type": "lanczos"}, r"'interpolation_type' must be one of 'bilinear'"),
    ({"target_size": (4, 4), "color_space": "YUV"}, r"'color_space' must be one of 'RGB', 'BGR', 'GRAY'"),
    ({"target_size": (4, 4), "interp_type": "Area"}, r"'interp_type' must be one of 'Linear', 'NN', 'Cubic'"),
])
def test_resize_argument_errors(ds, kwargs, message):
    @flow.global_function()
    def job() -> tp.Numpy:
        return image.Resize(rgb(reader(ds)), **kwargs)[0]

    with pytest.raises(ValueError, match=r"flow\.image\.Resize: argument " + message):
        job()


def test_image_ops_refuse_static_blobs_and_run_on_graph_inputs_in_the_graph(ds):
    @flow.global_function()
    def static_input() -> tp.Numpy:
        raw = flow.data.OFRecordRawDecoder(reader(ds), "raw", shape=(1,), dtype=flow.uint8)
        return image.Resize(raw, target_size=(2, 2))[0]

    with pytest.raises(TypeError, match=r"flow.image.Resize: argument 'image' must be a data blob holding "
                                        r"tensor_buffer values; data blob OFRecordRawDecoder_\d+/out_0 holds tensor"):
        static_input()
    flow.clear_default_session()

    @flow.global_function()
    def graph_tensor_to_resize(x: tp.Numpy.Placeholder((3, 4, 4, 3), dtype=flow.uint8)) -> tp.Numpy:
        return image.Resize(x, target_size=(2, 2))[0]

    with pytest.raises(TypeError, match=r"argument 'image' must be a data blob holding tensor_buffer values; "
                                        r"Input_\d+/out is computed by the job graph and holds static tensor"):
        graph_tensor_to_resize(np.zeros((3, 4, 4, 3), np.uint8))
    flow.clear_default_session()

    # a static uint8 job input is a valid CropMirrorNormalize input: the op runs in the job graph
    @flow.global_function()
    def graph_input(x: tp.Numpy.Placeholder((3, 4, 4, 3), dtype=flow.uint8)) -> tp.Numpy:
        return image.CropMirrorNormalize(x, mean=[1.0], std=[2.0])

    x = np.random.default_rng(0).integers(0, 256, (3, 4, 4, 3), dtype=np.uint8)
    np.testing.assert_allclose(graph_input(x), (x.transpose(0, 3, 1, 2) - 1.0) / 2.0, rtol=1e-6)


# ---- image.CropMirrorNormalize ------------------------------------------------------------------------------

def cmn_reference(img, crop_h, crop_w, pos_y, pos_x, mirror, mean, std):
    h, w = img.shape[:2]
    y0, x0 = int(np.floor((h - crop_h) * pos_y)), int(np.floor((w - crop_w) * pos_x))
    win = img[y0:y0 + crop_h, x0:x0 + crop_w].astype(np.float64)
    if mirror:
        win = win[:, ::-1]
    return (win - np.asarray(mean)) / np.asarray(std)


def test_crop_mirror_normalize_tensor_buffer_nchw_nhwc_with_coin_flip(tmp_path):
    imgs = [noise_image(7 + i, 12 - i, seed=i) for i in range(6)]
    data = image_dataset(tmp_path / "ds", imgs)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    names = []

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        im = rgb(reader(data, 6))
        flips = flow.random.CoinFlip(batch_size=6, seed=5)
        nchw = image.CropMirrorNormalize(im, mirror_blob=flips, color_space="RGB", crop_h=4, crop_w=5,
                                         crop_pos_y=0.25, crop_pos_x=0.75, mean=mean, std=std)
        nhwc = image.crop_mirror_normalize(im, mirror_blob=flips, output_layout="NHWC", crop_h=4, crop_w=5,
                                           crop_pos_y=0.25, crop_pos_x=0.75, mean=mean, std=std)
        names.append(nchw.lbn)
        return nchw, nhwc, flips

    nchw, nhwc, flips = job()
    assert set(flips.tolist()) == {0, 1}  # seed 5 flips some images and not others
    assert nchw.shape == (6, 3, 4, 5) and nchw.dtype == np.float32 and nhwc.shape == (6, 4, 5, 3)
    ref = np.stack([cmn_reference(a, 4, 5, 0.25, 0.75, f, mean, std) for a, f in zip(imgs, flips)])
    # OneFlow multiplies by float32 1/std: within an ulp or two of the division
    np.testing.assert_allclose(nhwc, ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(nchw, nhwc.transpose(0, 3, 1, 2))
    assert re.fullmatch(r"CropMirrorNormalize_\d+/out_0", names[0])


def test_crop_mirror_normalize_static_uint8_input(tmp_path):
    imgs = [noise_image(6, 8, seed=s) for s in range(2)]
    data = image_dataset(tmp_path / "ds", imgs)

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        raw = flow.data.OFRecordRawDecoder(reader(data, 2), "raw", shape=(6, 8, 3), dtype=flow.uint8)
        whole = image.CropMirrorNormalize(raw, output_layout="NHWC", mean=[1.0], std=[2.0])
        clipped = image.CropMirrorNormalize(raw, crop_h=4, crop_w=100, crop_pos_y=1.0)
        return whole, clipped

    whole, clipped = job()
    stack = np.stack(imgs).astype(F32)
    np.testing.assert_array_equal(whole, (stack - 1) * F32(0.5))  # one mean/std for every channel
    assert clipped.shape == (2, 3, 4, 8)  # crop_w 100 is clipped to the width 8
    np.testing.assert_array_equal(clipped, stack[:, 2:6].transpose(0, 3, 1, 2))


@pytest.mark.parametrize("kwargs,message", [
    ({"crop_h": 0, "crop_w": 4}, r"'crop_h' must be a positive int; received 0"),
    ({"output_layout": "CHW"}, r"'output_layout' must be 'NCHW' or 'NHWC'"),
    ({"mean": [1.0, 2.0]}, r"'mean' must be a list/tuple of 1 or 3 numbers; received \[1.0, 2.0\]"),
    ({"std": 2.0}, r"'std' must be a list/tuple of 1 or 3 numbers"),
    ({"output_dtype": flow.uint8}, r"'output_dtype' must be flow.float32"),
    ({"crop_pos_x": 1.5}, r"'crop_pos_x' must be a float in \[0, 1\]; received 1.5"),
    ({"color_space": "YUV"}, r"'color_space' must be one of 'BGR', 'RGB', 'GRAY'"),
    ({"mirror": "int32"}, r"'mirror_blob' must be an int8 blob of shape \(3,\) \(one flag per image\); received "
                          r"OFRecordRawDecoder_\d+/out_0 of dtype oneflow.int32"),
    ({"mirror": "batch"}, r"'mirror_blob' must be an int8 blob of shape \(3,\).*CoinFlip/out_0 of dtype oneflow.int8 "
                          r"and shape \(2,\)"),
])
def test_crop_mirror_normalize_argument_errors(tmp_path, kwargs, message):
    recs = [record_pb2.OFRecord(feature={"img": bytes_feature(png_bytes(a)), "flag": int_feature(1)}) for a in IMAGES]
    write_dataset(tmp_path / "ds", [recs])
    kwargs = dict(kwargs)
    mirror = kwargs.pop("mirror", None)

    @flow.global_function()
    def job() -> tp.Numpy:
        r = reader(tmp_path / "ds")
        m = None
        if mirror == "int32":
            m = flow.data.OFRecordRawDecoder(r, "flag", shape=(), dtype=flow.int32)
        elif mirror == "batch":
            m = flow.random.CoinFlip(batch_size=2)
        args = {"crop_h": 4, "crop_w": 4, **kwargs}
        return image.CropMirrorNormalize(rgb(r), mirror_blob=m, **args)

    with pytest.raises(ValueError, match=r"flow\.image\.CropMirrorNormalize: argument " + message):
        job()


def test_crop_larger_than_an_image_is_a_runtime_error(ds):
    @flow.global_function()
    def job() -> tp.Numpy:
        return image.CropMirrorNormalize(rgb(reader(ds)), crop_h=8, crop_w=8)

    with pytest.raises(ValueError, match=r"CropMirrorNormalize_\d+, sample 0: the 11x7 image is smaller than the "
                                         r"8x8 crop"):
        job()


# ---- image.random_crop, decode, flip, normalize, batch_align ---------------------------------------------------

def test_random_crop_draws_oneflows_windows_from_the_batch_stream(ds):
    names = []

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        im = rgb(reader(ds))
        a = image.random_crop(im, seed=11)
        b = image.random_crop(im, seed=12, random_area=[0.5, 0.6], random_aspect_ratio=[0.5, 2.0])
        names.extend([a.lbn, b.lbn])
        return image.batch_align(a, (10, 11, 3), flow.uint8, 1), image.batch_align(b, (10, 11, 3), flow.uint8, 1)

    for step in range(2):
        a, b = job()
        for got, seed, area, aspect in ((a, 11, (0.08, 1.0), (0.75, 1.333333)), (b, 12, (0.5, 0.6), (0.5, 2.0))):
            rng = np.random.default_rng([seed, step])  # an op's stream for one batch (OpContext.rng)
            windows = []
            for img in IMAGES:
                y, x, h, w = crop_window(img.shape[0], img.shape[1], rng, area, aspect, 10)
                windows.append(img[y:y + h, x:x + w])
            np.testing.assert_array_equal(got, padded(windows, (10, 11, 3), np.uint8))
    assert names[0] == "ImageRandomCrop/out_0" and re.fullmatch(r"ImageRandomCrop_\d+/out_0", names[1])


def test_random_crop_module_names_must_be_distinct(ds):
    @flow.global_function()
    def job() -> tp.Numpy:
        im = rgb(reader(ds))
        image.random_crop(im, name="crop")
        return image.random_crop(im, name="crop")

    with pytest.raises(AssertionError, match="an op named 'crop' already exists"):
        job()


def test_decode_bytes_in_each_color_space_and_dtype(tmp_path):
    gray16 = (np.arange(24, dtype=np.uint16).reshape(4, 6) * 40)  # 0 .. 920: 16-bit values above 255
    buf = io.BytesIO()
    Image.fromarray(gray16).save(buf, format="PNG")
    smooth = noise_image(6, 6, seed=9) // 4 + 100
    recs = [record_pb2.OFRecord(feature={"img": bytes_feature(png_bytes(IMAGES[0]))}),
            record_pb2.OFRecord(feature={"img": bytes_feature(jpeg_bytes(smooth))}),
            record_pb2.OFRecord(feature={"img": bytes_feature(buf.getvalue())})]
    write_dataset(tmp_path / "ds", [recs])

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        data = flow.data.OFRecordBytesDecoder(reader(tmp_path / "ds"), "img")
        rgb_ = image.decode(data, color_space="RGB")
        bgr = image.decode(data)  # BGR by default
        gray_f = image.decode(data, dtype=flow.float, color_space="GRAY")
        gray_u = image.decode(data, color_space="GRAY")
        return (image.batch_align(rgb_, (7, 11, 3), flow.uint8, 1), image.batch_align(bgr, (7, 11, 3), flow.uint8, 1),
                image.batch_align(gray_f, (7, 11, 1), flow.float, 1),
                image.batch_align(gray_u, (7, 11, 1), flow.uint8, 1))

    rgb_, bgr, gray_f, gray_u = job()
    jpeg = np.asarray(Image.open(io.BytesIO(jpeg_bytes(smooth))).convert("RGB"))  # Pillow's own decode
    np.testing.assert_array_equal(rgb_[0, :7, :11], IMAGES[0])  # PNG is lossless
    np.testing.assert_array_equal(rgb_[1, :6, :6], jpeg)
    np.testing.assert_array_equal(bgr[:2], rgb_[:2, :, :, ::-1])
    np.testing.assert_array_equal(rgb_[2, :4, :6], np.repeat(np.minimum(gray16, 255)[:, :, None], 3, axis=2))
    np.testing.assert_array_equal(gray_f[0, :7, :11, 0], png_gray(IMAGES[0])[:, :, 0])
    np.testing.assert_array_equal(gray_f[2, :4, :6, 0], gray16.astype(F32))  # 16 bits kept, not rescaled
    np.testing.assert_array_equal(gray_u[2, :4, :6, 0], np.minimum(gray16, 255))  # then saturated as uint8


def test_flip_by_constant_code_and_by_blob(tmp_path):
    recs = [record_pb2.OFRecord(feature={"img": bytes_feature(png_bytes(a)), "code": int_feature(c)})
            for a, c in zip(IMAGES, (0x11, 0x00, 0x10))]
    write_dataset(tmp_path / "ds", [recs])

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        r = reader(tmp_path / "ds")
        im = rgb(r)
        codes = flow.data.OFRecordRawDecoder(r, "code", shape=(), dtype=flow.int8)
        lr = image.flip(im, 1)
        by_blob = image.flip(im, codes)
        ud = image.flip(im, 16)
        return tuple(image.batch_align(x, (10, 11, 3), flow.uint8, 1) for x in (lr, by_blob, ud))

    lr, by_blob, ud = job()
    np.testing.assert_array_equal(lr, padded([a[:, ::-1] for a in IMAGES], (10, 11, 3), np.uint8))
    np.testing.assert_array_equal(ud, padded([a[::-1] for a in IMAGES], (10, 11, 3), np.uint8))
    np.testing.assert_array_equal(by_blob, padded([IMAGES[0][::-1, ::-1], IMAGES[1], IMAGES[2][::-1]],
                                                  (10, 11, 3), np.uint8))


def test_flip_errors(tmp_path, ds):
    @flow.global_function()
    def bad_int() -> tp.Numpy:
        return image.batch_align(image.flip(rgb(reader(ds)), 2), (10, 11, 3), flow.uint8, 1)

    with pytest.raises(ValueError, match=r"flow.image.flip: argument 'flip_code' must be 0, 1 \(left-right\), 16 "
                                         r"\(up-down\), 17 \(both\) or an int8 blob; received 2"):
        bad_int()
    recs = [record_pb2.OFRecord(feature={"img": bytes_feature(png_bytes(a)), "code": int_feature(c)})
            for a, c in zip(IMAGES, (1, 3, 0))]
    write_dataset(tmp_path / "codes", [recs])

    @flow.global_function()
    def bad_value() -> tp.Numpy:
        r = reader(tmp_path / "codes")
        codes = flow.data.OFRecordRawDecoder(r, "code", shape=(), dtype=flow.int8)
        return image.batch_align(image.flip(rgb(r), codes), (10, 11, 3), flow.uint8, 1)

    with pytest.raises(ValueError, match=r"ImageFlip_\d+, sample 1: flip code 3 is not one of 0, 1"):
        bad_value()


def test_normalize_divides_by_std_per_channel(ds):
    mean, std = [10.0, 20.0, 30.0], [2.0, 3.0, 7.0]

    @flow.global_function()
    def job() -> tp.Numpy:
        data = flow.data.OFRecordBytesDecoder(reader(ds), "img")
        im = image.decode(data, dtype=flow.float, color_space="RGB")
        return image.batch_align(image.normalize(im, std, mean), (10, 11, 3), flow.float, 1)  # std first

    out = job()
    ref = [(a.astype(F32) - np.asarray(mean, F32)) / np.asarray(std, F32) for a in IMAGES]  # float32 division
    np.testing.assert_array_equal(out, padded(ref, (10, 11, 3), F32))


def test_normalize_errors(ds):
    @flow.global_function()
    def on_uint8() -> tp.Numpy:
        return image.batch_align(image.normalize(rgb(reader(ds)), [1.0] * 3, [0.0] * 3), (10, 11, 3), flow.float, 1)

    with pytest.raises(ValueError, match=r"ImageNormalize_\d+, sample 0: image.normalize needs float images"):
        on_uint8()

    @flow.global_function()
    def one_value() -> tp.Numpy:
        im = image.decode(flow.data.OFRecordBytesDecoder(reader(ds), "img"), dtype=flow.float)
        return image.batch_align(image.normalize(im, [2.0], [1.0]), (10, 11, 3), flow.float, 1)

    with pytest.raises(ValueError, match=r"expected an HWC float32/float64 image with 1 channel\(s\); got float32"):
        one_value()  # OneFlow's kernel does not broadcast a single value

    @flow.global_function()
    def mismatched() -> tp.Numpy:
        return image.normalize(rgb(reader(ds)), [2.0, 2.0, 2.0], [1.0])

    with pytest.raises(ValueError, match=r"flow.image.normalize: argument 'mean' must be 3 value\(s\), as many as"):
        mismatched()


def test_batch_align_pads_with_zeros_to_the_declared_shape(ds):
    names = []

    @flow.global_function()
    def job() -> tp.Numpy:
        out = image.batch_align(rgb(reader(ds)), shape=(12, 12, 3), dtype=flow.float32, alignment=4)
        names.append(out.lbn)
        return out

    out = job()
    assert out.shape == (3, 12, 12, 3) and out.dtype == np.float32
    np.testing.assert_array_equal(out, padded([a.astype(F32) for a in IMAGES], (12, 12, 3), F32))
    assert re.fullmatch(r"ImageBatchAlign_\d+/out_0", names[0])


@pytest.mark.parametrize("kwargs,error,message", [
    ({"alignment": 0}, ValueError, r"'alignment' must be a power of 2 \(1 for no rounding; 0 is not allowed\)"),
    ({"alignment": 3}, ValueError, r"'alignment' must be a power of 2"),
    ({"shape": (12, 12)}, ValueError, r"'shape' must be \(max_height, max_width, channels\)"),
    ({"dtype": flow.int32}, ValueError, r"'dtype' must be flow.uint8 or flow.float32"),
    ({"shape": (9, 13, 3)}, ValueError, r"ImageBatchAlign_\d+, sample 2: the 6x10 \(WxH\) image does not fit the "
                                        r"declared shape \(9, 13, 3\)"),
    ({"shape": (12, 12, 3), "alignment": 16}, ValueError, r"the batch aligned to 16 is 16x16 \(HxW\), more pixels "
                                                          r"than the declared 12x12"),
])
def test_batch_align_errors(ds, kwargs, error, message):
    args = {"shape": (12, 12, 3), "dtype": flow.uint8, "alignment": 1, **kwargs}

    @flow.global_function()
    def job() -> tp.Numpy:
        return image.batch_align(rgb(reader(ds)), **args)

    with pytest.raises(error, match=message):
        job()


# ---- data.ImageDecoderRandomCropResize ----------------------------------------------------------------------

def test_image_decoder_random_crop_resize_is_rgb_uint8_of_the_target_size(tmp_path):
    imgs = [noise_image(9, 12, seed=4), noise_image(14, 10, seed=5)]
    data = image_dataset(tmp_path / "ds", imgs)
    names = []

    @flow.global_function()
    def job() -> tp.Numpy:
        encoded = flow.data.OFRecordBytesDecoder(reader(data, 2), "img")
        out = ImageDecoderRandomCropResize(encoded, target_width=6, target_height=5, seed=3)
        names.append(out.lbn)
        return out

    out = job()
    assert out.shape == (2, 5, 6, 3) and out.dtype == np.uint8
    rng = np.random.default_rng([3, 0])
    for got, img in zip(out, imgs):
        y, x, h, w = crop_window(img.shape[0], img.shape[1], rng, (0.08, 1.0), (0.75, 1.333333), 10)
        # the crop resized bilinearly (the resampler is checked on its own in test_resize.py), channels RGB
        np.testing.assert_array_equal(got, rs.resize(np.ascontiguousarray(img[y:y + h, x:x + w]), 6, 5, "linear"))
    assert re.fullmatch(r"ImageDecoderRandomCropResize_\d+/out", names[0])


@pytest.mark.parametrize("kwargs,message", [
    ({"target_width": 0, "target_height": 4}, r"'target_width' must be a positive int; received 0"),
    ({"random_area": (1.0, 0.5)}, r"'random_area' must be a \[low, high\] pair of numbers with 0 < low <= high"),
    ({"num_workers": 0}, r"'num_workers' must be a positive int; received 0"),
])
def test_image_decoder_random_crop_resize_errors(ds, kwargs, message):
    args = {"target_width": 4, "target_height": 4, **kwargs}

    @flow.global_function()
    def job() -> tp.Numpy:
        return ImageDecoderRandomCropResize(flow.data.OFRecordBytesDecoder(reader(ds), "img"), **args)

    with pytest.raises(ValueError, match=r"flow.data.ImageDecoderRandomCropResize: argument " + message):
        job()


def test_a_chain_of_image_ops_gives_the_same_batches_in_a_worker(ds, monkeypatch):
    # the kernels must pickle into loader workers and draw the same random numbers there
    def run():
        @flow.global_function()
        def chain() -> tuple[tp.Numpy, tp.Numpy]:
            r = reader(ds)
            im = image.random_crop(image.decode(flow.data.OFRecordBytesDecoder(r, "img")), seed=2)
            im = image.flip(im, flow.random.CoinFlip(batch_size=3, seed=4))
            small, _, _ = image.Resize(im, target_size=4, keep_aspect_ratio=True)
            fixed = image.Resize(im, target_size=(6, 6), interpolation_type="bicubic")[0]
            return image.CropMirrorNormalize(fixed, mean=[100.0], std=[50.0]), image.batch_align(
                small, (16, 16, 3), flow.uint8, 1)
        batches = [chain() for _ in range(2)]
        return batches, chain.feed.workers

    here, workers = run()
    assert workers == 0
    flow.clear_default_session()
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "1")
    there, workers = run()
    assert workers == 1
    for a, b in zip(here, there):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
