"""``flowtorch convert-checkpoint``: bit-exact round trips between OneFlow snapshots (both model-IO eras) and
safetensors / PyTorch state dicts, the name mapping shared with export, and the CLI."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import safetensors.numpy
import safetensors.torch
import torch

from flowtorch._src.errors import ConversionError
from flowtorch._src.migrate import convert_cli
from flowtorch._src.migrate.convert import convert
from flowtorch._src.migrate.names import torch_name, unique_torch_names

# name: (value, OneFlow DataType enum name); NaN with a payload and -0.0 check that nothing is re-encoded.
_F32 = np.array([[1.5, -0.0, np.inf], [np.nan, 3.25e-39, -7.0]], np.float32)
_F32.view(np.uint32)[1, 0] = 0x7FC12345
VALUES: dict[str, tuple[np.ndarray, str]] = {
    "dense1-weight": (_F32, "kFloat"),
    "dense1-bias": (np.array([0.1, -0.2], np.float64), "kDouble"),
    "half": (np.array([1.0, 65504.0, -2.5e-5], np.float16), "kFloat16"),
    "i8": (np.array([-128, 0, 127], np.int8), "kInt8"),
    "chars": (np.array([104, 105], np.int8), "kChar"),
    "i32": (np.arange(6, dtype=np.int32).reshape(1, 2, 3), "kInt32"),
    "System-Train-TrainStep-train_job": (np.array([3], np.int64), "kInt64"),
    "u8": (np.array([0, 255], np.uint8), "kUInt8"),
    "scalar": (np.array(2.0, np.float32), "kFloat"),
    "empty": (np.zeros((0, 4), np.float32), "kFloat"),
}


def meta_text(shape: tuple[int, ...], data_type: str) -> str:
    """``VariableMetaInfo`` as protobuf's MessageToString writes it."""
    return "shape {\n" + "".join(f"  dim: {d}\n" for d in shape) + "}\n" + f"data_type: {data_type}\n"


def hand_snapshot(root, values: dict[str, tuple[np.ndarray, str]], *, legacy: bool = False) -> str:
    """A snapshot written byte by byte, without flowtorch's writer."""
    os.makedirs(root)
    for name, (arr, data_type) in values.items():
        os.mkdir(os.path.join(root, name))
        with open(os.path.join(root, name, "out"), "wb") as f:
            f.write(arr.tobytes())
        if not legacy:
            with open(os.path.join(root, name, "meta"), "w") as f:
                f.write(meta_text(arr.shape, data_type))
    open(os.path.join(root, "snapshot_done"), "w").close()
    return str(root)


def files_of(root) -> dict[str, bytes]:
    """Every file under ``root`` (relative path → bytes)."""
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            path = os.path.join(dirpath, n)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


# ---------------------------------------------------------------------------------------------- names


def test_torch_name_makes_identifiers() -> None:
    assert torch_name("dense1-weight") == "dense1_weight"
    assert torch_name("System-Train-TrainStep-train_job") == "System_Train_TrainStep_train_job"
    assert torch_name("conv.1/w b") == "conv_1_w_b"
    assert torch_name("0-layer") == "v_0_layer"
    assert torch_name("poids-é") == "poids__"
    assert torch_name("class") == "class_"
    for name in ("dense1-weight", "0-layer", "poids-é", "class", "a..b", "-"):
        assert torch_name(name).isidentifier()


def test_unique_torch_names_disambiguates_in_order() -> None:
    names = ["a-b", "a.b", "a_b", "a_b_2", "x", "a b"]
    mapping = unique_torch_names(names)
    assert mapping == {"a-b": "a_b", "a.b": "a_b_2", "a_b": "a_b_3", "a_b_2": "a_b_2_2", "x": "x", "a b": "a_b_4"}
    assert len(set(mapping.values())) == len(names)


# ---------------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("file_name", ["ckpt.safetensors", "ckpt.pt", "ckpt.pth"])
def test_snapshot_round_trip_is_byte_identical(tmp_path, file_name: str) -> None:
    src = hand_snapshot(tmp_path / "snap", VALUES)
    mid = str(tmp_path / file_name)
    result = convert(src, mid)
    assert result.src_format == "snapshot" and result.dst_format in ("safetensors", "pt")
    assert len(result.variables) == len(VALUES)
    assert result.total_bytes == sum(a.nbytes for a, _ in VALUES.values())

    back = str(tmp_path / "back")
    convert(mid, back)
    expected = files_of(src)
    if result.dst_format == "pt":  # a flat state dict cannot record that int8 was OneFlow's char type
        expected["chars/meta"] = meta_text((2,), "kInt8").encode()
    assert files_of(back) == expected  # `out` bytes and `meta` text alike, and snapshot_done


def test_safetensors_file_holds_the_values(tmp_path) -> None:
    src = hand_snapshot(tmp_path / "snap", VALUES)
    dst = str(tmp_path / "ckpt.safetensors")
    convert(src, dst)
    loaded = safetensors.numpy.load_file(dst)
    assert set(loaded) == set(VALUES)
    for name, (arr, _) in VALUES.items():
        assert loaded[name].dtype == arr.dtype and loaded[name].shape == arr.shape
        assert loaded[name].tobytes() == arr.tobytes(), name


def test_pt_file_is_a_flat_state_dict(tmp_path) -> None:
    src = hand_snapshot(tmp_path / "snap", VALUES)
    dst = str(tmp_path / "ckpt.pt")
    convert(src, dst)
    loaded = torch.load(dst, weights_only=True)
    assert type(loaded) is dict and set(loaded) == set(VALUES)
    for name, (arr, _) in VALUES.items():
        assert loaded[name].numpy().tobytes() == arr.tobytes() and loaded[name].shape == arr.shape, name


def test_safetensors_and_pt_written_by_torch_become_snapshots(tmp_path) -> None:
    tensors = {"fc.weight": torch.randn(3, 4, dtype=torch.float64), "fc.bias": torch.arange(3, dtype=torch.int32),
               "t": torch.tensor(7, dtype=torch.int64)}
    safetensors.torch.save_file(tensors, str(tmp_path / "m.safetensors"))
    torch.save(tensors, str(tmp_path / "m.pt"))
    for src in ("m.safetensors", "m.pt"):
        dst = tmp_path / f"snap-{src.replace('.', '-')}"
        result = convert(str(tmp_path / src), str(dst))
        assert result.dst_format == "snapshot"
        assert sorted(os.listdir(dst)) == ["fc.bias", "fc.weight", "snapshot_done", "t"]
        for name, t in tensors.items():
            assert (dst / name / "out").read_bytes() == t.numpy().tobytes()
        assert (dst / "fc.weight" / "meta").read_text() == meta_text((3, 4), "kDouble")
        assert (dst / "fc.bias" / "meta").read_text() == meta_text((3,), "kInt32")
        assert (dst / "t" / "meta").read_text() == meta_text((), "kInt64")


def test_legacy_output_has_no_meta_and_reads_back_with_like(tmp_path) -> None:
    values = {k: VALUES[k] for k in ("dense1-weight", "dense1-bias", "chars")}
    new = hand_snapshot(tmp_path / "new", values)
    convert(new, str(tmp_path / "m.pt"))
    legacy = tmp_path / "legacy"
    result = convert(str(tmp_path / "m.pt"), str(legacy), legacy=True)
    assert result.legacy
    assert sorted(os.listdir(legacy)) == ["chars", "dense1-bias", "dense1-weight", "snapshot_done"]
    assert all(os.listdir(legacy / n) == ["out"] for n in values)

    with pytest.raises(ConversionError, match=r"legacy .*chars, dense1-bias, dense1-weight.*--like"):
        convert(str(legacy), str(tmp_path / "nolike.safetensors"))
    assert not os.path.exists(tmp_path / "nolike.safetensors")
    convert(str(legacy), str(tmp_path / "again"), like=new)
    assert files_of(tmp_path / "again") == files_of(new)  # the metas (kChar included) come from --like


def test_legacy_with_shapes_json_text_or_file(tmp_path) -> None:
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    step = np.array([9], np.int64)
    legacy = hand_snapshot(tmp_path / "legacy", {"w": (w, ""), "step": (step, "")}, legacy=True)
    shapes = {"w": {"shape": [3, 2], "dtype": "float32"}, "step": {"shape": [1], "dtype": "int64"}}
    convert(legacy, str(tmp_path / "a.pt"), shapes=json.dumps(shapes))
    (tmp_path / "shapes.json").write_text(json.dumps(shapes))
    convert(legacy, str(tmp_path / "b.safetensors"), shapes=str(tmp_path / "shapes.json"))
    a = torch.load(str(tmp_path / "a.pt"), weights_only=True)
    b = safetensors.numpy.load_file(str(tmp_path / "b.safetensors"))
    for got in (a["w"].numpy(), b["w"]):
        np.testing.assert_array_equal(got, w)
    assert a["step"].dtype == torch.int64 and b["step"].dtype == np.int64 and int(b["step"][0]) == 9


def test_legacy_like_a_safetensors_file(tmp_path) -> None:
    w = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    safetensors.numpy.save_file({"w": np.zeros((2, 3), np.float32)}, str(tmp_path / "layout.safetensors"))
    legacy = hand_snapshot(tmp_path / "legacy", {"w": (w, "")}, legacy=True)
    convert(legacy, str(tmp_path / "snap"), like=str(tmp_path / "layout.safetensors"))
    assert (tmp_path / "snap" / "w" / "meta").read_text() == meta_text((2, 3), "kFloat")
    assert (tmp_path / "snap" / "w" / "out").read_bytes() == w.tobytes()


def test_assume_float32_flat_is_an_explicit_guess(tmp_path) -> None:
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    legacy = hand_snapshot(tmp_path / "legacy", {"w": (w, "")}, legacy=True)
    convert(legacy, str(tmp_path / "w.pt"), assume_float32_flat=True)
    np.testing.assert_array_equal(torch.load(str(tmp_path / "w.pt"), weights_only=True)["w"].numpy(), w.ravel())
    odd = hand_snapshot(tmp_path / "odd", {"b": (np.arange(3, dtype=np.int8), "")}, legacy=True)
    with pytest.raises(ConversionError, match="3 bytes, not a multiple of 4"):
        convert(odd, str(tmp_path / "b.pt"), assume_float32_flat=True)


def test_rename_for_torch_uses_the_shared_mapping(tmp_path) -> None:
    values = {k: VALUES[k] for k in ("dense1-weight", "System-Train-TrainStep-train_job")}
    src = hand_snapshot(tmp_path / "snap", values)
    result = convert(src, str(tmp_path / "m.safetensors"), rename_for_torch=True)
    loaded = safetensors.numpy.load_file(str(tmp_path / "m.safetensors"))
    assert set(loaded) == {"dense1_weight", "System_Train_TrainStep_train_job"}
    assert {v.name: v.key for v in result.variables} == unique_torch_names(values)
    assert loaded["dense1_weight"].tobytes() == values["dense1-weight"][0].tobytes()


def test_explicit_formats_override_the_extension(tmp_path) -> None:
    src = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"]})
    convert(src, str(tmp_path / "model.bin"), dst_format="safetensors")
    assert set(safetensors.numpy.load_file(str(tmp_path / "model.bin"))) == {"w"}
    convert(str(tmp_path / "model.bin"), str(tmp_path / "model.ckpt"), src_format="safetensors", dst_format="pt")
    assert set(torch.load(str(tmp_path / "model.ckpt"), weights_only=True)) == {"w"}


# ---------------------------------------------------------------------------------------------- CLI


def test_cli_prints_a_summary_and_lists_with_verbose(tmp_path, capsys) -> None:
    src = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"], "b": VALUES["dense1-bias"]})
    dst = str(tmp_path / "m.safetensors")
    assert convert_cli.main([src, dst, "-v", "--rename-for-torch"]) == 0
    out = capsys.readouterr().out
    assert "converted 2 variables (40 bytes) from snapshot" in out and dst in out
    assert "w: [2, 3] float32 (24 bytes)" in out
    assert convert_cli.main([dst, str(tmp_path / "back")]) == 0
    assert files_of(tmp_path / "back") == files_of(src)


def test_cli_errors_are_one_line_with_exit_status_1(tmp_path, capsys) -> None:
    src = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"]})
    assert convert_cli.main([src, str(tmp_path / "x.npz")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("flowtorch convert-checkpoint: error: cannot tell the format of DST")
    assert "'.npz'" in err and "--to" in err
    with pytest.raises(SystemExit) as exc:
        convert_cli.main([src])
    assert exc.value.code == 2


def test_python_m_flowtorch_dispatches_the_command(tmp_path, run_py) -> None:
    src = hand_snapshot(tmp_path / "snap", {"w": VALUES["dense1-weight"]})
    proc = run_py("-m", "flowtorch", "convert-checkpoint", src, str(tmp_path / "w.pt"))
    assert proc.returncode == 0, proc.stderr
    assert "converted 1 variable (24 bytes)" in proc.stdout
    assert torch.load(str(tmp_path / "w.pt"), weights_only=True)["w"].numpy().tobytes() == _F32.tobytes()


def test_weights_only_leaves_out_the_training_s_state(tmp_path, run_py) -> None:
    w, b = VALUES["dense1-weight"], VALUES["dense1-bias"]
    trained = {"dense1-weight": w, "dense1-bias": b, "dense1-weight-momentum": w, "dense1-bias-momentum": b,
               "conv-weight": w, "conv-weight-m": w, "conv-weight-v": w,
               "System-Train-TrainStep-train_job": VALUES["System-Train-TrainStep-train_job"],
               "solo-m": b}  # "-m" of no variable "solo": a weight of its own
    src = hand_snapshot(tmp_path / "snap", trained)
    proc = run_py("-m", "flowtorch", "convert-checkpoint", "--weights-only", src, str(tmp_path / "w.safetensors"))
    assert proc.returncode == 0, proc.stderr
    kept = safetensors.numpy.load_file(str(tmp_path / "w.safetensors"))
    assert sorted(kept) == ["conv-weight", "dense1-bias", "dense1-weight", "solo-m"]
    for name, array in kept.items():
        assert array.tobytes() == trained[name][0].tobytes()
    assert "left out 5 variables" in proc.stderr
    proc = run_py("-m", "flowtorch", "convert-checkpoint", src, str(tmp_path / "all.safetensors"))
    assert len(safetensors.numpy.load_file(str(tmp_path / "all.safetensors"))) == len(trained)  # by default all
    step = trained["System-Train-TrainStep-train_job"]
    only_state = hand_snapshot(tmp_path / "state", {"System-Train-TrainStep-j": step})
    proc = run_py("-m", "flowtorch", "convert-checkpoint", "--weights-only", only_state, str(tmp_path / "n.pt"))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "holds no weights" in proc.stderr
