"""Launches of ``python -m flowtorch --nproc N`` with a time bound: a hang fails the test, never the suite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A launch run by a test must not think it is itself a worker of some outer launch.
_LAUNCH_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT",
                "TORCHELASTIC_RUN_ID", "TORCHELASTIC_ERROR_FILE", "ONEFLOW_TEST_DEVICE_NUM", "ONEFLOW_TEST_NODE_LIST")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def _stop(proc: subprocess.Popen[str]) -> None:
    # torchrun starts its workers in their own sessions: ask it to stop them (SIGTERM), then kill what is left.
    workers = _children(proc.pid)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    for pid in workers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_flowtorch(*args: str, cwd: str | os.PathLike[str], timeout: float = 60,
                  env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    """``python -m flowtorch args…`` in ``cwd``; the completed process and its wall time. Past ``timeout`` the
    launch and its workers are stopped and the test fails with what they printed."""
    full_env = {k: v for k, v in os.environ.items() if k not in _LAUNCH_VARS}
    full_env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), full_env.get("PYTHONPATH", "")])
    full_env.update(env or {})
    cmd = [sys.executable, "-m", "flowtorch", *args]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(args)} did not end within {timeout} s\n--- stdout\n{out}\n--- stderr\n{err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), time.monotonic() - start


@pytest.fixture
def launch_flowtorch():
    """``launch_flowtorch(*args, cwd=…, timeout=60)``: :func:`run_flowtorch` as a fixture."""
    return run_flowtorch


@pytest.fixture
def clean_world(monkeypatch: pytest.MonkeyPatch):
    """No launcher variables, and the group module's state reset before and after."""
    from flowtorch._src.dist import group
    for name in _LAUNCH_VARS:
        monkeypatch.delenv(name, raising=False)
    group.shutdown()
    monkeypatch.setattr(group, "_warned_cpu", False)
    yield group
    group.shutdown()
