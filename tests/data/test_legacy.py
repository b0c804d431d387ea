"""The v0.1 data API: decode_ofrecord with BlobConf/RawCodec/BytesListCodec/ImageCodec and
NormByChannelPreprocessor, ofrecord_loader; blob names ``<name>/<feature>``."""

from __future__ import annotations

import numpy as np
import pytest
from datautil import bytes_feature, float_feature, gradient_image, int_feature, png_bytes, write_dataset

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
    with pytest.raises(ValueError, match=r"argument 'preprocessors\[0\]' must be a flow.data.NormByChannelPreprocessor"):
        flow.data.BlobConf("x", (1,), flow.float, flow.data.ImageCodec(),
                           preprocessors=[flow.data.ImagePreprocessor("mirror")])
    with pytest.raises(ValueError, match="argument 'std_values' must be 3 values"):
        flow.data.NormByChannelPreprocessor((1, 2, 3), (1, 2))
