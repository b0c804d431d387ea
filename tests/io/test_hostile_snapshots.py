"""Hostile snapshot directories (issue 11): special files, names and links leading out of the snapshot,
and saving into an existing directory that must be kept as it is."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap

import numpy as np
import pytest
from helpers.snapshots import assert_unchanged, hand_write, values

import flowtorch as flow
import flowtorch.checkpoint  # makes flow.checkpoint available, as `import oneflow` does
import flowtorch.train
import flowtorch.typing as tp
from flowtorch._src import errors
from flowtorch._src.errors import UnsafePathError
from flowtorch._src.initializers import constant_initializer
from flowtorch._src.io import snapshot as snap
from flowtorch._src.io.checkpoint import load_variables

WEIGHT_META = "shape {\n  dim: 3\n  dim: 2\n}\ndata_type: kFloat\n"
FILE_WEIGHT = np.full((3, 2), 4, np.float32)
NOT_REGULAR = "it is a named pipe (FIFO), not a regular file"


def _declare_affine(*extra: str):
    """x @ weight (+ bias), initialised to values no snapshot below contains; ``extra`` adds (2,) variables."""

    @flow.global_function()
    def affine(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        y = flow.matmul(x, flow.get_variable("weight", shape=(3, 2), dtype=flow.float32,
                                             initializer=constant_initializer(-1)))
        for i, name in enumerate(extra):
            y = y + flow.get_variable(name, shape=(2,), dtype=flow.float32, initializer=constant_initializer(-2 - i))
        return y

    return affine


def _tree(path) -> list[str]:
    """Every path under ``path``, relative to it, links not followed."""
    found = []
    for dirpath, dirnames, filenames in os.walk(path):
        found += [os.path.relpath(os.path.join(dirpath, n), path) for n in dirnames + filenames]
    return sorted(found)


# ------------------------------------------------------------------------------------------- special files

_FIFO_SCRIPT = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import flowtorch as flow
    import flowtorch.checkpoint, flowtorch.train
    import flowtorch.typing as tp
    from flowtorch._src.initializers import constant_initializer
    from flowtorch._src.io.checkpoint import FileBackendVariableBlob, get_all_variables
    from flowtorch._src.io.snapshot import is_variable_dir

    root = sys.argv[1]
    flow.config.enable_legacy_model_io(True)

    @flow.global_function()
    def affine(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("weight", shape=(3, 2), dtype=flow.float32, initializer=constant_initializer(-1))
        return flow.matmul(x, w)

    results = {}

    def attempt(case, fn):
        try:
            fn()
        except Exception as exc:
            results[case] = [type(exc).__name__, str(exc), isinstance(exc, AssertionError)]
        else:
            results[case] = None

    at = lambda *parts: os.path.join(root, *parts)
    attempt("get_meta", lambda: flow.checkpoint.get(at("fifo_meta")))
    attempt("get_out", lambda: flow.checkpoint.get(at("fifo_out")))
    attempt("get_var_dir", lambda: flow.checkpoint.get(at("fifo_out", "weight")))
    attempt("blob", lambda: FileBackendVariableBlob(at("fifo_out", "weight")))
    attempt("is_variable_dir", lambda: is_variable_dir(at("fifo_out", "weight")))
    swapped = flow.checkpoint.get(at("swapped"))["weight"]
    os.unlink(at("swapped", "weight", "out"))
    os.mkfifo(at("swapped", "weight", "out"))
    attempt("numpy_after_swap", swapped.numpy)
    before = get_all_variables()["weight"].numpy()
    attempt("legacy_out", lambda: flow.train.CheckPoint().load(at("fifo_out")))
    attempt("legacy_meta", lambda: flow.train.CheckPoint().load(at("fifo_meta")))
    results["unchanged"] = bool((get_all_variables()["weight"].numpy() == before).all())
    print(json.dumps(results))
""")


def test_named_pipes_as_meta_or_out_are_refused_without_blocking(tmp_path, run_py) -> None:
    fifo_meta = hand_write(tmp_path / "fifo_meta", "weight", FILE_WEIGHT, meta=None)
    os.mkfifo(os.path.join(fifo_meta, "meta"))
    fifo_out = os.path.join(tmp_path, "fifo_out", "weight")
    os.makedirs(fifo_out)
    os.mkfifo(os.path.join(fifo_out, "out"))
    with open(os.path.join(fifo_out, "meta"), "w") as f:
        f.write(WEIGHT_META)
    hand_write(tmp_path / "swapped", "weight", FILE_WEIGHT, WEIGHT_META)

    try:  # nothing ever writes to the pipes: a blocking open() would hang until the timeout
        proc = run_py("-c", _FIFO_SCRIPT, str(tmp_path), timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("reading a snapshot holding named pipes did not return within 120 s")
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.strip().splitlines()[-1])

    meta_path = os.path.join(fifo_meta, "meta")
    assert results["get_meta"] == [
        "SnapshotMetaError", f"variable 'weight': cannot read meta file {meta_path}: {NOT_REGULAR}", True]
    out_error = ["SnapshotError", f"variable 'weight': cannot read data file {fifo_out}/out: {NOT_REGULAR}", True]
    for case in ("get_out", "get_var_dir", "blob", "is_variable_dir", "legacy_out"):
        assert results[case] == out_error, case
    swapped_out = os.path.join(tmp_path, "swapped", "weight", "out")
    assert results["numpy_after_swap"] == [
        "SnapshotError", f"variable 'weight': cannot read data file {swapped_out}: {NOT_REGULAR}", True]
    assert results["legacy_meta"] == results["get_meta"]
    assert results["unchanged"] is True


def test_a_directory_where_a_file_belongs(tmp_path) -> None:
    var_dir = hand_write(tmp_path / "snap", "weight", FILE_WEIGHT, meta=None)
    os.mkdir(os.path.join(var_dir, "meta"))
    _declare_affine()
    with pytest.raises(errors.SnapshotMetaError, match="^" + re.escape(
            f"variable 'weight': cannot read meta file {var_dir}/meta: it is a directory, not a regular file")):
        flow.checkpoint.get(str(tmp_path / "snap"))

    # An `out` directory is no variable's data: it is a variable named "out" of a snapshot.
    flow.checkpoint.save(str(tmp_path / "named_out"), {"out": FILE_WEIGHT})
    blobs = flow.checkpoint.get(str(tmp_path / "named_out"))
    assert list(blobs) == ["out"]
    np.testing.assert_array_equal(blobs["out"].numpy(), FILE_WEIGHT)


# ------------------------------------------------------------------------------------------- confinement


def test_legacy_load_refuses_a_variable_name_leading_out_of_the_snapshot(tmp_path, monkeypatch) -> None:
    root = tmp_path / "snap"
    hand_write(root, "weight", FILE_WEIGHT, meta=None)
    open(root / "snapshot_done", "w").close()
    hand_write(tmp_path, "victim", np.full(2, 7, np.float32), meta=None)  # what snap/../victim/out reads

    flow.config.enable_legacy_model_io(True)
    _declare_affine("../victim")
    checkpoint = flow.train.CheckPoint()
    checkpoint.init()
    before = values()
    touched: list[str] = []
    for fn in ("open", "stat"):
        real = getattr(os, fn)
        monkeypatch.setattr(os, fn, lambda path, *a, _real=real, **k: (touched.append(str(path)),
                                                                        _real(path, *a, **k))[1])
    with pytest.raises(UnsafePathError) as info:
        checkpoint.load(str(root))
    monkeypatch.undo()

    assert str(info.value) == (f"flow.train.CheckPoint.load: invalid variable name '../victim' for snapshot "
                               f"directory {root}: it contains the path separator '/' (a variable name must be "
                               "a single path component)")
    assert isinstance(info.value, AssertionError) and isinstance(info.value, ValueError)
    assert not [p for p in touched if "victim" in p]
    assert_unchanged(before)  # weight's file was valid, but nothing is assigned


def _outside_link(tmp_path) -> tuple[str, str]:
    """A snapshot whose `weight` entry is a symbolic link to a valid variable directory outside it."""
    outside = hand_write(tmp_path / "outside", "weight", FILE_WEIGHT, WEIGHT_META)
    root = str(tmp_path / "snap")
    os.makedirs(root)
    os.symlink(outside, os.path.join(root, "weight"), target_is_directory=True)
    return root, outside


def test_a_linked_variable_directory_outside_the_snapshot_is_refused(tmp_path) -> None:
    root, outside = _outside_link(tmp_path)
    outside_files = _tree(tmp_path / "outside")
    expected = (f"variable 'weight' of snapshot directory {root} is refused: {root}/weight resolves to "
                f"{os.path.realpath(outside)}, which is not inside {os.path.realpath(root)} (not followed)")
    _declare_affine()
    before = values()
    with pytest.raises(UnsafePathError) as info:
        flow.checkpoint.get(root)
    assert str(info.value) == expected
    assert_unchanged(before)
    assert _tree(tmp_path / "outside") == outside_files

    flow.clear_default_session()
    flow.config.enable_legacy_model_io(True)
    _declare_affine()
    before = values()
    with pytest.raises(UnsafePathError) as info:
        flow.train.CheckPoint().load(root)
    assert str(info.value) == f"flow.train.CheckPoint.load: {expected}"
    assert_unchanged(before)


def test_a_linked_data_file_outside_the_snapshot_is_refused_links_inside_are_followed(tmp_path) -> None:
    root = tmp_path / "snap"
    var_dir = hand_write(root, "weight", np.zeros((3, 2), np.float32), WEIGHT_META)
    os.symlink("weight", root / "alias", target_is_directory=True)  # inside the snapshot: fine
    _declare_affine()
    blobs = flow.checkpoint.get(str(root))
    assert sorted(blobs) == ["alias", "weight"]
    np.testing.assert_array_equal(blobs["alias"].numpy(), np.zeros((3, 2)))

    os.unlink(root / "alias")
    outside = hand_write(tmp_path / "outside", "weight", FILE_WEIGHT, WEIGHT_META)
    os.unlink(os.path.join(var_dir, "out"))
    os.symlink(os.path.join(outside, "out"), os.path.join(var_dir, "out"))
    with pytest.raises(UnsafePathError, match="^" + re.escape(
            f"variable 'weight': data file refused: {var_dir}/out resolves to "
            f"{os.path.realpath(outside)}/out, which is not inside {os.path.realpath(root)} (not followed)")):
        flow.checkpoint.get(str(root))


@pytest.mark.parametrize("name, why", [("../x", "it contains the path separator '/'"),
                                       ("..", "'..' names the parent directory"), ("", "it is empty")])
def test_save_refuses_names_leading_out_and_creates_nothing(tmp_path, name, why) -> None:
    _declare_affine()
    target = tmp_path / "snap"
    message = re.escape(f"invalid variable name {name!r} for snapshot directory {target}: {why}")
    with pytest.raises(ValueError, match=message):
        flow.checkpoint.save(str(target), {"weight": FILE_WEIGHT, name: np.ones(2, np.float32)})
    assert _tree(tmp_path) == []
    target.mkdir()
    with pytest.raises(UnsafePathError, match=message):
        flow.checkpoint.save(str(target), {"weight": FILE_WEIGHT, name: np.ones(2, np.float32)})
    assert _tree(tmp_path) == ["snap"]


def test_save_of_a_session_variable_named_dot_dot_slash_creates_nothing(tmp_path) -> None:
    flow.config.enable_legacy_model_io(True)
    _declare_affine("../x")
    target = tmp_path / "deep" / "snap"
    with pytest.raises(UnsafePathError, match=re.escape(f"invalid variable name '../x' for snapshot directory "
                                                        f"{target}: it contains the path separator '/'")):
        flow.train.CheckPoint().save(str(target))
    assert _tree(tmp_path) == []


# ------------------------------------------------------------------------------------------- existing directory


@pytest.mark.parametrize("legacy", [False, True])
def test_save_into_an_existing_empty_directory_keeps_it(tmp_path, legacy) -> None:
    flow.config.enable_legacy_model_io(legacy)
    _declare_affine("bias")
    target = tmp_path / "ckpt"
    target.mkdir()
    os.chmod(target, 0o751)
    st = os.stat(target)
    before = values()
    if legacy:
        flow.train.CheckPoint().save(str(target))
    else:
        flow.checkpoint.save(str(target))

    after = os.stat(target)
    assert (after.st_ino, after.st_dev, after.st_mode, after.st_uid) == (st.st_ino, st.st_dev, st.st_mode, st.st_uid)
    assert sorted(os.listdir(target)) == ["bias", "snapshot_done", "weight"]
    assert _tree(tmp_path) == sorted(["ckpt", *(os.path.join("ckpt", p) for p in _tree(target))])

    flow.clear_default_session()
    _declare_affine("bias")
    load_variables({"weight": np.zeros((3, 2), np.float32), "bias": np.zeros(2, np.float32)})
    load_variables(flow.checkpoint.get(str(target)))
    assert_unchanged(before)


def test_failure_while_moving_into_an_existing_directory_leaves_it_empty(tmp_path, monkeypatch) -> None:
    target = tmp_path / "ckpt"
    target.mkdir()
    ino = os.stat(target).st_ino
    real_replace = os.replace
    calls: list[str] = []

    def failing_second_move(src, dst):
        calls.append(os.path.basename(dst))
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_second_move)
    with pytest.raises(OSError, match="No space left"):
        snap.write_snapshot(str(target), {"a": np.ones(3, np.float32), "b": np.zeros(2, np.int64)})
    monkeypatch.undo()
    assert calls == ["a", "b"]
    assert _tree(tmp_path) == ["ckpt"] and os.stat(target).st_ino == ino
    snap.write_snapshot(str(target), {"a": np.ones(3, np.float32)})
    assert sorted(os.listdir(target)) == ["a", "snapshot_done"]


_PERMISSION_SCRIPT = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import flowtorch as flow
    import flowtorch.checkpoint

    base = sys.argv[1]
    # Imports and the session start happen before privileges are dropped (the interpreter lives under /root).
    flow.checkpoint.save(os.path.join(base, "warmup"), {"v": np.ones(2, np.float32)})
    if os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        except OSError as exc:
            print(json.dumps({"skip": f"cannot drop privileges: {exc}"}))
            sys.exit(0)
    results = {"euid": os.geteuid()}
    try:
        flow.checkpoint.save(os.path.join(base, "locked"), {"v": np.ones(2, np.float32)})
    except PermissionError as exc:
        results["locked"] = [exc.errno, exc.filename, str(exc)]
    flow.checkpoint.save(os.path.join(base, "ro_parent", "mine"), {"v": np.arange(3, dtype=np.float32)})
    print(json.dumps(results))
""")


def test_save_into_an_unwritable_existing_directory_is_a_permission_error(run_py) -> None:
    base = tempfile.mkdtemp()
    try:
        os.chmod(base, 0o755)  # uid 65534 must be able to traverse it
        locked = os.path.join(base, "locked")
        os.mkdir(locked)
        os.chmod(locked, 0o555)
        mine = os.path.join(base, "ro_parent", "mine")
        os.makedirs(mine)
        if os.geteuid() == 0:
            os.chown(mine, 65534, 65534)
        os.chmod(mine, 0o700)
        os.chmod(os.path.dirname(mine), 0o555)  # a writable target needs no writable parent
        locked_st, mine_st = os.stat(locked), os.stat(mine)

        proc = run_py("-c", _PERMISSION_SCRIPT, base, timeout=120)
        assert proc.returncode == 0, proc.stderr
        results = json.loads(proc.stdout.strip().splitlines()[-1])
        if "skip" in results:
            pytest.skip(results["skip"])
        assert results["euid"] != 0
        message = f"[Errno 13] Permission denied: cannot write into the directory: '{locked}'"
        assert results["locked"] == [13, locked, message]
        assert os.listdir(locked) == [] and os.stat(locked).st_mode == locked_st.st_mode
        assert os.stat(locked).st_ino == locked_st.st_ino
        assert sorted(os.listdir(os.path.dirname(mine))) == ["mine"]
        assert sorted(os.listdir(mine)) == ["snapshot_done", "v"]
        st = os.stat(mine)
        assert (st.st_ino, st.st_mode, st.st_uid) == (mine_st.st_ino, mine_st.st_mode, mine_st.st_uid)
        np.testing.assert_array_equal(snap.read_snapshot(mine)["v"].numpy(), np.arange(3))
    finally:
        for dirpath, _, _ in os.walk(base):
            os.chmod(dirpath, 0o755)
        shutil.rmtree(base)

