"""The default session: registered jobs, variables, ``flow.config`` flags; OPEN → RUNNING → closed.

OneFlow builds every registered job body once when the session starts (the first job call or the first
checkpoint/variable API, spec §1) and runs the captured graphs afterwards. flowtorch does the same, and
also lets a job be declared after the start (it is built at its own first call: spec §10).
"""

from __future__ import annotations

import atexit
import functools
import inspect
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from flowtorch._src import modes
from flowtorch._src.capture.context import maybe_builder
from flowtorch._src.data.loader import DataFeed
from flowtorch._src.dist import group
from flowtorch._src.envvars import env_int, env_number
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.job import Job
from flowtorch._src.runtime import transfer
from flowtorch._src.runtime.executor import Executor, default_max_inflight
from flowtorch._src.runtime.stepper import StepThread, step_thread_mode
from flowtorch._src.variable_store import VariableStore

log = logging.getLogger("flowtorch")

EXIT_TIMEOUT_S = 10.0
"""How long interpreter exit waits for pending callbacks (``FLOWTORCH_EXIT_TIMEOUT``)."""

_CONFIG_DEFAULTS: dict[str, Any] = {
    "gpu_device_num": 1, "cpu_device_num": 1, "machine_num": 1, "enable_legacy_model_io": False,
    "enable_debug_mode": False, "enable_model_io_v2": True,
}


def _default_device() -> str:
    """``FLOWTORCH_DEVICE`` when set (checked: a bad value raises ``ValueError`` naming it), else CUDA when
    torch has it, else the CPU."""
    wanted = os.environ.get("FLOWTORCH_DEVICE")
    if not wanted:
        _, size, local_rank = group.env_world()
        if size > 1:  # one process per device (python -m flowtorch --nproc n)
            return group.device_for(local_rank, size, None)
        return "cuda" if torch.cuda.is_available() else "cpu"
    expected = "expected 'cpu', 'cuda' or 'cuda:<index>'"
    try:
        device = torch.device(wanted)
    except RuntimeError as exc:
        raise ValueError(f"FLOWTORCH_DEVICE={wanted!r} is not a torch device ({exc}); {expected}") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"FLOWTORCH_DEVICE={wanted!r}: flowtorch runs on the CPU or CUDA; {expected}")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"FLOWTORCH_DEVICE={wanted!r}, but this torch has no CUDA device "
                         "(torch.cuda.is_available() is False); use 'cpu' or unset it")
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise ValueError(f"FLOWTORCH_DEVICE={wanted!r}, but torch sees {torch.cuda.device_count()} CUDA "
                         "device(s)")
    return wanted


class Session:
    """Jobs, variables and flags of one OneFlow session."""

    def __init__(self) -> None:
        self.status = "OPEN"  # OPEN → RUNNING → CLOSED
        self.jobs: dict[str, Job] = {}
        # A bad FLOWTORCH_DEVICE is raised at the session's first use, not at ``import flowtorch``.
        self.device_error: ValueError | None = None
        try:
            self.device = _default_device()
        except ValueError as exc:
            self.device, self.device_error = "cpu", exc
        self.variables = VariableStore(self.device)
        self.config: dict[str, Any] = dict(_CONFIG_DEFAULTS)
        self.feeds: list[DataFeed] = []  # the jobs' data loaders, closed with the session
        self.module_names: set[str] = set()  # flow.find_or_create_module's names so far (ops/user_op_module.py)
        # Held while a call builds, converts its inputs and enqueues: calls from several threads enter the
        # pipeline whole, one after another. Pipeline threads (callbacks) never take it.
        self.lock = threading.RLock()
        self.executor = Executor(env_int("FLOWTORCH_MAX_INFLIGHT", default_max_inflight(self.device), 1))
        self._transfer: transfer.HostTransfer | transfer.CudaTransfer | None = None
        self._stepper: StepThread | None = None
        self._step_thread: str | None = None

    @property
    def step_thread(self) -> str:
        """Where async calls run their steps: ``caller`` or ``worker`` (chosen at the first use, once torch's
        threads are set: ``runtime/stepper.py``)."""
        if self._step_thread is None:
            self._step_thread = step_thread_mode(self.device)
        return self._step_thread

    @property
    def stepper(self) -> StepThread | None:
        """The step thread, when async steps run off the caller's thread."""
        if self._step_thread is None and self.step_thread == "worker":  # (decided once)
            self._stepper = StepThread()
        return self._stepper

    @property
    def transfer(self) -> transfer.HostTransfer | transfer.CudaTransfer:
        """The async pipeline's copies (made at the first async call: no CUDA work at import)."""
        if self._transfer is None:
            self._transfer = transfer.for_device(self.device)
        return self._transfer

    @property
    def is_running(self) -> bool:
        return self.status == "RUNNING"

    def check_open(self, what: str) -> None:
        if self.device_error is not None:
            raise ValueError(str(self.device_error))
        if self.status == "CLOSED":
            raise AssertionError(f"{what} belongs to a session that flow.clear_default_session() closed; "
                                 "decorate the job again in the new session")

    def add_job(self, job: Job) -> None:
        """Register ``job``. OneFlow keyed jobs by function name, a second one silently replacing the first
        (``session_util.py: AddJob``); here both stay, each with its own state, and the second is warned of."""
        self.check_open(f"job {job.name!r}")
        key, n = job.name, 1
        while key in self.jobs:
            n += 1
            key = f"{job.name}_{n}"
        if key != job.name:
            log.warning("flowtorch: a job named %r was already declared in this session (OneFlow keyed jobs by "
                        "function name: the new one would have replaced it); both run here, each with its own state "
                        "(this one's train-step counter is System-Train-TrainStep-%s)", job.name, key)
        job.key = key
        self.jobs[key] = job

    def start(self) -> None:
        """Build every registered job not built yet, in registration order (runs each body once)."""
        if self.is_running and all(job.step is not None for job in list(self.jobs.values())):
            return  # nothing to build: no lock (a callback may ask while a call holds it)
        with self.lock, self.executor.step_lock:
            self._start()

    def _start(self) -> None:
        self.check_open("this session")
        _, size, local_rank = group.env_world()
        if size > 1 and self.status != "RUNNING":
            gpus = self.config["gpu_device_num"]
            group.device_for(local_rank, size, gpus if gpus != _CONFIG_DEFAULTS["gpu_device_num"] else None)
            group.ensure_world(self.device)  # the program's process group, before any variable is made
        self.status = "RUNNING"
        for job in list(self.jobs.values()):
            if job.step is None:
                try:
                    job.build()
                except BaseException:
                    # A body that fails to build must not take the session's other jobs down with it;
                    # calling this job again rebuilds it and raises again.
                    if self.jobs.get(job.key) is job:
                        del self.jobs[job.key]
                    raise

    def set_config(self, name: str, value: Any) -> bool:
        if self.is_running:
            log.warning("Nothing happened because the session is running")  # OneFlow's message
            return False
        self.config[name] = value
        return True

    def raise_pending(self) -> None:
        """Raise the first error a step, watch handler or callback left in the pipeline."""
        self.executor.raise_pending()

    def sync(self) -> None:
        """A barrier: every launched step, its watchers and callbacks are done (steps run in call order);
        then the first error they raised is raised here."""
        self.executor.wait_idle()
        if not self.executor.in_pipeline():
            self.executor.wait_steps()  # a call on another thread finishes its step too
        if self.device.startswith("cuda") and torch.cuda.is_available():
            torch.cuda.synchronize()
        self.raise_pending()

    def close(self, timeout: float | None = None) -> None:
        """Drain the pipeline (up to ``timeout`` seconds), then close; the first pending error is raised."""
        try:
            if not self.executor.close(timeout):
                log.warning("flowtorch: %.1f s passed and callbacks were still pending; closing without them: %s",
                            timeout, self.executor.undelivered())
            if self._transfer is not None and self.device.startswith("cuda"):
                torch.cuda.synchronize()
            self.raise_pending()
        finally:
            self.status = "CLOSED"
            if self._stepper is not None:
                self._stepper.close()
            for feed in self.feeds:
                feed.close()


_session = Session()


def default_session() -> Session:
    return _session


_sync_hooks: list[Callable[[float | None], None]] = []


def on_sync(hook: Callable[[float | None], None]) -> None:
    """Call ``hook(timeout)`` after each ``sync_default_session()`` (timeout None) and after the exit drain
    (the exit timeout): ``flow.watch.to_tensorboard`` flushes its background writers there."""
    if hook not in _sync_hooks:
        _sync_hooks.append(hook)


def sync_default_session() -> None:
    _session.sync()
    for hook in _sync_hooks:
        hook(None)


def enable_eager_execution(val: bool = True) -> None:
    """``flow.enable_eager_execution``: make the global functions decorated from now on eager or lazy."""
    if not isinstance(val, (bool, int, np.bool_, np.integer)):
        raise TypeError(f"flow.enable_eager_execution: val must be a bool; received {type(val).__name__} {val!r}")
    builder = maybe_builder()
    if builder is not None:
        raise NotImplementedError(f"flow.enable_eager_execution({bool(val)}) cannot be called inside a job body "
                                  f"(job {builder.job_name!r}); OneFlow allows it in normal mode only")
    lazy = list(_session.jobs)
    if lazy:
        # OneFlow: enable_if condition ``in_normal_mode & ~any_global_function_defined``
        raise NotImplementedError(
            f"flow.enable_eager_execution({bool(val)}): the default session already has global function(s) "
            f"{', '.join(map(repr, lazy))} defined in lazy mode; the mode can only be chosen before any global "
            "function is defined (call flow.clear_default_session() first)")
    modes.set_eager(bool(val))


def clear_default_session() -> None:
    """Close the session (its jobs, variables, watchers and flags go) and open a fresh one."""
    global _session
    old = _session
    _session = Session()
    old.close()


@atexit.register
def _drain_at_exit() -> None:
    """Deliver pending callbacks at interpreter exit, within a bound: a stuck callback never hangs exit."""
    timeout = env_number("FLOWTORCH_EXIT_TIMEOUT", EXIT_TIMEOUT_S, 0.0, float)
    try:
        _session.close(timeout)
    except BaseException as exc:  # nobody is left to raise it to
        log.error("flowtorch: an error was pending at exit: %s: %s", type(exc).__name__, exc)
    for hook in _sync_hooks:
        try:
            hook(timeout)
        except BaseException as exc:  # nobody is left to raise it to
            log.error("flowtorch: an error was pending at exit: %s: %s", type(exc).__name__, exc)


def global_function(type: str = "predict", function_config: FunctionConfig | None = None
                    ) -> Callable[[Callable[..., Any]], Job]:
    """``@flow.global_function(type="predict"|"train", function_config=None)``."""
    if isinstance(type, FunctionConfig):
        log.warning("flow.global_function(func_config) is deprecated. Please replace it with "
                    "flow.global_function(type, func_config).")
        config = type.copy()
        job_type = "train" if any(config.is_set(k) for k in ("train.primary_lr", "train.model_update_conf")) \
            else "predict"
    else:
        if type not in ("train", "predict"):
            raise AssertionError(f"global_function: type must be \"train\" or \"predict\"; received {type!r}")
        if function_config is not None and not isinstance(function_config, FunctionConfig):
            raise TypeError("global_function: function_config must be a flow.FunctionConfig; received "
                            f"{function_config!r}")
        config = (function_config or FunctionConfig()).copy()
        job_type = type

    def decorate(func: Callable[..., Any]) -> Job:
        if not callable(func):
            raise TypeError(f"global_function decorates a function; received {func!r}")
        # String annotations may name locals of the function that defines the job (sys._getframe(1) is
        # that scope: decorate is called by the decorator syntax there).
        frame = sys._getframe(1)
        localns = dict(frame.f_locals) if frame.f_code.co_flags & inspect.CO_NEWLOCALS else None
        job = Job(func, job_type, config, _session, localns)
        functools.update_wrapper(job, func)  # type: ignore[arg-type]
        if not job.eager:  # OneFlow registers lazy jobs only (function_util.py: eager_oneflow_function)
            _session.add_job(job)
        return job
    return decorate
