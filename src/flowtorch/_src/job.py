"""A job: its decorated function, its build (the body run once, captured) and its call path.

A call converts and checks its inputs, runs the step (on the caller's thread, or on the step thread for an
async call where the machine has a core to spare: ``runtime/stepper.py``) and hands its results, watched
values and callbacks to the pipeline (``runtime/executor.py``): a blocking call delivers its own on its
thread, an async one on the delivery thread. The session (``session.py``) holds the jobs and their state.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from flowtorch._src import modes, naming
from flowtorch._src.capture import errors, signature
from flowtorch._src.capture.builder import JobBuilder, JobIR
from flowtorch._src.capture.context import building
from flowtorch._src.data.loader import DataFeed
from flowtorch._src.dist import group
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.optim import legacy
from flowtorch._src.runtime import interrupts, results, transfer
from flowtorch._src.runtime.executor import Delivery
from flowtorch._src.step import accumulate, distributed, eager
from flowtorch._src.step.compile import StepFunction
from flowtorch._src.watch.taps import StepRecord

if TYPE_CHECKING:
    from flowtorch._src.session import Session


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
        self.flat_inputs = all(spec.arg is not None for spec in self.inputs)  # no tuple parameters
        self.local_devices = 1  # (set when built)
        self.ir: JobIR | None = None
        self.on_host = True
        self.ret = signature.parse_return(sig.return_annotation, self.name)
        self.step: StepFunction | None = None
        self.feed: DataFeed | None = None
        self.accumulation = 1  # train.num_gradient_accumulation_steps
        self.body_calls = 0
        self.calls = 0  # calls whose step ran (the number of the call a callback error names)
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
            return_names = [naming.unique_str("Return_") for _ in returned]
            legacy.attach_legacy_optimizer(builder, self.config)
            built = builder.finalize(returned)
        # what OneFlow's compiler described of the job (flow.experimental.get_job_set(): migrate/job_ir.py)
        self.ir = JobIR(builder.input_blobs, dict(builder.var_blobs), builder.ops, list(zip(return_names, returned)),
                        builder.all_blobs, builder.job_type)
        runner = builder.pipeline.freeze() if builder.pipeline is not None else None
        self.input_dtypes = [blob.dtype for blob in blobs_in]
        self.local_devices = self._local_devices()  # (the launcher's environment and the config are fixed now)
        self.on_host = isinstance(self.session.transfer, transfer.HostTransfer)  # steps' values are on the host
        self.watches = built.value_watches
        self.diff_watches = built.diff_watches
        self.watched = bool(self.watches or self.diff_watches)
        self.plain_returns = all(k == "numpy" for k in self.leaf_kinds)
        self.step = StepFunction(self.name, built, self.session.variables, builder.is_train, key=self.key)
        self.accumulation = self.step.accumulation
        if runner is not None:
            self.feed = DataFeed(runner, self.session.device)
            self.session.feeds.append(self.feed)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        session = self.session
        executor = session.executor
        if session.status == "CLOSED" or session.device_error is not None:
            session.check_open(f"job {self.name!r}")
        if kwargs:
            raise TypeError(f"job {self.name!r} takes positional arguments only; received keyword argument(s) "
                            f"{', '.join(map(repr, kwargs))}")
        if len(args) != len(self.inputs):
            raise AssertionError(f"job {self.name!r} takes {len(self.inputs)} argument(s) "
                                 f"({', '.join(s.name for s in self.inputs)}); received {len(args)}")
        if executor.in_pipeline():  # called from a callback or handler: run now, inline, without the session lock
            return executor.run_inline(lambda: eager.call(self, args) if self.eager else self._call_inline(args))
        # An earlier call's callback or handler error refuses this call before anything of it happens: every
        # call that raises changed nothing (docs/reliability.md, "Errors of callbacks").
        if executor.errors:
            session.raise_pending()
        blocking = self.eager or self.ret.mode == "sync"
        # Calls from several threads enter the pipeline whole, one after another: jobs sharing variables
        # see each other's updates in call order, and the first call builds once.
        with session.lock:
            if session.status == "CLOSED" or session.device_error is not None:  # (closed meanwhile)
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
            return self._launch(args)

    def _inputs(self, args: tuple[Any, ...], device: str) -> list[Any]:
        values = args if self.flat_inputs else [v for a, spec in zip(args, self.inputs)
                                                for v in spec.split(a, self.name)]
        parts = self.local_devices
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
        if self.local_devices > 1 and any(isinstance(t, signature.DeviceInputs) for t in tensors):
            return self._execute_parts(tensors)
        try:  # (what errors.job_context does, without a context manager on every step)
            if self.accumulation > 1:
                micro = [tensors + (self.feed.next() if self.feed is not None else [])
                         for _ in range(self.accumulation)]
                return accumulate.run_accumulated(step, micro)
            if self.feed is not None:
                tensors = tensors + self.feed.next()
            out = step(tensors)  # (whole under Ctrl-C: the callers hold SIGINT)
            return out.returns, [out.record]
        except BaseException as exc:
            errors.annotate_job_error(exc, self.name, "while running a step", getattr(step, "module", None))
            raise

    def _call_inline(self, args: tuple[Any, ...]) -> Any:
        """From a callback or handler: the step on this thread; its watch handlers run before the call
        returns (their errors are kept like the callback's own)."""
        with interrupts.deferred_interrupts():
            returns, records = self._execute(self._inputs(args, self.session.device))
            self.calls += 1
        value = self._deliver_here(returns, records, self.calls)
        return value if self.ret.mode in ("sync", "none") else self._result(results.Slot.ready(self.name, value))

    @staticmethod
    def _static(records: list[StepRecord]) -> bool:
        """The step's tensors live in a replayed graph's buffers (the next replay rewrites them)."""
        for record in records:
            if record.static:
                return True
        return False

    def _has_handlers(self, records: list[StepRecord]) -> bool:
        """Something to deliver besides the result: watch handlers, or reports of the step's checks."""
        if self.watched:
            return True
        for record in records:
            if record.checks:
                return True
        return False

    def _deliver_here(self, returns: list[Any], records: list[StepRecord], call: int) -> Any:
        """A step's watch handlers (and check reports) and its converted result, on this thread, from values
        nothing else writes before this returns."""
        if self._has_handlers(records):
            for record in records:
                self._deliver_watches(record, call)
        return self._convert(returns)

    def _run_step(self, args: tuple[Any, ...], blocking: bool = False
                  ) -> tuple[transfer.HostValues, int, list[StepRecord]]:
        """The step of one call, on this thread, and the copies of its results, watched values and check flags
        to the host (on CUDA: enqueued behind the step; ``HostValues.wait`` waits for them). The caller holds
        the signals around it, and counts the call once this returns."""
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
        fresh = not self._static(records)  # (a replayed graph's buffers are rewritten)
        return self.session.transfer.to_host(flat, release, blocking=not blocking, fresh=fresh, inputs=inputs)

    def _call_blocking(self, args: tuple[Any, ...]) -> Any:
        """A blocking call: its step, then (after every earlier call's delivery) its handlers and result, on
        this thread: it waits for them anyway."""
        executor = self.session.executor
        stepper = self.session.stepper
        if stepper is not None:  # steps launched earlier run first
            stepper.wait_empty()
        if self.on_host:
            # CPU: the step's values are on the host already and its own (unless a replayed graph's buffers),
            # and only copied when earlier deliveries are still to run first
            with interrupts.deferred_interrupts(), executor.step_lock:
                returns, records = self._execute(self._inputs(args, self.session.device))
                self.calls += 1
                queued = executor.busy() or self._static(records)
                # (copied while no other step can run: the delivery thread's callbacks may call jobs)
                host = self._host_values(returns, records, None, blocking=True) if queued else None
            if host is None:
                return self._deliver_here(returns, records, self.calls)
            n_returns = len(returns)
        else:
            with interrupts.deferred_interrupts():
                host, n_returns, records = self._run_step(args, blocking=True)
                self.calls += 1
        call = self.calls
        executor.wait_idle()  # earlier calls' handlers and callbacks come first
        try:
            host.wait()
            self._set_watched(host, n_returns, records)
            return self._deliver_here(host.values[:n_returns], records, call)
        finally:
            host.release()

    def _launch(self, args: tuple[Any, ...]) -> Any:
        """An async call: its step now, its delivery on the delivery thread; returns a Callback registrar, a
        future or None."""
        executor = self.session.executor
        executor.wait_for_room(self.name)
        call = self.calls + 1
        slot = results.Slot(self.name, call, executor) if self.ret.mode != "none" else None
        stepper = self.session.stepper
        if stepper is not None:  # (checked and copied here: the caller may change its arrays once this returns)
            tensors = self._inputs(signature.copied_arrays(args), self.session.device)
            with interrupts.deferred_interrupts():
                self.calls = call
                executor.reserve()
                stepper.submit(functools.partial(self._step_off, tensors, slot, call))
            return None if slot is None else self._result(slot)
        if self.on_host:
            # CPU: the result is converted here, as a blocking call's is (the delivery thread then holds the GIL
            # only for the handlers and the callback); watched values are kept, or copied where they share
            # memory with an input the caller may change once this returns.
            with interrupts.deferred_interrupts(), executor.step_lock:
                tensors = self._inputs(args, self.session.device)
                returns, records = self._execute(tensors)
                self.calls = call
                value = self._convert(returns)
                if self._has_handlers(records):
                    host = self._host_values([], records, None, blocking=False, inputs=tensors)
                    executor.enqueue(Delivery(functools.partial(self._deliver, host, 0, records, slot, call,
                                                                (value,)), self.name, call))
                elif slot is not None:  # (the common case: only the value to hand over)
                    executor.enqueue(Delivery(functools.partial(slot.set, value), self.name, call))
            return None if slot is None else self._result(slot)
        with interrupts.deferred_interrupts():  # launched and enqueued whole, or not at all
            host, n_returns, records = self._run_step(args)
            self.calls = call
            executor.enqueue(Delivery(functools.partial(self._deliver, host, n_returns, records, slot, call),
                                      self.name, call))
        return None if slot is None else self._result(slot)

    def _step_off(self, tensors: list[Any], slot: results.Slot | None, call: int) -> None:
        """On the step thread: the step of an async call, then its delivery; a failed step's error is kept for
        the caller (and fails the call's future)."""
        executor = self.session.executor
        try:
            with executor.step_lock:
                returns, records = self._execute(tensors)
                host = self._host_values(returns, records, None, blocking=False)
        except BaseException as exc:
            if slot is not None:
                slot.fail(exc)
            executor.record_step_error(exc, self.name, call)
            executor.release()
            return
        executor.enqueue(Delivery(functools.partial(self._deliver, host, len(returns), records, slot, call),
                                  self.name, call), reserved=True)

    @staticmethod
    def _set_watched(host: transfer.HostValues, n_returns: int, records: list[StepRecord]) -> None:
        """The records' values, gradients and check flags from their host copies."""
        values = iter(host.values[n_returns:])
        for record in records:
            record.values = [next(values) for _ in record.values]
            record.grads = [next(values) for _ in record.grads]
            record.checks = [(next(values), report) for _, report in record.checks]

    def _deliver(self, host: transfer.HostValues, n_returns: int, records: list[StepRecord],
                 slot: results.Slot | None, call: int, converted: tuple[Any] | None = None) -> None:
        """On the delivery thread: the watch handlers, then the result (``converted``: made at the launch) and
        its callback (their errors are kept for the caller). A result that could not be made fails its future
        instead of leaving it open."""
        try:
            host.wait()
            self._set_watched(host, n_returns, records)
            if converted is None:
                value = self._deliver_here(host.values[:n_returns], records, call)
            else:
                for record in records:
                    self._deliver_watches(record, call)
                value = converted[0]
        except BaseException as exc:  # copying or converting failed
            if slot is not None:
                slot.fail(exc)
            raise
        finally:
            host.release()
        if slot is not None:
            slot.set(value)  # runs a registered callback

    def _deliver_watches(self, record: StepRecord, call: int) -> None:
        """The reports of the step's set check flags, then every watch handler; a handler's error is kept and
        raised by a later call (the others still run)."""
        for flag, report in record.checks:
            if bool(flag):
                report()
        executor = self.session.executor
        for watches, values in ((self.watches, record.values), (self.diff_watches, record.grads)):
            for w, value in zip(watches, values):
                if value is None:
                    continue
                try:
                    w.deliver(value)
                except Exception as exc:
                    executor.record_error(exc, self.name, call, f"the watch handler of {w.blob.logical_blob_name}")

    def _convert(self, returns: list[Any]) -> Any:
        """The call's result as the user receives it: numpy copies, the value at its call whatever later
        calls (train steps that update a returned variable) or edits of the inputs do before it is fetched."""
        if self.ret.mode == "none":
            return None
        if self.plain_returns:  # (numpy arrays, the common case: host tensors copied, the rest converted)
            return self.rebuild([t.detach().numpy().copy() if type(t) is torch.Tensor and t.is_cpu
                                 else results.convert_leaf(t, "numpy") for t in returns])
        return self.rebuild([results.convert_leaf(t, k, d)
                             for t, k, d in zip(returns, self.leaf_kinds, self.leaf_dynamic)])

    def _result(self, slot: results.Slot) -> Any:
        """The handle of a ``tp.Callback`` or old-API (future) result; blocking forms return the value."""
        if self.ret.mode == "callback":
            return results.CallbackRegistrar(self.name, slot)
        return results.Future(self.name, slot)
