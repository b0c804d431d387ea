"""The command line's conventions: ``--version``, every command's ``--help`` (usage, no side effects), usage
errors (exit 2), ``-v``/``-q``, and a failing program's traceback without the runner's frames."""

from __future__ import annotations

import logging
import os
import textwrap

import numpy as np
import pytest

import flowtorch
from flowtorch.__main__ import main
from flowtorch._src import cli_logging, mnist
from flowtorch._src.dist import launch

VERBS = ["run", "make-mnist", "check", "export", "convert-checkpoint", "plot"]


def test_version(capsys, run_py):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"flowtorch {flowtorch.__version__}\n"
    proc = run_py("-m", "flowtorch", "--version")
    assert (proc.returncode, proc.stdout) == (0, f"flowtorch {flowtorch.__version__}\n"), proc.stderr


@pytest.mark.parametrize("verb", VERBS)
def test_every_command_s_help_prints_its_usage_and_writes_nothing(verb, tmp_path, run_py):
    proc = run_py("-m", "flowtorch", verb, "--help", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lower().startswith("usage:") and proc.stderr == ""
    assert os.listdir(tmp_path) == []


def test_make_mnist_takes_one_optional_path_and_refuses_the_rest(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for args in (["--bogus"], ["a.npz", "b.npz"], ["-x", "a.npz"]):
        assert main(["make-mnist", *args]) == 2
        assert "usage: flowtorch make-mnist" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []
    assert main(["make-mnist"]) == 0
    assert capsys.readouterr().out == "wrote mnist.npz\n"
    with np.load(tmp_path / "mnist.npz") as data:
        assert data["x_train"].shape == (6000, 28, 28) and data["x_test"].shape == (1000, 28, 28)
        assert bool(data[mnist.SYNTHETIC_KEY])


@pytest.mark.parametrize(("args", "message"), [
    ([], "give a SCRIPT.py or -m MODULE to run"),
    (["--bogus", "x.py"], "unknown option '--bogus'"),
    (["run", "--verbose-ish", "x.py"], "unknown option '--verbose-ish'"),
])
def test_usage_errors_go_to_stderr_with_status_2(args, message, capsys):
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"flowtorch: {message} (flowtorch --help shows the usage)\n"  # one line


@pytest.mark.parametrize(("args", "verbosity", "rest"), [
    (["-q", "run", "x.py"], -1, ["run", "x.py"]),
    (["-v", "--verbose", "x.py", "-q"], 2, ["x.py", "-q"]),  # the script's own -q is its own
    (["-qq", "--quiet", "check"], -3, ["check"]),
    (["-vq", "x.py"], 0, ["-vq", "x.py"]),  # not a verbosity flag
])
def test_split_verbosity(args, verbosity, rest):
    assert cli_logging.split_verbosity(args) == (verbosity, rest)


def test_levels_and_the_flags_that_give_them_again():
    assert [cli_logging.level_for(v) for v in (2, 1, 0, -1, -2, -5)] == [
        logging.DEBUG, logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.ERROR]
    assert cli_logging.flags_for(2) == ["-v", "-v"] and cli_logging.flags_for(-1) == ["-q"]
    assert cli_logging.flags_for(0) == []


def test_configured_sets_the_level_and_puts_it_back():
    logger = logging.getLogger("flowtorch")
    before, handlers = logger.level, list(logger.handlers)
    with cli_logging.configured(-1):
        assert logger.level == logging.WARNING and len(logger.handlers) == len(handlers) + 1
    with cli_logging.configured(1, floor=logging.WARNING):  # a launch's other ranks: never below WARNING
        assert logger.level == logging.WARNING
    assert (logger.level, logger.handlers) == (before, handlers)


NOTES = textwrap.dedent("""
    import logging, sys
    log = logging.getLogger("flowtorch")
    log.debug("a debug line")
    log.info("flowtorch: a note")
    log.warning("a warning")
    print("the program's output")
    sys.exit(3)
""")


@pytest.mark.parametrize(("flags", "err"), [
    ([], "flowtorch: a note\nflowtorch: a warning\n"),
    (["-q"], "flowtorch: a warning\n"),
])
def test_flowtorch_s_notes_go_to_stderr_at_the_asked_level(flags, err, tmp_path, run_py):
    (tmp_path / "notes.py").write_text(NOTES)
    proc = run_py("-m", "flowtorch", *flags, "notes.py", cwd=tmp_path)
    # the program's own sys.exit(3) is its exit status, with no traceback
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "the program's output\n", err)


def test_the_handler_s_levels_and_a_program_s_own_logging(monkeypatch, capsys):
    monkeypatch.setattr(logging.root, "handlers", [])  # as in a fresh interpreter (pytest adds its own)
    log = logging.getLogger("flowtorch")

    def emit(verbosity: int) -> str:
        with cli_logging.configured(verbosity):
            log.debug("a debug line")
            log.info("flowtorch: a note")
            log.warning("a warning")
        return capsys.readouterr().err

    assert emit(0) == "flowtorch: a note\nflowtorch: a warning\n"
    assert emit(-1) == "flowtorch: a warning\n"
    assert emit(1) == "flowtorch: a debug line\nflowtorch: a note\nflowtorch: a warning\n"
    assert emit(-2) == ""
    # A program that configures logging (a root handler) gets flowtorch's records there, shown once.
    own = logging.StreamHandler()
    own.setFormatter(logging.Formatter("own %(levelname)s %(message)s"))
    monkeypatch.setattr(logging.root, "handlers", [own])
    assert emit(0) == "own INFO flowtorch: a note\nown WARNING a warning\n"


SHAPE_ERROR = textwrap.dedent("""
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(4, 5), initializer=flow.zeros_initializer())
        return flow.matmul(x, w)

    print("before")
    job(np.zeros((4, 3), np.float32))
""")
RUNNER_FRAMES = ("runpy", "flowtorch/__main__.py", "flowtorch/_src/dist/launch.py")


def test_a_failing_program_s_traceback_starts_at_the_program(tmp_path, run_py):
    (tmp_path / "shape.py").write_text(SHAPE_ERROR)
    proc = run_py("-m", "flowtorch", "shape.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == "before\n"
    lines = proc.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):", proc.stderr
    assert lines[1].startswith('  File "') and 'shape.py", line 12, in <module>' in lines[1], proc.stderr
    assert not any(frame in proc.stderr for frame in RUNNER_FRAMES), proc.stderr
    assert 'shape.py", line 9, in job' in proc.stderr  # the job's body, below flowtorch's session frames
    assert lines[-1].startswith("ValueError: job 'job' (while building it") and "inner dimensions" in lines[-1]


def _fails() -> int:
    raise ZeroDivisionError("from the program")


def test_run_worker_reports_without_its_frames_and_with_them_at_debug(capsys, caplog):
    assert launch.run_worker(lambda: _fails()) == 1
    err = capsys.readouterr().err
    assert "launch.py" not in err and err.endswith("ZeroDivisionError: from the program\n")
    assert err.splitlines()[1].endswith("in <lambda>")  # the program's first frame comes first
    with caplog.at_level(logging.DEBUG, logger="flowtorch"):  # -v: the whole traceback
        assert launch.run_worker(lambda: _fails()) == 1
    assert "flowtorch/_src/dist/launch.py" in capsys.readouterr().err.splitlines()[1]


def test_a_failing_module_s_traceback_starts_at_the_module(tmp_path, run_py):
    (tmp_path / "broken.py").write_text("def f():\n    raise KeyError('k')\n\nf()\n")
    proc = run_py("-m", "flowtorch", "-m", "broken", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[:2] == ["Traceback (most recent call last):",
                                            f'  File "{tmp_path / "broken.py"}", line 4, in <module>'], proc.stderr
    assert proc.stderr.endswith("KeyError: 'k'\n") and "runpy" not in proc.stderr


def test_the_verbosity_reaches_the_launched_processes(tmp_path, monkeypatch):
    calls: list[list[str]] = []
    monkeypatch.setattr(launch, "launch", lambda opts, program: calls.append(program) or 0)
    script = str(tmp_path / "x.py")
    (tmp_path / "x.py").write_text("")
    assert main(["-q", "--nproc", "2", script, "-v"]) == 0
    assert main(["run", "-v", "--nproc", "2", "-m", "x"]) == 0
    assert main(["--nproc", "2", script]) == 0
    assert calls == [["-q", script, "-v"], ["-v", "-m", "x"], [script]]


@pytest.mark.parametrize(("env", "quiet"), [
    ({}, False), ({"RANK": "0"}, False), ({"RANK": "1"}, True),
    ({"RANK": "1", launch.ALL_RANKS_ENV: "1"}, False),
])
def test_only_rank_0_of_a_launch_shows_notes(env, quiet, monkeypatch):
    for name in ("RANK", launch.ALL_RANKS_ENV):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert launch.quiet_rank() is quiet
