"""OneRec files: the XXH64 checksum, the frame and FlatBuffers layouts (a hand-laid buffer), onerec_reader's
order (files in sequence, epochs wrapping, OneFlow's per-epoch file shuffle, instance and batch shuffles,
devices), OneRecDecoder's dtype/shape/reshape/batch_padding/is_dynamic, and damaged files rejected with the
file named."""

from __future__ import annotations

import logging
import struct
from pathlib import Path

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import errors
from flowtorch._src.data import onerec_example, onerec_file, xxh64
from flowtorch._src.data.onerec import OneRecSource

pytestmark = pytest.mark.usefixtures("in_process")


def numbered_files(directory: Path, sizes: list[int]) -> list[str]:
    """Files of ``sizes`` records; record ``k`` (counting across files) has int64 ``id`` = [k] and float32
    ``x`` = [k, k / 2]."""
    directory.mkdir(parents=True, exist_ok=True)
    paths, k = [], 0
    for i, size in enumerate(sizes):
        path = directory / f"part-{i:05d}.onerec"
        onerec_file.write(path, [{"id": np.array([k + j], np.int64), "x": np.array([k + j, (k + j) / 2], np.float32)}
                                 for j in range(size)])
        paths.append(str(path))
        k += size
    return paths


def ids_job(files, **reader_kwargs):
    @flow.global_function()
    def read_ids() -> tp.Numpy:
        r = flow.data.onerec_reader(files, **reader_kwargs)
        return flow.data.OneRecDecoder(r, "id", dtype=flow.int64, shape=[1])
    return read_ids


def take(job, calls):
    return np.concatenate([job() for _ in range(calls)]).ravel()


# ------------------------------------------------------------------------------------ checksums, layouts

def test_xxh64_matches_published_values():
    # XXH64 reference values (seed 0) from the xxHash project
    for fn in (xxh64.xxh64_py, xxh64.xxh64):
        assert fn(b"") == 0xEF46DB3751D8E999
        assert fn(b"a") == 0xD24EC4F1A98C6E5B
        assert fn(b"abc") == 0x44BC2CF5AD770999


def test_xxh64_falls_back_to_python_without_the_xxhash_package(monkeypatch):
    monkeypatch.setattr(xxh64, "_accelerated", None)
    assert xxh64.accelerated() is None
    assert xxh64.xxh64(b"abc", 7) == xxh64.xxh64_py(b"abc", 7)


def test_the_python_xxh64_agrees_with_the_xxhash_package():
    xxhash = pytest.importorskip("xxhash", reason="the xxhash package is not installed (pip install xxhash)")
    assert xxh64.accelerated() is xxhash.xxh64_intdigest  # the accelerator in use
    rng = np.random.default_rng(0)
    for n in (0, 1, 3, 4, 7, 8, 15, 31, 32, 33, 63, 64, 65, 200, 1000, 4099):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        for seed in (0, 1, 2**32, 2**64 - 1):
            assert xxh64.xxh64_py(data, seed) == xxhash.xxh64_intdigest(data, seed) == xxh64.xxh64(data, seed)


def test_frame_layout_is_onerec_dataset_h():
    payload = bytes(range(13))
    head = b"^ONEREC$" + struct.pack("<ii", 0, 13)
    expected = (head + struct.pack(">Q", xxh64.xxh64_py(head)) + payload + bytes(3)
                + struct.pack(">Q", xxh64.xxh64_py(payload)))
    assert onerec_file.frame(payload) == expected
    assert struct.unpack("<q", b"^ONEREC$")[0] == 0x24434552454E4F5E  # OneFlow's kMagicNumber


class _Layout:
    """A FlatBuffer laid out by hand: ``put`` scalars at absolute positions, ``ref`` an offset field."""

    def __init__(self, size):
        self.buf = bytearray(size)

    def put(self, pos, fmt, *values):
        struct.pack_into(fmt, self.buf, pos, *values)

    def ref(self, pos, target):
        self.put(pos, "<I", target - pos)


def test_a_hand_laid_flatbuffer_parses_and_verifies():
    # features "a" (Int32List [7, -1], shape [2]) and "b" (Float32List [0.5, -2], shape [1, 2]) laid out as
    # FlatBuffers' builder may: vtables shared by two tables, a table before its vtable (a negative
    # soffset), a Tensor's fields in another order than their slots
    b = _Layout(196)
    b.ref(0, 16)                                  # root: the Example table
    b.buf[4:8] = b"1REC"
    b.put(8, "<HHH", 6, 8, 4)                     # Example vtable: features at +4
    b.put(16, "<i", 16 - 8)
    b.ref(20, 24)                                 # features vector
    b.put(24, "<I", 2)
    b.ref(28, 36)
    b.ref(32, 56)
    b.put(36, "<i", 36 - 48)                      # feature "a", before its vtable (a negative soffset)
    b.ref(40, 68)
    b.ref(44, 96)
    b.put(48, "<HHHH", 8, 12, 4, 8)               # Feature vtable: name at +4, tensor at +8
    b.put(56, "<i", 56 - 48)                      # feature "b" shares it
    b.ref(60, 76)
    b.ref(64, 112)
    b.put(68, "<I4s", 1, b"a\0\0\0")              # the strings and their NULs
    b.put(76, "<I4s", 1, b"b\0\0\0")
    b.put(84, "<HHHHH", 10, 13, 4, 12, 8)         # Tensor vtable: shape +4, data_type +12, data +8
    b.put(96, "<i", 96 - 84)                      # tensor of "a"
    b.ref(100, 128)
    b.ref(104, 156)
    b.put(108, "<B", 3)                           # Int32List
    b.put(112, "<i", 112 - 84)                    # tensor of "b"
    b.ref(116, 136)
    b.ref(120, 164)
    b.put(124, "<B", 5)                           # Float32List
    b.put(128, "<Ii", 1, 2)                       # shape [2]
    b.put(136, "<Iii", 2, 1, 2)                   # shape [1, 2]
    b.put(148, "<HHH", 6, 8, 4)                   # list vtable: values at +4
    b.put(156, "<i", 156 - 148)
    b.ref(160, 172)
    b.put(164, "<i", 164 - 148)
    b.ref(168, 184)
    b.put(172, "<Iii", 2, 7, -1)
    b.put(184, "<Iff", 2, 0.5, -2.0)
    data = bytes(b.buf)

    onerec_example.verify(data)
    parsed = onerec_example.parse(data)
    assert list(parsed) == ["a", "b"]
    assert parsed["a"].shape == (2,) and parsed["a"].kind_name == "Int32List"
    np.testing.assert_array_equal(parsed["a"].values, [7, -1])
    assert parsed["b"].shape == (1, 2) and parsed["b"].values.dtype == np.float32
    np.testing.assert_array_equal(parsed["b"].values, [0.5, -2.0])
    np.testing.assert_array_equal(onerec_example.find(data, "b").values, [0.5, -2.0])


def test_every_tensor_kind_round_trips():
    rng = np.random.default_rng(1)
    features = {
        "i8": rng.integers(-128, 128, (2, 3), dtype=np.int8), "i16": rng.integers(-999, 999, 4).astype(np.int16),
        "i32": rng.integers(-2**31, 2**31, (1, 2, 2)).astype(np.int32), "i64": rng.integers(-2**62, 2**62, 3),
        "f32": rng.standard_normal((3, 1)).astype(np.float32), "f64": rng.standard_normal(5),
        "scalar": np.float32(2.5), "s": ["hello", "", "wörld"], "bin": [b"\x00\xff", b"", b"abc"],
        "empty": onerec_example.ExampleTensor((0,), 0, None),
    }
    data = onerec_example.encode(features, meta_digest=-12345)
    onerec_example.verify(data)
    parsed = onerec_example.parse(data)
    assert list(parsed) == sorted(features)  # stored sorted by name, as OneFlow's lookup by key needs
    for name, value in features.items():
        if name in ("s", "bin"):
            want = [v.encode() if isinstance(v, str) else v for v in value]
            assert parsed[name].values == want and parsed[name].shape == (3,)
        elif name == "empty":
            assert parsed[name].values is None and parsed[name].kind == 0
        else:
            array = np.asarray(value)
            assert parsed[name].shape == array.shape and parsed[name].values.dtype == array.dtype
            np.testing.assert_array_equal(parsed[name].values, array.ravel())


@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:4] + b"XXXX" + d[8:], "identifier"),
    (lambda d: d[:-40], "past the end"),
    (lambda d: struct.pack("<I", 10**6) + d[4:], "past the end"),
    (lambda d: struct.pack("<I", 13) + d[4:], "aligned"),
    (lambda d: struct.pack("<I", 0) + d[4:], "positive offset"),
])
def test_verify_rejects_damaged_examples(damage, message):
    data = onerec_example.encode({"a": np.arange(4, dtype=np.int32), "s": ["xy"]})
    with pytest.raises(onerec_example.FormatError, match=message):
        onerec_example.verify(damage(data))


def test_a_string_without_its_nul_is_rejected():
    data = bytearray(onerec_example.encode({"k": np.zeros(1, np.int8)}))
    at = data.index(b"k\0")
    data[at + 1] = ord("!")
    with pytest.raises(onerec_example.FormatError, match="NUL"):
        onerec_example.verify(bytes(data))


# ------------------------------------------------------------------------------------------ reading order

def test_files_are_read_in_sequence_and_epochs_wrap(tmp_path):
    files = numbered_files(tmp_path, [3, 4])
    job = ids_job(files, batch_size=5)
    # 7 records, batches of 5: the second batch ends epoch 0 and starts epoch 1
    np.testing.assert_array_equal(take(job, 3), [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0])


def test_the_reader_blob_is_a_tensor_buffer_of_the_batch(tmp_path):
    files = numbered_files(tmp_path, [4])

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.onerec_reader(files, batch_size=4, name="rec")
        assert r.is_tensor_buffer and r.dtype is flow.tensor_buffer and r.shape == (4,)
        assert r.logical_blob_name == "rec/out_0"
        return flow.data.onerec_decoder(r, "x", flow.float32, [2])
    np.testing.assert_array_equal(job(), [[k, k / 2] for k in range(4)])


def test_shuffle_after_epoch_uses_oneflows_file_orders(tmp_path):
    files = numbered_files(tmp_path, [1, 1, 1, 1, 1])
    job = ids_job(files, batch_size=5, shuffle_after_epoch=True)
    # std::mt19937(524287 + s) and std::shuffle of libstdc++ (a C++ run), each shuffling the last order:
    # OneFlow shuffles before epoch 0 and at each wrap with the epoch count before it moves: s = 0, 0, 1, 2
    expected = [[3, 0, 2, 4, 1], [4, 3, 2, 1, 0], [0, 4, 1, 3, 2], [2, 3, 0, 1, 4]]
    assert [job().ravel().tolist() for _ in range(4)] == expected


def _buffer_shuffle_reference(items, size, gen):
    buffer = [next(items) for _ in range(size)]
    for item in items:
        j = int(gen.integers(len(buffer)))
        buffer[j], item = item, buffer[j]
        yield item


def _cycle(n):
    while True:
        yield from range(n)


def test_instance_shuffle_is_a_buffer_shuffle_of_records(tmp_path):
    index = onerec_file.scan(numbered_files(tmp_path, [10])[0])
    source = OneRecSource([index], 4, True, "instance", 6, False, seed=9)
    plan = source.batches()
    got = [r for _ in range(10) for _, r in next(plan)]
    ref = _buffer_shuffle_reference(_cycle(10), 6, np.random.default_rng([9, 0]))
    assert got == [next(ref) for _ in range(40)]
    assert got[:10] != list(range(10))


def test_batch_shuffle_moves_whole_batches(tmp_path):
    index = onerec_file.scan(numbered_files(tmp_path, [12])[0])
    source = OneRecSource([index], 3, True, "batch", 4, False, seed=3)
    plan = source.batches()
    got = [[r for _, r in next(plan)] for _ in range(12)]
    batches = ([3 * k % 12, (3 * k + 1) % 12, (3 * k + 2) % 12] for k in range(10**6))
    ref = _buffer_shuffle_reference(batches, 4, np.random.default_rng([3, 0]))
    assert got == [next(ref) for _ in range(12)]
    assert got[:4] != [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]


def test_shuffled_jobs_repeat_under_torch_manual_seed(tmp_path):
    files = numbered_files(tmp_path, [20])

    def run():
        flow.clear_default_session()
        torch.manual_seed(7)
        job = ids_job(files, batch_size=10, random_shuffle=True, shuffle_buffer_size=8)
        return take(job, 4)
    first = run()
    np.testing.assert_array_equal(first, run())
    assert not np.array_equal(first[:20], np.arange(20))
    assert np.bincount(first, minlength=20).min() >= 1  # every record served, 40 draws over 20


def test_each_device_reads_its_own_files(tmp_path):
    files = numbered_files(tmp_path, [3, 4])  # file 0: ids 0-2, file 1: ids 3-6

    @flow.global_function()
    def job() -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0-1"):
            r = flow.data.onerec_reader(files, batch_size=4)
            return flow.data.OneRecDecoder(r, "id", dtype=flow.int64, shape=[1])
    # device 0 cycles through 0, 1, 2 and device 1 through 3 … 6, two records each per batch
    assert [job().ravel().tolist() for _ in range(3)] == [[0, 1, 3, 4], [2, 0, 5, 6], [1, 2, 3, 4]]


def test_fewer_files_than_devices_read_as_one_with_a_warning(tmp_path, caplog):
    files = numbered_files(tmp_path, [5])

    @flow.global_function()
    def job() -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0-1"):
            r = flow.data.onerec_reader(files, batch_size=4)
            return flow.data.OneRecDecoder(r, "id", dtype=flow.int64, shape=[1])
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert job().ravel().tolist() == [0, 1, 2, 3]
    assert "one reader reads them all" in caplog.text


def test_loader_worker_processes_read_the_same_batches(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "2")
    files = numbered_files(tmp_path, [3, 3])
    job = ids_job(files, batch_size=4)
    np.testing.assert_array_equal(take(job, 3), [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5])


# ------------------------------------------------------------------------------------------ decoding

def decode_job(files, batch_size, key, **decoder_kwargs):
    @flow.global_function()
    def decode() -> tp.Numpy:
        r = flow.data.onerec_reader(files, batch_size=batch_size)
        return flow.data.OneRecDecoder(r, key, **decoder_kwargs)
    return decode


@pytest.mark.parametrize("dtype, np_dtype", [(flow.int8, np.int8), (flow.int32, np.int32), (flow.int64, np.int64),
                                             (flow.float32, np.float32), (flow.float64, np.float64)])
def test_each_dtype_decodes_its_list_type(tmp_path, dtype, np_dtype):
    rng = np.random.default_rng(2)
    samples = [rng.integers(-100, 100, (2, 3)).astype(np_dtype) for _ in range(4)]
    path = tmp_path / "f.onerec"
    onerec_file.write(path, [{"v": s} for s in samples])
    got = decode_job([str(path)], 4, "v", dtype=dtype, shape=[2, 3])()
    assert got.dtype == np_dtype and got.shape == (4, 2, 3)
    np.testing.assert_array_equal(got, np.stack(samples))


def test_reshape_reads_values_as_another_shape(tmp_path):
    path = tmp_path / "f.onerec"
    samples = [np.arange(6, dtype=np.float32) + 10 * k for k in range(3)]
    onerec_file.write(path, [{"v": s} for s in samples])
    want = np.stack(samples).reshape(3, 2, 3)
    np.testing.assert_array_equal(decode_job([str(path)], 3, "v", dtype=flow.float32, shape=[2, 3],
                                             reshape=[2, 3])(), want)
    flow.clear_default_session()
    np.testing.assert_array_equal(decode_job([str(path)], 3, "v", dtype=flow.float32, shape=[2, 3],
                                             reshape=[-1, 3])(), want)
    flow.clear_default_session()
    with pytest.raises(ValueError, match="cannot be reshaped to \\[4, -1\\]"):
        decode_job([str(path)], 3, "v", dtype=flow.float32, shape=[2, 3], reshape=[4, -1])()


def _rows(k):
    return np.arange(2 * k, dtype=np.int32).reshape(k, 2) + 100 * k


def test_batch_padding_zero_pads_axis_0(tmp_path):
    path = tmp_path / "f.onerec"
    onerec_file.write(path, [{"rows": _rows(k)} for k in (1, 3, 2, 3)])

    def padded(n, sizes):
        out = np.zeros((len(sizes), n, 2), np.int32)
        for i, k in enumerate(sizes):
            out[i, :k] = _rows(k)
        return out
    # p > 0: every sample padded to p rows
    job = decode_job([str(path)], 2, "rows", dtype=flow.int32, shape=[4, 2], batch_padding=[4, 0])
    np.testing.assert_array_equal(job(), padded(4, [1, 3]))
    np.testing.assert_array_equal(job(), padded(4, [2, 3]))
    # p = -1: to the batch's longest, which must be the static shape unless is_dynamic
    flow.clear_default_session()
    job = decode_job([str(path)], 4, "rows", dtype=flow.int32, shape=[3, 2], batch_padding=[-1, 0])
    np.testing.assert_array_equal(job(), padded(3, [1, 3, 2, 3]))
    # without padding the rows must agree
    flow.clear_default_session()
    with pytest.raises(ValueError, match="differ in axis 0"):
        decode_job([str(path)], 2, "rows", dtype=flow.int32, shape=[3, 2])()


def test_is_dynamic_gives_the_batchs_own_shape(tmp_path):
    path = tmp_path / "f.onerec"
    onerec_file.write(path, [{"rows": _rows(k)} for k in (1, 2, 3, 1)])

    @flow.global_function()
    def job() -> tp.ListNumpy:
        r = flow.data.onerec_reader([str(path)], batch_size=2)
        rows = flow.data.OneRecDecoder(r, "rows", dtype=flow.int32, shape=[4, 2], is_dynamic=True,
                                       batch_padding=[-1, 0])
        assert rows.is_dynamic and rows.shape == (2, 4, 2)
        return rows
    (first,) = job()
    np.testing.assert_array_equal(first, [np.pad(_rows(1), ((0, 1), (0, 0))), _rows(2)])
    (second,) = job()
    np.testing.assert_array_equal(second, [_rows(3), np.pad(_rows(1), ((0, 2), (0, 0)))])


def test_decoder_errors_name_the_feature(tmp_path):
    path = tmp_path / "f.onerec"
    onerec_file.write(path, [{"a": np.zeros(3, np.int32), "b": np.zeros((1, 3), np.float32)}] * 2)
    with pytest.raises(KeyError, match="no feature 'zz'.*'a', 'b'"):
        decode_job([str(path)], 2, "zz", dtype=flow.int32, shape=[3])()
    flow.clear_default_session()
    with pytest.raises(ValueError, match="'a' of record 0 .* Int32List; dtype float32 reads a Float32List"):
        decode_job([str(path)], 2, "a", dtype=flow.float32, shape=[3])()
    flow.clear_default_session()
    with pytest.raises(ValueError, match="'shape' is \\[4\\]"):
        decode_job([str(path)], 2, "a", dtype=flow.int32, shape=[4])()
    flow.clear_default_session()
    with pytest.raises(ValueError, match="2 axes; 'shape' has 1"):
        decode_job([str(path)], 2, "b", dtype=flow.float32, shape=[3])()


@pytest.mark.parametrize("kwargs, arg", [
    ({"shape": []}, "shape"), ({"shape": [3], "dtype": flow.float16}, "dtype"),
    ({"shape": [3], "reshape": [3, 1]}, "reshape"), ({"shape": [2, 3], "reshape": [-1, -1]}, "reshape"),
    ({"shape": [2, 3], "batch_padding": [-1, 2]}, "batch_padding"), ({"shape": [3], "key": 5}, "key"),
])
def test_decoder_arguments_are_checked_at_build(tmp_path, kwargs, arg):
    files = numbered_files(tmp_path, [2])
    args = {"key": "x", "dtype": flow.float32, **kwargs}

    @flow.global_function()
    def job() -> tp.Numpy:
        return flow.data.OneRecDecoder(flow.data.onerec_reader(files, batch_size=2), **args)
    with pytest.raises(errors.ArgumentError, match=arg):
        job()


# ------------------------------------------------------------------------------------------ damaged files

def test_reader_arguments_and_missing_files(tmp_path):
    files = numbered_files(tmp_path, [2])

    def build(*args, **kwargs):
        flow.clear_default_session()

        @flow.global_function()
        def job() -> tp.Numpy:
            return flow.data.OneRecDecoder(flow.data.onerec_reader(*args, **kwargs), "id", flow.int64, [1])
        job()
    with pytest.raises(AssertionError, match="files"):  # OneFlow asserted a list or tuple
        build(files[0])
    with pytest.raises(FileNotFoundError, match="nope.onerec"):
        build([files[0], str(tmp_path / "nope.onerec")])
    with pytest.raises(errors.ArgumentError, match="shuffle_mode"):
        build(files, random_shuffle=True, shuffle_mode="epoch")


def _write_raw(path: Path, data: bytes) -> list[str]:
    path.write_bytes(data)
    return [str(path)]


def _two_frames() -> bytes:
    return b"".join(onerec_file.frame(onerec_example.encode({"id": np.array([k], np.int64)})) for k in range(2))


def _rehead(data: bytes, reserved: int, size: int) -> bytes:
    """Frame 0's header rewritten with its checksum recomputed: only the fields are wrong."""
    head = b"^ONEREC$" + struct.pack("<ii", reserved, size)
    return head + struct.pack(">Q", xxh64.xxh64_py(head)) + data[onerec_file.HEADER_SIZE:]


@pytest.mark.parametrize("damage, message", [
    (lambda d: b"^ONEREX$" + d[8:], "not the magic"),
    (lambda d: d[:9] + bytes([d[9] ^ 1]) + d[10:], "header checksum"),
    (lambda d: _rehead(d, 1, struct.unpack_from("<i", d, 12)[0]), "reserved=1"),
    (lambda d: _rehead(d, 0, -8), "size=-8"),
    (lambda d: _rehead(d, 0, 2**31 - 1), "truncated: frame #0"),
    (lambda d: d[:-5], "truncated: frame #1"),
    (lambda d: d + d[:10], "truncated: frame #2"),
])
def test_damaged_headers_are_rejected_at_build_naming_the_file(tmp_path, damage, message):
    files = _write_raw(tmp_path / "bad.onerec", damage(_two_frames()))
    with pytest.raises(errors.RecordFileError, match=f"bad.onerec.*{message}"):
        ids_job(files, batch_size=2)()


def test_a_damaged_payload_fails_its_checksum_when_read(tmp_path):
    data = bytearray(_two_frames())
    data[onerec_file.HEADER_SIZE + 20] ^= 0x40  # inside frame 0's payload
    files = _write_raw(tmp_path / "bad.onerec", bytes(data))
    job = ids_job(files, batch_size=2)
    with pytest.raises(errors.RecordFileError, match="bad.onerec.*frame #0 .*fails its checksum"):
        job()


def test_a_payload_that_is_no_example_is_caught_by_verify_example(tmp_path):
    files = _write_raw(tmp_path / "junk.onerec", onerec_file.frame(b"\x08\x00\x00\x00junk-not-an-example"))
    with pytest.raises(errors.RecordFileError, match="junk.onerec.*frame #0 .*not a valid OneRec Example"):
        ids_job(files, batch_size=1)()
    flow.clear_default_session()
    # without verification the decoder still reads within bounds and says what is wrong
    with pytest.raises(ValueError, match="record 0 of the batch is not a valid OneRec Example"):
        ids_job(files, batch_size=1, verify_example=False)()
