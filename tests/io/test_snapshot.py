"""Tests of the OneFlow snapshot directory reader/writer."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from flowtorch._src.errors import MissingMetaError, SnapshotError, SnapshotMetaError, UnsupportedDataTypeError
from flowtorch._src.io import snapshot as snap
from flowtorch._src.io.snapshot import is_variable_dir, read_snapshot, read_variable, write_snapshot
from flowtorch._src.io.snapshot_meta import format_meta, meta_to_numpy_dtype, numpy_dtype_to_meta, parse_meta


def _hand_write(root, name: str, arr: np.ndarray, meta: str | None) -> None:
    """Lay out one variable the way OneFlow does, without using the writer."""
    var_dir = root / name
    var_dir.mkdir(parents=True)
    (var_dir / "out").write_bytes(arr.tobytes())
    if meta is not None:
        (var_dir / "meta").write_text(meta)


def _siblings(path) -> list[str]:
    return sorted(os.listdir(path))


# --------------------------------------------------------------------------- dtypes


@pytest.mark.parametrize(
    "dtype, name",
    [
        (np.float32, "kFloat"),
        (np.float64, "kDouble"),
        (np.float16, "kFloat16"),
        (np.int8, "kInt8"),
        (np.int32, "kInt32"),
        (np.int64, "kInt64"),
        (np.uint8, "kUInt8"),
    ],
)
def test_dtype_mapping_round_trips(dtype, name):
    assert numpy_dtype_to_meta(np.dtype(dtype)) == name
    assert meta_to_numpy_dtype(name) == np.dtype(dtype)


def test_dtype_mapping_edge_cases():
    assert meta_to_numpy_dtype("kChar") == np.dtype(np.int8)
    assert meta_to_numpy_dtype(2) == np.dtype(np.float32)
    assert numpy_dtype_to_meta(np.dtype(">f4")) == "kFloat"
    for bad in ("kOFRecord", "kTensorBuffer", "kInvalidDataType", "kFoo", 42):
        with pytest.raises(UnsupportedDataTypeError, match="no numpy equivalent"):
            meta_to_numpy_dtype(bad)
    for bad_dtype in (np.bool_, np.complex64, np.uint16):
        with pytest.raises(UnsupportedDataTypeError, match="cannot be stored"):
            numpy_dtype_to_meta(np.dtype(bad_dtype))


# --------------------------------------------------------------------------- meta text


def test_format_meta_matches_protobuf_text_output():
    assert format_meta((2, 3), "kFloat") == "shape {\n  dim: 2\n  dim: 3\n}\ndata_type: kFloat\n"
    assert format_meta((), "kDouble") == "shape {\n}\ndata_type: kDouble\n"
    assert format_meta((1,), "kInt8") == "shape {\n  dim: 1\n}\ndata_type: kInt8\n"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("shape {\n  dim: 4\n  dim: 5\n}\ndata_type: kInt32\n", ((4, 5), "kInt32")),
        ("shape { dim: 4 dim: 5 } data_type: kInt32", ((4, 5), "kInt32")),
        ("# saved by hand\nshape: { dim: [4, 5] }\ndata_type: 5\n", ((4, 5), "kInt32")),
        ("shape <dim: 0x10, dim: 010>; data_type: kUInt8;", ((16, 8), "kUInt8")),
        ("data_type: kFloat16", ((), "kFloat16")),
        ("shape {\n}\ndata_type: kDouble\n", ((), "kDouble")),
        ("shape { dim: [] } data_type: kChar", ((), "kChar")),
    ],
)
def test_parse_meta_accepts_text_format_variants(text, expected):
    assert parse_meta(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("shape { dim: 2 } data_type: kBFloat16", ((2,), "kBFloat16")),
        ("shape {\n  dim: 2\n}\ndata_type: 42\n", ((2,), "42")),
        ("data_type: kComplex64 shape { dim: 3 }", ((3,), "kComplex64")),
    ],
)
def test_parse_meta_returns_a_data_type_the_enum_lacks_as_written(text, expected):
    # a newer OneFlow's data types parse; meta_to_numpy_dtype then refuses them as unsupported
    assert parse_meta(text) == expected
    with pytest.raises(UnsupportedDataTypeError):
        meta_to_numpy_dtype(expected[1])


def test_parse_meta_reads_what_protobuf_s_text_format_writes():
    from google.protobuf import text_format

    from flowtorch._src.io import snapshot_meta

    for shape, data_type in (((2, 3), "kFloat"), ((), "kDouble"), ((0, 7, 1), "kInt64")):
        meta = snapshot_meta._VariableMetaInfo()
        meta.shape.dim.extend(shape)
        meta.data_type = snapshot_meta._ENUM_NUMBERS[data_type]
        for as_one_line in (False, True):
            assert parse_meta(text_format.MessageToString(meta, as_one_line=as_one_line)) == (shape, data_type)
        assert text_format.MessageToString(meta) == format_meta(shape, data_type)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("shape { dim: 2 ", '1:14 : Expected "}"'),
        ("shape { dim: x } data_type: kFloat", "Couldn't parse integer: x"),
        ("shape { dim: 3.0 } data_type: kFloat", "Couldn't parse integer: 3.0"),
        ("foo: 1", '1:1 : Message type "oneflow.VariableMetaInfo" has no field named "foo"'),
        ("shape { size: 1 } data_type: kFloat", '"oneflow.ShapeProto" has no field named "size"'),
        ("data_type: kFloat data_type: kInt8", 'should not have multiple "data_type" fields'),
        ("shape { dim: 99999999999999999999 } data_type: kFloat", "Value out of range: 99999999999999999999"),
        ("shape { dim: -1 } data_type: kFloat", "negative dimension"),
        ("shape { dim: 2 }", "'data_type' is missing"),
        ("", "'data_type' is missing"),
        ("\x00\x01binary", "1:1 : "),
    ],
)
def test_parse_meta_rejects_malformed_text(text, fragment):
    with pytest.raises(ValueError) as info:
        parse_meta(text)
    assert fragment in str(info.value)


# --------------------------------------------------------------------------- round trips


_ARRAYS = {
    "w-f32": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    "w-f64": np.linspace(-1, 1, 10).reshape(2, 5),
    "w-f16": np.array([[0.5, -2.0], [65504.0, 1e-3]], dtype=np.float16),
    "w-i8": np.array([-128, -1, 0, 127], dtype=np.int8),
    "w-u8": np.arange(256, dtype=np.uint8).reshape(16, 16),
    "w-i32": np.array([[1, -2, 3]], dtype=np.int32),
    "w-i64": np.array([2**40, -(2**50)], dtype=np.int64),
    "one": np.array([3.25], dtype=np.float32),
    "scalar": np.array(7, dtype=np.int64),
    "empty": np.zeros((0, 3), dtype=np.float32),
    "System-Train-TrainStep-train_job": np.array([5], dtype=np.int64),
}


def test_round_trip_many_dtypes_and_shapes(tmp_path):
    path = tmp_path / "model"
    write_snapshot(str(path), _ARRAYS)
    entries = read_snapshot(str(path))
    assert list(entries) == sorted(_ARRAYS)
    for name, arr in _ARRAYS.items():
        entry = entries[name]
        assert entry.name == name
        assert entry.path == os.path.join(str(path), name)
        assert entry.shape == arr.shape
        assert entry.dtype == arr.dtype
        assert entry.data_type == numpy_dtype_to_meta(arr.dtype)
        assert entry.has_meta
        value = entry.numpy()
        assert value.dtype == arr.dtype and value.shape == arr.shape
        np.testing.assert_array_equal(value, arr)


def test_written_layout_is_byte_exact(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1, 2], dtype=np.int32)
    path = tmp_path / "ckpt"
    write_snapshot(str(path), {"fc-weight": w, "fc-bias": b})
    assert _siblings(path) == ["fc-bias", "fc-weight", "snapshot_done"]
    assert (path / "snapshot_done").read_bytes() == b""
    assert (path / "fc-weight" / "out").read_bytes() == w.tobytes()
    assert (path / "fc-weight" / "meta").read_text() == (
        "shape {\n  dim: 2\n  dim: 3\n}\ndata_type: kFloat\n"
    )
    assert (path / "fc-bias" / "meta").read_text() == "shape {\n  dim: 2\n}\ndata_type: kInt32\n"
    assert _siblings(path / "fc-weight") == ["meta", "out"]
    # no temporary directory is left beside the snapshot
    assert _siblings(tmp_path) == ["ckpt"]


def test_writer_normalises_layout_and_byte_order(tmp_path):
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    fortran = np.asfortranarray(base)
    strided = base[:, ::2]
    big_endian = base.astype(">f8")
    path = tmp_path / "s"
    write_snapshot(str(path), {"f": fortran, "s": strided, "be": big_endian, "lst": [[1.0, 2.0]]})
    assert (path / "f" / "out").read_bytes() == base.tobytes()
    assert (path / "s" / "out").read_bytes() == np.ascontiguousarray(strided).tobytes()
    entries = read_snapshot(str(path))
    np.testing.assert_array_equal(entries["be"].numpy(), base)
    assert entries["be"].dtype == np.dtype(np.float64)
    np.testing.assert_array_equal(entries["lst"].numpy(), [[1.0, 2.0]])


def test_data_types_override_writes_kchar(tmp_path):
    arr = np.array([1, -1], dtype=np.int8)
    write_snapshot(str(tmp_path / "s"), {"c": arr}, data_types={"c": "kChar"})
    assert "data_type: kChar" in (tmp_path / "s" / "c" / "meta").read_text()
    entry = read_snapshot(str(tmp_path / "s"))["c"]
    assert entry.data_type == "kChar" and entry.dtype == np.dtype(np.int8)
    np.testing.assert_array_equal(entry.numpy(), arr)
    with pytest.raises(UnsupportedDataTypeError, match="does not match"):
        write_snapshot(str(tmp_path / "t"), {"c": arr}, data_types={"c": "kFloat"})
    with pytest.raises(ValueError, match="unknown variables"):
        write_snapshot(str(tmp_path / "u"), {"c": arr}, data_types={"d": "kInt8"})
    assert not (tmp_path / "t").exists() and not (tmp_path / "u").exists()


def test_reads_hand_written_oneflow_snapshot(tmp_path):
    root = tmp_path / "of_model"
    root.mkdir()
    weight = np.random.default_rng(0).standard_normal((784, 10)).astype(np.float32)
    bias = np.arange(10, dtype=np.float32)
    step = np.array([1234], dtype=np.int64)
    _hand_write(
        root, "dense1-weight", weight, "shape {\n  dim: 784\n  dim: 10\n}\ndata_type: kFloat\n"
    )
    _hand_write(root, "dense1-bias", bias, "shape { dim: 10 } data_type: kFloat")
    _hand_write(
        root, "System-Train-TrainStep-train", step, "shape {\n  dim: 1\n}\ndata_type: kInt64\n"
    )
    (root / "snapshot_done").write_bytes(b"")
    (root / "README").write_text("not a variable")
    (root / "no_out_dir").mkdir()

    entries = read_snapshot(str(root))
    assert sorted(entries) == ["System-Train-TrainStep-train", "dense1-bias", "dense1-weight"]
    np.testing.assert_array_equal(entries["dense1-weight"].numpy(), weight)
    np.testing.assert_array_equal(entries["dense1-bias"].numpy(), bias)
    np.testing.assert_array_equal(entries["System-Train-TrainStep-train"].numpy(), step)

    single = read_variable(str(root / "dense1-weight"))
    assert single.name == "dense1-weight" and single.shape == (784, 10)
    np.testing.assert_array_equal(single.numpy(), weight)
    assert is_variable_dir(str(root / "dense1-bias"))
    assert not is_variable_dir(str(root))


def test_read_variable_names_entry_after_directory_even_with_trailing_slash(tmp_path):
    _hand_write(tmp_path, "v", np.ones(3, np.float64), "shape { dim: 3 } data_type: kDouble")
    entry = read_variable(str(tmp_path / "v") + os.sep)
    assert entry.name == "v"
    np.testing.assert_array_equal(entry.numpy(), np.ones(3))


def test_numpy_reads_lazily_and_returns_fresh_arrays(tmp_path):
    path = tmp_path / "s"
    write_snapshot(str(path), {"v": np.zeros(4, np.float32)})
    entry = read_snapshot(str(path))["v"]
    (path / "v" / "out").write_bytes(np.full(4, 2.0, np.float32).tobytes())
    first = entry.numpy()
    np.testing.assert_array_equal(first, np.full(4, 2.0, np.float32))
    first[:] = -1
    np.testing.assert_array_equal(entry.numpy(), np.full(4, 2.0, np.float32))
    assert first.flags.writeable


# --------------------------------------------------------------------------- legacy


def test_legacy_write_has_no_meta_but_marks_done(tmp_path):
    arr = np.arange(6, dtype=np.int32).reshape(2, 3)
    path = tmp_path / "legacy"
    write_snapshot(str(path), {"v": arr}, legacy=True)
    assert _siblings(path) == ["snapshot_done", "v"]
    assert _siblings(path / "v") == ["out"]
    assert (path / "v" / "out").read_bytes() == arr.tobytes()


def test_legacy_entry_needs_expected_shape_and_dtype(tmp_path):
    arr = np.linspace(0, 1, 8).astype(np.float32).reshape(2, 4)
    _hand_write(tmp_path / "old", "hidden-weight", arr, meta=None)
    entry = read_snapshot(str(tmp_path / "old"))["hidden-weight"]
    assert not entry.has_meta
    assert entry.shape is None and entry.dtype is None and entry.data_type is None
    with pytest.raises(MissingMetaError) as info:
        entry.numpy()
    assert "'hidden-weight'" in str(info.value) and "with_expected" in str(info.value)
    assert isinstance(info.value, RuntimeError)

    known = entry.with_expected((2, 4), np.float32)
    assert known.shape == (2, 4) and known.dtype == np.float32 and known.data_type == "kFloat"
    np.testing.assert_array_equal(known.numpy(), arr)

    with pytest.raises(SnapshotError) as info:
        entry.with_expected((3, 4), np.float32)
    msg = str(info.value)
    assert "'hidden-weight'" in msg and "truncated" in msg and "32 bytes, expected 48" in msg


def test_with_expected_keeps_meta_values(tmp_path):
    write_snapshot(str(tmp_path / "s"), {"v": np.ones((2, 2), np.float64)})
    entry = read_snapshot(str(tmp_path / "s"))["v"]
    assert entry.with_expected((4,), np.float32) is entry
    assert entry.shape == (2, 2) and entry.dtype == np.float64


# --------------------------------------------------------------------------- read errors


def test_missing_directory(tmp_path):
    missing = str(tmp_path / "nope")
    with pytest.raises(SnapshotError, match=re.escape(f"Directory {missing} doesn't exist!")):
        read_snapshot(missing)
    with pytest.raises(AssertionError, match="doesn't exist"):
        read_variable(missing)


def test_path_that_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(SnapshotError, match="is not a directory"):
        read_snapshot(str(f))


def test_no_variables(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SnapshotError, match="contains no variables"):
        read_snapshot(str(tmp_path / "empty"))
    assert read_snapshot(str(tmp_path / "empty"), allow_empty=True) == {}
    only_done = tmp_path / "done"
    only_done.mkdir()
    (only_done / "snapshot_done").write_bytes(b"")
    with pytest.raises(SnapshotError, match="no sub-directory with a 'out' file"):
        read_snapshot(str(only_done))


def test_read_snapshot_on_single_variable_dir_hints_read_variable(tmp_path):
    _hand_write(tmp_path, "v", np.ones(2, np.float32), "shape { dim: 2 } data_type: kFloat")
    with pytest.raises(SnapshotError, match="use read_variable"):
        read_snapshot(str(tmp_path / "v"))


def test_read_variable_without_out(tmp_path):
    (tmp_path / "v").mkdir()
    with pytest.raises(SnapshotError, match=r"'v'.*not a variable directory"):
        read_variable(str(tmp_path / "v"))


@pytest.mark.parametrize(
    "stored, what, detail",
    [
        (np.arange(5, dtype=np.float32), "truncated", "20 bytes, expected 24"),
        (np.arange(7, dtype=np.float32), "larger than expected", "28 bytes, expected 24"),
        (np.arange(6, dtype=np.float64), "larger than expected", "48 bytes, expected 24"),
    ],
)
def test_wrong_data_file_size_names_variable_and_file(tmp_path, stored, what, detail):
    _hand_write(tmp_path / "s", "layer-weight", stored, "shape { dim: 2 dim: 3 } data_type: kFloat")
    with pytest.raises(SnapshotError) as info:
        read_snapshot(str(tmp_path / "s"))
    msg = str(info.value)
    assert "variable 'layer-weight'" in msg
    assert os.path.join(str(tmp_path / "s"), "layer-weight", "out") in msg
    assert what in msg and detail in msg and "(2, 3)" in msg


def test_file_truncated_after_opening(tmp_path):
    write_snapshot(str(tmp_path / "s"), {"v": np.ones(6, np.int64)})
    entry = read_snapshot(str(tmp_path / "s"))["v"]
    (tmp_path / "s" / "v" / "out").write_bytes(b"\0" * 8)
    with pytest.raises(SnapshotError, match=r"variable 'v'.*truncated"):
        entry.numpy()


@pytest.mark.parametrize(
    "meta, fragment",
    [
        ("shape { dim: 2 ", 'Expected "}"'),
        ("shape { dim: two } data_type: kFloat", "Couldn't parse integer: two"),
        ("garbage", 'has no field named "garbage"'),
        ("shape { dim: 2 }", "'data_type' is missing"),
    ],
)
def test_corrupt_meta_names_variable_and_file(tmp_path, meta, fragment):
    _hand_write(tmp_path / "s", "bad", np.ones(2, np.float32), meta)
    with pytest.raises(SnapshotMetaError) as info:
        read_snapshot(str(tmp_path / "s"))
    msg = str(info.value)
    assert "variable 'bad'" in msg and os.path.join("bad", "meta") in msg and fragment in msg
    assert isinstance(info.value, ValueError)


def test_binary_meta_is_reported_as_corrupt(tmp_path):
    var = tmp_path / "s" / "bin"
    var.mkdir(parents=True)
    (var / "out").write_bytes(b"\0" * 4)
    (var / "meta").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SnapshotMetaError, match=r"variable 'bin'.*cannot parse meta file"):
        read_variable(str(var))


@pytest.mark.parametrize("data_type", ["kOFRecord", "kTensorBuffer", "kBFloat16", "42"])
def test_unknown_data_type_names_variable(tmp_path, data_type):
    _hand_write(
        tmp_path / "s", "odd", np.ones(2, np.float32), f"shape {{ dim: 2 }} data_type: {data_type}"
    )
    with pytest.raises(UnsupportedDataTypeError) as info:
        read_snapshot(str(tmp_path / "s"))
    msg = str(info.value)
    assert "variable 'odd'" in msg and data_type in msg and "no numpy equivalent" in msg
    assert isinstance(info.value, NotImplementedError)


# ------------------------------------------------------------------ write refusals / atomicity


def test_refuses_non_empty_directory_with_oneflow_message(tmp_path):
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("precious")
    expected = re.escape(f"Non-empty directory {target} already exists!")
    with pytest.raises(AssertionError, match=f"^{expected}$"):
        write_snapshot(str(target), {"v": np.ones(1, np.float32)})
    assert _siblings(target) == ["keep.txt"]
    assert _siblings(tmp_path) == ["busy"]


def test_refuses_existing_file(tmp_path):
    target = tmp_path / "file"
    target.write_text("data")
    with pytest.raises(SnapshotError) as info:
        write_snapshot(str(target), {"v": np.ones(1, np.float32)})
    assert f"Non-empty directory {target} already exists!" in str(info.value)
    assert "it is a file" in str(info.value)
    assert target.read_text() == "data"


def test_existing_empty_directory_and_missing_parents_are_fine(tmp_path):
    (tmp_path / "empty").mkdir()
    write_snapshot(str(tmp_path / "empty"), {"v": np.ones(2, np.float32)})
    assert _siblings(tmp_path / "empty") == ["snapshot_done", "v"]
    deep = tmp_path / "a" / "b" / "c"
    write_snapshot(str(deep), {"v": np.ones(2, np.float32)})
    np.testing.assert_array_equal(read_snapshot(str(deep))["v"].numpy(), np.ones(2))


def test_symlink_to_empty_directory_is_written_through(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    write_snapshot(str(link), {"v": np.ones(2, np.float32)})
    assert link.is_symlink()
    assert _siblings(real) == ["snapshot_done", "v"]
    with pytest.raises(SnapshotError, match=f"Non-empty directory {re.escape(str(link))} "):
        write_snapshot(str(link), {"v": np.ones(2, np.float32)})


def test_writing_an_empty_mapping_writes_only_the_marker(tmp_path):
    write_snapshot(str(tmp_path / "s"), {})
    assert _siblings(tmp_path / "s") == ["snapshot_done"]


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "snapshot_done", "nul\0"])
def test_invalid_variable_names_are_refused_before_writing(tmp_path, name):
    with pytest.raises(ValueError, match="invalid variable name"):
        write_snapshot(
            str(tmp_path / "s"), {"ok": np.ones(1, np.float32), name: np.ones(1, np.float32)}
        )
    assert _siblings(tmp_path) == []


def test_non_string_name_is_refused(tmp_path):
    with pytest.raises(TypeError, match="must be a str"):
        write_snapshot(str(tmp_path / "s"), {1: np.ones(1, np.float32)})  # type: ignore[dict-item]
    assert _siblings(tmp_path) == []


def test_unsupported_dtype_is_refused_and_leaves_nothing(tmp_path):
    with pytest.raises(UnsupportedDataTypeError, match=r"variable 'flag'.*bool"):
        write_snapshot(str(tmp_path / "s"), {"x": np.ones(1), "flag": np.array([True])})
    assert _siblings(tmp_path) == []


@pytest.mark.parametrize("pre_existing_empty_target", [False, True])
def test_failure_mid_write_leaves_no_partial_snapshot(
    tmp_path, monkeypatch, pre_existing_empty_target
):
    target = tmp_path / "parent" / "ckpt"
    if pre_existing_empty_target:
        target.mkdir(parents=True)
    real_write = snap._write_file
    calls = []

    def flaky_write(path, data):
        calls.append(path)
        if len(calls) == 3:  # after the first variable, during the second
            raise OSError(28, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(snap, "_write_file", flaky_write)
    arrays = {"a": np.ones(3, np.float32), "b": np.zeros(2, np.int64), "c": np.ones(1)}
    with pytest.raises(OSError, match="No space left"):
        write_snapshot(str(target), arrays)
    assert len(calls) == 3
    if pre_existing_empty_target:
        assert target.is_dir() and _siblings(target) == []
        assert _siblings(tmp_path / "parent") == ["ckpt"]
    else:
        # neither the target nor the parent directories created for it remain
        assert _siblings(tmp_path) == []


@pytest.mark.parametrize("pre_existing_empty_target", [False, True])
def test_failure_while_renaming_leaves_no_partial_snapshot(
    tmp_path, monkeypatch, pre_existing_empty_target
):
    if pre_existing_empty_target:
        (tmp_path / "ckpt").mkdir()

    def failing_replace(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(snap.os, "replace", failing_replace)
    with pytest.raises(PermissionError):
        write_snapshot(str(tmp_path / "ckpt"), {"a": np.ones(3, np.float32)})
    if pre_existing_empty_target:
        assert _siblings(tmp_path) == ["ckpt"] and _siblings(tmp_path / "ckpt") == []
    else:
        assert _siblings(tmp_path) == []


def test_target_filled_concurrently_is_refused(tmp_path, monkeypatch):
    target = tmp_path / "ckpt"
    real_replace = os.replace

    def racing_replace(src, dst):
        os.makedirs(dst, exist_ok=True)
        (target / "intruder").write_text("x")
        real_replace(src, dst)

    monkeypatch.setattr(snap.os, "replace", racing_replace)
    with pytest.raises(SnapshotError, match="Non-empty directory .* already exists!"):
        write_snapshot(str(target), {"a": np.ones(3, np.float32)})
    assert _siblings(target) == ["intruder"]
    assert _siblings(tmp_path) == ["ckpt"]
