"""``python -m flowtorch --nproc N``: workers, ranks, a failing rank, the option parsing and ``flow.env``."""

from __future__ import annotations

import logging
import re
import textwrap

import pytest
import torch
import torch.distributed as dist

import flowtorch as flow
from flowtorch.__main__ import main
from flowtorch._src.dist import launch

needs_gloo = pytest.mark.skipif(not (dist.is_available() and dist.is_gloo_available()),
                                reason="this torch has no torch.distributed with gloo")

WORKER = textwrap.dedent("""
    import sys
    import torch
    import torch.distributed as dist
    import oneflow as flow
    from flowtorch._src.dist import group

    assert flow.__name__ == "flowtorch", flow.__name__
    world = group.ensure_world("cpu")
    assert group.ensure_world("cpu") is world and group.current() is world
    total = torch.tensor([float(world.rank)])
    dist.all_reduce(total)
    group.barrier()
    probe = lambda: None
    runs_1n2d = flow.unittest.skip_unless_1n2d()(probe) is probe
    # One write per line: the workers share the launcher's stdout (print writes the newline apart).
    sys.stdout.write(f"rank={world.rank} size={world.size} local={world.local_rank} device={world.device} "
                     f"backend={world.backend} sum={total.item():g} argv={sys.argv[1:]} "
                     f"device_num={flow.unittest.env.device_num()} node_size={flow.unittest.env.node_size()} "
                     f"1n2d={runs_1n2d}\\n")
""")


def _lines(out: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^rank=(\d+) .*$", out, re.MULTILINE)}


@needs_gloo
def test_two_workers_run_the_script_with_its_args(launch_flowtorch, tmp_path):
    (tmp_path / "prog.py").write_text(WORKER)
    proc, _ = launch_flowtorch("--nproc", "2", "--all-ranks-output", "prog.py", "a", "--b", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    assert sorted(lines) == [0, 1], proc.stdout + proc.stderr
    for rank, line in lines.items():
        assert line == (f"rank={rank} size=2 local={rank} device=cpu backend=gloo sum=1 argv=['a', '--b'] "
                        "device_num=2 node_size=1 1n2d=True")


@needs_gloo
def test_by_default_the_program_prints_once_from_rank_0(launch_flowtorch, tmp_path):
    (tmp_path / "prog.py").write_text(WORKER)
    proc, _ = launch_flowtorch("--nproc", "2", "prog.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(_lines(proc.stdout)) == [0], proc.stdout  # as OneFlow's one controlling process printed


@needs_gloo
def test_every_rank_draws_the_one_program_s_random_numbers(launch_flowtorch, tmp_path):
    # OneFlow ran the program once: an unseeded np.random batch must be the same batch on every rank
    # one write per line: the ranks share the pipe, and print's two writes (text, newline) can interleave
    (tmp_path / "draw.py").write_text("import os, random, sys, numpy as np\n"
                                      "sys.stdout.write(f'rank={os.environ[\"RANK\"]} {np.random.rand(3)} "
                                      "{random.random()}\\n')\n")
    proc, _ = launch_flowtorch("--nproc", "2", "--all-ranks-output", "draw.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    assert sorted(lines) == [0, 1], proc.stdout
    assert lines[0].split(" ", 1)[1] == lines[1].split(" ", 1)[1]


@needs_gloo
def test_four_workers_of_a_module_through_flowtorch_run(launch_flowtorch, tmp_path):
    (tmp_path / "distprog.py").write_text(WORKER)
    proc, _ = launch_flowtorch("run", "--nproc=4", "--all-ranks-output", "-m", "distprog", "x", cwd=tmp_path,
                         timeout=90)
    assert proc.returncode == 0, proc.stderr
    lines = _lines(proc.stdout)
    assert sorted(lines) == [0, 1, 2, 3], proc.stdout + proc.stderr
    for rank, line in lines.items():
        assert f"rank={rank} size=4 local={rank} device=cpu backend=gloo sum=6 argv=['x'] " in line
        assert line.endswith("device_num=4 node_size=1 1n2d=False")


@needs_gloo
def test_a_failing_rank_stops_the_others_and_is_named(launch_flowtorch, tmp_path):
    (tmp_path / "fail.py").write_text(textwrap.dedent("""
        import time
        from flowtorch._src.dist import group

        world = group.ensure_world("cpu")
        if world.rank == 1:
            raise ValueError("rank 1 is broken on purpose")
        try:
            group.barrier()  # never completes: rank 1 is gone
        except RuntimeError:
            time.sleep(600)  # only the launcher can end this rank
        print("rank 0 got past the barrier", flush=True)
    """))
    proc, seconds = launch_flowtorch("--nproc", "2", "fail.py", cwd=tmp_path, timeout=60)
    assert proc.returncode != 0
    assert seconds < 60
    assert "got past" not in proc.stdout
    assert re.search(r"^flowtorch: rank 1 \(local rank 1, pid \d+\) failed with exit code 1: "
                     r"ValueError: rank 1 is broken on purpose$", proc.stderr, re.MULTILINE), proc.stderr
    # The root cause comes first, before any rank the launcher stopped.
    assert re.search(r"^flowtorch: rank (\d+)", proc.stderr, re.MULTILINE).group(1) == "1"


@needs_gloo
def test_a_killed_rank_is_named_before_the_peer_that_lost_it(launch_flowtorch, tmp_path):
    # Rank 1 dies of SIGKILL (as the OOM killer kills); rank 0's next collective fails with gloo's "Connection
    # closed by peer", which rank 0 files as its error before the launcher stops it. Rank 0 holds the launcher's
    # SIGTERM until then and takes it on the way out: it ends as in the reported runs (SIGTERM, with an error
    # file) or, when it leaves first, with exit code 1. Either way rank 1 is the root cause.
    (tmp_path / "oom.py").write_text(textwrap.dedent("""
        import atexit, os, signal
        import torch, torch.distributed as dist
        from flowtorch._src.dist import group

        world = group.ensure_world("cpu")
        x = torch.ones(4)
        dist.all_reduce(x)
        if world.rank == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        held = []
        signal.signal(signal.SIGTERM, lambda *_: held.append(1))

        @atexit.register
        def take_held_sigterm():
            if held:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)

        dist.all_reduce(x)  # rank 1 is gone
    """))
    proc, seconds = launch_flowtorch("--nproc", "2", "oom.py", cwd=tmp_path, timeout=60)
    assert seconds < 60
    first = re.search(r"^flowtorch: rank .*$", proc.stderr, re.MULTILINE)
    assert first is not None, proc.stderr
    assert re.fullmatch(r"flowtorch: rank 1 \(local rank 1, pid \d+\) failed with SIGKILL: .*", first.group(0)), \
        proc.stderr
    assert re.search(r"^flowtorch: rank 0 .*Connection (closed|reset) by peer", proc.stderr, re.MULTILINE), proc.stderr
    assert proc.returncode == 128 + 9


@needs_gloo
def test_a_finished_worker_runs_exit_handlers_writes_its_files_and_keeps_its_exit_code(launch_flowtorch, tmp_path):
    # workers leave with os._exit after the exit handlers (dist/launch.py, _leave): nothing the program wrote is lost
    (tmp_path / "leave.py").write_text(textwrap.dedent("""
        import atexit, os, sys, time
        import oneflow as flow
        rank = os.environ["RANK"]
        log = open(f"unclosed-{rank}.txt", "w")  # never closed by the program
        log.write("written")
        atexit.register(lambda: open(f"atexit-{rank}.txt", "w").write("ran"))
        if rank == "1":
            time.sleep(2)  # rank 0 leaves first: the launcher stops the others once a rank fails
        sys.exit(3 if rank == "1" else 0)
    """))
    proc, _ = launch_flowtorch("--nproc", "2", "leave.py", cwd=tmp_path, timeout=60)
    assert proc.returncode != 0
    assert re.search(r"^flowtorch: rank 1 \(local rank 1, pid \d+\) failed with exit code 3", proc.stderr,
                     re.MULTILINE), proc.stderr
    for rank in (0, 1):
        assert (tmp_path / f"unclosed-{rank}.txt").read_text() == "written"
        assert (tmp_path / f"atexit-{rank}.txt").read_text() == "ran"


def test_options_before_the_program_are_the_launcher_s():
    opts, rest = launch.split_options(["--nproc", "2", "--nnodes=2", "--node-rank", "1", "--rdzv-endpoint",
                                       "n0:29400", "train.py", "--nproc", "9"])
    assert rest == ["train.py", "--nproc", "9"]
    assert (opts.nproc, opts.nnodes, opts.node_rank, opts.rdzv_endpoint) == (2, 2, 1, "n0:29400")
    assert launch.torchrun_argv(opts, rest) == [
        "--nnodes", "2", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint", "n0:29400",
        "--node-rank", "1", "--max-restarts", "0", "--module", "flowtorch", "train.py", "--nproc", "9"]
    assert launch.split_options(["-m", "pytest", "--nproc", "2"]) == (None, ["-m", "pytest", "--nproc", "2"])
    single, rest = launch.split_options(["--nproc", "3", "-m", "pytest", "t.py"])
    assert launch.torchrun_argv(single, rest)[:5] == ["--nnodes", "1", "--nproc-per-node", "3", "--standalone"]
    static, _ = launch.split_options(["--nnodes", "2", "--node-rank", "0", "--master-addr", "10.0.0.1",
                                      "--master-port", "29500", "x.py"])
    assert launch.torchrun_argv(static, ["x.py"])[4:12] == [
        "--rdzv-backend", "static", "--master-addr", "10.0.0.1", "--master-port", "29500", "--node-rank", "0"]


@pytest.mark.parametrize("args, message", [
    (["--nproc", "0", "x.py"], "--nproc expects an int >= 1; received '0'"),
    (["--nproc", "two", "x.py"], "--nproc expects an int >= 1; received 'two'"),
    (["--nproc"], "--nproc needs a value"),
    (["--nnodes", "2", "--nproc", "2", "x.py"], "--nnodes 2: machines meet at a rendezvous; give --rdzv-endpoint"),
    (["--master-port", "70000", "x.py"], "--master-port expects an int in 1..65535"),
    (["--nnodes", "2", "--node-rank", "2", "--rdzv-endpoint", "h:1", "x.py"], "--node-rank 2 must be below"),
    (["--rdzv-endpoint", "h:1", "--master-addr", "h", "x.py"], "either --rdzv-endpoint or --master-addr"),
    (["--all-ranks-output", "x.py"], "--all-ranks-output goes with --nproc N"),
])
def test_bad_launcher_options_are_usage_errors(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_usage_documents_the_launcher(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for flag in ("--nproc N", "--nnodes M", "--node-rank R", "--rdzv-endpoint H:P", "--master-addr", "--master-port"):
        assert flag in out


def test_env_machine_and_ctrl_port_are_recorded_and_checked(monkeypatch, caplog):
    from flowtorch._src import session
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert flow.env.machine([{"addr": "192.168.1.1"}, {"addr": "192.168.1.2", "ctrl_port_agent": 9}]) is True
    [record] = [r for r in caplog.records if "flow.env.machine" in r.getMessage()]
    assert "python -m flowtorch --nnodes 2 --nproc N --rdzv-endpoint host:port script.py" in record.getMessage()
    assert flow.env.ctrl_port(9000) is True
    assert flow.env.log_dir("/tmp/logs") is True
    config = session.default_session().config
    assert config["env.machine"] == [{"addr": "192.168.1.1"}, {"addr": "192.168.1.2", "ctrl_port_agent": 9}]
    assert (config["env.ctrl_port"], config["env.log_dir"]) == (9000, "/tmp/logs")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        flow.env.machine("127.0.0.1")  # one machine: nothing to say
    assert not caplog.records


@pytest.mark.parametrize("call, error, message", [
    (lambda: flow.env.ctrl_port("9000"), TypeError, "flow.env.ctrl_port: expected an int port in 1..65535"),
    (lambda: flow.env.ctrl_port(True), TypeError, "flow.env.ctrl_port: expected an int port"),
    (lambda: flow.env.ctrl_port(70000), ValueError, "flow.env.ctrl_port: expected a port in 1..65535"),
    (lambda: flow.env.machine([{"host": "a"}]), TypeError, 'entry 0 must be a dict with an "addr" string'),
    (lambda: flow.env.machine(["a", 5]), TypeError, "entry 1 must be"),
    (lambda: flow.env.machine(["a", "a"]), ValueError, "expected distinct machine addresses"),
    (lambda: flow.env.machine([]), ValueError, "expected at least one machine"),
    (lambda: flow.env.log_dir(3), TypeError, "flow.env.log_dir: expected str"),
])
def test_env_refuses_what_oneflow_refused(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@needs_gloo
@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="a GPU per process: no CPU processes stand in")
def test_a_launch_notes_once_and_a_rank_s_traceback_starts_at_the_program(launch_flowtorch, tmp_path):
    (tmp_path / "asks.py").write_text(textwrap.dedent("""
        import numpy as np
        import oneflow as flow
        import oneflow.typing as tp

        flow.config.gpu_device_num(2)

        @flow.global_function()
        def double(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
            return x * 2

        print("ran", double(np.ones((4, 3), np.float32)).sum())
        double(np.ones((4, 4), np.float32))  # a user error: the wrong shape
    """))
    proc, _ = launch_flowtorch("--nproc", "2", "asks.py", cwd=tmp_path, timeout=120)
    # (the launch's status is its root failure's: 1, or 143 when the rank it names was stopped after its error)
    assert proc.returncode in (1, 143) and proc.stdout == "ran 24.0\n", proc.stderr
    assert proc.stderr.count("CPU processes stand in") == 1, proc.stderr  # once per launch, not per rank
    by_rank: dict[str, list[str]] = {}  # torchrun prefixes each worker's stderr line with "[rankN]:"
    for rank, line in re.findall(r"^\[rank(\d)\]: ?(.*)$", proc.stderr, re.MULTILINE):
        by_rank.setdefault(rank, []).append(line)
    tracebacks = ["\n".join(lines).split("Traceback (most recent call last):\n", 1)[-1] for lines in by_rank.values()
                  if "Traceback (most recent call last):" in lines]
    assert tracebacks, proc.stderr
    for tb in tracebacks:  # each rank's: the program's frame first, none of the runner's
        assert tb.startswith('  File "asks.py", line 13, in <module>'), tb
        assert not any(frame in tb for frame in ("runpy", "flowtorch/__main__.py", "dist/launch.py",
                                                 "elastic/multiprocessing")), tb
        assert "AssertionError: job 'double', argument 'x' (#0): expected shape (4, 3)" in tb
    assert re.search(r"^flowtorch: rank \d \(local rank \d, pid \d+\) failed with exit code 1: ", proc.stderr,
                     re.MULTILINE), proc.stderr
