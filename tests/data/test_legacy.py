"""The v0.1 data API: decode_ofrecord with BlobConf/RawCodec/BytesListCodec/ImageCodec and
NormByChannelPreprocessor, ofrecord_loader; blob names ``<name>/<feature>``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.data import bytes_feature, float_feature, gradient_image, int_feature, png_bytes, write_dataset

import flowtorch as flow
from flowtorch.core.record import record_pb2


def bert_like(tmp_path, n=6, seq=5):
    rng = np.random.default_rng(0)
    rows = [{"input_ids": rng.integers(0, 100, seq), "next_sentence_labels": [i % 2],
             "masked_lm_weights": rng.random(3).astype(np.float32)} for i in range(n)]
    recs = [record_pb2.OFRecord(feature={"input_ids": int_feature(*r["input_ids"]),
                                         "next_sentence_labels": int_feature(*r["next_sentence_labels"]),
                                         "masked_lm_weights": float_feature(*r["masked_lm_weights"])}) for r in rows]
    write_dataset(tmp_path / "bert", [recs[:4], recs[4:]])
    return rows


def test_decode_ofrecord_raw_blobs_share_records_and_are_named_after_the_op(tmp_path):
    rows = bert_like(tmp_path)
    seen = []

    def body():
        blobs = flow.data.decode_ofrecord(
            str(tmp_path / "bert"),
            [flow.data.BlobConf("input_ids", [5], flow.int32, flow.data.RawCodec()),
             flow.data.BlobConf("next_sentence_labels", [1], flow.int32, flow.data.RawCodec()),
             flow.data.BlobConf("masked_lm_weights", [3], flow.float, flow.data.RawCodec())],
            batch_size=4, data_part_num=2, name="decode")
        seen.extend(blobs)
        return blobs
    job = flow.global_function()(body)
    first, second = job().get(), job().get()
    assert [b.logical_blob_name for b in seen] == ["decode/input_ids", "decode/next_sentence_labels",
                                                    "decode/masked_lm_weights"]
    order = [0, 1, 2, 3, 4, 5, 0, 1]
    for batch, ids in ((first, order[:4]), (second, order[4:])):
        np.testing.assert_array_equal(batch[0].numpy(), [rows[i]["input_ids"] for i in ids])
        np.testing.assert_array_equal(batch[1].numpy(), [rows[i]["next_sentence_labels"] for i in ids])
        np.testing.assert_array_equal(batch[2].numpy(), [rows[i]["masked_lm_weights"] for i in ids])
    assert first[2].numpy().dtype == np.float32


def test_raw_codec_padding_and_norm_by_channel(tmp_path):
    recs = [record_pb2.OFRecord(feature={"short": int_feature(1, 2), "pix": float_feature(*range(6))})]
    write_dataset(tmp_path / "ds", [recs])

    @flow.global_function()
    def job():
        return flow.data.decode_ofrecord(str(tmp_path / "ds"), [
            flow.data.BlobConf("short", (4,), flow.int64, flow.data.RawCodec(auto_zero_padding=True)),
            flow.data.BlobConf("pix", (2, 3), flow.float, flow.data.RawCodec(), preprocessors=[
                flow.data.NormByChannelPreprocessor((1.0, 2.0, 3.0), (2.0, 2.0, 4.0))]),
            flow.data.BlobConf("pix", (3, 2), flow.float, flow.data.RawCodec(), preprocessors=[
                flow.data.NormByChannelPreprocessor((1.0,), (2.0,), data_format="no_channel")]),
        ], batch_size=1)

    short, pix, flat = (b.numpy() for b in job().get())
    np.testing.assert_array_equal(short, [[1, 2, 0, 0]])
    np.testing.assert_allclose(pix, (np.arange(6.0).reshape(1, 2, 3) - [1, 2, 3]) / [2, 2, 4])
    np.testing.assert_allclose(flat, (np.arange(6.0).reshape(1, 3, 2) - 1) / 2)


def test_bytes_list_codec_fills_one_row_per_value(tmp_path):
    write_dataset(tmp_path / "ds", [[record_pb2.OFRecord(feature={"b": bytes_feature(b"ab", b"xyz!")})]])

    @flow.global_function()
    def job():
        return flow.data.decode_ofrecord(str(tmp_path / "ds"), [
            flow.data.BlobConf("b", (3, 3), flow.int8, flow.data.BytesListCodec())])

    (b,) = job().get()
    np.testing.assert_array_equal(b.numpy(), [[[97, 98, 0], [120, 121, 122], [0, 0, 0]]])


def test_ofrecord_loader_is_a_reader(tmp_path):
    bert_like(tmp_path)

    @flow.global_function()
    def job():
        r = flow.data.ofrecord_loader(str(tmp_path / "bert"), batch_size=3, data_part_num=2)
        return flow.data.OFRecordRawDecoder(r, "next_sentence_labels", shape=(1,), dtype=flow.int32)

    np.testing.assert_array_equal(job().get().numpy(), [[0], [1], [0]])


def test_blob_conf_and_codec_argument_errors():
    with pytest.raises(ValueError, match="ImagePreprocessor: preprocessor must be 'bgr2rgb' or 'mirror'"):
        flow.data.ImagePreprocessor("flip")
    with pytest.raises(ValueError, match=r"BlobConf: argument 'codec' must be flow.data.ImageCodec, RawCodec or "
                                         r"BytesListCodec"):
        flow.data.BlobConf("x", (1,), flow.float, codec="raw")
    with pytest.raises(ValueError,
                       match=r"argument 'preprocessors\[0\]' must be a flow.data.NormByChannelPreprocessor"):
        flow.data.BlobConf("x", (1,), flow.float, flow.data.ImageCodec(),
                           preprocessors=[flow.data.ImagePreprocessor("mirror")])
    with pytest.raises(ValueError, match="argument 'std_values' must be 3 values"):
        flow.data.NormByChannelPreprocessor((1, 2, 3), (1, 2))


def _block_mean_half_up(img):
    """OpenCV's exact 2x shrink: the 2x2 mean, halves rounded up."""
    h, w, c = img.shape
    s = img.astype(np.int32).reshape(h // 2, 2, w // 2, 2, c).sum(axis=(1, 3))
    return ((s + 2) // 4).astype(np.uint8)


def image_records(tmp_path, images):
    recs = [record_pb2.OFRecord(feature={"encoded": bytes_feature(png_bytes(im)), "label": int_feature(i)})
            for i, im in enumerate(images)]
    write_dataset(tmp_path / "imgs", [recs])
    return str(tmp_path / "imgs")


def test_image_codec_bgr_by_default_rgb_with_bgr2rgb_and_resize_preprocessor(tmp_path):
    images = [gradient_image(8, 10, seed=i) for i in range(2)]
    data_dir = image_records(tmp_path, images)

    @flow.global_function()
    def job():
        return flow.data.decode_ofrecord(data_dir, [
            flow.data.BlobConf("encoded", (8, 10, 3), flow.uint8, flow.data.ImageCodec()),
            flow.data.BlobConf("encoded", (4, 5, 3), flow.uint8, flow.data.ImageCodec(
                [flow.data.ImagePreprocessor("bgr2rgb"), flow.data.ImageResizePreprocessor(5, 4)])),
        ], batch_size=2)

    bgr, small_rgb = (b.numpy() for b in job().get())
    np.testing.assert_array_equal(bgr, np.stack(images)[..., ::-1])  # OpenCV's order without bgr2rgb
    np.testing.assert_array_equal(small_rgb, np.stack([_block_mean_half_up(im) for im in images]))


def test_image_codec_norm_by_channel_last_and_first(tmp_path):
    images = [gradient_image(4, 6, seed=i) for i in range(2)]
    data_dir = image_records(tmp_path, images)
    mean, std = (10.0, 20.0, 30.0), (2.0, 4.0, 8.0)

    @flow.global_function()
    def job():
        return flow.data.decode_ofrecord(data_dir, [
            flow.data.BlobConf("encoded", (4, 6, 3), flow.float, flow.data.ImageCodec(
                [flow.data.ImagePreprocessor("bgr2rgb")]), [flow.data.NormByChannelPreprocessor(mean, std)]),
            flow.data.BlobConf("encoded", (4, 6, 3), flow.float, flow.data.ImageCodec(
                [flow.data.ImagePreprocessor("bgr2rgb")]),
                [flow.data.NormByChannelPreprocessor(mean, std, data_format="channels_first")]),
        ], batch_size=2)

    last, first = (b.numpy() for b in job().get())
    ref = (np.stack(images).astype(np.float32) - np.float32(mean)) / np.float32(std)
    np.testing.assert_allclose(last, ref, rtol=1e-6)
    np.testing.assert_allclose(first, ref.transpose(0, 3, 1, 2), rtol=1e-6)
    assert last.dtype == np.float32 and first.shape == (2, 3, 4, 6)


def test_norm_by_channel_data_format_nchw_is_v040s_nchw_output_for_images_and_refused_for_raw(tmp_path):
    # v0.4.0: an image normalised with any format but channels_last comes out NCHW; a raw blob's decoder reads
    # only the three formats of OneFlow's ofrecord_decoder.cpp
    images = [gradient_image(4, 5, seed=3)]
    data_dir = image_records(tmp_path / "img", images)
    mean, std = (1.0, 2.0, 3.0), (4.0, 5.0, 6.0)

    @flow.global_function()
    def job():
        return flow.data.decode_ofrecord(data_dir, [flow.data.BlobConf("encoded", (4, 5, 3), flow.float,
            flow.data.ImageCodec([flow.data.ImagePreprocessor("bgr2rgb")]),
            [flow.data.NormByChannelPreprocessor(mean, std, data_format="NCHW")])], batch_size=1)

    (out,) = (b.numpy() for b in job().get())
    ref = (np.stack(images).astype(np.float32) - np.float32(mean)) / np.float32(std)
    np.testing.assert_allclose(out, ref.transpose(0, 3, 1, 2), rtol=1e-6)

    recs = [record_pb2.OFRecord(feature={"pix": float_feature(*range(6))})]
    write_dataset(tmp_path / "raw", [recs])

    @flow.global_function()
    def raw_job():
        return flow.data.decode_ofrecord(str(tmp_path / "raw"), [flow.data.BlobConf(
            "pix", (2, 3), flow.float, flow.data.RawCodec(),
            [flow.data.NormByChannelPreprocessor(mean, std, data_format="NCHW")])], batch_size=1)

    with pytest.raises(ValueError, match="channels_last.*NCHW"):
        raw_job()


def test_image_codec_mirror_flips_about_half_the_samples(tmp_path):
    images = [gradient_image(3, 5, seed=i) for i in range(8)]
    data_dir = image_records(tmp_path, images)

    @flow.global_function()
    def job():
        (img,) = flow.data.decode_ofrecord(data_dir, [flow.data.BlobConf(
            "encoded", (3, 5, 3), flow.uint8,
            flow.data.ImageCodec([flow.data.ImagePreprocessor("bgr2rgb"), flow.data.ImagePreprocessor("mirror")]))],
            batch_size=8)
        return img

    flipped = 0
    for _ in range(5):
        batch = job().get().numpy()
        for im, got in zip(images, batch):
            if np.array_equal(got, im[:, ::-1]):
                flipped += 1
            else:
                np.testing.assert_array_equal(got, im)
    assert 8 <= flipped <= 32  # 40 fair coin flips
