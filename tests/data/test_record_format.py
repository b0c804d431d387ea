"""OFRecord files: the public record_pb2 messages, every feature kind round-tripped through a part file and
the reader, and truncated or corrupt files rejected with the file and the record named."""

from __future__ import annotations

import struct
from typing import Tuple

import numpy as np
import pytest
from helpers.data import (
    bytes_feature,
    double_feature,
    float_feature,
    int64_feature,
    int_feature,
    write_dataset,
    write_part,
)

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import errors
from flowtorch._src.data import record_file
from flowtorch.core.record import record_pb2


def test_record_pb2_wire_format_matches_record_proto():
    # OFRecord{feature: {"a": Feature{int32_list{value: [1, 300]}}}} encoded by hand from record.proto:
    # map entry (field 1, LEN) {key (1, LEN) "a", value (2, LEN) Feature{int32_list (4, LEN) packed [1, 300]}}
    packed = bytes([0x0A, 3, 1, 0xAC, 0x02])                    # Int32List.value, packed varints
    feature = bytes([0x22, len(packed)]) + packed               # Feature.int32_list = field 4
    entry = bytes([0x0A, 1]) + b"a" + bytes([0x12, len(feature)]) + feature
    expected = bytes([0x0A, len(entry)]) + entry
    record = record_pb2.OFRecord(feature={"a": int_feature(1, 300)})
    assert record.SerializeToString() == expected
    parsed = record_pb2.OFRecord()
    parsed.ParseFromString(expected)
    assert list(parsed.feature["a"].int32_list.value) == [1, 300]
    assert parsed.feature["a"].WhichOneof("kind") == "int32_list"


def test_every_feature_kind_round_trips_through_a_part_file(tmp_path):
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(5):
        samples.append({"f": rng.standard_normal(3).astype(np.float32), "d": rng.standard_normal(2),
                        "i": rng.integers(-1000, 1000, 4).astype(np.int32),
                        "l": rng.integers(-2**40, 2**40, 2), "b": bytes(rng.integers(0, 256, 6, dtype=np.uint8))})
    records = [record_pb2.OFRecord(feature={
        "f": float_feature(*s["f"]), "d": double_feature(*s["d"]), "i": int_feature(*s["i"]),
        "l": int64_feature(*s["l"]), "b": bytes_feature(s["b"])}) for s in samples]
    write_dataset(tmp_path / "ds", [records])

    index = record_file.scan(str(tmp_path / "ds" / "part-0"))
    assert len(index) == 5
    for s, off, n in zip(samples, index.offsets, index.lengths):
        parsed = record_pb2.OFRecord()
        parsed.ParseFromString(record_file.read(index.path, int(off), int(n)))
        np.testing.assert_array_equal(np.asarray(parsed.feature["f"].float_list.value, np.float32), s["f"])
        np.testing.assert_array_equal(parsed.feature["d"].double_list.value, s["d"])
        np.testing.assert_array_equal(parsed.feature["i"].int32_list.value, s["i"])
        np.testing.assert_array_equal(parsed.feature["l"].int64_list.value, s["l"])
        assert parsed.feature["b"].bytes_list.value[0] == s["b"]

    @flow.global_function()
    def read_all() -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=5)
        return (flow.data.OFRecordRawDecoder(r, "f", shape=(3,), dtype=flow.float),
                flow.data.OFRecordRawDecoder(r, "d", shape=(2,), dtype=flow.double),
                flow.data.OFRecordRawDecoder(r, "i", shape=(4,), dtype=flow.int32),
                flow.data.OFRecordRawDecoder(r, "l", shape=(2,), dtype=flow.int64),
                flow.data.OFRecordRawDecoder(r, "b", shape=(6,), dtype=flow.uint8))

    f, d, i, l_, b = read_all()
    np.testing.assert_array_equal(f, np.stack([s["f"] for s in samples]))
    np.testing.assert_array_equal(d, np.stack([s["d"] for s in samples]))
    np.testing.assert_array_equal(i, np.stack([s["i"] for s in samples]))
    np.testing.assert_array_equal(l_, np.stack([s["l"] for s in samples]))
    np.testing.assert_array_equal(b, np.stack([np.frombuffer(s["b"], np.uint8) for s in samples]))
    assert (f.dtype, d.dtype, i.dtype, l_.dtype, b.dtype) == (np.float32, np.float64, np.int32, np.int64, np.uint8)


def test_record_file_write_helper_frames_records(tmp_path):
    path = tmp_path / "part-0"
    n = record_file.write(str(path), [record_pb2.OFRecord(feature={"a": int_feature(k)}) for k in range(3)]
                          + [b"raw"])
    index = record_file.scan(str(path))
    assert n == 4 and list(index.lengths)[-1] == 3
    assert record_file.read(str(path), int(index.offsets[-1]), 3) == b"raw"


def _good_records(k: int) -> list:
    return [record_pb2.OFRecord(feature={"id": int_feature(i)}) for i in range(k)]


def test_truncated_file_names_file_and_record(tmp_path):
    write_dataset(tmp_path / "ds", [_good_records(3)])
    path = tmp_path / "ds" / "part-0"
    data = path.read_bytes()
    path.write_bytes(data[:-2])  # the last record loses its tail

    with pytest.raises(errors.RecordFileError, match=r"part-0.* is truncated: record #2 at byte \d+ declares "
                                                          r"\d+ bytes but only \d+ remain"):
        record_file.scan(str(path))

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=2)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)

    with pytest.raises(errors.RecordFileError, match="truncated: record #2"):
        job()


def test_short_length_header_is_truncation(tmp_path):
    path = tmp_path / "part-0"
    write_part(path, _good_records(2))
    with open(path, "ab") as f:
        f.write(b"\x05\x00\x00")
    with pytest.raises(errors.RecordFileError, match="record #2 at byte .* has a 3-byte length header"):
        record_file.scan(str(path))


def test_corrupt_length_is_rejected(tmp_path):
    path = tmp_path / "part-0"
    write_part(path, _good_records(1))
    with open(path, "ab") as f:
        f.write(struct.pack("<q", -4) + b"abcd")
    with pytest.raises(errors.RecordFileError, match=r"is corrupt: record #1 .* declares length -4"):
        record_file.scan(str(path))


def test_corrupt_record_bytes_reach_the_job_call_naming_file_and_record(tmp_path):
    path = tmp_path / "ds" / "part-0"
    path.parent.mkdir()
    write_part(path, _good_records(3))
    garbage = b"\xff\xff\xff\xff\x0f"  # not a protobuf message
    with open(path, "ab") as f:
        f.write(struct.pack("<q", len(garbage)) + garbage)

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=2)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)

    np.testing.assert_array_equal(job(), [0, 1])
    with pytest.raises(Exception, match=r"(?s)part-0'?: record #3 \(5 bytes\) is not a valid OFRecord"):
        job()


def test_missing_part_file_lists_what_is_there(tmp_path):
    write_dataset(tmp_path / "ds", [_good_records(2)], suffix_length=5)

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=2, data_part_num=2, part_name_suffix_length=5)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)

    with pytest.raises(FileNotFoundError, match=r"1 of 2 part file\(s\) missing, first .*part-00001.*holds "
                                                 r"\['part-00000'\]"):
        job()
