"""ofrecord_reader's order (parts in sequence, epochs wrapping inside a batch, buffer shuffle, per-epoch
part shuffle), seed determinism, part naming, and OFRecordRawDecoder / OFRecordBytesDecoder values."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.data import bytes_feature, float_feature, int_feature, numbered_dataset, write_dataset

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.data.readers import RecordSource
from flowtorch.core.record import record_pb2


def ids_job(data_dir, name="read_ids", **reader_kwargs):
    def body() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), **reader_kwargs)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)
    body.__name__ = name
    return flow.global_function()(body)


def take(job, calls):
    return np.concatenate([job() for _ in range(calls)])


def test_sequential_order_crosses_parts_and_wraps_epochs(tmp_path):
    numbered_dataset(tmp_path / "ds", [3, 4])
    job = ids_job(tmp_path / "ds", batch_size=5, data_part_num=2)
    # 7 records, batches of 5: the second batch ends epoch 0 and starts epoch 1
    np.testing.assert_array_equal(take(job, 3), [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0])


def test_part_names_with_prefix_and_suffix_length(tmp_path):
    recs = [[record_pb2.OFRecord(feature={"id": int_feature(10 * p + i)}) for i in range(2)] for p in range(3)]
    write_dataset(tmp_path / "ds", recs, prefix="train_", suffix_length=3)
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["train_000", "train_001", "train_002"]
    job = ids_job(tmp_path / "ds", batch_size=6, data_part_num=3, part_name_prefix="train_",
                  part_name_suffix_length=3)
    np.testing.assert_array_equal(job(), [0, 1, 10, 11, 20, 21])


def test_only_data_part_num_parts_are_read(tmp_path):
    numbered_dataset(tmp_path / "ds", [2, 2, 2])
    job = ids_job(tmp_path / "ds", batch_size=6, data_part_num=2)
    np.testing.assert_array_equal(job(), [0, 1, 2, 3, 0, 1])


def _buffer_shuffle_reference(stream, size, rng):
    # OneFlow's RandomShuffleDataset: fill `size`, then each arriving record swaps with a random slot
    buffer = [next(stream) for _ in range(size)]
    for item in stream:
        j = int(rng.integers(len(buffer)))
        buffer[j], item = item, buffer[j]
        yield item


def test_random_shuffle_is_a_seeded_buffer_shuffle(tmp_path):
    numbered_dataset(tmp_path / "ds", [20])
    job = ids_job(tmp_path / "ds", batch_size=10, random_shuffle=True, shuffle_buffer_size=8, seed=5)
    got = take(job, 6)

    def cyclic():
        while True:
            yield from range(20)
    ref = _buffer_shuffle_reference(cyclic(), 8, np.random.default_rng(5))
    np.testing.assert_array_equal(got, [next(ref) for _ in range(60)])
    assert not np.array_equal(got[:20], np.arange(20))
    # over 3 epochs every record is served 3 times, give or take the 8 still in the buffer
    counts = np.bincount(got, minlength=20)
    assert counts.sum() == 60 and counts.min() >= 1


def test_seed_makes_the_order_repeatable_and_distinct_seeds_differ(tmp_path):
    numbered_dataset(tmp_path / "ds", [50])

    def order(seed):
        flow.clear_default_session()
        job = ids_job(tmp_path / "ds", batch_size=25, random_shuffle=True, shuffle_buffer_size=16, seed=seed)
        return take(job, 4)
    a, b, c = order(1), order(1), order(2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_unseeded_shuffle_follows_torch_manual_seed(tmp_path):
    import torch
    numbered_dataset(tmp_path / "ds", [30])

    def order():
        flow.clear_default_session()
        torch.manual_seed(123)
        return take(ids_job(tmp_path / "ds", batch_size=30, random_shuffle=True, shuffle_buffer_size=10), 2)
    np.testing.assert_array_equal(order(), order())


def test_shuffle_after_epoch_reorders_parts_each_epoch(tmp_path):
    numbered_dataset(tmp_path / "ds", [1] * 6)  # one record per part: the part order is the record order
    job = ids_job(tmp_path / "ds", batch_size=6, data_part_num=6, shuffle_after_epoch=True)
    epochs = [job() for _ in range(4)]
    np.testing.assert_array_equal(epochs[0], np.arange(6))  # the first epoch reads parts in order
    for e in epochs[1:]:
        np.testing.assert_array_equal(np.sort(e), np.arange(6))
    assert any(not np.array_equal(e, np.arange(6)) for e in epochs[1:])
    # the part order does not depend on the reader's seed (OneFlow seeds it with a constant + epoch)
    plan = RecordSource(job_source_indexes(tmp_path / "ds", 6), 6, False, 1, True, seed=99).batches()
    np.testing.assert_array_equal(np.concatenate(epochs), [f for _ in range(4) for f, _ in next(plan)])


def job_source_indexes(data_dir, n):
    from flowtorch._src.data import record_file
    return [record_file.scan(str(data_dir / f"part-{i}")) for i in range(n)]


def test_two_jobs_read_independently(tmp_path):
    numbered_dataset(tmp_path / "ds", [6])
    a = ids_job(tmp_path / "ds", name="job_a", batch_size=4)
    b = ids_job(tmp_path / "ds", name="job_b", batch_size=2)
    np.testing.assert_array_equal(a(), [0, 1, 2, 3])
    np.testing.assert_array_equal(b(), [0, 1])
    np.testing.assert_array_equal(a(), [4, 5, 0, 1])
    np.testing.assert_array_equal(b(), [2, 3])


def test_raw_decoder_converts_like_c_casts_and_pads_when_asked(tmp_path):
    recs = [record_pb2.OFRecord(feature={"x": float_feature(1.9, -2.7, 3.5), "short": int_feature(7),
                                         "b": bytes_feature(bytes([1, 200, 255]))}),
            record_pb2.OFRecord(feature={"x": float_feature(-0.5, 0.0, 9.99), "short": int_feature(8, 9),
                                         "b": bytes_feature(bytes([0, 127, 128]))})]
    write_dataset(tmp_path / "ds", [recs])

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=2)
        return (flow.data.OFRecordRawDecoder(r, "x", shape=(3,), dtype=flow.int32),
                flow.data.OFRecordRawDecoder(r, "x", shape=(1, 3), dtype=flow.double),
                flow.data.OFRecordRawDecoder(r, "short", shape=(3,), dtype=flow.int64, auto_zero_padding=True),
                flow.data.OFRecordRawDecoder(r, "b", shape=(3,), dtype=flow.float),
                flow.data.OFRecordRawDecoder(r, "b", shape=(3,), dtype=flow.uint8))

    as_int, as_double, padded, bytes_float, bytes_u8 = job()
    np.testing.assert_array_equal(as_int, np.array([[1.9, -2.7, 3.5], [-0.5, 0.0, 9.99]], np.float32).astype(np.int32))
    np.testing.assert_array_equal(as_double, np.array([[[1.9, -2.7, 3.5]], [[-0.5, 0.0, 9.99]]], np.float32))
    np.testing.assert_array_equal(padded, [[7, 0, 0], [8, 9, 0]])
    # bytes are signed chars in OneFlow's kernel: 200 → -56.0 as float, 200 as uint8
    np.testing.assert_array_equal(bytes_float, [[1, -56, -1], [0, 127, -128]])
    np.testing.assert_array_equal(bytes_u8, [[1, 200, 255], [0, 127, 128]])
    assert as_int.shape == (2, 3) and as_double.shape == (2, 1, 3) and padded.dtype == np.int64


def test_raw_decoder_length_mismatch_and_missing_feature(tmp_path):
    write_dataset(tmp_path / "ds", [[record_pb2.OFRecord(feature={"x": float_feature(1, 2)})]])

    @flow.global_function()
    def wrong_len() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=1)
        return flow.data.OFRecordRawDecoder(r, "x", shape=(3,), dtype=flow.float)

    with pytest.raises(ValueError, match=r"feature 'x' of record 0 in the batch holds 2 values; shape \(3,\) needs 3 "
                                         r"\(set auto_zero_padding=True"):
        wrong_len()

    @flow.global_function()
    def missing() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=1)
        return flow.data.OFRecordRawDecoder(r, "y", shape=(2,), dtype=flow.float)

    with pytest.raises(KeyError, match=r"OFRecord has no feature 'y' \(its features: \['x'\]\)"):
        missing()


def test_bytes_decoder_gives_a_tensor_buffer_that_graph_ops_refuse(tmp_path):
    write_dataset(tmp_path / "ds", [[record_pb2.OFRecord(feature={"b": bytes_feature(b"abc")})]])

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=1)
        buf = flow.data.OFRecordBytesDecoder(r, "b")
        assert buf.shape == (1,) and buf.dtype.name == "tensor_buffer"
        return flow.math.relu(buf)

    with pytest.raises(TypeError, match=r"OFRecordBytesDecoder_\d+/out_0 is a tensor_buffer blob .* decode it first"):
        job()


def test_reader_argument_errors(tmp_path):
    numbered_dataset(tmp_path / "ds", [2])
    with pytest.raises(ValueError, match=r"flow.data.ofrecord_reader: argument 'batch_size' must be a positive int; "
                                         r"received 0"):
        ids_job(tmp_path / "ds", batch_size=0)()
    flow.clear_default_session()
    with pytest.raises(FileNotFoundError, match="ofrecord_dir .*nowhere' is not a directory"):
        ids_job(tmp_path / "nowhere", batch_size=1)()
    flow.clear_default_session()

    @flow.global_function()
    def graph_blob_to_decoder(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return flow.data.OFRecordRawDecoder(x, "id", shape=(), dtype=flow.int32)

    with pytest.raises(TypeError, match=r"argument 'input_blob' must be a data blob holding ofrecord values; "
                                        r"Input_\d+/out is computed by the job graph"):
        graph_blob_to_decoder(np.zeros(2, np.float32))


def test_empty_dataset_is_an_error(tmp_path):
    write_dataset(tmp_path / "ds", [[]])
    with pytest.raises(ValueError, match="hold no records"):
        ids_job(tmp_path / "ds", batch_size=1)()
