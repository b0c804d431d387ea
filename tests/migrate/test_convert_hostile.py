"""Hostile or wrong inputs to checkpoint conversion: refused with a clear error, no pickle code run, and no
partial or replaced destination left behind."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest
import safetensors.torch
import torch
from test_convert import VALUES, files_of, hand_snapshot, meta_text

from flowtorch._src.errors import ConversionError
from flowtorch._src.migrate import convert_cli
from flowtorch._src.migrate.convert import convert


class _Touch:
    """Unpickling it would create ``path`` (if any pickle code ran)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _listing(tmp_path) -> list[str]:
    return sorted(os.listdir(tmp_path))


# ---------------------------------------------------------------------------------------------- .pt contents


@pytest.mark.parametrize(("obj", "message"), [
    ({"w": torch.ones(2), "epoch": 3}, r"entry 'epoch' is a int"),
    ({"model": {"w": torch.ones(2)}}, r"entry 'model' is a dict \(a nested dict: pass the inner state dict\)"),
    ([torch.ones(2)], r"expected a flat dict\[str, Tensor\] \(a state dict\); it holds a list"),
    ({1: torch.ones(2)}, r"key 1 is a int"),
    (torch.ones(2), r"it holds a Tensor"),
    ({"s": torch.ones(2).to_sparse()}, r"entry 's' is a torch.sparse_coo tensor"),
    ({}, r"holds no tensors"),
])
def test_pt_that_is_no_flat_state_dict_is_refused(tmp_path, obj, message: str) -> None:
    src = str(tmp_path / "bad.pt")
    torch.save(obj, src)
    with pytest.raises(ConversionError, match=message):
        convert(src, str(tmp_path / "snap"))
    assert _listing(tmp_path) == ["bad.pt"]


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_pt_with_pickled_code_is_refused_without_running_it(tmp_path) -> None:
    marker = str(tmp_path / "pwned")
    src = str(tmp_path / "evil.pt")
    torch.save({"w": torch.ones(2), "x": _Touch(marker)}, src)  # a zip .pt whose pickle calls open()
    with open(tmp_path / "evil-raw.pt", "wb") as f:
        pickle.dump({"x": _Touch(marker)}, f)  # a bare pickle
    for path in (src, str(tmp_path / "evil-raw.pt")):
        with pytest.raises(ConversionError, match="weights_only=True .*refused"):
            convert(path, str(tmp_path / "out.safetensors"))
    assert not os.path.exists(marker)
    assert not os.path.exists(tmp_path / "out.safetensors")


def test_garbage_files_are_refused(tmp_path) -> None:
    (tmp_path / "g.pt").write_bytes(b"not a checkpoint")
    (tmp_path / "g.safetensors").write_bytes(b"\xff" * 8 + b"{}")
    with pytest.raises(ConversionError, match="g.pt: not a PyTorch state dict"):
        convert(str(tmp_path / "g.pt"), str(tmp_path / "snap"))
    with pytest.raises(ConversionError, match="g.safetensors: not a valid safetensors file"):
        convert(str(tmp_path / "g.safetensors"), str(tmp_path / "snap"))
    assert not os.path.exists(tmp_path / "snap")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifo_source_is_refused_without_blocking(tmp_path) -> None:
    os.mkfifo(tmp_path / "pipe.pt")
    with pytest.raises(ConversionError, match="must be a regular file; it is a named pipe"):
        convert(str(tmp_path / "pipe.pt"), str(tmp_path / "snap"))


# ---------------------------------------------------------------------------------------------- layouts


def test_dtype_or_shape_against_like_is_refused(tmp_path) -> None:
    like = hand_snapshot(tmp_path / "like", {"w": (np.zeros((2, 3), np.float32), "kFloat")})
    torch.save({"w": torch.zeros(2, 3, dtype=torch.float64)}, str(tmp_path / "f64.pt"))
    torch.save({"w": torch.zeros(3, 2)}, str(tmp_path / "t.pt"))
    with pytest.raises(ConversionError, match=r"'w'.*dtype float64, but --like/--shapes expects .*dtype float32"):
        convert(str(tmp_path / "f64.pt"), str(tmp_path / "snap"), like=like)
    with pytest.raises(ConversionError, match=r"'w'.*shape \(3, 2\).*expects shape \(2, 3\)"):
        convert(str(tmp_path / "t.pt"), str(tmp_path / "snap"), like=like)
    assert not os.path.exists(tmp_path / "snap")


def test_meta_disagreeing_with_like_or_data_is_refused(tmp_path) -> None:
    snap = hand_snapshot(tmp_path / "snap", {"w": (np.zeros(4, np.int32), "kInt32")})
    with pytest.raises(ConversionError, match=r"'w'.*dtype int32, but --like/--shapes expects .*float32"):
        convert(snap, str(tmp_path / "a.pt"), shapes={"w": {"shape": [4], "dtype": "float32"}})
    # a meta that claims more than `out` holds
    (tmp_path / "snap" / "w" / "meta").write_text(meta_text((4,), "kInt64"))
    with pytest.raises(ConversionError, match=r"'w'.*truncated: 16 bytes, expected 32"):
        convert(snap, str(tmp_path / "a.pt"))
    (tmp_path / "snap" / "w" / "meta").write_text("shape { dim: 4 } data_type: kBFloat16\n")
    with pytest.raises(ConversionError, match="kBFloat16"):
        convert(snap, str(tmp_path / "a.pt"))
    assert not os.path.exists(tmp_path / "a.pt")


def test_legacy_sizes_against_shapes_are_checked(tmp_path) -> None:
    legacy = hand_snapshot(tmp_path / "legacy", {"w": (np.zeros(6, np.float32), "")}, legacy=True)
    with pytest.raises(ConversionError, match=r"'w'.*larger than expected: 24 bytes, expected 16"):
        convert(legacy, str(tmp_path / "a.pt"), shapes={"w": {"shape": [2, 2]}})
    with pytest.raises(ConversionError, match="--like .*legacy snapshot cannot say"):
        convert(legacy, str(tmp_path / "a.pt"), like=legacy)
    assert not os.path.exists(tmp_path / "a.pt")


@pytest.mark.parametrize(("shapes", "message"), [
    ("{not json", "not valid JSON"),
    ('["w"]', "expected an object"),
    ('{"w": [2, 2]}', "entry 'w' must be"),
    ('{"w": {"shape": [2, -1]}}', "shape must be a list of non-negative integers"),
    ('{"w": {"shape": [4], "dtype": "bfloat16"}}', "dtype 'bfloat16' is not a OneFlow snapshot dtype"),
])
def test_bad_shapes_argument(tmp_path, shapes: str, message: str) -> None:
    legacy = hand_snapshot(tmp_path / "legacy", {"w": (np.zeros(4, np.float32), "")}, legacy=True)
    with pytest.raises(ConversionError, match=message):
        convert(legacy, str(tmp_path / "a.pt"), shapes=shapes)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.bool, torch.complex64, torch.int16])
def test_dtypes_a_snapshot_cannot_hold_are_refused_with_nothing_written(tmp_path, dtype) -> None:
    tensors = {"a": torch.zeros(3), "b": torch.zeros(2, dtype=dtype)}
    torch.save(tensors, str(tmp_path / "m.pt"))
    with pytest.raises(ConversionError, match=rf"'b' has dtype {str(dtype)[6:]}, which a OneFlow snapshot cannot"):
        convert(str(tmp_path / "m.pt"), str(tmp_path / "deep" / "er" / "snap"))
    assert _listing(tmp_path) == ["m.pt"]  # neither the snapshot nor its parents


def test_bfloat16_between_files_is_kept(tmp_path) -> None:
    t = torch.randn(4).to(torch.bfloat16)
    safetensors.torch.save_file({"w": t}, str(tmp_path / "m.safetensors"))
    convert(str(tmp_path / "m.safetensors"), str(tmp_path / "m.pt"))
    got = torch.load(str(tmp_path / "m.pt"), weights_only=True)["w"]
    assert got.dtype == torch.bfloat16 and torch.equal(got.view(torch.int16), t.view(torch.int16))


def test_variable_names_that_are_no_path_component_are_refused(tmp_path) -> None:
    for i, bad in enumerate(["../escape", "a/b", "snapshot_done", ".."]):
        src = str(tmp_path / f"m{i}.pt")
        torch.save({"ok": torch.ones(1), bad: torch.ones(1)}, src)
        with pytest.raises(ConversionError, match="invalid variable name"):
            convert(src, str(tmp_path / "sub" / "snap"))
    assert not os.path.exists(tmp_path / "sub") and not os.path.exists(tmp_path / "escape")


def test_snapshot_entry_linking_outside_is_refused(tmp_path) -> None:
    snap = hand_snapshot(tmp_path / "snap", {"w": (np.zeros(2, np.float32), "kFloat")})
    hand_snapshot(tmp_path / "outside", {"secret": (np.ones(2, np.float32), "kFloat")})
    os.symlink(tmp_path / "outside" / "secret", tmp_path / "snap" / "secret")
    with pytest.raises(ConversionError, match="'secret'.*not inside"):
        convert(snap, str(tmp_path / "a.pt"))


# ---------------------------------------------------------------------------------------------- targets


def test_existing_dst_needs_force(tmp_path) -> None:
    snap = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"]})
    (tmp_path / "a.pt").write_bytes(b"keep me")
    with pytest.raises(ConversionError, match=r"DST .*a.pt' already exists \(a regular file\); pass --force"):
        convert(snap, str(tmp_path / "a.pt"))
    assert (tmp_path / "a.pt").read_bytes() == b"keep me"
    convert(snap, str(tmp_path / "a.pt"), force=True)
    loaded = torch.load(str(tmp_path / "a.pt"), weights_only=True)["w"]
    assert loaded.numpy().tobytes() == VALUES["dense1-weight"][0].tobytes()

    other = hand_snapshot(tmp_path / "other", {"v": (np.ones(3, np.int64), "kInt64")})
    with pytest.raises(ConversionError, match="already exists"):
        convert(str(tmp_path / "a.pt"), other)
    convert(str(tmp_path / "a.pt"), other, force=True)
    assert files_of(other) == files_of(snap)
    assert [n for n in _listing(tmp_path) if n.startswith(".")] == []  # no temporary left


def test_empty_directory_dst_is_written_into(tmp_path) -> None:
    snap = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"]})
    torch.save({"w": torch.from_numpy(VALUES["dense1-weight"][0])}, str(tmp_path / "w.pt"))
    (tmp_path / "empty").mkdir()
    convert(str(tmp_path / "w.pt"), str(tmp_path / "empty"))
    assert files_of(tmp_path / "empty") == files_of(snap)


def test_force_never_replaces_what_is_not_a_checkpoint(tmp_path) -> None:
    torch.save({"w": torch.ones(2)}, str(tmp_path / "w.pt"))
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("precious")
    with pytest.raises(ConversionError, match="not a OneFlow snapshot directory: refusing to replace it, even"):
        convert(str(tmp_path / "w.pt"), str(home), force=True)
    (tmp_path / "dir.safetensors").mkdir()
    (tmp_path / "dir.safetensors" / "x").write_text("x")
    with pytest.raises(ConversionError, match="is a directory, not a safetensors file"):
        convert(str(tmp_path / "w.pt"), str(tmp_path / "dir.safetensors"), dst_format="safetensors", force=True)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConversionError, match="is a directory, not a pt file"):
        convert(str(tmp_path / "w.pt"), str(tmp_path / "empty"), dst_format="pt")
    assert (home / "notes.txt").read_text() == "precious"
    assert os.listdir(tmp_path / "empty") == []


def test_paths_and_flags_that_make_no_sense(tmp_path) -> None:
    snap = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"]})
    (tmp_path / "m.npz").write_bytes(b"x")
    cases = [
        ((str(tmp_path / "m.npz"), str(tmp_path / "a.pt")), {}, r"format of SRC .*'\.npz'.*--from"),
        ((snap, str(tmp_path / "a.h5")), {}, r"format of DST .*'\.h5'.*--to"),
        ((str(tmp_path / "missing.pt"), str(tmp_path / "a.pt")), {}, "SRC .*missing.pt': no such file"),
        ((snap, str(tmp_path / "a.pt")), {"legacy": True}, "--legacy writes a legacy snapshot directory"),
        ((snap, snap), {"force": True}, "SRC and DST are the same path"),
        ((snap, str(tmp_path / "a.pt")), {"dst_format": "npz"}, "DST format must be one of snapshot"),
        ((snap, str(tmp_path / "a.pt")), {"like": str(tmp_path / "nope")}, "--like .*no such file"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(ConversionError, match=message):
            convert(*args, **kwargs)
    assert not os.path.exists(tmp_path / "a.pt")


def test_cli_reports_refusals_on_stderr(tmp_path, capsys) -> None:
    torch.save({"w": torch.ones(2), "meta": json.dumps({"a": 1})}, str(tmp_path / "m.pt"))
    assert convert_cli.main([str(tmp_path / "m.pt"), str(tmp_path / "snap")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"flowtorch convert-checkpoint: error: {tmp_path / 'm.pt'}: expected a flat "
                            "dict[str, Tensor]; entry 'meta' is a str\n")


def test_failure_while_writing_leaves_nothing(tmp_path, monkeypatch) -> None:
    from flowtorch._src.io import snapshot as snapshot_io

    snap = hand_snapshot(tmp_path / "snap", {"a": VALUES["dense1-weight"], "b": VALUES["dense1-bias"]})
    torch.save({"a": torch.ones(2), "b": torch.ones(3)}, str(tmp_path / "m.pt"))
    before = _listing(tmp_path)

    def half_then_fail(obj, f, *args, **kwargs):
        f.write(b"PK\x03\x04 partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        convert(snap, str(tmp_path / "new" / "m.pt"))
    monkeypatch.undo()

    calls = []
    real_write = snapshot_io._write_file

    def second_write_fails(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_write(path, data)

    monkeypatch.setattr(snapshot_io, "_write_file", second_write_fails)
    with pytest.raises(OSError, match="No space left"):
        convert(str(tmp_path / "m.pt"), str(tmp_path / "new-snap"))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "snapshot_done").write_text("")
    calls.clear()
    with pytest.raises(OSError, match="No space left"):
        convert(str(tmp_path / "m.pt"), str(tmp_path / "full"), force=True)
    assert _listing(tmp_path) == sorted([*before, "full"])  # no DST, no temporary, no created parent
    assert os.listdir(tmp_path / "full") == ["snapshot_done"]  # the replaced snapshot is intact
