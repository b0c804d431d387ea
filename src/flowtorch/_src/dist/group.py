"""The process group of a launched program: one process per device, one torch.distributed group.

The launcher (``python -m flowtorch --nproc N``, :mod:`.launch`) sets ``RANK``/``WORLD_SIZE``/
``LOCAL_RANK`` and the rendezvous address; :func:`ensure_world` joins the group once (gloo on the CPU,
nccl on CUDA) and every later call returns the same :class:`World`. Without the launcher the world is
one process and no group is made; a program that asks for more devices there (:func:`ask_devices`) is run
again in that many processes by flowtorch's runner (:class:`DevicesRequest`), or told how to launch it.
"""

from __future__ import annotations

import atexit
import datetime
import inspect
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.distributed as dist

from flowtorch._src.envvars import env_number

log = logging.getLogger("flowtorch")

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class World:
    """This process's place among the program's processes."""

    rank: int
    size: int
    local_rank: int
    device: str  # "cpu" or "cuda:<i>"
    backend: str | None  # "gloo" / "nccl"; None when size == 1


_lock = threading.RLock()
_world: World | None = None
_created = False  # we called init_process_group (so we destroy it)
_warned_cpu = False
_relaunch_armed = False  # flowtorch's runner runs this program and will launch it again on request
_warned_one_process = False
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep  # flowtorch/


def _env_int(name: str, default: int, minimum: int) -> int:
    return int(env_number(name, default, minimum, int))


def env_world() -> tuple[int, int, int]:
    """``(rank, size, local_rank)`` from ``RANK``/``WORLD_SIZE``/``LOCAL_RANK``; ``(0, 1, 0)`` when unset.

    A malformed value is a ValueError naming the variable."""
    size = _env_int("WORLD_SIZE", 1, 1)
    rank = _env_int("RANK", 0, 0)
    local_rank = _env_int("LOCAL_RANK", 0, 0)
    if rank >= size:
        raise ValueError(f"RANK={rank} must be below WORLD_SIZE={size}")
    return rank, size, local_rank


def get_rank() -> int:
    """``flow.distributed.get_rank()`` (v0.4.0): this process's rank (``RANK``; 0 alone)."""
    return env_world()[0]


def get_world_size() -> int:
    """``flow.distributed.get_world_size()`` (v0.4.0): the number of processes (``WORLD_SIZE``; 1 alone)."""
    return env_world()[1]


def machine_id() -> int:
    """``flow.current_machine_id()``: this process's machine (``GROUP_RANK``, as torchrun sets it; 0 alone)."""
    return _env_int("GROUP_RANK", 0, 0)


def local_world_size(size: int) -> int:
    """Processes on this machine: ``LOCAL_WORLD_SIZE`` (set by the launcher), else ``size``."""
    return _env_int("LOCAL_WORLD_SIZE", size, 1)


def timeout_s() -> float:
    """``FLOWTORCH_DIST_TIMEOUT`` (seconds, default 60): how long a collective waits for a peer."""
    return float(env_number("FLOWTORCH_DIST_TIMEOUT", DEFAULT_TIMEOUT_S, 1.0, float))


def device_for(local_rank: int, size: int, wanted_gpus: int | None) -> str:
    """The device of the process ``local_rank``: ``cuda:<local_rank>`` when this machine has a CUDA device
    for each of its processes, else ``cpu``.

    ``wanted_gpus`` is what the program configured (``flow.config.gpu_device_num``; None when it did not):
    0 asks for the CPU. When it asked for GPUs that are not there, one warning says CPU processes stand in:
    local rank 0's, so a launch says it once per machine.
    """
    if wanted_gpus == 0:
        return "cpu"
    have = torch.cuda.device_count() if torch.cuda.is_available() else 0
    per_node = local_world_size(size)
    if have >= per_node and local_rank < have:
        return f"cuda:{local_rank}"
    if (wanted_gpus or have) and local_rank == 0:
        _warn_cpu_once(per_node, have, wanted_gpus)
    return "cpu"


def _warn_cpu_once(per_node: int, have: int, wanted_gpus: int | None) -> None:
    global _warned_cpu
    if _warned_cpu:
        return
    _warned_cpu = True
    asked = f"the program asked for GPUs (gpu_device_num({wanted_gpus})) and " if wanted_gpus else ""
    log.warning("flowtorch: %sthis machine runs %d process(es), but torch sees %d CUDA device(s); "
                "CPU processes stand in (gloo)", asked, per_node, have)


class DevicesRequest(BaseException):
    """A program that flowtorch's runner started in one process asked for ``count`` devices: the runner
    runs it again in ``count`` processes. A ``BaseException``, as ``SystemExit`` is, so that the program's
    own ``except Exception`` lets it through."""

    def __init__(self, count: int, call: str) -> None:
        super().__init__(f"{call} asks for {count} devices")
        self.count = count
        self.call = call


@contextmanager
def relaunch_on_request() -> Iterator[None]:
    """While the runner runs a script in this process: :func:`ask_devices` called by the script's own code
    raises :class:`DevicesRequest`."""
    global _relaunch_armed
    _relaunch_armed = True
    try:
        yield
    finally:
        _relaunch_armed = False


def _called_by_main_script() -> bool:
    """Whether the code that made the config call (the first frame outside flowtorch) is the ``__main__``
    script's own, not a module it imported: a harness script that imports and runs test modules (OneFlow's
    ``1node_test.py``) must not be run again for one test's call."""
    frame = inspect.currentframe()
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__") == "__main__"


def ask_devices(count: int, call: str) -> None:
    """The program asks for ``count`` devices per machine (``call``: the config call that said so).

    Under the launcher (``WORLD_SIZE`` set) the processes are already given. Else, when flowtorch's runner
    runs the script and the script itself made the call (on the main thread), this raises
    :class:`DevicesRequest`, once, so that the runner launches ``count`` processes; otherwise the program
    stays on one device and one warning says how to launch it (a consistent-view job computes the same
    numbers on one device; mirrored-view feeds of ``count`` arrays need the processes)."""
    global _relaunch_armed, _warned_one_process
    if count <= 1 or os.environ.get("WORLD_SIZE"):
        return
    if _relaunch_armed and threading.current_thread() is threading.main_thread() and _called_by_main_script():
        _relaunch_armed = False
        raise DevicesRequest(count, call)
    if not _warned_one_process:
        _warned_one_process = True
        log.warning("flowtorch: %s asks for %d devices, but this program runs in one process, on one device; "
                    "start it with `python -m flowtorch script.py` (which starts the %d processes itself) or "
                    "`python -m flowtorch --nproc %d script.py`", call, count, count, count)


def _normalize(device: str, local_rank: int) -> str:
    dev = torch.device(device)
    if dev.type == "cuda":
        return f"cuda:{local_rank if dev.index is None else dev.index}"
    if dev.type != "cpu":
        raise ValueError(f"flowtorch runs on the CPU or CUDA; received device {device!r}")
    return "cpu"


def ensure_world(device: str) -> World:
    """Join the program's process group once and return this process's :class:`World` (idempotent).

    With ``WORLD_SIZE`` > 1 this calls ``init_process_group`` (``env://``, the launcher's rendezvous
    address; gloo on the CPU, nccl on CUDA) with a timeout of ``FLOWTORCH_DIST_TIMEOUT`` seconds, unless the
    program made the default group itself. With one process no group is made and ``backend`` is None.
    """
    global _world
    with _lock:
        rank, size, local_rank = env_world()
        device = _normalize(device, local_rank)
        if _world is not None:
            if _world.device != device:
                raise RuntimeError(f"flowtorch: this process already runs on {_world.device}; it cannot join "
                                   f"the process group again on {device}")
            return _world
        backend: str | None = None
        if size > 1:
            backend = _init_group(device, rank, size)
        _world = World(rank=rank, size=size, local_rank=local_rank, device=device, backend=backend)
        log.debug("flowtorch: %s", _world)
        return _world


def _init_group(device: str, rank: int, size: int) -> str:
    global _created
    if not dist.is_available():
        raise RuntimeError(f"WORLD_SIZE={size}, but this torch was built without torch.distributed")
    if dist.is_initialized():  # made by the program (or its harness): use it as it is
        if (dist.get_rank(), dist.get_world_size()) != (rank, size):
            raise RuntimeError(f"the default process group is rank {dist.get_rank()} of "
                               f"{dist.get_world_size()}, but RANK={rank}, WORLD_SIZE={size}")
        return str(dist.get_backend())
    missing = [v for v in ("MASTER_ADDR", "MASTER_PORT") if not os.environ.get(v)]
    if missing:
        raise RuntimeError(f"WORLD_SIZE={size} but {' and '.join(missing)} not set: start the program with "
                           "`python -m flowtorch --nproc N script.py`")
    backend = "nccl" if device.startswith("cuda") else "gloo"
    if backend == "nccl":
        torch.cuda.set_device(torch.device(device))
    dist.init_process_group(backend, init_method="env://", rank=rank, world_size=size,
                            timeout=datetime.timedelta(seconds=timeout_s()))
    _created = True
    return backend


def current() -> World | None:
    """The :class:`World` once :func:`ensure_world` ran, else None."""
    return _world


def barrier() -> None:
    """Wait for every process of the group (nothing to wait for with one process)."""
    world = _world
    if world is None or world.size == 1 or not (dist.is_available() and dist.is_initialized()):
        return
    if world.backend == "nccl":
        dist.barrier(device_ids=[torch.device(world.device).index])
    else:
        dist.barrier()


def shutdown() -> None:
    """Destroy the group if :func:`ensure_world` made it; harmless when there is none. Bounded: a group
    whose peers died is left behind after ``FLOWTORCH_DIST_TIMEOUT`` seconds rather than hanging exit."""
    global _world, _created
    with _lock:
        created, _created, _world = _created, False, None
        if not (created and dist.is_available() and dist.is_initialized()):
            return
        done = threading.Event()

        def destroy() -> None:
            try:
                dist.destroy_process_group()
            except Exception as exc:  # a dead peer's group may fail to close; nothing to do
                log.debug("flowtorch: destroy_process_group: %s: %s", type(exc).__name__, exc)
            done.set()

        threading.Thread(target=destroy, name="flowtorch-dist-shutdown", daemon=True).start()
        if not done.wait(timeout_s()):
            log.warning("flowtorch: the process group did not close within %.0f s; leaving it", timeout_s())


# Registered at import: a module that imports this one first and registers its own exit handler afterwards
# (the session's drain) has that handler run before the group goes away (atexit runs last-in, first-out).
atexit.register(shutdown)
