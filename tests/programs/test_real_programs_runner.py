"""The real-program corpus runner's own logic (``scripts/real_programs.py``): the manifest's checks, the
known-failures file's format, how a log's failure is read and classified, and the verdict. No network, no
third-party program: the one run here is a two-line program written by the test."""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


rp = _load("real_programs")
data = _load("real_programs_data")
SHA = "0123456789abcdef0123456789abcdef01234567"


def _manifest(**program):
    entry = {"name": "t/prog", "tree": "t", "path": "a/b/run.py", **program}
    return {"trees": [{"id": "t", "repo": "someone/something", "commit": SHA}], "programs": [entry]}


def test_the_committed_manifest_parses_and_names_real_commits():
    doc = json.loads((SCRIPTS.parent / "docs" / "real-programs.json").read_text(encoding="utf-8"))
    trees, programs = rp.parse_manifest(doc)
    assert len(programs) >= 60
    assert len({t.repo for t in trees.values()}) >= 10
    assert all(p.tree in trees for p in programs)


def test_manifest_defaults_and_paths():
    trees, (prog,) = rp.parse_manifest(_manifest(argv=["--n=1"], cwd="a", root="a"))
    assert trees["t"].commit == SHA
    assert prog.argv == ("--n=1",) and prog.timeout == 300 and not prog.pytest
    assert prog.rel_path == "b/run.py"  # from its working directory
    _, (plain,) = rp.parse_manifest(_manifest())
    assert plain.root_dir == "a/b" and plain.rel_path == "run.py"


@pytest.mark.parametrize("bad, message", [
    ({"path": "../escape.py"}, "must be relative"),
    ({"path": "/abs.py"}, "must be relative"),
    ({"tree": "other"}, "unknown tree"),
    ({"root": "x"}, "not under its root"),
    ({"colour": "red"}, "unknown keys"),
    ({"data": [{"kind": "mnist"}]}, "needs 'kind' and 'to'"),
    ({"name": "has space"}, "no spaces"),
    ({"before": [[]]}, "empty 'before'"),
])
def test_manifest_rejects(bad, message):
    with pytest.raises(rp.ManifestError, match=message):
        rp.parse_manifest(_manifest(**bad))


def test_manifest_rejects_short_commits_and_twice_listed_programs():
    doc = _manifest()
    doc["trees"][0]["commit"] = "abc123"
    with pytest.raises(rp.ManifestError, match="40-digit"):
        rp.parse_manifest(doc)
    doc = _manifest()
    doc["programs"].append(dict(doc["programs"][0]))
    with pytest.raises(rp.ManifestError, match="twice"):
        rp.parse_manifest(doc)


def test_known_failures_format():
    known = rp.parse_known("# comment\n\nt/a missing-name flow.copy is absent (v0.1.3)\nt/b environment needs CUDA\n")
    assert known["t/a"] == rp.Known("missing-name", "flow.copy is absent (v0.1.3)")
    assert known["t/b"].cls == "environment"
    with pytest.raises(ValueError, match="NAME CLASS REASON"):
        rp.parse_known("t/a missing-name\n")
    with pytest.raises(ValueError, match="not one of"):
        rp.parse_known("t/a broken why\n")
    with pytest.raises(ValueError, match="twice"):
        rp.parse_known("t/a behaviour x\nt/a behaviour y\n")


def test_committed_known_failures_file_parses_and_names_manifest_programs():
    names = {p.name for p in rp.parse_manifest(json.loads(rp.MANIFEST.read_text(encoding="utf-8")))[1]}
    known = rp.parse_known(rp.KNOWN.read_text(encoding="utf-8"))
    assert set(known) <= names


TRACEBACK = """some output
Traceback (most recent call last):
  File "x.py", line 3, in <module>
    import cv2
{line}
"""


@pytest.mark.parametrize("line, cls", [
    ("ModuleNotFoundError: No module named 'cv2'", "environment"),
    ("ModuleNotFoundError: No module named 'oneflow.core.job.initializer_conf_pb2': none", "missing-internal"),
    ("ModuleNotFoundError: No module named 'oneflow.python.framework.c_api_util'", "missing-internal"),
    ("AttributeError: module 'flowtorch' has no attribute 'local_gather'", "missing-name"),
    ("AttributeError: module 'flowtorch.math' has no attribute 'mish'", "missing-name"),
    ("ImportError: cannot import name 'foo' from 'oneflow.typing'", "missing-name"),
    ("NotImplementedError: flow.experimental.get_job_set: OneFlow returned its compiled JobSet", "missing-internal"),
    ("OSError: libyolo.so: cannot open shared object file", "environment"),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/dataset/x'", "environment"),
    ("ValueError: conv2d_transpose: output_shape channel 3 differs from the filter's 6", "behaviour"),
])
def test_classify_reads_the_last_exception(line, cls):
    log = TRACEBACK.format(line=line)
    assert rp.error_line(log) == line
    assert rp.classify("failed", log) == cls


def test_error_line_takes_the_last_traceback_and_timeouts_classify_as_such():
    log = TRACEBACK.format(line="KeyError: 'a'") + TRACEBACK.format(line="RuntimeError: second")
    assert rp.error_line(log) == "RuntimeError: second"
    assert rp.error_line("no traceback here\nlast words\n") == "last words"
    assert rp.classify("timeout", "") == "timeout"
    pytest_log = ("    def test_x():\n>       f()\n"
                  "E       NotImplementedError: flow.experimental.get_job_set: no\n1 failed\n")
    assert rp.error_line(pytest_log) == "NotImplementedError: flow.experimental.get_job_set: no"
    assert rp.classify("failed", pytest_log) == "missing-internal"


def test_judge_separates_unexpected_fixed_and_stale():
    results = [rp.Result("t/a", "failed", cls="behaviour"), rp.Result("t/b", "failed"), rp.Result("t/c", "passed")]
    known = {"t/b": rp.Known("environment", "x"), "t/c": rp.Known("behaviour", "y"), "t/gone": rp.Known("timeout", "z")}
    unexpected, fixed, stale = rp.judge(results, known, {"t/a", "t/b", "t/c"})
    assert [r.name for r in unexpected] == ["t/a"]
    assert fixed == ["t/c"] and stale == ["t/gone"]
    assert results[1].known == known["t/b"]


def test_generated_records_and_idx_files(tmp_path):
    data.generate(tmp_path, {"kind": "int_ofrecord", "to": "d", "records": 3,
                             "features": {"ids": ["int64", 4, 10], "w": ["float", 2, 1]}})
    raw = (tmp_path / "d" / "part-00000").read_bytes()
    lengths, at = [], 0
    while at < len(raw):
        (n,) = struct.unpack_from("<q", raw, at)
        lengths.append(n)
        at += 8 + n
    assert len(lengths) == 3 and at == len(raw)
    data.generate(tmp_path, {"kind": "mnist_idx", "to": "m", "train": 20, "test": 10})
    images = (tmp_path / "m" / "train-images-idx3-ubyte").read_bytes()
    assert struct.unpack(">iiii", images[:16]) == (2051, 20, 28, 28) and len(images) == 16 + 20 * 28 * 28
    labels = np.frombuffer((tmp_path / "m" / "t10k-labels-idx1-ubyte").read_bytes()[8:], np.uint8)
    assert labels.shape == (10,) and labels.max() < 10
    with pytest.raises(ValueError, match="leaves"):
        data.generate(tmp_path, {"kind": "mkdir", "to": "../outside"})


def test_run_program_in_a_throwaway_copy(tmp_path):
    checkout = tmp_path / "t"
    (checkout / "a").mkdir(parents=True)
    (checkout / "a" / "ok.py").write_text("import os, sys\nassert os.path.isdir('made')\nopen('out', 'w')\n")
    (checkout / "a" / "bad.py").write_text("raise KeyError('missing')\n")
    ok = rp.Program("t/ok", "t", "a/ok.py", data=({"kind": "mkdir", "to": "made"},), timeout=120)
    bad = rp.Program("t/bad", "t", "a/bad.py", timeout=120)
    passed = rp.run_program(ok, checkout, tmp_path / "out", sys.executable)
    failed = rp.run_program(bad, checkout, tmp_path / "out", sys.executable)
    assert passed.passed, (tmp_path / "out" / "logs" / "t__ok.log").read_text()
    assert not (checkout / "a" / "out").exists()  # the checkout is never written
    assert failed.status == "failed" and failed.error == "KeyError: 'missing'" and failed.cls == "behaviour"


def test_report_only_rejudges_saved_results(tmp_path, capsys):
    manifest = tmp_path / "m.json"
    doc = _manifest()
    doc["programs"].append({"name": "t/other", "tree": "t", "path": "a/x.py"})
    manifest.write_text(json.dumps(doc))
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text(json.dumps([
        {"name": "t/prog", "status": "passed", "seconds": 1.0, "error": "", "class": ""},
        {"name": "t/other", "status": "failed", "seconds": 2.0, "error": "KeyError: 'x'", "class": "behaviour"}]))
    known = tmp_path / "known.txt"
    known.write_text("t/other program-bug indexes a dict with a key it never sets\n")
    args = ["--manifest", str(manifest), "--known", str(known), "--out", str(out), "--report-only"]
    assert rp.main(args) == 0
    assert "1 of 2 programs passed (50.0 %)" in capsys.readouterr().out
    known.write_text("")
    assert rp.main(args) == 1  # the failure is no longer known
    assert "unexpected failure: t/other" in capsys.readouterr().out
