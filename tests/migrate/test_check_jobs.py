"""``flowtorch check``'s jobs: which ``@global_function`` jobs a program defines, found statically, and what in
their source keeps them from ``flowtorch export`` (``job_scan``)."""

from __future__ import annotations

import json
import logging
import os
import textwrap
from pathlib import Path

import pytest

from flowtorch._src.migrate import cli_log, job_scan
from flowtorch._src.migrate.check_cli import main

SGD = "flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]))"


def scan(tmp_path: Path, source: str, **modules: str) -> job_scan.ProgramJobs:
    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    return job_scan.scan_program(str(script))


def reasons(job: job_scan.JobInfo) -> list[tuple[str, bool]]:
    return [(f.reason, f.certain) for f in job.findings]


# -- finding the jobs ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("header, decorator", [
    ("import oneflow as flow", "@flow.global_function(type='train')"),
    ("import oneflow", "@oneflow.global_function('train')"),
    ("import oneflow as of", "@of.global_function(type='train', function_config=None)"),
    ("from oneflow import global_function", "@global_function('train')"),
    ("from oneflow import global_function as gf", "@gf(type='train')"),
    ("from oneflow.compatible import single_client as flow", "@flow.global_function(type='train')"),
    ("import flowtorch as flow", "@flow.global_function(type='train')"),
])
def test_every_spelling_of_the_decorator_makes_a_job(tmp_path: Path, header: str, decorator: str) -> None:
    found = scan(tmp_path, f"{header}\n\n{decorator}\ndef train_job(x):\n    return x\n\n"
                           "@flow_missing_decorator\ndef not_a_job():\n    pass\n")
    assert [(j.name, j.job_type, j.line) for j in found.jobs] == [("train_job", "train", 4)]
    assert found.dynamic == [] and found.find("train_job") is found.jobs[0] and found.find("not_a_job") is None


def test_plain_decorator_types_and_top_level_blocks(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow as flow
        MODE = "predict"
        @flow.global_function
        def bare(): pass
        if True:
            @flow.global_function(MODE)
            def in_an_if(): pass
        try:
            @flow.global_function(type="train")
            def in_a_try(): pass
        except ImportError:
            pass
        alias = bare
    """)
    assert [(j.name, j.job_type) for j in found.jobs] == [("bare", "predict"), ("in_an_if", ""), ("in_a_try", "train")]
    assert found.find("alias") is found.jobs[0] and "alias" in found.names()


def test_jobs_made_at_run_time_are_reported_not_named(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import importlib
        import oneflow as flow

        def make_job(n):
            @flow.global_function()
            def scaled(x):
                return x * n
            return scaled

        def body(x):
            return x
        called = flow.global_function(type="predict")(body)
        plugins = importlib.import_module("plugins")
    """)
    assert found.jobs == []
    assert [(line, how.split(" ")[0]) for _, line, how in found.dynamic] == [
        (6, "`global_function`"), (13, "`global_function`"), (14, "`import_module`")]


def test_jobs_of_the_programs_own_modules_are_found(tmp_path: Path) -> None:
    found = scan(tmp_path, "import jobs\nfrom pkg import more\nimport numpy\n", jobs="""
        import oneflow as flow
        @flow.global_function()
        def helper_job(): pass
    """)
    assert [(j.name, Path(j.file).name) for j in found.jobs] == [("helper_job", "jobs.py")]
    only_script = job_scan.scan_program(str(tmp_path / "prog.py"), imported_jobs=False)
    assert only_script.jobs == []


# -- what keeps a job from export -----------------------------------------------------------------------------

def test_a_job_with_nothing_in_the_way_exports(tmp_path: Path) -> None:
    found = scan(tmp_path, f"""
        import oneflow as flow
        import oneflow.typing as tp
        @flow.global_function(type="train")
        def train_job(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
            loss = flow.math.reduce_mean(flow.layers.dense(x, 3))
            {SGD}.minimize(loss)
            return loss
    """)
    assert found.jobs[0].findings == [] and found.jobs[0].verdict() == job_scan.YES


def test_data_ops_outside_the_exportable_list_keep_a_job_from_export(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow as flow
        @flow.global_function()
        def reader_job():
            record = flow.data.ofrecord_reader("data", batch_size=2)
            image = flow.data.ofrecord_image_decoder(record, "encoded")  # an alias of OFRecordImageDecoder
            image = flow.image_resize(image, target_size=(8, 8))
            return flow.image.CropMirrorNormalize(image, mirror_blob=flow.random.CoinFlip(batch_size=2))

        @flow.global_function()
        def random_job():
            return flow.data.decode_random(shape=(3,), dtype=flow.float, batch_size=2)
    """)
    reader, random = found.jobs
    assert reader.findings == [] and reader.verdict() == job_scan.YES
    assert reasons(random) == [("it reads data with `data.decode_random`, which export does not support; feed "
                                "the data as inputs instead", True)]
    assert random.verdict() == job_scan.NO
    assert {"data.ofrecord_reader", "image.Resize", "random.CoinFlip"} <= job_scan.EXPORTABLE_DATA_OPS


def test_findings_on_some_paths_only_are_maybe(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow as flow
        def load(synthetic):
            if synthetic:
                return flow.data.decode_random((3,), flow.float, batch_size=2)
            return flow.data.ofrecord_reader("data", batch_size=2)

        @flow.global_function()
        def job(x=None):
            early = load(False) if x else None
            if x is None:
                return early
            return flow.data.megatron_gpt_mmap_data_loader("path", 3)

        @flow.global_function()
        def always():
            with flow.scope.placement("cpu", "0:0"):
                helper()

        def helper():
            return flow.data.megatron_gpt_mmap_data_loader("path", 3)
    """)
    job, always = found.jobs
    assert [(f.line, f.certain) for f in job.findings] == [(5, False), (13, False)]
    assert job.verdict() == job_scan.MAYBE
    assert [(f.line, f.certain) for f in always.findings] == [(21, True)] and always.verdict() == job_scan.NO


def test_helpers_in_the_programs_modules_are_followed(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow.compatible.single_client as flow
        import data_util
        from data_util import synthetic as make_data
        from models import nets

        @flow.global_function("train")
        def TrainNet():
            labels, images = data_util.load()
            more = make_data()
            return nets.model(images)
    """, data_util="""
        import oneflow.compatible.single_client as flow
        def load():
            return flow.data.ofrecord_reader("x", batch_size=2), flow.data.OneRecDecoder(None, "images")
        def synthetic():
            return flow.data.decode_random((3,), flow.float, batch_size=2)
    """)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "nets.py").write_text(
        "import oneflow as flow\ndef model(x):\n    return flow.no_such_op(x)\n")
    found = job_scan.scan_program(str(tmp_path / "prog.py"))
    assert [(Path(f.file).name, f.line, f.reason.split(",")[0], f.certain) for f in found.jobs[0].findings] == [
        ("data_util.py", 4, "it reads data with `data.OneRecDecoder`", True),
        ("data_util.py", 6, "it reads data with `data.decode_random`", True),
        ("nets.py", 3, "it uses `no_such_op`", True)]


def test_every_optimizer_but_a_combined_one_exports_exactly(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow as flow
        lr = flow.optimizer.CosineScheduler(0.1, 4, warmup=flow.optimizer.warmup.linear(2, 0.1))
        @flow.global_function(type="train")
        def lars(loss):
            flow.optimizer.LARS(lr).minimize(loss)
        @flow.global_function(type="train")
        def clipped(loss):
            flow.optimizer.SGD(lr, momentum=0.9, grad_clipping=flow.optimizer.grad_clipping.by_global_norm(1.0),
                               loss_scale_policy=flow.optimizer.loss_scale.dynamic_loss_scale()).minimize(loss)
        @flow.global_function(type="train")
        def corrected(loss):
            flow.optimizer.Adam(lr, do_bias_correction=True).minimize(loss)
        @flow.global_function(type="train")
        def rmsprop(loss):
            flow.optimizer.RMSProp(lr, centered=True).minimize(loss)
        @flow.global_function(type="train")
        def combined(loss):
            flow.optimizer.CombinedOptimizer([flow.optimizer.SGD(lr), flow.optimizer.LAMB(lr)]).minimize(loss)
    """)
    *exact, combined = found.jobs
    for job in exact:
        assert (job.findings, job.outcome(), job.report()) == ([], job_scan.EXACT, "exports exactly"), job.name
    assert combined.outcome() == combined.outcome(approximate=True) == job_scan.REFUSED
    assert combined.report() == (
        "refused, because OneFlow's CombinedOptimizer cannot be exported: it combines several update rules, each "
        "with its own schedule; export a job with one optimizer, or split the variables between jobs "
        f"({combined.file}:19)")


def test_the_reports_of_the_four_outcomes(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import sys
        import oneflow as flow
        cfg = flow.FunctionConfig()
        cfg.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=["emb"])))
        @flow.global_function(type="train", function_config=cfg)
        def lazy(loss):
            flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        @flow.global_function()
        def sometimes():
            if len(sys.argv) > 3:
                return flow.data.decode_random(shape=(3,), dtype=flow.float, batch_size=2)
        @flow.global_function()
        def plain():
            pass
    """)
    lazy, sometimes, plain = found.jobs
    prog = lazy.file
    rows = ("it updates embeddings row by row (indexed_slices_optimizer_conf), which the export does only "
            f"approximately (the rows whose gradient is not all zero) ({prog}:5)")
    # flowtorch check does not know the flags: it names the one that changes the outcome
    assert lazy.report() == f"refused, because {rows}; with --approximate-optimizer it exports approximately"
    assert lazy.report(approximate=False) == lazy.report()
    assert lazy.report(approximate=True) == f"exports approximately, because {rows}"
    assert (lazy.outcome(), lazy.outcome(approximate=True)) == (job_scan.REFUSED, job_scan.APPROXIMATE)
    assert sometimes.outcome() == job_scan.RUNS
    assert sometimes.report() == ("runs; the run decides its export, because on some paths of its build it reads "
                                  "data with `data.decode_random`, which export does not support; feed the data as "
                                  f"inputs instead ({prog}:12)")
    assert plain.report() == "exports exactly"


def test_lazy_row_updates_export_approximately(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow as flow
        cfg = flow.FunctionConfig()
        cfg.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=["emb"])))
        @flow.global_function(type="train", function_config=cfg)
        def wide_deep(loss):
            flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
    """)
    (finding,) = found.jobs[0].findings
    assert (finding.line, finding.certain, finding.approximate) == (4, True, True)
    assert finding.reason.startswith("it updates embeddings row by row (indexed_slices_optimizer_conf)")
    assert (found.jobs[0].verdict(), found.jobs[0].verdict(approximate=True)) == (job_scan.NO, job_scan.YES)


def test_signature_config_and_eager_mode(tmp_path: Path) -> None:
    found = scan(tmp_path, """
        import oneflow as flow
        import oneflow.typing as tp
        flow.enable_eager_execution(False)
        cfg = flow.FunctionConfig()
        cfg.train.num_gradient_accumulation_steps(4)
        @flow.global_function(type="train", function_config=cfg)
        def listed(x: tp.ListNumpy.Placeholder((2, 3)), y=flow.MirroredTensorListDef((2,))):
            pass
        @flow.global_function(type="predict", function_config=cfg)
        def predict(x: tp.Numpy.Placeholder((2, 3))):
            pass
    """)
    listed, predict = found.jobs
    assert reasons(listed) == [
        ("it accumulates gradients over 4 micro-steps", True),
        ("its inputs include list_list_numpy placeholders; only tp.Numpy ones are exported", True),
        ("its inputs include list_numpy placeholders; only tp.Numpy ones are exported", True)]
    assert predict.findings == []  # gradient accumulation concerns train jobs only
    eager = scan(tmp_path, "import oneflow as flow\nflow.enable_eager_execution()\n"
                           "@flow.global_function()\ndef job(): pass\n")
    assert reasons(eager.jobs[0]) == [("it runs eagerly (flow.enable_eager_execution); it keeps no graph to export",
                                       True)]


def test_a_program_on_several_devices_gets_a_note(tmp_path: Path) -> None:
    found = scan(tmp_path, "import oneflow as flow\nflow.config.gpu_device_num(2)\n"
                           "@flow.global_function()\ndef job(): pass\n")
    assert found.jobs[0].verdict() == job_scan.YES
    assert found.jobs[0].notes == ["the program asks for 2 devices (gpu_device_num(2) at line 2): `python -m "
                                   "flowtorch` runs it in 2 processes, where flow.export refuses its jobs; "
                                   "`flowtorch export` runs it in one process"]


# -- the command's report ---------------------------------------------------------------------------------------

PROGRAM = f"""
import oneflow as flow
import oneflow.typing as tp

@flow.global_function(type="train")
def train_job(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
    loss = flow.math.reduce_mean(flow.layers.dense(x, 3))
    {SGD}.minimize(loss)
    return loss

@flow.global_function()
def data_job():
    return flow.data.decode_random(shape=(3,), dtype=flow.float, batch_size=2)

def make():
    @flow.global_function()
    def made(): pass
    return made
"""


def test_the_text_report_lists_each_job_and_whether_it_exports(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert main([str(tmp_path)]) == 0  # a job that cannot be exported is no missing symbol
    out = capsys.readouterr().out
    section = out.split("== jobs: can `flowtorch export` export them? (2) ==\n\n", 1)[1]
    prog = tmp_path / "prog.py"
    assert section.splitlines()[:3] == [f"  train_job  (train job at {prog}:6)", "    exports exactly",
                                        f"  data_job  (predict job at {prog}:12)"]
    assert " ".join(section.split()).startswith(  # the reasons are wrapped as the notes of symbols are
        f"train_job (train job at {prog}:6) exports exactly data_job (predict job at {prog}:12) refused, because it "
        f"reads data with `data.decode_random`, which export does not support; feed the data as inputs instead "
        f"({prog}:13) jobs made as the program runs")
    assert "  jobs made as the program runs (not checked):" in section
    assert out.splitlines()[1] == ("flowtorch check: 2 job(s): 1 exported exactly, 1 refused, 0 decided by the run; "
                                   "jobs made as the program runs at 1 place(s), not checked")
    assert out.splitlines()[0].startswith("flowtorch check: 1 file(s), ")  # the summary leads


def test_the_json_report_has_the_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert main(["--json", str(tmp_path / "prog.py")]) == 0
    report = json.loads(capsys.readouterr().out)
    prog = str(tmp_path / "prog.py")
    assert [(j["job"], j["type"], j["exports"], j["exports_approximately"]) for j in report["jobs"]] == [
        ("train_job", "train", "yes", "yes"), ("data_job", "predict", "no", "no")]
    assert [(j["outcome"], j["outcome_approximately"]) for j in report["jobs"]] == [
        ("exports exactly", "exports exactly"), ("refused", "refused")]
    assert report["jobs"][1]["report"].startswith("refused, because it reads data with `data.decode_random`")
    assert report["jobs"][1]["findings"] == [
        {"file": prog, "line": 13, "reason": "it reads data with `data.decode_random`, which export does not "
         "support; feed the data as inputs instead", "certain": True, "approximate": False}]
    assert report["jobs"][1]["notes"] == [] and report["jobs"][1]["line"] == 12
    assert [(d["file"], d["line"]) for d in report["dynamic_jobs"]] == [(prog, 16)]


def test_a_file_without_jobs_has_no_jobs_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    assert main([str(tmp_path)]) == 0
    assert "== jobs" not in capsys.readouterr().out


def test_a_long_check_logs_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    monkeypatch.setattr(cli_log, "PROGRESS_SECONDS", 0.0)
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        assert main([str(tmp_path)]) == 0
    assert [r.getMessage() for r in caplog.records] == ["flowtorch check: checked 1 of 3 files",
                                                        "flowtorch check: checked 2 of 3 files"]
    assert capsys.readouterr().err == ""


def test_progress_goes_to_stderr_in_a_process_of_its_own(tmp_path: Path, run_py) -> None:
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text("import oneflow as flow\nflow.nn.relu(1)\n")
    code = ("import sys; from flowtorch._src.migrate import cli_log, check_cli; cli_log.PROGRESS_SECONDS = 0.0; "
            "sys.exit(check_cli.main(sys.argv[1:]))")
    done = run_py("-c", code, str(tmp_path), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["flowtorch check: checked 1 of 3 files",
                                        "flowtorch check: checked 2 of 3 files"]
    quiet = ("import logging, sys; logging.getLogger('flowtorch').setLevel(logging.WARNING); " + code.split("; ", 1)[1])
    done = run_py("-c", quiet, str(tmp_path), timeout=120)  # a verbosity setting decides: the lines go
    assert done.returncode == 0 and done.stderr == ""


def test_jobs_are_found_without_torch(tmp_path: Path, root: Path, run_py) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    code = ("import sys, types; pkg = types.ModuleType('flowtorch'); pkg.__path__ = [sys.argv[1]]; "
            "sys.modules['flowtorch'] = pkg; from flowtorch._src.migrate.check_cli import main; "
            "code = main(['--json', sys.argv[2]]); print('torch imported:', 'torch' in sys.modules); sys.exit(code)")
    done = run_py("-c", code, str(root / "src" / "flowtorch"), str(tmp_path / "prog.py"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("torch imported: False")
    assert len(json.loads(done.stdout.rsplit("torch imported", 1)[0])["jobs"]) == 2


def test_progress_lines_are_not_doubled_once_the_program_configures_logging(run_py) -> None:
    code = textwrap.dedent("""
        import logging
        from flowtorch._src.migrate import cli_log
        log = logging.getLogger("flowtorch")
        with cli_log.progress_lines():
            log.info("before")
            logging.basicConfig(format="root: %(message)s")  # as a program run by `flowtorch export` may
            log.info("after")
        log.info("not shown: the level is restored")
    """)
    done = run_py("-c", code, timeout=60)
    assert done.returncode == 0 and done.stderr == "flowtorch: before\nroot: after\n"


def test_every_path_of_the_report_has_one_style(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # a finding in a module the job's file imports is shown as the checked file is: relative to the folder run in
    (tmp_path / "ps").mkdir()
    (tmp_path / "ps" / "helper.py").write_text(
        "import oneflow as flow\n\ndef body():\n    return flow.data.decode_random((2, 3), dtype=flow.float, "
        "batch_size=2)\n")
    (tmp_path / "ps" / "prog.py").write_text(
        "import oneflow as flow\nfrom helper import body\n\n@flow.global_function()\ndef data_job():\n"
        "    return body()\n")
    monkeypatch.chdir(tmp_path)
    assert main([os.path.join("ps", "prog.py")]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"data_job (predict job at {os.path.join('ps', 'prog.py')}:5)" in text
    assert f"({os.path.join('ps', 'helper.py')}:4)" in text and str(tmp_path) not in text
