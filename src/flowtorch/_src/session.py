"""The default session: registered jobs, variables, ``flow.config`` flags; OPEN → RUNNING → closed.

OneFlow builds every registered job body once when the session starts (the first job call or the first
checkpoint/variable API, spec §1) and runs the captured graphs afterwards. flowtorch does the same, and
also lets a job be declared after the start (it is built at its own first call: spec §10).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import inspect
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src import modes, naming
from flowtorch._src.capture import errors, signature
from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.capture.context import building, maybe_builder
from flowtorch._src.data.loader import DataFeed
from flowtorch._src.dist import group
from flowtorch._src.envvars import env_choice, env_number
from flowtorch._src.errors import add_note
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.optim import legacy
from flowtorch._src.runtime import interrupts, results, transfer
from flowtorch._src.runtime.executor import DEFAULT_MAX_INFLIGHT, Delivery, Executor
from flowtorch._src.step import accumulate, distributed, eager
from flowtorch._src.step.compile import StepFunction
from flowtorch._src.variable_store import VariableStore
from flowtorch._src.watch.taps import StepRecord

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
        # FLOWTORCH_DELIVERY=thread: every callback on the delivery thread, as soon as its copies are done
        # (for programs whose callbacks wait for something the caller does later); see runtime/executor.py.
        self.executor = Executor(int(env_number("FLOWTORCH_MAX_INFLIGHT", DEFAULT_MAX_INFLIGHT, 1, float)),
                                 caller_delivers=env_choice("FLOWTORCH_DELIVERY", ("caller", "thread")) == "caller")
        self._transfer: transfer.HostTransfer | transfer.CudaTransfer | None = None

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
        """Drain the pipeline (up to ``timeout`` seconds), then close."""
        try:
            if not self.executor.close(timeout):
                log.warning("flowtorch: %.0f s passed and job calls were still pending; closing without them",
                            timeout)
            if self._transfer is not None and self.device.startswith("cuda"):
                torch.cuda.synchronize()
            self.raise_pending()
        finally:
            self.status = "CLOSED"
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


class Job:
    """A decorated job function and, once built, its captured step."""

    def __init__(self, func: Callable[..., Any], job_type: str, config: FunctionConfig, session: Session,
                 localns: dict[str, Any] | None = None) -> None:
        self.func = func
        self.name = func.__name__
        self.key = self.name  # unique in the session (Session.add_job): names the job's own state
        self.job_type = job_type
        self.config = config
        self.session = session
        sig = signature.resolved_signature(func, localns)
        self.inputs = signature.parse_inputs(sig, self.name)
        self.leaves = [leaf for spec in self.inputs for leaf in spec.leaves()]
        self.ret = signature.parse_return(sig.return_annotation, self.name)
        self.step: StepFunction | None = None
        self.feed: DataFeed | None = None
        self.accumulation = 1  # train.num_gradient_accumulation_steps
        self.body_calls = 0
        self.eager = modes.eager_execution_enabled()  # fixed at decoration, as OneFlow picks its runner then

    def build(self) -> None:
        """Run the body once and capture its step; an error names this job (whichever call built it)."""
        with errors.job_context(self.name, "while building it: its body runs once, when the session starts"):
            self._build()

    def _build(self) -> None:
        if self.job_type == "train":  # refuse before anything (variables, optimizer state) is created
            accumulate.check_accumulation(accumulate.steps_of(self.config), self.name, len(self.inputs))
        builder = JobBuilder(self.name, self.job_type, self.config, self.session)
        blobs_in = []
        with building(builder):
            parts = distributed.mirrored_parts(self.config)
            for leaf in self.leaves:
                arg = leaf.leaf_arg
                dtype = arg.resolved_dtype(self.config.default_dtype)
                shape = distributed.part_shape(arg.shape, parts, self.name, arg.kind)
                meta = torch.empty(shape, dtype=dtype.torch_dtype, device="meta")
                blob = builder.add_input(naming.unique_str("Input_"), meta, arg.batch_axis,
                                         is_dynamic=arg.kind != "numpy", tensor_list=arg.kind == "list_list_numpy")
                blob.node.meta["flowtorch_split_feed"] = shape != tuple(arg.shape)
                blobs_in.append(blob)
            self.body_calls += 1
            flat = iter(blobs_in)
            scope = self.config.get("default_placement_scope")  # OneFlow builds the body inside it (compiler.py)
            with scope if scope is not None else contextlib.nullcontext():
                value = self.func(*(spec.assemble(flat) for spec in self.inputs))
            returned, self.leaf_kinds, self.rebuild = signature.flatten_return(value, self.ret, self.name)
            self.leaf_dynamic = [bool(getattr(b, "is_dynamic", False)) for b in returned]
            for _ in returned:
                naming.unique_str("Return_")
            legacy.attach_legacy_optimizer(builder, self.config)
            built = builder.finalize(returned)
        runner = builder.pipeline.freeze() if builder.pipeline is not None else None
        self.input_dtypes = [blob.dtype for blob in blobs_in]
        self.watches = built.value_watches
        self.diff_watches = built.diff_watches
        self.step = StepFunction(self.name, built, self.session.variables, builder.is_train, key=self.key)
        self.accumulation = self.step.accumulation
        if runner is not None:
            self.feed = DataFeed(runner, self.session.device)
            self.session.feeds.append(self.feed)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session = self.session
        executor = session.executor
        session.check_open(f"job {self.name!r}")
        if kwargs:
            raise TypeError(f"job {self.name!r} takes positional arguments only; received keyword argument(s) "
                            f"{', '.join(map(repr, kwargs))}")
        if len(args) != len(self.inputs):
            raise AssertionError(f"job {self.name!r} takes {len(self.inputs)} argument(s) "
                                 f"({', '.join(s.name for s in self.inputs)}); received {len(args)}")
        if executor.in_pipeline():  # called from a callback or handler: run now, inline, without the session lock
            return executor.run_inline(lambda: eager.call(self, args) if self.eager else self._call_inline(args))
        blocking = self.eager or self.ret.mode == "sync"
        if blocking:  # refused, before anything runs, while an earlier call's handler or callback error waits
            session.raise_pending()
        # Calls from several threads enter the pipeline whole, one after another: jobs sharing variables
        # see each other's updates in call order, and the first call builds once.
        with session.lock:
            session.check_open(f"job {self.name!r}")
            if self.eager:
                executor.wait_idle()
                return executor.run_inline(lambda: eager.call(self, args))
            if self.step is None:
                session.start()
                if self.step is None:
                    with executor.step_lock:
                        self.build()
            if blocking:
                return self._call_blocking(args)
            handle = self._launch(args)
        if handle is None:  # (a job without result: the call is launched, a pending error comes out now)
            session.raise_pending()
        return handle

    def _inputs(self, args: tuple[Any, ...], device: str) -> list[Any]:
        values = [v for a, spec in zip(args, self.inputs) for v in spec.split(a, self.name)]
        parts = self._local_devices()
        return [signature.convert_input(a, s, d, self.name, i, device, parts)
                for i, (a, s, d) in enumerate(zip(values, self.leaves, self.input_dtypes))]

    def _local_devices(self) -> int:
        """How many devices this one process runs for a job's mirrored arguments: the devices the program asked
        for (OneFlow's ``gpu_device_num``, else ``cpu_device_num``) when no launcher gave it one process each."""
        if group.env_world()[1] > 1:
            return 1
        gpus = self.session.config["gpu_device_num"]
        return max(1, int(gpus if gpus > 0 else self.session.config["cpu_device_num"]))

    def _execute_parts(self, tensors: list[Any]) -> tuple[list[Any], list[StepRecord]]:
        """One call over device parts in this process: the step once per device with its part of each mirrored
        argument (as each of OneFlow's devices ran the job on its own), the returns every device's parts. A train
        job sums the devices' gradients into one update (``accumulate.run_accumulated``), as ``--nproc N`` does."""
        n = next(len(t) for t in tensors if isinstance(t, signature.DeviceInputs))
        parts = [[t[i] if isinstance(t, signature.DeviceInputs) else t for t in tensors] for i in range(n)]
        parts = [[t.to(self.session.device) if isinstance(t, torch.Tensor) else t for t in p] for p in parts]
        if self.job_type == "train" and self.step is not None:
            if self.accumulation > 1 or self.feed is not None:
                raise NotImplementedError(f"job {self.name!r}: device parts of a train job in one process with "
                                          "gradient accumulation or in-job data: run it with --nproc N")
            with errors.job_context(self.name, "while running a step", getattr(self.step, "module", None)):
                values, records = accumulate.run_accumulated(self.step, parts, pack=False)
            return [results.DeviceParts(v) for v in values], records
        per_device: list[list[Any]] = []
        records = []
        for part in parts:
            returns, recs = self._execute(part)
            if any(r.static for r in recs):  # a replayed graph's buffers: the next device's run rewrites them
                returns = [r.clone() if isinstance(r, torch.Tensor) else r for r in returns]
            per_device.append(returns)
            records += recs
        return [results.DeviceParts(list(device_values)) for device_values in zip(*per_device)], records

    def _execute(self, tensors: list[Any]) -> tuple[list[torch.Tensor], list[StepRecord]]:
        """One call's step (n micro-steps under gradient accumulation): its returns and watch records."""
        step = self.step
        if step is None:
            raise RuntimeError(f"job {self.name!r}: a step ran before the job was built")
        if any(isinstance(t, signature.DeviceInputs) for t in tensors):
            return self._execute_parts(tensors)
        with errors.job_context(self.name, "while running a step", getattr(step, "module", None)):
            if self.accumulation > 1:
                micro = [tensors + (self.feed.next() if self.feed is not None else [])
                         for _ in range(self.accumulation)]
                return accumulate.run_accumulated(step, micro)
            if self.feed is not None:
                tensors = tensors + self.feed.next()
            out = step(tensors)  # (whole under Ctrl-C: the callers hold SIGINT)
            return out.returns, [out.record]

    def _call_inline(self, args: tuple[Any, ...]) -> Any:
        """From a callback or handler: the step on this thread; its watch handlers run before the call
        returns and raise here."""
        with interrupts.deferred_interrupts():
            returns, records = self._execute(self._inputs(args, self.session.device))
        value = self._deliver_here(returns, records)
        return value if self.ret.mode in ("sync", "none") else self._result(results.Slot.ready(self.name, value))

    def _deliver_here(self, returns: list[Any], records: list[StepRecord]) -> Any:
        """A step's watch handlers (and check reports) and its converted result, on this thread, from values
        nothing else writes before this returns."""
        for record in records:
            self._deliver_watches(record)
        return self._convert(returns)

    def _run_step(self, args: tuple[Any, ...], blocking: bool = False
                  ) -> tuple[transfer.HostValues, int, list[StepRecord]]:
        """The step of one call, on this thread, and the copies of its results, watched values and check flags
        to the host (on CUDA: enqueued behind the step; ``HostValues.wait`` waits for them). The caller holds
        SIGINT around it."""
        pipe = self.session.transfer
        with self.session.executor.step_lock:
            # (converted and checked on this thread: a bad argument raises here, naming the job)
            staged = [t if isinstance(t, signature.DeviceInputs) else pipe.stage(t) for t in self._inputs(args, "cpu")]
            # A graph replay copies host inputs into its buffers itself; an eager step wants them on the device.
            host_inputs = self.step is not None and getattr(self.step, "graphed", None) is not None
            tensors, release = (staged, pipe.keeper(staged)) if host_inputs else pipe.to_device(staged)
            try:
                returns, records = self._execute(tensors)
            except BaseException:
                if release is not None:
                    release()
                raise
            # (a blocking call converts its values before its caller can touch its arrays: no alias check)
            return self._host_values(returns, records, release, blocking, () if blocking else tensors), \
                len(returns), records

    def _host_values(self, returns: list[torch.Tensor], records: list[StepRecord],
                     release: Callable[[], None] | None, blocking: bool, inputs: Sequence[Any] = ()
                     ) -> transfer.HostValues:
        """A step's returns, watched values and check flags copied to the host (kept where they are the
        step's own host tensors)."""
        flat: list[torch.Tensor | None] = list(returns)
        for record in records:
            flat += record.values + record.grads + [flag for flag, _ in record.checks]
        fresh = not any(record.static for record in records)  # (a replayed graph's buffers are rewritten)
        return self.session.transfer.to_host(flat, release, blocking=not blocking, fresh=fresh, inputs=inputs)

    def _call_blocking(self, args: tuple[Any, ...]) -> Any:
        """A blocking call: its step, then (after every earlier call's delivery) its handlers and result."""
        executor = self.session.executor
        if isinstance(self.session.transfer, transfer.HostTransfer):
            # CPU: the step's values are on the host already and its own (unless a replayed graph's buffers),
            # and nothing is queued (a CPU call delivers itself) unless deliveries go to the thread
            with interrupts.deferred_interrupts(), executor.step_lock:
                returns, records = self._execute(self._inputs(args, self.session.device))
                queued = any(record.static for record in records) or executor.busy()
                # (copied while no other step can run: the delivery thread's callbacks may call jobs)
                host = self._host_values(returns, records, None, blocking=True) if queued else None
            if host is None:
                return self._deliver_here(returns, records)
            n_returns = len(returns)
        else:
            with interrupts.deferred_interrupts():
                host, n_returns, records = self._run_step(args, blocking=True)
        self.session.executor.wait_idle()  # earlier calls' handlers and callbacks come first
        try:
            host.wait()
            self._set_watched(host, n_returns, records)
            for record in records:
                self._deliver_watches(record)
            return self._convert(host.values[:n_returns])
        finally:
            host.release()

    def _launch(self, args: tuple[Any, ...]) -> Any:
        """An async call: its step now, its delivery later; returns a Callback registrar, a future or None."""
        executor = self.session.executor
        executor.wait_for_room(self.name)
        slot = results.Slot(self.name, executor) if self.ret.mode != "none" else None
        with interrupts.deferred_interrupts():  # launched and enqueued (or delivered) whole, or not at all
            host, n_returns, records = self._run_step(args)
            deliver = functools.partial(self._deliver, host, n_returns, records, slot)
            if not executor.deliver_now(host.ready, deliver):
                executor.enqueue(Delivery(host.ready, deliver))
        executor.deliver_ready()
        return None if slot is None else self._result(slot)

    @staticmethod
    def _set_watched(host: transfer.HostValues, n_returns: int, records: list[StepRecord]) -> None:
        """The records' values, gradients and check flags from their host copies."""
        values = iter(host.values[n_returns:])
        for record in records:
            record.values = [next(values) for _ in record.values]
            record.grads = [next(values) for _ in record.grads]
            record.checks = [(next(values), report) for _, report in record.checks]

    def _deliver(self, host: transfer.HostValues, n_returns: int, records: list[StepRecord],
                 slot: results.Slot | None) -> None:
        """On the delivery thread: the watch handlers, then the result and its callback. Every error is
        kept for the caller; a result that could not be made fails its future instead of leaving it open."""
        executor = self.session.executor
        value: Any = None
        failure: BaseException | None = None
        try:
            host.wait()
            self._set_watched(host, n_returns, records)
            for record in records:
                try:
                    self._deliver_watches(record)
                except Exception as exc:  # the result is still delivered
                    executor.record_error(exc)
            if slot is not None:
                value = self._convert(host.values[:n_returns])
        except BaseException as exc:  # copying or converting failed
            failure = exc
        finally:
            host.release()
        if failure is not None:
            if slot is not None:
                slot.fail(failure)
            raise failure
        if slot is not None:
            slot.set(value)  # runs a registered callback; its error is kept by the executor

    def _deliver_watches(self, record: StepRecord) -> None:
        """The reports of the step's set check flags, then every watch handler (the first error raised)."""
        for flag, report in record.checks:
            if bool(flag):
                report()
        errors: list[BaseException] = []
        for watches, values in ((self.watches, record.values), (self.diff_watches, record.grads)):
            for w, value in zip(watches, values):
                if value is None:
                    continue
                try:
                    w.deliver(value)
                except Exception as exc:  # every handler runs; the first error is raised
                    add_note(exc, f"raised by the watch handler of {w.blob.logical_blob_name} in job {self.name!r}")
                    errors.append(exc)
        if errors:
            raise errors[0]

    def _convert(self, returns: list[Any]) -> Any:
        """The call's result as the user receives it: numpy copies, the value at its call whatever later
        calls (train steps that update a returned variable) or edits of the inputs do before it is fetched."""
        if self.ret.mode == "none":
            return None
        return self.rebuild([results.convert_leaf(t, k, d)
                             for t, k, d in zip(returns, self.leaf_kinds, self.leaf_dynamic)])

    def _result(self, slot: results.Slot) -> Any:
        """The handle of a ``tp.Callback`` or old-API (future) result; blocking forms return the value."""
        if self.ret.mode == "callback":
            return results.CallbackRegistrar(self.name, slot)
        return results.Future(self.name, slot)


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
