"""A program that asks for N devices runs in N processes without ``--nproc`` (``python -m flowtorch
script.py``), as OneFlow ran it on N devices: started that way when its source says N (``device_scan``),
else run again that way when it makes the call (``group.DevicesRequest``). The numbers are those of
``--nproc N`` and of one device's full-batch training, computed here in numpy."""

from __future__ import annotations

import json
import logging
import sys
import textwrap

import numpy as np
import pytest
import torch.distributed as dist

import flowtorch as flow
from flowtorch.__main__ import main
from flowtorch._src.dist import group, launch
from flowtorch._src.migrate.device_scan import DeviceAsk, scan_source

needs_gloo = pytest.mark.skipif(not (dist.is_available() and dist.is_gloo_available()),
                                reason="this torch has no torch.distributed with gloo")

# {call} is the config call. A consistent-view job fed the whole batch, and a mirrored-view job fed one array
# per device (OneFlow's documentation example, mirrored_strategy.py, feeds its batch so), trained from the
# same start: both print their per-sample losses, which must be full-batch SGD's.
PROGRAM = """
import json, os, sys
import numpy as np
import oneflow as flow
import oneflow.typing as tp

print("before the config call", flush=True)
{call}


def mirrored():
    cfg = flow.function_config()
    cfg.default_logical_view(flow.scope.mirrored_view())
    return cfg


def model(x, y, name):
    logits = flow.layers.dense(x, 3, name=name)
    loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0).minimize(loss)
    return loss


@flow.global_function(type="train")
def whole(x: tp.Numpy.Placeholder((8, 5)), y: tp.Numpy.Placeholder((8,), dtype=flow.int32)) -> tp.Numpy:
    return model(x, y, "whole")


@flow.global_function(type="train", function_config=mirrored())
def parts(x: tp.ListNumpy.Placeholder((4, 5)), y: tp.ListNumpy.Placeholder((4,), dtype=flow.int32)) -> tp.ListNumpy:
    return model(x, y, "parts")


start = np.random.RandomState(1)
w, b = start.randn(3, 5).astype(np.float32), start.randn(3).astype(np.float32)
flow.load_variables({{"whole-weight": w, "whole-bias": b, "parts-weight": w, "parts-bias": b}})
data = np.random.RandomState(0)
for _ in range(3):
    x, y = data.randn(8, 5).astype(np.float32), data.randint(0, 3, 8).astype(np.int32)
    out = parts([x[:4], x[4:]], [y[:4], y[4:]])
    print(json.dumps({{"world": os.environ.get("WORLD_SIZE"), "whole": whole(x, y).tolist(),
                      "parts": [p.tolist() for p in out]}}))
"""


def _reference() -> list[list[float]]:
    """One device's full-batch SGD (OneFlow's 1/n over the batch): each step's per-sample losses."""
    start = np.random.RandomState(1)
    w, b = start.randn(3, 5).astype(np.float64), start.randn(3).astype(np.float64)
    data = np.random.RandomState(0)
    losses = []
    for _ in range(3):
        x, y = data.randn(8, 5).astype(np.float32).astype(np.float64), data.randint(0, 3, 8)
        logits = x @ w.T + b
        shifted = logits - logits.max(1, keepdims=True)
        prob = np.exp(shifted) / np.exp(shifted).sum(1, keepdims=True)
        losses.append((-np.log(prob[np.arange(8), y])).tolist())
        grad = (prob - np.eye(3)[y]) / 8
        w, b = w - 0.5 * grad.T @ x, b - 0.5 * grad.sum(0)
    return losses


def _steps(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _check_two_devices(steps: list[dict]) -> None:
    assert len(steps) == 3
    for step, expected in zip(steps, _reference()):
        assert step["world"] == "2" and len(step["parts"]) == 2  # two processes, one part each
        np.testing.assert_allclose(step["whole"], expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(step["parts"][0] + step["parts"][1], expected, rtol=1e-5, atol=1e-6)


@needs_gloo
def test_a_literal_device_count_runs_in_that_many_processes(launch_flowtorch, tmp_path):
    # (that this is `--nproc 2`'s very launch is checked without processes, below)
    (tmp_path / "prog.py").write_text(PROGRAM.format(call="flow.config.gpu_device_num(2)"))
    proc, _ = launch_flowtorch("prog.py", cwd=tmp_path, timeout=90)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    _check_two_devices(_steps(proc.stdout))
    assert proc.stdout.count("before the config call") == 1  # started in 2 processes: nothing ran twice


@needs_gloo
def test_a_device_count_from_a_variable_runs_again_when_the_program_asks(launch_flowtorch, tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM.format(call="flow.config.gpu_device_num(int(sys.argv[1]))"))
    proc, _ = launch_flowtorch("prog.py", "2", cwd=tmp_path, timeout=90)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    _check_two_devices(_steps(proc.stdout))
    assert proc.stdout.count("before the config call") == 2  # once in the first process, once on rank 0


@pytest.mark.parametrize("source, expected", [
    ("import oneflow as flow\nflow.config.gpu_device_num(4)\n", DeviceAsk(4, "gpu_device_num(4) at line 2")),
    ("import oneflow as flow\nN = 2\ndef main():\n    flow.config.gpu_device_num(N)\n",
     DeviceAsk(2, "gpu_device_num(2) at line 4")),
    ("from oneflow import config as c\nc.cpu_device_num(val=3)\nc.gpu_device_num(0)\n",
     DeviceAsk(3, "cpu_device_num(3) at line 2, gpu_device_num(0) at line 3")),
    ("import oneflow as flow\nflow.config.cpu_device_num(3)\n", DeviceAsk(1, "cpu_device_num(3) at line 2")),
    ("import oneflow as flow\nflow.config.gpu_device_num(1)\n", DeviceAsk(1, "gpu_device_num(1) at line 2")),
    ("import oneflow as flow\nprint(1)\n", DeviceAsk(1)),
    ("import numpy as flow\nflow.config.gpu_device_num(2)\n", DeviceAsk(1)),  # not OneFlow's
    ("import sys, oneflow as flow\nflow.config.gpu_device_num(int(sys.argv[1]))\n",
     DeviceAsk(None, "gpu_device_num(int(sys.argv[1])) at line 2")),
    ("import oneflow as flow\nN = 2\nN = 4\nflow.config.gpu_device_num(N)\n",
     DeviceAsk(None, "gpu_device_num(N) at line 4")),  # bound twice
    ("import oneflow as flow\nflow.config.gpu_device_num(1)\nflow.config.gpu_device_num(2)\n",
     DeviceAsk(None, "gpu_device_num(1) at line 2, gpu_device_num(2) at line 3")),
    ("import oneflow as flow\nset_n = flow.config.gpu_device_num\nset_n(2)\n",
     DeviceAsk(None, "gpu_device_num(2) at line 3")),  # line 2 is no call
    ("import oneflow as flow\nflow.config.gpu_device_num(\n", DeviceAsk(None)),
])
def test_the_source_tells_the_device_count_or_says_it_cannot(source, expected):
    assert scan_source(source, "prog.py") == expected


@pytest.fixture
def fresh(clean_world, monkeypatch):
    """A fresh session and group state; the config a test sets leaves with it, and so do the argv and path
    that the runner sets for a script it runs here."""
    monkeypatch.setattr(group, "_warned_one_process", False)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    flow.clear_default_session()
    yield clean_world
    flow.clear_default_session()


def test_outside_the_runner_the_program_stays_on_one_device_and_is_told_how_to_launch(fresh, caplog):
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert flow.config.gpu_device_num(0) is True
        assert flow.config.cpu_device_num(3) is True  # the count after gpu_device_num(0)
        assert flow.config.gpu_device_num(2) is True
    [record] = [r for r in caplog.records if "asks for" in r.getMessage()]  # once
    assert record.getMessage().startswith("flowtorch: flow.config.cpu_device_num(3) asks for 3 devices")
    assert "`python -m flowtorch --nproc 3 script.py`" in record.getMessage()


def _as_main_script(code: str) -> None:
    exec(compile(code, "prog.py", "exec"), {"__name__": "__main__", "flow": flow})  # the code of a __main__ script


def test_under_the_runner_the_script_s_call_asks_the_runner_for_processes(fresh, monkeypatch, caplog):
    with group.relaunch_on_request():
        _as_main_script("assert flow.config.gpu_device_num(1) is True")
        with pytest.raises(group.DevicesRequest) as request:
            _as_main_script("flow.config.gpu_device_num(2)")
    assert (request.value.count, request.value.call) == (2, "flow.config.gpu_device_num(2)")
    assert not isinstance(request.value, Exception)  # a program's `except Exception` lets it through
    with group.relaunch_on_request(), caplog.at_level(logging.WARNING, logger="flowtorch"):
        # a module's call (this test's, or a test module's under a harness script): no second run, a warning
        assert flow.config.gpu_device_num(2) is True
    assert any("asks for 2 devices, but this program runs in one process" in r.getMessage() for r in caplog.records)
    monkeypatch.setenv("WORLD_SIZE", "2")
    with group.relaunch_on_request():
        _as_main_script("assert flow.config.gpu_device_num(4) is True")  # under the launcher: processes are given


def test_the_runner_launches_what_the_source_or_the_call_asks_for(fresh, monkeypatch, tmp_path, capsys, caplog):
    calls: list[tuple[launch.LaunchOptions, list[str]]] = []
    monkeypatch.setattr(launch, "launch", lambda opts, program: calls.append((opts, program)) or 0)
    (tmp_path / "static.py").write_text("import oneflow as flow\nprint('ran')\nflow.config.gpu_device_num(3)\n")
    (tmp_path / "dynamic.py").write_text(textwrap.dedent("""
        import sys
        import oneflow as flow
        print('ran')
        try:
            flow.config.gpu_device_num(int(sys.argv[1]))
        except Exception:
            print('caught')
        print('went on')
    """))
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        assert main([str(tmp_path / "static.py"), "a"]) == 0
        assert capsys.readouterr().out == ""  # launched up front: nothing ran here
        assert main(["run", str(tmp_path / "dynamic.py"), "2"]) == 0
        assert capsys.readouterr().out == "ran\n"  # stopped at the call, not caught, and launched
    assert [(opts.nproc, program) for opts, program in calls] == [(3, [str(tmp_path / "static.py"), "a"]),
                                                                  (2, [str(tmp_path / "dynamic.py"), "2"])]
    assert main(["--nproc", "3", str(tmp_path / "static.py"), "a"]) == 0
    assert calls[2] == calls[0]  # the very launch `--nproc 3` makes
    monkeypatch.chdir(tmp_path)
    assert main(["-m", "static", "b"]) == 0  # a module is read as `python -m` would find it, importing nothing
    assert (calls[3][0].nproc, calls[3][1]) == (3, ["-m", "static", "b"])
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any("static.py asks for 3 devices (gpu_device_num(3) at line 3): running it in 3 processes" in m
               for m in messages)
    assert any("dynamic.py asked for 2 devices (flow.config.gpu_device_num(2)) as it ran in one process (its "
               "source does not say how many): running it again in 2 processes" in m for m in messages)


def test_a_harness_script_is_not_run_again_for_a_call_in_a_module_it_runs(fresh, monkeypatch, tmp_path, capsys):
    # as OneFlow's 1node_test.py runs its test modules, one of which asks for 2 devices
    calls: list[int] = []
    monkeypatch.setattr(launch, "launch", lambda opts, program: calls.append(opts.nproc) or 0)
    (tmp_path / "ndev_test_module.py").write_text("import oneflow as flow\nflow.config.gpu_device_num(2)\n")
    (tmp_path / "harness.py").write_text("import ndev_test_module\nprint('all tests ran')\n")
    try:
        assert main([str(tmp_path / "harness.py")]) == 0
    finally:
        sys.modules.pop("ndev_test_module", None)
    assert calls == [] and capsys.readouterr().out == "all tests ran\n"
