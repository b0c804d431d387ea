"""``flowtorch export SCRIPT JOB OUTDIR``: runs an unedited OneFlow program, then writes the job's files."""

from __future__ import annotations

import json
import textwrap

from flowtorch._src.migrate import export_cli

PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    @flow.global_function(type="train")
    def train_job(x: tp.Numpy.Placeholder((4, 6)), y: tp.Numpy.Placeholder((4,), dtype=flow.int32)) -> tp.Numpy:
        logits = flow.layers.dense(x, 3, kernel_initializer=flow.random_normal_initializer(), name="fc")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
        return loss

    if __name__ == "__main__":
        steps = int(sys.argv[1])
        rng = np.random.default_rng(0)
        for _ in range(steps):
            train_job(rng.standard_normal((4, 6)).astype(np.float32), rng.integers(0, 3, 4).astype(np.int32))
""")


def test_cli_runs_the_program_then_exports_its_job(tmp_path, run_py):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    out = tmp_path / "out"
    done = run_py("-m", "flowtorch", "export", "--weights", "torch", str(script), "train_job", str(out), "3")
    assert done.returncode == 0, done.stderr
    assert "exported job 'train_job' (train, 2 variables)" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == ["model.pt", "model.py", "oneflow_names.json", "optimizer.pt"]
    assert json.loads((out / "oneflow_names.json").read_text()) == {"fc_weight": "fc-weight", "fc_bias": "fc-bias"}
    source = (out / "model.py").read_text()
    assert "START_STEP = 3" in source  # the program's three steps ran before the export
    assert "import flowtorch" not in source and "import oneflow" not in source


def test_cli_names_the_jobs_when_the_job_is_unknown(tmp_path, capsys):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    assert export_cli.main(["--no-main", str(script), "no_such_job", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "no job named 'no_such_job'" in err and "'train_job'" in err
    assert not (tmp_path / "out").exists()


def test_cli_reports_a_job_it_cannot_export(tmp_path, capsys):
    script = tmp_path / "prog.py"
    sgd = "flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9)"
    script.write_text(PROGRAM.replace(sgd, f"flow.optimizer.CombinedOptimizer([{sgd}])"))
    # the check before the run refuses it; past the check (--no-check), so does the export, with one prefix
    assert export_cli.main(["--no-main", str(script), "train_job", str(tmp_path / "out")]) == 1
    assert "refused, because OneFlow's CombinedOptimizer cannot be exported" in capsys.readouterr().err
    assert export_cli.main(["--no-main", "--no-check", str(script), "train_job", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("flowtorch export: OneFlow's CombinedOptimizer cannot be exported: it combines several")
    assert not (tmp_path / "out").exists()


def test_cli_usage_errors(tmp_path, capsys):
    assert export_cli.main([str(tmp_path / "missing.py"), "job", str(tmp_path)]) == 2
    assert "SCRIPT: cannot open" in capsys.readouterr().err
    assert export_cli.main(["--help"]) == 0
    assert "usage: flowtorch export" in capsys.readouterr().out
    assert export_cli.main([]) == 2
