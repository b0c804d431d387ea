"""``flowtorch check``: the symbols a program uses, found statically, with line numbers and statuses."""

from __future__ import annotations

import json
import os
import re
import socket
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from flowtorch._src.migrate.check import check_paths, check_source
from flowtorch._src.migrate.check_cli import main


def found(source: str) -> list[tuple[int, str]]:
    return [(u.line, u.symbol) for u in check_source(textwrap.dedent(source), "t.py")]


def statuses(source: str) -> dict[str, str]:
    return {u.symbol: u.status for u in check_source(textwrap.dedent(source), "t.py")}


def reference(path: Path) -> list[tuple[int, str]]:
    """An independent reading of a simple OneFlow script: every ``flow.a.b`` / ``tp.a.b`` chain, by regex."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        code = line.split("#")[0]
        if code.lstrip().startswith("import "):
            continue
        out += [(number, m) for m in re.findall(r"(?<![\w.])flow\.([A-Za-z_][\w.]*)", code)]
        out += [(number, "tp." + m) for m in re.findall(r"(?<![\w.])tp\.([A-Za-z_][\w.]*)", code)]
    return out


# -- the project's example programs ---------------------------------------------------------------------------

def test_relu_watch_example(root: Path) -> None:
    path = root / "examples" / "relu_watch.py"
    uses = check_paths([path]).uses
    assert sorted((u.line, u.symbol) for u in uses) == sorted(reference(path))
    assert {u.symbol for u in uses} >= {"global_function", "tp.Numpy.Placeholder", "nn.relu", "watch"}
    assert all(u.status != "missing" for u in uses)


def test_mlp_mnist_example(root: Path) -> None:
    path = root / "examples" / "mlp_mnist.py"
    uses = check_paths([path]).uses
    text = path.read_text().splitlines()
    minimize = next(i for i, line in enumerate(text, 1) if ".minimize(" in line)
    # the regex sees `flow.optimizer.SGD(...)`, not the method called on what it made
    expected = reference(path) + [(minimize, "optimizer.SGD().minimize")]
    assert sorted((u.line, u.symbol) for u in uses) == sorted(expected)
    by_symbol = {u.symbol: u for u in uses}
    assert by_symbol["layers.dense"].torch == "`torch.nn.Linear`"
    assert by_symbol["scope.placement"].status == "partial" and by_symbol["scope.placement"].notes
    assert by_symbol["optimizer.SGD"].status == "supported" and by_symbol["optimizer.SGD"].surveyed


def test_examples_folder_cli(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(root / "examples")]) == 0
    out = capsys.readouterr().out
    files = len([p for p in (root / "examples").rglob("*.py") if "__pycache__" not in p.parts])
    assert "== missing" not in out
    assert re.search(rf"flowtorch check: {files} file\(s\), \d+ OneFlow symbol\(s\) in \d+ use\(s\): \d+ supported, "
                     r"\d+ partial, 0 missing$", out, re.MULTILINE)
    assert out.startswith("flowtorch check: ")  # the summary leads
    assert "  layers.dense\n" not in out and "supported symbol(s) not listed: --all lists them" in out
    assert main(["--all", str(root / "examples")]) == 0
    out = capsys.readouterr().out
    assert "  layers.dense\n" in out and "PyTorch: `torch.nn.Linear`" in out


# -- import styles ------------------------------------------------------------------------------------------------

def test_v01_style() -> None:
    assert found("""\
        import oneflow as flow

        func_config = flow.FunctionConfig()
        func_config.default_data_type(flow.float)
        func_config.train.primary_lr(0.1)
        func_config.train.model_update_conf(dict(naive_conf={}))

        @flow.global_function(func_config)
        def train_job(x=flow.FixedTensorDef((2, 4))):
            loss = flow.layers.dense(x, 1)
            flow.losses.add_loss(loss)
            return loss

        check_point = flow.train.CheckPoint()
        check_point.init()
        blob = flow.data.decode_ofrecord("d", (flow.data.BlobConf("x", (4,), flow.float, flow.data.RawCodec()),))
        """) == [(3, "FunctionConfig"), (4, "function_config().default_data_type"), (4, "float"),
                 (5, "function_config().train.primary_lr"), (6, "function_config().train.model_update_conf"),
                 (8, "global_function"), (9, "FixedTensorDef"), (10, "layers.dense"), (11, "losses.add_loss"),
                 (14, "train.CheckPoint"), (15, "train.CheckPoint().init"), (16, "data.decode_ofrecord"),
                 (16, "data.BlobConf"), (16, "float"), (16, "data.RawCodec")]


def test_v02_style_and_aliasing() -> None:
    assert found("""\
        import oneflow.typing as tp
        from oneflow import layers as L
        from oneflow import typing as T
        from oneflow.layers import dense
        from oneflow.compatible import single_client as flow
        import oneflow.compatible.single_client as sc
        import oneflow
        import flowtorch as ft

        @flow.global_function(type="predict")
        def job(x: tp.Numpy.Placeholder((2, 3)), y: T.ListNumpy.Placeholder((2,))) -> tp.Numpy:
            cfg = flow.function_config()
            cfg.default_logical_view(flow.scope.consistent_view())
            return L.dense(x, 4) + dense(x, 4) + sc.nn.relu(x) + oneflow.math.tanh(x) + ft.nn.softmax(x)
        """) == [(4, "layers.dense"), (10, "global_function"), (11, "tp.Numpy.Placeholder"),
                 (11, "tp.ListNumpy.Placeholder"), (11, "tp.Numpy"), (12, "function_config"),
                 (13, "function_config().default_logical_view"), (13, "scope.consistent_view"), (14, "layers.dense"),
                 (14, "layers.dense"), (14, "nn.relu"), (14, "math.tanh"), (14, "nn.softmax")]


def test_oneflow_api_core_protobufs_star_import_and_blob_methods() -> None:
    assert found("""\
        import oneflow_api
        import oneflow.core.record.record_pb2 as ofrecord
        from oneflow import *

        def f(x: oneflow_api.BlobDesc):
            y = layers.dense(x, 3)
            return y.shape, reshape(y, (3,)).with_distribute(distribute.split(0))

        record = ofrecord.OFRecord()
        """) == [(5, "oneflow_api.BlobDesc"), (6, "layers.dense"), (7, "Blob.shape"), (7, "reshape"),
                 (7, "Blob.with_distribute"), (7, "distribute.split"), (9, "core.record.record_pb2.OFRecord")]


def test_method_chains_and_multiline_builders() -> None:
    assert found("""\
        import oneflow as flow
        out = (flow.user_op_builder("relu")
               .Op("relu")
               .Input("in", [1])
               .Output("out")
               .Build()
               .InferAndTryRun()
               .RemoteBlobList()[0])
        flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(out)
        """) == [(2, "user_op_builder"), (3, "user_op_builder().Op"), (4, "user_op_builder().Input"),
                 (5, "user_op_builder().Output"), (6, "user_op_builder().Build"),
                 (7, "user_op_builder().InferAndTryRun"), (8, "user_op_builder().RemoteBlobList"),
                 (9, "optimizer.Adam"), (9, "optimizer.PiecewiseConstantScheduler"), (9, "optimizer.Adam().minimize")]


def test_scopes_shadowing_and_late_bindings() -> None:
    # function bodies run after the module's statements: they see `cfg`, bound below them
    assert found("""\
        import oneflow as flow
        from oneflow import nn

        def late():
            return cfg.default_data_type(flow.float)

        cfg = flow.function_config()

        def shadowed(flow):
            return flow.nn.relu(1)

        def local_import():
            import torch.nn as nn
            for flow in range(3):
                pass
            return nn.ReLU(), flow.nn

        class Model(flow.unittest.TestCase):
            nn = None

            def forward(self, x):
                return nn.relu(x)
        """) == [(5, "function_config().default_data_type"), (5, "float"), (7, "function_config"),
                 (18, "unittest.TestCase"), (22, "nn.relu")]
    # module statements in order: a rebound name is no longer OneFlow's
    assert found("""\
        import oneflow as flow
        flow.nn.relu(1)
        flow = None
        flow.nn.relu(1)
        """) == [(2, "nn.relu")]


def test_plain_python_and_torch_report_nothing() -> None:
    assert found("""\
        import torch
        import numpy as np
        from torch import nn
        flow = None
        nn.Linear(3, 4)(torch.ones(3)).relu()
        np.zeros(3).shape
        """) == []


# -- statuses, missing symbols, exit status -----------------------------------------------------------------------

MISSING_SCRIPT = """\
import oneflow as flow
from oneflow.config import load_library_now

flow.config.load_library("custom_op.so")
parts = flow.experimental.dynamic_binary_split(None)
flow.deprecated.delete_worker_by_bootstrap()
flow.math.no_such_op(1)
flow.nn.relu(1)
"""


def test_missing_symbols_are_named_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "uses_missing.py"
    script.write_text(MISSING_SCRIPT)
    assert main([str(script)]) == 1
    out = capsys.readouterr().out
    missing_part = out.split("== missing")[1].split("\n== ")[0]
    for symbol, line in [("config.load_library", 4), ("experimental.dynamic_binary_split", 5),
                         ("deprecated.delete_worker_by_bootstrap", 6), ("math.no_such_op", 7),
                         ("config.load_library_now", 2)]:
        entry = re.search(rf"^  {re.escape(symbol)}\b.*\n(?:    .*\n)*?    used at: (.*)$", missing_part, re.MULTILINE)
        assert entry is not None and entry[1] == f"{script}:{line}", symbol
    assert "PyTorch: `torch.ops.load_library`" in out
    assert "nn.relu" not in missing_part
    assert re.search(r"\b5 missing\b", out)
    report = statuses(MISSING_SCRIPT)
    assert report["nn.relu"] == "supported" and report["config.load_library"] == "missing"


def test_statuses_and_not_surveyed_names() -> None:
    uses = {u.symbol: u for u in check_source("import oneflow as flow\nflow.math.reduce_max(1)\n"
                                              "flow.config.collective_boxing.nccl_enable_all_to_all(True)\n"
                                              "flow.image_resize(1)\n", "t.py")}
    assert (uses["math.reduce_max"].status, uses["math.reduce_max"].surveyed) == ("supported", False)
    assert uses["config.collective_boxing.nccl_enable_all_to_all"].status == "partial"
    # an alias shares its row
    assert (uses["image_resize"].status, uses["image_resize"].surveyed, uses["image_resize"].notes) == (
        "supported", True, "see `image.Resize`")


def test_a_script_that_runs_under_flowtorch_has_nothing_missing(tmp_path: Path, run_py) -> None:
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent("""\
        import numpy as np
        import oneflow as flow
        import oneflow.typing as tp

        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((4,), dtype=flow.float)) -> tp.Numpy:
            return flow.math.reduce_sum(flow.nn.relu(x) * 2.0, axis=0)

        print(job(np.array([-1.0, 2.0, -3.0, 4.0], np.float32)).tolist())
        """))
    ran = run_py("-m", "flowtorch", str(script))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout.strip().splitlines()[-1]) == pytest.approx(
        [float(np.maximum([-1.0, 2.0, -3.0, 4.0], 0).sum() * 2)])
    checked = run_py("-m", "flowtorch", "check", "--json", str(script))
    assert checked.returncode == 0, checked.stderr
    report = json.loads(checked.stdout)
    assert report["summary"]["missing"] == 0 and report["exit_status"] == 0
    assert {s["symbol"] for s in report["symbols"]} == {
        "global_function", "tp.Numpy.Placeholder", "float", "tp.Numpy", "math.reduce_sum", "nn.relu"}


# -- the report's forms ---------------------------------------------------------------------------------------------

def test_json_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.py").write_text(MISSING_SCRIPT)
    (tmp_path / "b.py").write_text("import oneflow as flow\nflow.layers.dense(1, 2)\nflow.layers.dense(1, 2)\n")
    assert main(["--json", str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"version", "exit_status", "summary", "files", "symbols", "uses", "errors", "skipped",
                           "jobs", "dynamic_jobs"}
    assert report["version"] == 1 and report["exit_status"] == 1 and report["errors"] == report["skipped"] == []
    assert report["files"] == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
    for use in report["uses"]:
        assert set(use) == {"file", "line", "column", "symbol", "status", "surveyed"}
    for symbol in report["symbols"]:
        assert set(symbol) == {"symbol", "status", "surveyed", "notes", "torch", "uses"}
    dense = next(s for s in report["symbols"] if s["symbol"] == "layers.dense")
    # the column (1-based) is that of the symbol's last name: `dense` in `flow.layers.dense`
    assert dense["uses"] == [{"file": str(tmp_path / "b.py"), "line": 2, "column": 13},
                             {"file": str(tmp_path / "b.py"), "line": 3, "column": 13}]
    assert dense["torch"] == "`torch.nn.Linear`" and dense["status"] == "supported" and dense["surveyed"]
    summary = report["summary"]
    assert summary["files"] == 2 and summary["uses"] == len(report["uses"])
    assert summary["symbols"] == len(report["symbols"]) == summary["supported"] + summary["partial"] + summary[
        "missing"]
    assert summary["missing"] == sum(s["status"] == "missing" for s in report["symbols"]) == 5


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope.py")]) == 2
    assert "nope.py" in capsys.readouterr().err
    assert main([]) == 2
    assert "SCRIPT_OR_DIR" in capsys.readouterr().err
    assert main(["--bogus", str(tmp_path)]) == 2
    # the maintainer's steps are scripts/write_compat.py and scripts/write_names_index.py, not options here
    assert main(["--write-compat", str(tmp_path / "compat.md")]) == 2
    assert main(["--write-index"]) == 2
    assert not (tmp_path / "compat.md").exists()
    assert main(["--help"]) == 0
    assert "--write" not in capsys.readouterr().out


def test_write_compat_script_writes_the_generated_doc(tmp_path: Path, root: Path, run_py) -> None:
    script = str(root / "scripts" / "write_compat.py")
    done = run_py(script, str(tmp_path / "compat.md"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "compat.md").read_text() == (root / "docs" / "compat.md").read_text()
    done = run_py(script, str(tmp_path / "no" / "compat.md"), timeout=120)
    assert done.returncode == 2 and "does not exist" in done.stderr


@pytest.mark.parametrize("script", ["write_compat.py", "write_names_index.py"])
def test_maintainer_scripts_help_writes_nothing(root: Path, run_py, script: str) -> None:
    written = [root / "docs" / "compat.md", root / "src" / "flowtorch" / "_src" / "migrate" / "public_names.json"]
    before = [p.stat().st_mtime_ns for p in written]
    done = run_py(str(root / "scripts" / script), "--help", timeout=120)
    assert done.returncode == 0 and done.stdout.startswith(f"usage: python scripts/{script}")
    assert [p.stat().st_mtime_ns for p in written] == before


def test_unparsable_files_are_reported_and_the_rest_checked(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.py").write_text("import oneflow as flow\ndef broken(:\n")
    (tmp_path / "good.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    assert main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"could not check {tmp_path / 'bad.py'}: does not parse" in out and "nn.relu" not in out
    assert main(["--all", str(tmp_path)]) == 1 and "nn.relu" in capsys.readouterr().out


def test_folders_are_searched_for_python_files(tmp_path: Path) -> None:
    for rel in ("pkg/a.py", "pkg/sub/b.py", ".hidden/c.py", "pkg/__pycache__/d.py", "notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    report = check_paths([tmp_path])
    assert report.files == [str(tmp_path / "pkg" / "a.py"), str(tmp_path / "pkg" / "sub" / "b.py")]
    assert [(u.file, u.line, u.symbol) for u in report.uses] == [(f, 2, "nn.relu") for f in report.files]


def test_the_program_is_never_run_and_torch_never_imported(tmp_path: Path, root: Path, run_py) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "side_effects.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\nimport oneflow as flow\nflow.nn.relu(1)\n"
                      "raise SystemExit(3)\n")
    # flowtorch's package __init__ imports torch for the runtime; stand a bare package in for it, as a
    # checker-only entry point would, and see what the check itself imports
    code = ("import sys, types; pkg = types.ModuleType('flowtorch'); pkg.__path__ = [sys.argv[1]]; "
            "sys.modules['flowtorch'] = pkg; from flowtorch._src.migrate.check_cli import main; "
            "code = main(['--json', sys.argv[2]]); print('torch imported:', 'torch' in sys.modules); sys.exit(code)")
    done = run_py("-c", code, str(root / "src" / "flowtorch"), str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("torch imported: False")
    assert json.loads(done.stdout.rsplit("torch imported", 1)[0])["uses"][0]["symbol"] == "nn.relu"
    assert not marker.exists()


def test_oneflow_internal_module_paths_are_judged_by_the_table_not_called_missing() -> None:
    report = statuses("import oneflow as flow\nfrom oneflow.python.framework import id_util\n"
                      "import oneflow._oneflow_internal\nid_util.UniqueStr('x')\n")
    assert report["python.framework.id_util"] == "partial"  # as the `python` row: every module path imports
    assert report["_oneflow_internal"] == "partial"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_only_regular_files_are_read_others_skipped_with_a_note(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "good.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    os.mkfifo(tmp_path / "pipe.py")  # no writer: reading it would block forever
    kinds = {"pipe.py": "a named pipe (FIFO)"}
    sock = socket.socket(socket.AF_UNIX) if len(str(tmp_path / "sock.py")) < 100 else None  # sun_path's limit
    if sock is not None:
        sock.bind(str(tmp_path / "sock.py"))
        kinds["sock.py"] = "a socket"
    statuses: list[int] = []
    reader = threading.Thread(target=lambda: statuses.extend([main([str(tmp_path)]), main(["--json", str(tmp_path)])]),
                              daemon=True)
    try:
        reader.start()
        reader.join(10)
        if reader.is_alive():  # give the blocked reader its end of file, so the thread ends, then fail
            os.close(os.open(tmp_path / "pipe.py", os.O_WRONLY | os.O_NONBLOCK))
            reader.join(10)
            pytest.fail("flowtorch check blocked on a named pipe")
    finally:
        if sock is not None:
            sock.close()
    assert statuses == [0, 0]  # nothing missing; the special files are no program's source
    text, report = capsys.readouterr().out.split("\n{", 1)
    skipped = sorted((str(tmp_path / name), f"it is {kind}, not a regular file") for name, kind in kinds.items())
    for file, why in skipped:
        assert f"skipped {file}: {why}" in text
    assert f"{len(kinds)} skipped (not regular files)" in text
    report = json.loads("{" + report)
    assert report["files"] == [str(tmp_path / "good.py")] and report["errors"] == []
    assert sorted((s["file"], s["reason"]) for s in report["skipped"]) == skipped
    assert report["summary"]["skipped"] == len(kinds)


def test_a_dangling_link_or_an_unreadable_file_is_listed_as_not_checked(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "good.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    assert main([str(tmp_path)]) == 1  # a file that could not be checked fails the check
    out = capsys.readouterr().out
    gone = tmp_path / "gone.py"
    assert f"could not check {gone}: it is a dangling symbolic link (to {str(tmp_path / 'missing.py')!r}, missing)" \
        in out.splitlines()[:3]
    assert "1 file(s) could not be checked" in out.splitlines()[0]
    assert main(["--json", str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [e["file"] for e in report["errors"]] == [str(gone)] and report["skipped"] == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_named_pipe_given_by_name_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    assert main([str(tmp_path / "pipe.py")]) == 2
    err = capsys.readouterr().err
    assert f"{str(tmp_path / 'pipe.py')!r} is a named pipe (FIFO), neither a file nor a folder" in err
