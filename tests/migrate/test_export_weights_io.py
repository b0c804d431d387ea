"""The weights files of an export: model.py reads them with safetensors when it is installed, else with its own
reader, which refuses what safetensors refuses (a header longer than its limit, offsets outside the data); and
a write that fails, a full disk included, is one line from the commands."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pytest
import safetensors
import safetensors.torch
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate import file_writes

PROGRAM = textwrap.dedent("""
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.dense(x, 2, kernel_initializer=flow.random_normal_initializer(), name="fc")

    job(np.ones((2, 3), np.float32))
""")


@pytest.fixture(scope="module")
def model_py(tmp_path_factory):
    """The model.py module of a small export, imported from its file."""
    out = tmp_path_factory.mktemp("export") / "out"

    @flow.global_function(type="predict")
    def small_job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.dense(x, 2, kernel_initializer=flow.random_normal_initializer(), name="fc_io")

    small_job(np.ones((2, 3), np.float32))
    flow.export(small_job, out)
    spec = importlib.util.spec_from_file_location(f"model_{uuid.uuid4().hex}", out / "model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _file(path: Path, header: bytes | dict, data: bytes = b"", length: int | None = None) -> str:
    if length == -1:  # a file shorter than the header's length field
        path.write_bytes(b"abc")
        return str(path)
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes((len(raw) if length is None else length).to_bytes(8, "little") + raw + data)
    return str(path)


def test_the_own_reader_reads_what_safetensors_writes(model_py, tmp_path):
    tensors = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "b": torch.tensor([1, -2], dtype=torch.int64),
               "e": torch.zeros((0, 4), dtype=torch.float16), "h": torch.tensor([0.5], dtype=torch.bfloat16)}
    path = str(tmp_path / "m.safetensors")
    safetensors.torch.save_file(tensors, path, metadata={"k": "v"})
    mine, theirs = model_py.read_safetensors(path), safetensors.torch.load_file(path)
    assert sorted(mine) == sorted(theirs) == sorted(tensors)
    for name, tensor in tensors.items():
        assert mine[name].dtype == theirs[name].dtype == tensor.dtype and torch.equal(mine[name], theirs[name])


F32 = {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}


@pytest.mark.parametrize(("header", "data", "length", "message"), [
    (b"{}", b"", 2**62, f"header of {2**62} bytes (at most 100000000)"),
    (b"{}", b"", 100_000_001, "header of 100000001 bytes (at most 100000000)"),
    (b"", b"", None, "its 0-byte header is no JSON object"),
    (b"{}", b"", 50, "its 50-byte header is no JSON object"),  # the file ends before the header does
    (b"[1, 2]", b"", None, "its 6-byte header is no JSON object"),
    ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}}, bytes(8), None, "does not describe 8 bytes"),
    ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, bytes(8), None, "does not describe 8 bytes"),
    ({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}, bytes(8), None, "does not describe 8 bytes"),
    ({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, bytes(8), None, "does not describe 8 bytes"),
    ({"w": {"dtype": "X9", "shape": [2], "data_offsets": [0, 8]}}, bytes(8), None, "does not describe 8 bytes"),
    ({"w": {"dtype": "F32", "shape": [2]}}, bytes(8), None, "does not describe 8 bytes"),
    (F32, bytes(12), None, "do not cover its 12 bytes of data once"),
    ({**F32, "v": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, bytes(8), None, "do not cover"),
    (b"", b"", -1, "3 bytes, fewer than its header's length"),
], ids=["2**62", "limit+1", "empty", "short", "list", "past-end", "shifted", "shape", "negative", "dtype",
        "no-offsets", "gap", "overlap", "no-length"])
def test_the_own_reader_refuses_what_safetensors_refuses(model_py, tmp_path, header, data, length, message):
    path = _file(tmp_path / "bad.safetensors", header, data, length)
    with pytest.raises(ValueError) as exc:
        model_py.read_safetensors(path)
    assert str(exc.value).startswith(f"{path}: ") and message in str(exc.value)
    with pytest.raises(Exception):  # noqa: B017 - safetensors refuses it too (its own error types)
        safetensors.torch.load_file(path)


def test_read_weights_uses_safetensors_when_installed_else_its_own_reader(model_py, tmp_path, monkeypatch):
    path = _file(tmp_path / "big.safetensors", b"{}", b"", 2**62)
    with pytest.raises(safetensors.SafetensorError):  # safetensors' own refusal: it read the file
        model_py.read_weights(path)
    monkeypatch.setitem(sys.modules, "safetensors.torch", None)  # as if not installed
    with pytest.raises(ValueError, match="at most 100000000"):
        model_py.read_weights(path)


def test_a_writer_s_error_number_becomes_an_os_error():
    rust = safetensors.SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")
    exc = file_writes.as_os_error(rust, "m.safetensors")
    assert (exc.errno, str(exc)) == (errno.ENOSPC, "[Errno 28] No space left on device: 'm.safetensors'")
    assert file_writes.as_os_error(safetensors.SafetensorError("odd"), "m").errno == errno.EIO


def test_a_failed_safetensors_write_is_an_os_error(tmp_path):
    def full(tensors, path, metadata=None):
        raise safetensors.SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")

    with pytest.raises(OSError) as exc:
        file_writes.save_safetensors(full, {"w": torch.ones(2)}, str(tmp_path / "m.safetensors"))
    assert exc.value.errno == errno.ENOSPC


@pytest.fixture
def full_disk(tmp_path):
    """A folder on a 64 KiB tmpfs (root only; skipped where mounting is not allowed)."""
    folder = tmp_path / "small"
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                                           capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize("weights", ["safetensors", "torch"])
def test_export_onto_a_full_disk_is_one_line(weights, full_disk, tmp_path, run_py):
    (tmp_path / "prog.py").write_text(PROGRAM.replace("(2, 3)", "(2, 30000)"))  # 240 KB of weights
    out = full_disk / "out"
    proc = run_py("-m", "flowtorch", "export", "--weights", weights, "prog.py", "job", str(out), cwd=tmp_path)
    assert proc.returncode == 1
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("flowtorch: flowtorch export: ")
             and not ln.startswith("flowtorch export: JOB") and not ln.startswith("flowtorch export: running")
             and " ran in " not in ln and "exporting job" not in ln and "as its source shows" not in ln]
    assert len(lines) == 1 and "No space left on device" in lines[0], proc.stderr
    assert lines[0].startswith(f"flowtorch export: error: cannot write OUTDIR {str(out)!r}, left as it was: ")
    assert os.listdir(full_disk) == []


@pytest.mark.parametrize("name", ["w.safetensors", "w.pt"])
def test_convert_onto_a_full_disk_is_one_line(name, full_disk, tmp_path, run_py):
    src = tmp_path / "big.safetensors"
    safetensors.torch.save_file({"w": torch.ones(60000)}, str(src))
    proc = run_py("-m", "flowtorch", "convert-checkpoint", str(src), str(full_disk / name))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("flowtorch convert-checkpoint: error: ") and "No space left" in proc.stderr
    assert os.listdir(full_disk) == []
