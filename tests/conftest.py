"""Shared fixtures: every test starts with a fresh OneFlow session (as flow.unittest.TestCase does)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import flowtorch as flow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh_session() -> None:
    flow.clear_default_session()
    yield
    flow.clear_default_session()


@pytest.fixture
def cpu_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the test's session on the CPU. For tests that feed an out-of-range index: on CUDA that is a
    device-side assert, which leaves the process's CUDA context unusable (torch's rule), so the error
    path that names the job and op is checked where the kernel can report it."""
    monkeypatch.setenv("FLOWTORCH_DEVICE", "cpu")
    flow.clear_default_session()


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Data pipelines run in the test's own process (``FLOWTORCH_DATA_WORKERS=0``): fast. A module whose tests
    all want it says ``pytestmark = pytest.mark.usefixtures("in_process")``; a test may still set the variable."""
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "0")


def run_python(*args: str, cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python args…`` in a fresh process with flowtorch importable; return the completed process."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), full_env.get("PYTHONPATH", "")])
    full_env.update(env or {})
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full_env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def run_py():
    """``run_py(*args, cwd=None, env=None)``: :func:`run_python` as a fixture."""
    return run_python


@pytest.fixture
def root() -> Path:
    return ROOT
