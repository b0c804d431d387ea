"""The command line behaves as Python tools do: one top-level help naming every command, "did you mean" for
a mistyped command, ``-q``/``-v`` before or after the command (never taken from a program's own arguments),
a quiet exit when the reader of the output goes away, and a failing program's traceback that shows the
program's frames only, with flowtorch's error types and oneflow's module names as the program knows them.
Each runs the command in a process of its own (``python -m flowtorch``, the installed ``flowtorch``
command's entry point)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flowtorch.__main__ import COMMANDS
from flowtorch._src import cli_logging

ROOT = Path(__file__).resolve().parents[2]
VERBS = ["run", "make-mnist", "check", "export", "convert-checkpoint", "plot"]


def test_the_top_level_help_lists_every_command_with_one_line(run_py, tmp_path):
    assert list(COMMANDS) == VERBS
    for flag in ("--help", "-h"):
        proc = run_py("-m", "flowtorch", flag, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        listed = proc.stdout.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert [line.split()[0] for line in listed] == VERBS
        for line, verb in zip(listed, VERBS):
            assert line.split(None, 1)[1] == COMMANDS[verb] and len(line) <= 110


@pytest.mark.parametrize(("typed", "meant"), [("chekc", "check"), ("exprot", "export"), ("plto", "plot"),
                                              ("convert-checkpiont", "convert-checkpoint")])
def test_a_mistyped_command_is_told_the_command_it_is_like(typed, meant, run_py, tmp_path):
    proc = run_py("-m", "flowtorch", typed, "x.py", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"flowtorch: {typed!r} is no command (and no file); did you mean {meant!r}?")
    assert len(proc.stderr.splitlines()) == 1


def test_a_missing_script_unlike_any_command_is_a_missing_file(run_py, tmp_path):
    proc = run_py("-m", "flowtorch", "train_resnet.py", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "flowtorch: cannot open 'train_resnet.py': no such file\n")


@pytest.mark.parametrize(("args", "verbosity", "rest"), [
    (["x.py", "-q", "-v"], 0, ["x.py"]),
    (["--json", "-q", "x.py", "-vv"], 1, ["--json", "x.py"]),
    (["--weights", "-q", "s.py", "-q", "job", "out", "-v", "-q"], -1, ["--weights", "-q", "s.py", "job", "out", "-v",
                                                                      "-q"]),
    (["a", "--", "-q"], 0, ["a", "--", "-q"]),
])
def test_pull_verbosity_takes_the_flags_of_the_command_and_leaves_the_program_s(args, verbosity, rest):
    export = rest[0] == "--weights"
    got = cli_logging.pull_verbosity(args, ("--weights",), 3 if export else None)
    assert got == (verbosity, rest)


def test_pull_verbosity_stops_at_a_script_or_a_module():
    assert cli_logging.pull_verbosity(["-q", "--nproc", "2", "-v", "s.py", "-q"], ("--nproc",), 0, ("-m",)) == (
        0, ["--nproc", "2", "s.py", "-q"])
    assert cli_logging.pull_verbosity(["-v", "-m", "pkg", "-q"], (), 0, ("-m",)) == (1, ["-m", "pkg", "-q"])


NOTE_AND_ARGS = textwrap.dedent("""
    import logging, sys
    logging.getLogger("flowtorch").info("flowtorch: a note")
    print(sys.argv[1:])
""")


@pytest.mark.parametrize(("args", "argv", "note"), [
    (["run", "-q", "p.py", "-v"], ["-v"], False),
    (["-v", "run", "p.py", "-q"], ["-q"], True),
    (["p.py", "-q", "x"], ["-q", "x"], True),
    (["-q", "p.py"], [], False),
])
def test_q_and_v_before_the_script_are_flowtorch_s_after_it_the_program_s(args, argv, note, run_py, tmp_path):
    (tmp_path / "p.py").write_text(NOTE_AND_ARGS)
    proc = run_py("-m", "flowtorch", *args, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, f"{argv}\n"), proc.stderr
    assert ("flowtorch: a note" in proc.stderr) is note


def test_check_takes_q_and_v_after_the_command_and_its_paths(run_py, tmp_path):
    (tmp_path / "p.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    for args in (["check", "-q", "."], ["check", ".", "-q"], ["-q", "check", "."], ["check", "-v", "p.py"]):
        proc = run_py("-m", "flowtorch", *args, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("flowtorch check: 1 file(s)") and "unrecognized" not in proc.stderr


def _flowtorch_command() -> list[str]:
    """The installed ``flowtorch`` script beside this interpreter, else its entry point through ``-m``."""
    script = os.path.join(os.path.dirname(sys.executable), "flowtorch")
    return [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "flowtorch"]


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    # enough uses that the report outgrows the pipe's buffer, so the writes meet the closed pipe
    (tmp_path / "big.py").write_text("import oneflow as flow\n" + "flow.nn.relu(1)\n" * 4000)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([*_flowtorch_command(), "check", "--json", "big.py"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"{\n"  # as `| head -1` reads it, then goes away
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err


PROGRAM_ERRORS = {
    "argument.py": ("""
        import oneflow as flow
        import numpy as np
        flow.clip_by_value(np.zeros(3, np.float32))
        """, 3, "flowtorch.NotInJobError: flow.clip_by_value can only be used inside a @flow.global_function body"),
    "typo.py": ("""
        import oneflow as flow
        x = 1
        flow.nn.reluu(x)
        """, 3, "AttributeError: module 'oneflow.nn' has no attribute 'reluu'. Did you mean: 'relu'?"),
    "layers.py": ("""
        import oneflow as flow
        flow.layers.densee
        """, 2, "AttributeError: module 'oneflow.layers' has no attribute 'densee'. Did you mean: 'dense'?"),
}


def _program_traceback(stderr: str, script: str, line: int) -> list[str]:
    lines = [ln for ln in stderr.splitlines() if not ln.startswith("flowtorch export: ")]
    assert lines[0] == "Traceback (most recent call last):", stderr
    assert lines[1].startswith('  File "') and lines[1].endswith(f'{script}", line {line}, in <module>'), stderr
    assert "flowtorch/" not in stderr and "runpy" not in stderr, stderr  # neither the runner's nor flowtorch's
    return lines


@pytest.mark.parametrize("script", sorted(PROGRAM_ERRORS))
def test_a_program_s_error_shows_its_frames_and_the_names_it_knows(script, run_py, tmp_path):
    source, line, last = PROGRAM_ERRORS[script]
    (tmp_path / script).write_text(textwrap.dedent(source).lstrip())
    proc = run_py("-m", "flowtorch", script, cwd=tmp_path)
    assert proc.returncode == 1
    assert _program_traceback(proc.stderr, script, line)[-1].startswith(last)
    proc = run_py("-m", "flowtorch", "-v", script, cwd=tmp_path)  # -v: every frame
    assert "flowtorch/__main__.py" in proc.stderr and "flowtorch/_src/" in proc.stderr


SHAPE = textwrap.dedent("""
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((32, 8))) -> tp.Numpy:
        return flow.math.relu(x)

    job(np.zeros((16, 8), np.float32))
""").lstrip()


def test_export_shows_a_failing_program_s_traceback_from_its_first_frame(run_py, tmp_path):
    (tmp_path / "shape.py").write_text(SHAPE)
    proc = run_py("-m", "flowtorch", "export", "shape.py", "job", "out", cwd=tmp_path)
    assert proc.returncode == 1 and not (tmp_path / "out" / "model.py").exists()
    lines = _program_traceback(proc.stderr, "shape.py", 9)
    assert "expected shape (32, 8); received shape (16, 8)" in lines[-1]


def test_error_types_print_and_pickle_under_their_public_names():
    import pickle

    import flowtorch
    from flowtorch._src import errors

    for error in errors.ERROR_TYPES:
        assert error.__module__ == "flowtorch" and getattr(flowtorch, error.__name__) is error
        assert type(pickle.loads(pickle.dumps(error("m")))) is error
