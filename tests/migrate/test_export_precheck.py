"""``flowtorch export`` checks JOB in the program's source before running it (a typo or a job that cannot be
exported must not cost the program's training), and says what it is doing as it goes."""

from __future__ import annotations

import logging
import textwrap
from pathlib import Path

import pytest

from flowtorch._src.migrate import export_cli

MARKER = "THE PROGRAM RAN"

HEADER = f"""
print({MARKER!r}, flush=True)
import numpy as np
import oneflow as flow
import oneflow.typing as tp
"""

JOB = """
@flow.global_function(type="predict")
def predict_job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
    return flow.layers.dense(x, 2, kernel_initializer=flow.random_normal_initializer(), name="fc")

predict_job(np.ones((2, 3), np.float32))
"""


def _script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "prog.py"
    script.write_text(HEADER + textwrap.dedent(body))
    return str(script)


def test_a_mistyped_job_exits_2_before_the_program_prints_anything(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    script = _script(tmp_path, JOB + "\n@flow.global_function()\ndef eval_job(): pass\n")
    assert export_cli.main([script, "predcit_job", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert MARKER not in captured.out
    assert captured.err == ("flowtorch export: error: JOB: the program has no job named 'predcit_job' (found in its "
                            "source before running it); its jobs are 'eval_job', 'predict_job' (a job is named after "
                            "its function); did you mean 'predict_job'?\n")
    assert not (tmp_path / "out").exists()


def test_a_mistyped_job_in_a_process_of_its_own(tmp_path: Path, run_py) -> None:
    script = _script(tmp_path, JOB)
    done = run_py("-m", "flowtorch", "export", script, "nothing_like_it", str(tmp_path / "out"), timeout=120)
    assert done.returncode == 2 and MARKER not in done.stdout
    assert done.stderr.startswith("flowtorch export: error: JOB: the program has no job named 'nothing_like_it'")
    assert "did you mean" not in done.stderr  # nothing close enough


def test_a_factory_made_job_is_not_checked_and_still_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              caplog: pytest.LogCaptureFixture) -> None:
    script = _script(tmp_path, """
        def make_job(units):
            @flow.global_function(type="predict")
            def made_job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
                return flow.layers.dense(x, units, name="fc")
            return made_job

        job = make_job(4)
        job(np.ones((2, 3), np.float32))
    """)
    out = tmp_path / "out"
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        assert export_cli.main(["--weights", "torch", script, "made_job", str(out)]) == 0
    captured = capsys.readouterr()
    assert MARKER in captured.out and "exported job 'made_job' (predict, 2 variables)" in captured.out
    assert (out / "model.py").is_file()
    messages = [r.getMessage() for r in caplog.records]
    assert any("JOB 'made_job' is none of the jobs in the source" in m and "could not be checked before the run" in m
               for m in messages), messages


def test_a_job_whose_source_cannot_be_exported_is_refused_before_the_run(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    script = _script(tmp_path, """
        @flow.global_function(type="predict")
        def list_job(x: tp.ListNumpy.Placeholder((2, 3))) -> tp.ListNumpy:
            return flow.layers.dense(x, 2, name="fc")

        list_job([np.ones((2, 3), np.float32)])
    """)
    assert export_cli.main([script, "list_job", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert MARKER not in captured.out
    assert captured.err == (f"flowtorch export: job 'list_job' ({script}:8), as its source shows before the program "
                            "runs: refused, because its inputs include list_numpy placeholders; only tp.Numpy ones "
                            f"are exported ({script}:8) (--no-check runs the program anyway)\n")
    # --no-check runs the program; the export itself then refuses the job, for the same reason
    assert export_cli.main(["--no-check", script, "list_job", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert MARKER in captured.out and "as its source shows" not in captured.err
    assert "job 'list_job' cannot be exported: its inputs include list_numpy placeholders" in captured.err


def test_an_approximate_optimizer_passes_the_check_only_when_allowed(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    script = _script(tmp_path, """
        cfg = flow.FunctionConfig()
        cfg.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=["emb"])))
        @flow.global_function(type="train", function_config=cfg)
        def train_job(ids: tp.Numpy.Placeholder((4, 2), dtype=flow.int32)) -> tp.Numpy:
            emb = flow.get_variable("emb", shape=(8, 3), initializer=flow.random_normal_initializer())
            loss = flow.math.reduce_mean(flow.gather(emb, ids))
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.0).minimize(loss)
            return loss

        train_job(np.zeros((4, 2), np.int32))
    """)
    assert export_cli.main([script, "train_job", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert MARKER not in captured.out
    assert captured.err == (
        f"flowtorch export: job 'train_job' ({script}:10), as its source shows before the program runs: refused, "
        "because it updates embeddings row by row (indexed_slices_optimizer_conf), which the export does only "
        f"approximately (the rows whose gradient is not all zero) ({script}:8); with --approximate-optimizer it "
        "exports approximately (--no-check runs the program anyway)\n")
    assert export_cli.main(["--approximate-optimizer", "--weights", "torch", script, "train_job",
                            str(tmp_path / "out")]) == 0
    assert "exported job 'train_job' (train, 1 variables)" in capsys.readouterr().out


def test_a_finding_on_some_paths_runs_without_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                caplog: pytest.LogCaptureFixture) -> None:
    script = _script(tmp_path, """
        import sys
        @flow.global_function(type="predict")
        def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            if len(sys.argv) > 5:
                x = flow.data.decode_random(shape=(3,), dtype=flow.float, batch_size=2)
            return flow.layers.dense(x, 2, name="fc")

        job(np.ones((2, 3), np.float32))
    """)
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        assert export_cli.main(["--weights", "torch", script, "job", str(tmp_path / "out")]) == 0
    assert MARKER in capsys.readouterr().out
    # the run did not take the branch: no warning names it; the check's outcome is information
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert (f"flowtorch export: job 'job' ({script}:9), as its source shows before the program runs: runs; the run "
            "decides its export, because on some paths of its build it reads data with `data.decode_random`, which "
            f"export does not support; feed the data as inputs instead ({script}:11)") in caplog.messages


def test_jobs_of_the_programs_modules_and_aliases_pass_the_check(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "jobs.py").write_text(textwrap.dedent("""
        import oneflow as flow
        import oneflow.typing as tp
        @flow.global_function(type="predict")
        def module_job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            return flow.layers.dense(x, 2, name="fc")
    """))
    script = _script(tmp_path, "from jobs import module_job\nrenamed = module_job\n")
    for name in ("module_job", "renamed"):
        out = tmp_path / f"out_{name}"
        assert export_cli.main(["--weights", "torch", script, name, str(out)]) == 0
        assert "exported job 'module_job'" in capsys.readouterr().out


def test_progress_lines_in_a_process_of_their_own(tmp_path: Path, run_py) -> None:
    script = _script(tmp_path, JOB)
    out = tmp_path / "out"
    done = run_py("-m", "flowtorch", "export", "--weights", "torch", script, "predict_job", str(out), "--flag",
                  timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[:2] == [f"flowtorch export: job 'predict_job' ({script}:8), as its source shows before the program "
                         "runs: exports exactly", f"flowtorch export: running {script} --flag"]
    assert lines[2].startswith(f"flowtorch export: {script} ran in ") and lines[2].endswith(" s")
    assert lines[3] == f"flowtorch export: exporting job 'predict_job': building its torch module, then writing {out}"
    assert done.stdout.splitlines()[-1].startswith("exported job 'predict_job'")


def test_a_module_of_the_program_that_cannot_be_read_leaves_the_job_unchecked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "broken.py").write_text("def oops(:\n")
    script = _script(tmp_path, "try:\n    import broken\nexcept SyntaxError:\n    pass\n" + JOB)
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        assert export_cli.main([script, "maybe_in_broken", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert MARKER in captured.out  # it ran: broken.py could have defined the job
    assert "no job named 'maybe_in_broken'" in captured.err
    assert any("could not be checked before the run" in r.getMessage() and "broken.py could not be read" in
               r.getMessage() for r in caplog.records)
