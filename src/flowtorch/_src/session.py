"""The default session: registered jobs, variables, ``flow.config`` flags; OPEN → RUNNING → closed.

OneFlow builds every registered job body once when the session starts (the first job call or the first
checkpoint/variable API, spec §1) and runs the captured graphs afterwards. flowtorch does the same, and
also lets a job be declared after the start (it is built at its own first call: spec §10).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import torch

from flowtorch._src import modes, naming
from flowtorch._src.data.loader import DataFeed
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.job import accumulate, eager, signature
from flowtorch._src.job.builder import JobBuilder
from flowtorch._src.job.compile import StepFunction, StepOutput
from flowtorch._src.job.context import building
from flowtorch._src.runtime import interrupts, results
from flowtorch._src.variables import VariableStore

_CONFIG_DEFAULTS: dict[str, Any] = {
    "gpu_device_num": 1, "cpu_device_num": 1, "machine_num": 1, "enable_legacy_model_io": False,
    "enable_debug_mode": False, "enable_model_io_v2": True,
}


def _default_device() -> str:
    wanted = os.environ.get("FLOWTORCH_DEVICE")
    if wanted:
        return wanted
    return "cuda" if torch.cuda.is_available() else "cpu"


class Session:
    """Jobs, variables and flags of one OneFlow session."""

    def __init__(self) -> None:
        self.status = "OPEN"  # OPEN → RUNNING → CLOSED
        self.jobs: dict[str, Job] = {}
        self.device = _default_device()
        self.variables = VariableStore(self.device)
        self.config: dict[str, Any] = dict(_CONFIG_DEFAULTS)
        self.pending_errors: list[BaseException] = []
        self.feeds: list[Any] = []  # the jobs' data loaders, closed with the session
        self.lock = threading.RLock()  # held by each job call; sync and close wait on it

    @property
    def is_running(self) -> bool:
        return self.status == "RUNNING"

    def check_open(self, what: str) -> None:
        if self.status == "CLOSED":
            raise AssertionError(f"{what} belongs to a session that flow.clear_default_session() closed; "
                                 "decorate the job again in the new session")

    def add_job(self, job: Job) -> None:
        self.check_open(f"job {job.name!r}")
        self.jobs[job.name] = job

    def start(self) -> None:
        """Build every registered job not built yet, in registration order (runs each body once)."""
        with self.lock:
            self._start()

    def _start(self) -> None:
        self.check_open("this session")
        self.status = "RUNNING"
        for job in list(self.jobs.values()):
            if job.step is None:
                try:
                    job.build()
                except BaseException:
                    # A body that fails to build must not take the session's other jobs down with it;
                    # calling this job again rebuilds it and raises again.
                    if self.jobs.get(job.name) is job:
                        del self.jobs[job.name]
                    raise

    def set_config(self, name: str, value: Any) -> bool:
        if self.is_running:
            print("Nothing happened because the session is running")
            return False
        self.config[name] = value
        return True

    def raise_pending(self) -> None:
        if self.pending_errors:
            first, self.pending_errors = self.pending_errors[0], []
            raise first

    def sync(self) -> None:
        """A barrier: every launched step, its watchers and callbacks are done (steps run in call order)."""
        with self.lock:  # calls running on other threads finish first
            if self.device.startswith("cuda") and torch.cuda.is_available():
                torch.cuda.synchronize()
            self.raise_pending()

    def close(self) -> None:
        try:
            self.sync()
        finally:
            self.status = "CLOSED"
            for feed in self.feeds:
                feed.close()


_session = Session()


def default_session() -> Session:
    return _session


def sync_default_session() -> None:
    _session.sync()


def clear_default_session() -> None:
    """Close the session (its jobs, variables, watchers and flags go) and open a fresh one."""
    global _session
    old = _session
    _session = Session()
    old.close()


class Job:
    """A decorated job function and, once built, its captured step."""

    def __init__(self, func: Callable[..., Any], job_type: str, config: FunctionConfig, session: Session,
                 localns: dict[str, Any] | None = None) -> None:
        self.func = func
        self.name = func.__name__
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
        if self.job_type == "train":  # refuse before anything (variables, optimizer state) is created
            accumulate.check_accumulation(accumulate.steps_of(self.config), self.name, len(self.inputs))
        builder = JobBuilder(self.name, self.job_type, self.config, self.session)
        blobs_in = []
        with building(builder):
            for leaf in self.leaves:
                dtype = leaf.arg.resolved_dtype(self.config.default_dtype)
                meta = torch.empty(leaf.arg.shape, dtype=dtype.torch_dtype, device="meta")
                blobs_in.append(builder.add_input(naming.unique_str("Input_"), meta, leaf.arg.batch_axis,
                                                  is_dynamic=leaf.arg.kind != "numpy",
                                                  tensor_list=leaf.arg.kind == "list_list_numpy"))
            self.body_calls += 1
            flat = iter(blobs_in)
            value = self.func(*(spec.assemble(flat) for spec in self.inputs))
            returned, self.leaf_kinds, self.rebuild = signature.flatten_return(value, self.ret, self.name)
            for _ in returned:
                naming.unique_str("Return_")
            _attach_legacy_optimizer(builder, self.config)
            built = builder.finalize(returned)
        runner = builder.pipeline.freeze() if builder.pipeline is not None else None
        self.input_dtypes = [blob.dtype for blob in blobs_in]
        self.watches = built.value_watches
        self.diff_watches = built.diff_watches
        self.step = StepFunction(self.name, built, self.session.variables, builder.is_train)
        self.accumulation = self.step.accumulation
        if runner is not None:
            self.feed = DataFeed(runner, self.session.device)
            self.session.feeds.append(self.feed)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session = self.session
        session.check_open(f"job {self.name!r}")
        session.raise_pending()
        if kwargs:
            raise TypeError(f"job {self.name!r} takes positional arguments only; received keyword argument(s) "
                            f"{', '.join(map(repr, kwargs))}")
        if len(args) != len(self.inputs):
            raise AssertionError(f"job {self.name!r} takes {len(self.inputs)} argument(s) "
                                 f"({', '.join(s.name for s in self.inputs)}); received {len(args)}")
        # One call at a time per session: calls from several threads run whole, one after another, so
        # jobs sharing variables see each other's updates in call order and the first call builds once.
        with session.lock:
            session.check_open(f"job {self.name!r}")
            if self.eager:
                return eager.call(self, args)
            return self._call(args)

    def _call(self, args: tuple[Any, ...]) -> Any:
        session = self.session
        if self.step is None:
            session.start()
            if self.step is None:
                self.build()
        values = [v for a, spec in zip(args, self.inputs) for v in spec.split(a, self.name)]
        tensors = [signature.convert_input(a, s, d, self.name, i, session.device)
                   for i, (a, s, d) in enumerate(zip(values, self.leaves, self.input_dtypes))]
        if self.accumulation > 1:
            micro = [tensors + (self.feed.next() if self.feed is not None else []) for _ in range(self.accumulation)]
            with interrupts.deferred_interrupts():
                returns, records = accumulate.run_accumulated(self.step, micro)
            for record in records:
                self._deliver_watches(StepOutput(returns, record))
            return self._result(returns)
        if self.feed is not None:
            tensors += self.feed.next()
        with interrupts.deferred_interrupts():
            out = self.step(tensors)
        self._deliver_watches(out)
        return self._result(out.returns)

    def _deliver_watches(self, out: Any) -> None:
        errors: list[BaseException] = []
        for watches, values in ((self.watches, out.record.values), (self.diff_watches, out.record.grads)):
            for w, value in zip(watches, values):
                if value is None:
                    continue
                try:
                    w.deliver(value)
                except Exception as exc:  # noqa: BLE001 - every handler runs; the first error is raised
                    exc.add_note(f"raised by the watch handler of {w.blob.logical_blob_name} in job {self.name!r}")
                    errors.append(exc)
        if errors:
            raise errors[0]

    def _result(self, returns: list[torch.Tensor]) -> Any:
        mode = self.ret.mode
        if mode == "none":
            return None
        kinds = self.leaf_kinds

        # Converted now, for every form: a result is the value at its call, whatever later calls (train
        # steps that update a returned variable) or edits of the inputs do before it is fetched.
        value = self.rebuild([results.convert_leaf(t, k) for t, k in zip(returns, kinds)])
        if mode == "sync":
            return value
        if mode == "callback":
            return results.CallbackRegistrar(self.name, value)
        return results.Future(self.name, value)


def _attach_legacy_optimizer(builder: JobBuilder, config: FunctionConfig) -> None:
    """v0.1 train jobs: ``func_config.train.primary_lr`` + ``model_update_conf`` + ``losses.add_loss``."""
    if not builder.is_train or builder.optimizers:
        return
    conf = config.get("train.model_update_conf")
    lr = config.get("train.primary_lr")
    if conf is None and lr is None:
        return
    from flowtorch._src.optim.legacy import optimizer_from_conf
    builder.optimizers.append(optimizer_from_conf(conf or {"naive_conf": {}}, lr, config))


def global_function(type: str = "predict", function_config: FunctionConfig | None = None  # noqa: A002
                    ) -> Callable[[Callable[..., Any]], Job]:
    """``@flow.global_function(type="predict"|"train", function_config=None)``."""
    if isinstance(type, FunctionConfig):
        print("WARNING: flow.global_function(func_config) is deprecated. Please replace it with "
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
