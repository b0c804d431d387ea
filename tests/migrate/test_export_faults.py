"""Export under faults (issue 30): a failed export leaves the previous one whole, and a bad OUTDIR is refused
before the program runs, with one line on stderr."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import safetensors.torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate import export as export_module
from flowtorch._src.migrate import export_cli

MARKER = "THE PROGRAM RAN"

# A program for the command: it prints MARKER first, so its absence shows it never ran.
PROGRAM = textwrap.dedent(f"""
    print({MARKER!r}, flush=True)
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    @flow.global_function(type="predict")
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        return flow.layers.dense(x, 2, kernel_initializer=flow.random_normal_initializer(), name="fc")

    job(np.ones((2, 3), np.float32))
""")

# The first line of a model.py that flowtorch export wrote: what makes a folder a previous export.
PREVIOUS_MODEL = '"""Job \'job\' (predict) exported from flowtorch to plain PyTorch: needs only torch.\n"""\n'


def _train_job():
    @flow.global_function(type="train")
    def train_job(x: tp.Numpy.Placeholder((4, 6)), y: tp.Numpy.Placeholder((4,), dtype=flow.int32)) -> tp.Numpy:
        logits = flow.layers.dense(x, 3, kernel_initializer=flow.random_normal_initializer(), name="fc")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
        return loss
    return train_job


def _step(job, seed: int) -> None:
    rng = np.random.default_rng(seed)
    job(rng.standard_normal((4, 6)).astype(np.float32), rng.integers(0, 3, 4).astype(np.int32))


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _previous_export(folder: Path) -> dict[str, bytes]:
    folder.mkdir()
    (folder / "model.py").write_text(PREVIOUS_MODEL)
    (folder / "model.safetensors").write_bytes(b"old weights")
    (folder / "oneflow_names.json").write_text('{"fc_weight": "fc-weight"}')
    return _contents(folder)


def _partial_then(path: str, exc: BaseException) -> None:
    with open(path, "wb") as f:
        f.write(b"\0" * 64)  # half a file on disk, then the failure
    raise exc


def _disk_full(path: str) -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


# -- a failed export leaves the previous one intact -------------------------------------------------------------------

def _fail_weights_with_enospc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safetensors.torch, "save_file",
                        lambda tensors, path, metadata=None: _partial_then(path, _disk_full(path)))


def _interrupt_optimizer_write(monkeypatch: pytest.MonkeyPatch) -> None:
    real_save = export_module.save_torch  # torch.save into memory, then the file written

    def save(obj, path, *args, **kwargs):
        if str(path).endswith("optimizer.pt"):
            _partial_then(path, KeyboardInterrupt())
        real_save(obj, path, *args, **kwargs)

    monkeypatch.setattr(export_module, "save_torch", save)


def _fail_a_move(monkeypatch: pytest.MonkeyPatch) -> None:
    real_rename = os.rename
    failed = []

    def rename(src, dst):  # the third new file fails to move in, after two have replaced their old versions
        if not failed and os.path.basename(dst) == "oneflow_names.json" and ".tmp-" in os.fspath(src):
            failed.append(dst)
            raise OSError(errno.EIO, os.strerror(errno.EIO), dst)
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)


@pytest.mark.parametrize(("fault", "raised"), [(_fail_weights_with_enospc, OSError),
                                               (_interrupt_optimizer_write, KeyboardInterrupt),
                                               (_fail_a_move, OSError)],
                         ids=["disk-full", "ctrl-c", "move-fails"])
def test_a_failed_export_leaves_the_previous_export_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           fault, raised) -> None:
    job = _train_job()
    _step(job, 0)
    out = tmp_path / "out"
    flow.export(job, out)
    before = _contents(out)
    assert sorted(before) == ["model.py", "model.safetensors", "oneflow_names.json", "optimizer.pt"]
    _step(job, 1)  # new weights, so a mixed folder would show
    fault(monkeypatch)
    with pytest.raises(raised):
        flow.export(job, out)
    monkeypatch.undo()
    assert _contents(out) == before
    assert os.listdir(tmp_path) == ["out"]  # no temporary folder left beside it
    flow.export(job, out)  # and the next export goes through
    assert _contents(out)["model.safetensors"] != before["model.safetensors"]


def test_a_failed_first_export_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = _train_job()
    _step(job, 0)
    _fail_weights_with_enospc(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        flow.export(job, tmp_path / "new" / "out")
    assert os.listdir(tmp_path) == []  # nor the parent created for it


def test_export_files_follow_the_umask(tmp_path: Path) -> None:
    job = _train_job()
    _step(job, 0)
    previous = os.umask(0o027)
    try:
        flow.export(job, tmp_path / "out")
    finally:
        os.umask(previous)
    out = tmp_path / "out"
    assert stat.S_IMODE(out.stat().st_mode) == 0o750
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in out.iterdir()} == dict.fromkeys(
        ["model.py", "model.safetensors", "oneflow_names.json", "optimizer.pt"], "0o640")


def test_a_new_export_replaces_the_previous_one_and_keeps_other_files(tmp_path: Path) -> None:
    job = _train_job()
    _step(job, 0)
    out = tmp_path / "out"
    flow.export(job, out, weights="torch")
    (out / "notes.txt").write_text("mine")
    (out / "__pycache__").mkdir()
    inode = out.stat().st_ino
    flow.export(job, out)  # safetensors now: the stale model.pt goes
    assert sorted(p.name for p in out.iterdir()) == ["__pycache__", "model.py", "model.safetensors", "notes.txt",
                                                     "oneflow_names.json", "optimizer.pt"]
    assert (out / "notes.txt").read_text() == "mine" and out.stat().st_ino == inode


def test_a_folder_that_is_not_an_export_needs_force(tmp_path: Path) -> None:
    job = _train_job()
    _step(job, 0)
    out = tmp_path / "out"
    out.mkdir()
    (out / "model.py").write_text("# the user's own model\n")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=r"holds files but no previous export .*--force"):
        flow.export(job, out)
    assert _contents(out) == {"model.py": b"# the user's own model\n", "notes.txt": b"mine"}
    flow.export(job, out, force=True)
    assert (out / "notes.txt").read_text() == "mine"
    assert json.loads((out / "oneflow_names.json").read_text()) == {"fc_weight": "fc-weight", "fc_bias": "fc-bias"}
    flow.export(job, out)  # now it holds an export: no force needed


# -- the command: OUTDIR checked before the program runs ---------------------------------------------------------------

def _bad_outdirs(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    """Each case: the arguments after SCRIPT JOB (OUTDIR first) and a piece of the expected message."""
    (tmp_path / "a_file").write_text("keep")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "others").mkdir()
    (tmp_path / "others" / "data.csv").write_text("1,2\n")
    cases = {
        "empty": ([""], "OUTDIR is empty"),
        "file": ([str(tmp_path / "a_file")], "is a regular file, not a folder"),
        "under-a-file": ([str(tmp_path / "a_file" / "out")], "cannot be created: "),
        "dangling-link": ([str(tmp_path / "dangling")], "is a dangling symbolic link, not a folder"),
        "not-an-export": ([str(tmp_path / "others")], "holds files but no previous export"),
        "program-folder": ([str(tmp_path), "--force"], "is the folder of the program"),
    }
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        cases["fifo"] = ([str(tmp_path / "fifo")], "is a named pipe (FIFO), not a folder")
    return cases


@pytest.mark.parametrize("case", ["empty", "file", "under-a-file", "dangling-link", "not-an-export", "program-folder",
                                  "fifo"])
def test_a_bad_outdir_is_refused_before_the_program_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         case: str) -> None:
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    cases = _bad_outdirs(tmp_path)
    if case not in cases:
        pytest.skip("no named pipes on this platform")
    (outdir, *options), expected = cases[case]
    listing = sorted(os.listdir(tmp_path))
    assert export_cli.main([*options, str(script), "job", outdir]) == 2
    captured = capsys.readouterr()
    assert MARKER not in captured.out
    assert captured.err.startswith("flowtorch export: error: OUTDIR") and captured.err.count("\n") == 1
    assert expected in captured.err
    assert sorted(os.listdir(tmp_path)) == listing and (tmp_path / "a_file").read_text() == "keep"


def test_outdir_a_file_is_refused_before_the_program_runs_in_a_real_process(tmp_path: Path, run_py) -> None:
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    target = tmp_path / "exported"
    target.write_text("not a folder")
    done = run_py("-m", "flowtorch", "export", str(script), "job", str(target), timeout=60)
    assert done.returncode == 2
    assert MARKER not in done.stdout
    assert done.stderr == f"flowtorch export: error: OUTDIR {str(target)!r} is a regular file, not a folder\n"
    assert target.read_text() == "not a folder"


_UNPRIVILEGED = textwrap.dedent("""
    import json, os, sys
    from flowtorch._src.migrate import export_cli

    script, locked = sys.argv[1], sys.argv[2]
    export_cli._parser().parse_args([script, "job", locked])  # argparse's lazy imports, while /root is readable
    if os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        except OSError as exc:
            print(json.dumps({"skip": f"cannot drop privileges: {exc}"}))
            sys.exit(0)
    results = {}
    for name, outdir in (("parent", os.path.join(locked, "out")), ("folder", locked)):
        results[name] = export_cli.main([script, "job", outdir])
    print(json.dumps(results))
""")


def test_an_unwritable_outdir_is_refused_before_the_program_runs(run_py) -> None:
    base = tempfile.mkdtemp()  # not under pytest's tmp_path: uid 65534 must be able to traverse it
    try:
        os.chmod(base, 0o755)
        script = os.path.join(base, "prog.py")
        Path(script).write_text(PROGRAM)
        os.chmod(script, 0o644)
        locked = os.path.join(base, "locked")
        os.mkdir(locked)
        os.chmod(locked, 0o555)
        done = run_py("-c", _UNPRIVILEGED, script, locked, timeout=60)
        assert done.returncode == 0, done.stderr
        results = json.loads(done.stdout.strip().splitlines()[-1])
        if "skip" in results:
            pytest.skip(results["skip"])
        assert results == {"parent": 2, "folder": 2}
        assert MARKER not in done.stdout
        assert done.stderr.splitlines() == [
            f"flowtorch export: error: OUTDIR {os.path.join(locked, 'out')!r} cannot be created: no permission to "
            f"write in {locked!r}",
            f"flowtorch export: error: OUTDIR {locked!r}: no permission to write in it"]
        assert os.listdir(locked) == []
    finally:
        os.chmod(os.path.join(base, "locked"), 0o755)
        shutil.rmtree(base)


# -- the command: a failed write ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("exc", "status", "message"), [
    (_disk_full("model.safetensors"), 1, "cannot write OUTDIR {out!r}, left as it was: [Errno 28] No space left"),
    (KeyboardInterrupt(), 130, "interrupted by Ctrl-C; OUTDIR {out!r} holds no partial export"),
], ids=["disk-full", "ctrl-c"])
def test_the_command_reports_a_failed_write_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, exc, status, message) -> None:
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    out = tmp_path / "out"
    before = _previous_export(out)
    monkeypatch.setattr(safetensors.torch, "save_file", lambda tensors, path, metadata=None: _partial_then(path, exc))
    try:
        assert export_cli.main([str(script), "job", str(out)]) == status
    except KeyboardInterrupt:  # escaping, it would end the whole test session
        pytest.fail("the command let KeyboardInterrupt escape")
    captured = capsys.readouterr()
    assert MARKER in captured.out  # the program ran: this failure is the write's
    assert captured.err.count("\n") == 1 and message.format(out=str(out)) in captured.err
    assert _contents(out) == before and sorted(os.listdir(tmp_path)) == ["out", "prog.py"]


class _Killed(Exception):
    """What SIGTERM raises in this test outside the command's own handling (by default it ends the process)."""


def _raise_killed(signum, frame):
    raise _Killed


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_during_the_write_leaves_the_previous_export(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    out = tmp_path / "out"
    before = _previous_export(out)

    def save_file(tensors, path, metadata=None):  # the weights half written when SIGTERM comes
        with open(path, "wb") as f:
            f.write(b"partial")
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # the signal's handler raises here

    monkeypatch.setattr(safetensors.torch, "save_file", save_file)
    previous = signal.signal(signal.SIGTERM, _raise_killed)
    try:
        status = export_cli.main([str(script), "job", str(out)])
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert status == 128 + signal.SIGTERM
    message = f"flowtorch export: interrupted by SIGTERM; OUTDIR {str(out)!r} holds no partial export\n"
    assert capsys.readouterr().err == message
    assert _contents(out) == before and sorted(os.listdir(tmp_path)) == ["out", "prog.py"]
