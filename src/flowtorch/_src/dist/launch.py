"""``python -m flowtorch --nproc N script.py args…``: run a OneFlow program in N processes with torchrun.

torch's elastic launcher (``torch.distributed.run``, called in this process, not as a ``torchrun``
subprocess) starts each worker as ``python -u -m flowtorch script.py args…``, so every worker gets the
``import oneflow`` alias, and sets ``RANK``/``WORLD_SIZE``/``LOCAL_RANK``/``MASTER_ADDR``… for
:mod:`.group`. One machine uses a standalone rendezvous on a free local port; several machines run the
same command on each, with ``--nnodes`` and a shared ``--rdzv-endpoint`` (or ``--master-addr``/
``--master-port``/``--node-rank``). When a worker fails, torchrun stops the others; the launch exits
non-zero and names the failing rank and its exception (each worker records it through torch elastic's
error file, :func:`run_worker`). A program's uncaught exception shows as Python shows it, less the runner's
frames in front of the program's own (:func:`report_program_error`).
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import site
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, NoReturn

from flowtorch._src.envvars import env_flag, env_int
from flowtorch._src.errors import UsageError

OPTIONS_USAGE = """launcher options (before SCRIPT.py or -m MODULE; each machine runs the same command):
  --nproc N             processes on this machine, one per device (torchrun --nproc-per-node)
  --nnodes M            machines taking part (default 1)
  --node-rank R         this machine's index, 0..M-1 (with --master-addr/--master-port)
  --rdzv-endpoint H:P   rendezvous address, the same on every machine (torchrun c10d rendezvous)
  --master-addr HOST, --master-port PORT
                        static rendezvous at machine 0 instead of --rdzv-endpoint
  --all-ranks-output    every process's standard output (by default only rank 0's: the program prints
                        once, as OneFlow's one controlling process did; errors always show)
            e.g. on each of 2 machines:
            python -m flowtorch --nnodes 2 --nproc 4 --rdzv-endpoint node0:29400 train.py"""

_FLAGS = {"--nproc": "nproc", "--nnodes": "nnodes", "--node-rank": "node_rank",
          "--rdzv-endpoint": "rdzv_endpoint", "--master-addr": "master_addr", "--master-port": "master_port"}


_SWITCHES = {"--all-ranks-output": "all_ranks_output"}
VALUE_OPTIONS = tuple(_FLAGS)  # the launcher options that take a value (the next word when no `=`)
ALL_RANKS_ENV = "FLOWTORCH_ALL_RANKS_OUTPUT"
SEED_ENV = "FLOWTORCH_LAUNCH_SEED"  # one seed for every rank's numpy and random, drawn by the launcher
# The modules that run a program: flowtorch's runner, this module, runpy, torch elastic's error recorder.
_RUNNER_MODULES = ("flowtorch.__main__", __name__, "runpy", "torch.distributed.elastic.multiprocessing.errors")

log = logging.getLogger("flowtorch")


@dataclass
class LaunchOptions:
    nproc: int = 1
    nnodes: int = 1
    node_rank: int | None = None
    rdzv_endpoint: str | None = None
    master_addr: str | None = None
    master_port: int | None = None
    all_ranks_output: bool = False


def _int_option(flag: str, text: str, low: int, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low or (high is not None and value > high):
        bound = f"an int in {low}..{high}" if high is not None else f"an int >= {low}"
        raise UsageError(f"{flag} expects {bound}; received {text!r}")
    return value


def split_options(args: list[str]) -> tuple[LaunchOptions | None, list[str]]:
    """The launcher options in front of the program (None when there are none) and the program's args."""
    values: dict[str, Any] = {}
    switches: set[str] = set()
    i = 0
    while i < len(args) and (args[i].split("=", 1)[0] in _FLAGS or args[i] in _SWITCHES):
        if args[i] in _SWITCHES:
            switches.add(_SWITCHES[args[i]])
            i += 1
            continue
        flag, eq, text = args[i].partition("=")
        if not eq:
            if i + 1 >= len(args):
                raise UsageError(f"{flag} needs a value")
            i, text = i + 1, args[i + 1]
        values[_FLAGS[flag]] = text
        i += 1
    if not values and not switches:
        return None, args
    if not values:
        raise UsageError(f"{', '.join(sorted('--' + k.replace('_', '-') for k in switches))} goes with --nproc N")
    opts = LaunchOptions(all_ranks_output="all_ranks_output" in switches)
    for key, text in values.items():
        flag = "--" + key.replace("_", "-")
        if key in ("nproc", "nnodes"):
            setattr(opts, key, _int_option(flag, text, 1))
        elif key == "node_rank":
            opts.node_rank = _int_option(flag, text, 0)
        elif key == "master_port":
            opts.master_port = _int_option(flag, text, 1, 65535)
        elif not text:
            raise UsageError(f"{flag} needs a value")
        else:
            setattr(opts, key, text)
    _check(opts)
    return opts, args[i:]


def _check(opts: LaunchOptions) -> None:
    if opts.rdzv_endpoint and (opts.master_addr or opts.master_port):
        raise UsageError("give either --rdzv-endpoint or --master-addr/--master-port, not both")
    if opts.nnodes > 1 and not (opts.rdzv_endpoint or opts.master_addr):
        raise UsageError(f"--nnodes {opts.nnodes}: machines meet at a rendezvous; give --rdzv-endpoint HOST:PORT "
                         "(the same on every machine), or --master-addr/--master-port with --node-rank")
    if opts.node_rank is not None and opts.node_rank >= opts.nnodes:
        raise UsageError(f"--node-rank {opts.node_rank} must be below --nnodes {opts.nnodes}")


def torchrun_argv(opts: LaunchOptions, program: list[str]) -> list[str]:
    """``torch.distributed.run``'s arguments that run ``python -m flowtorch PROGRAM…`` in each worker."""
    argv = ["--nnodes", str(opts.nnodes), "--nproc-per-node", str(opts.nproc)]
    if opts.rdzv_endpoint:
        argv += ["--rdzv-backend", "c10d", "--rdzv-endpoint", opts.rdzv_endpoint]
    elif opts.master_addr or opts.master_port:
        argv += ["--rdzv-backend", "static"]
        argv += ["--master-addr", opts.master_addr] if opts.master_addr else []
        argv += ["--master-port", str(opts.master_port)] if opts.master_port else []
    else:
        argv += ["--standalone"]
    if opts.node_rank is not None:
        argv += ["--node-rank", str(opts.node_rank)]
    return [*argv, "--max-restarts", "0", "--module", "flowtorch", *program]


def _ensure_importable() -> None:
    # Workers are fresh interpreters: they must find this flowtorch even when it is not installed.
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if src not in paths and src not in site.getsitepackages() + [site.getusersitepackages()]:
        os.environ["PYTHONPATH"] = os.pathsep.join([src, *paths])


def launch(opts: LaunchOptions, program: list[str]) -> int:
    """Run ``program`` (``SCRIPT.py args…`` or ``-m MODULE args…``) in ``opts.nproc`` processes here;
    0 when every worker succeeded, else non-zero with the failing rank and its error on stderr."""
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    _ensure_importable()
    if opts.all_ranks_output:
        os.environ[ALL_RANKS_ENV] = "1"
    os.environ.setdefault(SEED_ENV, str(secrets.randbits(32)))
    try:
        torchrun.run(torchrun.parse_args(torchrun_argv(opts, program)))
    except ChildFailedError as exc:
        print(describe_failure(exc), file=sys.stderr)
        _, first = _root_failure(exc)
        return min(first.exitcode if first.exitcode > 0 else 128 - first.exitcode, 255)  # signal N: 128 + N
    except Exception as exc:  # rendezvous and start-up errors: report, exit non-zero
        signum = getattr(exc, "sigval", None)  # torch elastic's SignalException: the launcher was signalled
        if signum is not None:
            print(f"flowtorch: the launch got signal {int(signum)} and stopped its processes", file=sys.stderr)
            return 128 + int(signum)
        print(f"flowtorch: the launch failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


# What a collective raises on a rank whose peer went away (gloo, NCCL, the c10d store): that rank failed
# because of another one.
_PEER_GONE = ("connection closed by peer", "connection reset by peer", "broken pipe", "remote process exited",
              "ncclremoteerror", "communicator was aborted")


def _lost_a_peer(failure: Any) -> bool:
    """Whether ``failure`` came from another rank's: its error is a peer's connection going away, or it was
    stopped by the launcher (SIGTERM, with no error of its own on file)."""
    message = failure.message
    if isinstance(message, dict):
        message = message.get("message", "")
    if any(words in str(message).lower() for words in _PEER_GONE):
        return True
    return failure.exitcode == -signal.SIGTERM and not isinstance(failure.message, dict)


def _root_failure(exc: Any) -> tuple[int, Any]:
    # The root cause: the earliest rank that failed on its own (its own exception, an exit code, a signal
    # such as the OOM killer's SIGKILL) before any rank that lost a peer or that the launcher stopped; among
    # ties (timestamps are whole seconds), one that left its exception in an error file, then the lowest rank.
    return min(exc.failures.items(),
               key=lambda kv: (_lost_a_peer(kv[1]), kv[1].timestamp, not isinstance(kv[1].message, dict), kv[0]))


def describe_failure(exc: Any) -> str:
    """A ChildFailedError as ``flowtorch: rank R (local rank L, pid P) failed with exit code C: Error: …``."""
    root_rank, _ = _root_failure(exc)
    lines = []
    for rank, failure in sorted(exc.failures.items(), key=lambda kv: kv[0] != root_rank):
        message = failure.message
        if isinstance(message, dict):
            message = message.get("message", "")
        what = f"exit code {failure.exitcode}" if failure.exitcode >= 0 else failure.signal_name()
        lines.append(f"flowtorch: rank {rank} (local rank {failure.local_rank}, pid {failure.pid}) failed with "
                     f"{what}" + (f": {message}" if message and not str(message).startswith("To enable") else ""))
    lines.append(f"flowtorch: {len(exc.failures)} process(es) failed; the launcher stopped the others")
    return "\n".join(lines)


def _seed_like_one_process() -> None:
    """Start numpy's and Python's global generators from one seed on every rank: OneFlow ran the program
    once, so an unseeded ``np.random.rand`` drew one batch; here every rank must draw that same batch (a
    program that seeds them itself is unchanged)."""
    if not os.environ.get(SEED_ENV):
        return
    seed = env_int(SEED_ENV, 0, 0, 2**32 - 1)  # numpy's seeds: 0 .. 2**32 - 1
    import random

    import numpy as np

    random.seed(seed)
    np.random.seed(seed)


def quiet_rank() -> bool:
    """Whether this process is a launched worker other than rank 0 whose output is not asked for
    (``--all-ranks-output``): its standard output is dropped and its log shows warnings and errors only, so
    that a launch prints each note once."""
    return os.environ.get("RANK", "0") != "0" and not env_flag(ALL_RANKS_ENV)


def _runner_frame(tb: TracebackType) -> bool:
    spec = tb.tb_frame.f_globals.get("__spec__")
    return (getattr(spec, "name", None) or tb.tb_frame.f_globals.get("__name__")) in _RUNNER_MODULES


def _own_frame(tb: TracebackType) -> bool:
    """A frame of flowtorch's own code (its package's modules), which a program's traceback leaves out."""
    name = tb.tb_frame.f_globals.get("__name__") or ""
    return name == "flowtorch" or name.startswith("flowtorch.")


def _program_frames(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` without the runner's frames in front of the program's first one and without flowtorch's own
    frames after it (the ops, session and capture that a job call runs through), as JAX leaves out its
    internal frames; unchanged when no frame of the program's is in it (an error of the runner's own)."""
    frames: list[TracebackType] = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    start = next((i for i, f in enumerate(frames) if not (_runner_frame(f) or _own_frame(f))), len(frames))
    kept = [f for f in frames[start:] if not _own_frame(f)]
    if not kept:
        return frames[0] if frames else None
    out = None
    for frame in reversed(kept):  # a new chain: the frames themselves are shared with the original one
        out = TracebackType(out, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
    return out


def report_program_error(exc: BaseException) -> int:
    """Print the program's uncaught ``exc`` as Python would, its traceback starting at the program's first
    frame and showing the program's frames only: the runner's in front of it (``flowtorch/__main__.py``,
    runpy, this module) and flowtorch's own behind it are left out (of the exceptions it was raised from or
    while handling, too), unless the "flowtorch" logger shows DEBUG (``-v``). Return Python's exit status
    for it, 1."""
    if not log.isEnabledFor(logging.DEBUG):
        seen: set[int] = set()
        link: BaseException | None = exc
        while link is not None and id(link) not in seen:
            seen.add(id(link))
            link.__traceback__ = _program_frames(link.__traceback__)
            link = link.__cause__ or (None if link.__suppress_context__ else link.__context__)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # what the program printed comes first
    sys.excepthook(type(exc), exc, exc.__traceback__)
    return 1


def run_worker(fn: Callable[[], int]) -> int:
    """Run a program; its uncaught exception is reported by :func:`report_program_error` (exit status 1).
    Under the launcher, the exception is also written to torch elastic's error file, so the launcher can
    name it."""
    if not os.environ.get("TORCHELASTIC_ERROR_FILE"):
        try:
            return fn()
        except Exception as exc:
            return report_program_error(exc)
    _seed_like_one_process()
    if quiet_rank():
        sys.stdout = open(os.devnull, "w")  # for the process's life; rank 0 prints the program's output
    from torch.distributed.elastic.multiprocessing.errors import record
    try:
        result = record(fn)()
    except Exception as exc:  # recorded in the error file; shown here without the runner's frames
        code = report_program_error(exc)
    except SystemExit as exc:  # the program's own sys.exit(code)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    else:
        code = 0 if result is None else int(result)
    _leave(code)
    return code  # (not reached)


def _leave(code: int) -> NoReturn:
    """End a worker that finished: the exit handlers run (the session's drain, the process group's shutdown,
    the program's own), the garbage is collected and the streams flushed, and the process leaves without the
    interpreter's teardown, in which gloo's threads may still hold tensors whose release aborts the process
    ("terminate called without an active exception"; pytorch/pytorch#179291)."""
    import atexit
    import gc

    atexit._run_exitfuncs()
    gc.collect()  # closes the program's unreferenced files, as teardown would have
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken: nothing left to flush
            pass
    os._exit(code)
