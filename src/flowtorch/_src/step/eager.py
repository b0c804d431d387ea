"""Eager jobs: ``flow.enable_eager_execution(True)`` before ``@flow.global_function``.

OneFlow 0.3 (``framework/compiler.py: EagerRun``) runs an eager job's body anew on every call: each op
runs when the body calls it, so blobs have values inside the body (``blob.numpy()``) and ``flow.watch``
handlers fire at once (``ops/watch.py: EagerWatch``); when the body returns, the backward pass, the
``watch_diff`` handlers and the optimizer update run (``EagerJobBuildAndInferCtx::Complete``). Nothing is
captured or reused between calls; variables live in the session as in lazy mode.

flowtorch does the same with the lazy machinery: an :class:`EagerBuilder` records the body's graph
exactly as :class:`~flowtorch._src.capture.builder.JobBuilder` does (same names, checks, losses and optimizer)
and also runs each op's kernel when it is recorded. An :class:`EagerStep` (the lazy
:class:`~flowtorch._src.step.compile.StepFunction`, whose forward is the body's values) then differentiates
and updates. The graph is dropped after the call. Values are lazy mode's up to float rounding (lazy mode
fuses matmul/conv with bias_add).

Data ops that run in the job graph (on values the graph computes, ``data/graph_ops.py``) run when their
values are needed. Not in eager mode: data from readers and loaders (a loader is made when a lazy job is
built) and gradient accumulation; a job's variables are updated densely (OneFlow's eager ``Complete`` runs no
indexed-slices rewrite).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import torch
import torch.fx
from torch.fx.node import map_aggregate

from flowtorch._src import dtypes, naming
from flowtorch._src.capture import errors, signature
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import (
    BuiltGraph,
    ConfigView,
    JobBuilder,
    SessionView,
    Watch,
    mark_view,
    view_sources,
)
from flowtorch._src.capture.context import building
from flowtorch._src.capture.typing_defs import ArgDef
from flowtorch._src.data.tensor_list import TensorList
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.ops.array_ops import identity
from flowtorch._src.optim import legacy
from flowtorch._src.runtime import interrupts, results
from flowtorch._src.step import accumulate
from flowtorch._src.step.compile import StepFunction


class EagerBlob(Blob):
    """A blob of an eager job: OneFlow's ``EagerBlobTrait``, with the value computed when its op ran."""

    __slots__ = ()

    @property
    def value(self) -> Any:
        builder = self.builder
        if not isinstance(builder, EagerBuilder):
            raise TypeError(f"{self.logical_blob_name}: an eager blob made by a lazy job's builder")
        return builder.value_of(self)

    def numpy_size(self) -> int:
        return 1  # one device part

    def numpy_list_size(self) -> int:
        return 1

    def numpy(self, rank: int | None = None) -> np.ndarray:
        """The value as an ndarray (a copy); ``rank`` is the device part, 0 on one device."""
        if rank not in (None, 0):
            raise AssertionError(f"{self.logical_blob_name}.numpy({rank!r}): the blob has one device part (rank 0)")
        if self.is_tensor_list:
            raise AssertionError(f"{self.logical_blob_name} is a tensor list: use numpy_list()")
        return results.to_numpy(self.value)

    def numpy_list(self, rank: int | None = None) -> Any:
        """A tensor-list blob's arrays: one list per device part, or the list of part ``rank`` (0)
        (OneFlow's ``remote_blob.py: EagerBlobTrait.numpy_list`` asserts a tensor list)."""
        if not self.is_tensor_list:
            raise AssertionError(f"{self.logical_blob_name}.numpy_list(): only tensor-list blobs have a numpy_list; "
                                 "this blob is not one: use numpy()")
        if rank not in (None, 0):
            raise AssertionError(f"{self.logical_blob_name}.numpy_list({rank!r}): the blob has one device part "
                                 "(rank 0)")
        arrays = self.value.numpy_list()
        return [arrays] if rank is None else arrays

    def __bool__(self) -> bool:
        raise TypeError(f"the truth value of blob {self.logical_blob_name} is ambiguous; test blob.numpy() instead")

    def __repr__(self) -> str:
        return (f"EagerBlob(lbn={self.logical_blob_name!r}, shape={self.shape}, dtype={self.dtype}, "
                f"is_dynamic={self.is_dynamic})")


def _value_of(a: Any) -> Any:
    return a.builder.value_of(a) if isinstance(a, Blob) and isinstance(a.builder, EagerBuilder) else a


def _to_meta(value: Any) -> Any:
    return map_aggregate(value, lambda t: t.to("meta") if isinstance(t, torch.Tensor) else t)


class EagerBuilder(JobBuilder):
    """A :class:`JobBuilder` that also runs each op when it is recorded (``torch.inference_mode`` in a
    predict job, as a lazy predict step runs; with autograd in a train job)."""

    blob_class = EagerBlob

    def __init__(self, job_name: str, job_type: str, config: FunctionConfig, session: SessionView) -> None:
        self._pending: list[Any] = []  # values of the blobs about to be created, in creation order
        super().__init__(job_name, job_type, config, session)
        self.values: dict[torch.fx.Node, Any] = {}  # each graph node's value in this call
        self.grads: list[torch.Tensor | None] = []  # this call's watch_diff values, by slot

    def _mode(self) -> Any:
        return torch.enable_grad() if self.is_train else torch.inference_mode()

    def _created(self, blob: Blob) -> None:
        if self._pending:  # a blob this builder is creating (data ops' blobs are computed when used)
            self.values[blob.node] = self._pending.pop(0)
        super()._created(blob)  # watch scopes see the blob with its value

    def value_of(self, blob: Blob) -> Any:
        return self.node_value(blob.node)

    def node_value(self, node: torch.fx.Node) -> Any:
        """The node's value: computed when its op was recorded, or now for nodes the body added to the graph
        itself (data ops that run in the graph, data/graph_ops.py), from its inputs' values."""
        if node in self.values:
            return self.values[node]
        if node.op != "call_function":
            raise RuntimeError(f"eager job {self.job_name!r}: graph node {node.name} has no value")
        args = torch.fx.node.map_arg(node.args, self.node_value)
        kwargs = torch.fx.node.map_arg(node.kwargs, self.node_value)
        with self._mode():
            value = node.target(*args, **kwargs)  # type: ignore[operator]
        self.values[node] = value
        return value

    def add_fed_input(self) -> torch.fx.Node:
        raise NotImplementedError(
            f"job {self.job_name!r}: data from flow.data readers and loaders is not supported in eager mode (a loader "
            "is made when a lazy job is built); define the job with flow.enable_eager_execution(False)")

    # --- inputs and variables -------------------------------------------------------------------
    def add_eager_input(self, op_name: str, value: torch.Tensor | TensorList, arg: ArgDef, dtype: dtypes.DType
                        ) -> Blob:
        """A job input holding this call's ``value`` (its blob keeps the declared, static shape)."""
        meta = torch.empty(arg.shape, dtype=dtype.torch_dtype, device="meta")
        self._pending.append(value)
        return self.add_input(op_name, meta, arg.batch_axis, is_dynamic=arg.kind != "numpy",
                              tensor_list=arg.kind == "list_list_numpy")

    def read_variable(self, name: str, meta: torch.Tensor, trainable: bool) -> Blob:
        if name not in self.var_blobs:
            tensor = self.session.variables[name].tensor
            if self.is_train and not trainable:
                tensor = tensor.detach()
            elif self.is_train and tensor.requires_grad:
                # the body's uses go through one alias per call, so a watch_diff hook on it sees the
                # variable's whole gradient and leaves nothing behind on the variable itself
                with torch.enable_grad():
                    tensor = tensor.view_as(tensor)
            self._pending.append(tensor)
        return super().read_variable(name, meta, trainable)

    # --- ops ---------------------------------------------------------------------------------------
    def record(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], op_name: str,
               outputs: Sequence[str], *, meta: Any = None, dynamic: Any = None,
               tensor_lists: Sequence[bool] | None = None) -> list[Blob]:
        blobs_in: list[Blob] = []
        map_aggregate((tuple(args), dict(kwargs)), lambda a: blobs_in.append(a) if isinstance(a, Blob) else None)
        if any(a.builder is not self for a in blobs_in):  # the lazy builder says which blob crossed jobs
            return super().record(fn, args, kwargs, op_name, outputs, meta=meta, dynamic=dynamic,
                                  tensor_lists=tensor_lists)
        try:
            with self._mode():
                out = fn(*map_aggregate(tuple(args), _value_of), **map_aggregate(dict(kwargs), _value_of))
        except Exception as exc:
            errors.annotate(exc, f"eager job {self.job_name!r}, op {op_name!r} (while running it)", self.job_name)
            raise
        if meta is None and not any(a.is_dynamic for a in blobs_in):
            meta = _to_meta(out)  # static inputs: the value has the static shape (no second inference)
        # else the lazy builder infers the static shape from the inputs' static shapes (a dynamic blob's
        # value may be smaller, and blob.shape stays static as in OneFlow's eager blobs)
        shape_of = meta if meta is not None else self._infer(fn, args, kwargs, op_name)
        if isinstance(shape_of, (tuple, list)):
            self._pending.extend(() if out is None else out)  # None: an op without outputs (it updates inputs)
        else:
            self._pending.append(out)
        try:
            blobs = super().record(fn, args, kwargs, op_name, outputs, meta=shape_of, dynamic=dynamic,
                                   tensor_lists=tensor_lists)
        finally:
            self._pending.clear()
        # which outputs view an input's memory (a returned view of a variable is copied before the update)
        fed = [(a, self.value_of(a)) for a in blobs_in]
        for blob, source in zip(blobs, view_sources(fed, [self.value_of(b) for b in blobs])):
            mark_view(blob, source)
        return blobs

    # --- watches -----------------------------------------------------------------------------------
    def add_value_watch(self, blob: Blob, deliver: Callable[[torch.Tensor], None]) -> Watch:
        """OneFlow's EagerWatch: the handler gets the value now, inside the body."""
        deliver(_value_of(blob).detach())
        return Watch(blob, deliver, -1)

    def add_diff_watch(self, blob: Blob, deliver: Callable[[torch.Tensor], None]) -> Watch:
        """The handler gets the blob's gradient after the body, when backward has run (never for a blob
        without one: inputs, non-trainable variables, predict jobs)."""
        watch = super().add_diff_watch(blob, deliver)
        self.grads.append(None)
        value = _value_of(blob)
        if isinstance(value, torch.Tensor) and value.requires_grad:
            value.register_hook(functools.partial(self._store_grad, watch.slot))
        return watch

    def _store_grad(self, slot: int, grad: torch.Tensor) -> None:
        self.grads[slot] = grad.detach()


class _EagerConfig:
    """A job's config as OneFlow's eager ``Complete`` reads it: the indexed-slices rewrite is a lazy-only
    pass (``core/job/job_build_and_infer_ctx.cpp``), so an eager job updates those variables densely."""

    def __init__(self, config: ConfigView) -> None:
        self._config = config

    def get(self, name: str, default: Any = None) -> Any:
        return default if name == "indexed_slices_optimizer_conf" else self._config.get(name, default)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._config, name)


class EagerStep(StepFunction):
    """The lazy step function of one eager call: its forward is what the body already computed. (A job
    that needs gradients through integer blobs replays the graph on the call's inputs for its backward.)"""

    def __init__(self, job_name: str, builder: EagerBuilder, built: BuiltGraph) -> None:
        super().__init__(job_name, dataclasses.replace(built, config=_EagerConfig(built.config)),
                         builder.session.variables, builder.is_train, mode="eager", fuse=False)
        self.outputs = ([_value_of(b) for b in built.return_blobs], tuple(_value_of(b) for b in built.losses))

    def _run(self, inputs: list[torch.Tensor]) -> Any:
        return self.outputs


class EagerFuture:
    """OneFlow's ``EagerFutureRemoteBlobs``: the result is fetched once; every ``get()``/``async_get()``
    gives it again."""

    def __init__(self, job: str, value: Any) -> None:
        self._job = job
        self._value = value  # converted at the call

    def get(self) -> Any:
        return self._value

    def async_get(self, callback: Callable[[Any], None]) -> None:
        if not callable(callback):
            raise TypeError(f"job {self._job!r}: async_get expects a callable taking the result; received {callback!r}")
        callback(self.get())

    def register(self, callback: Callable[[Any], None]) -> None:
        """``job(x)(callback)`` of a ``-> tp.Callback[T]`` job."""
        if not callable(callback):
            raise TypeError(f"job {self._job!r}: callback expects a callable taking the result; received "
                            f"{callback!r}")
        callback(self.get())


# --- inputs ---------------------------------------------------------------------------------------------
def check_input(value: Any, leaf: signature.InputSpec, dtype: dtypes.DType, job: str, index: int) -> Any:
    """OneFlow's eager feed checks (``framework/push_util.py``), then the value with tuples made lists.

    Unlike a lazy push, which converts, the eager feed asserts that every array already has the
    placeholder's dtype. A ``ListNumpy`` argument is a list or tuple with one array per device, each of the
    placeholder's rank and at most its size; ``ListListNumpy`` is a list (per device) of such arrays.
    """
    where = f"eager job {job!r}, argument {leaf.name!r} (#{index})"
    arg = leaf.leaf_arg
    if arg.kind == "numpy":
        if not isinstance(value, np.ndarray):
            raise AssertionError(f"{where}: expected a numpy.ndarray; received {type(value).__name__}")
        if value.shape != arg.shape:
            raise AssertionError(f"{where}: expected shape {arg.shape}; received {value.shape}")
        arrays = [value]
    else:
        if not isinstance(value, (list, tuple)) or len(value) != 1:
            length = f" of length {len(value)}" if isinstance(value, (list, tuple)) else ""
            raise AssertionError(f"{where}: expected a list with one entry per device (1 device); received "
                                 f"{type(value).__name__}{length}")
        if arg.kind == "list_numpy":
            arrays = list(value)
        else:
            if not isinstance(value[0], (list, tuple)):
                raise AssertionError(f"{where}: expected a list (per device) of lists of numpy.ndarray; received a "
                                     f"list of {type(value[0]).__name__}")
            arrays = list(value[0])
        capacity = int(np.prod(arg.shape))
        for a in arrays:
            if not isinstance(a, np.ndarray):
                raise AssertionError(  # OneFlow asserts, as for the other checks here
                    f"{where}: expected numpy.ndarray items; received {type(a).__name__}")
            if a.ndim != len(arg.shape) or a.size > capacity:
                raise AssertionError(f"{where}: expected arrays of rank {len(arg.shape)} with at most {capacity} "
                                     f"elements (placeholder shape {arg.shape}); received shape {a.shape}")
        value = [arrays] if arg.kind == "list_list_numpy" else arrays
    for a in arrays:
        if a.dtype != dtype.numpy_dtype:
            raise AssertionError(f"{where}: expected dtype {dtype.name} (an eager job feeds arrays as they are, "
                                 f"OneFlow asserts ndarray.dtype == blob dtype); received {a.dtype}: cast it first")
    return value


# --- a call ---------------------------------------------------------------------------------------------
class EagerSession(SessionView, Protocol):
    """What an eager call needs of its job's session (:class:`flowtorch._src.session.Session`, a layer above)."""

    @property
    def is_running(self) -> bool: ...

    def start(self) -> None: ...


class EagerJob(Protocol):
    """What an eager call needs of its job (:class:`flowtorch._src.session.Job`, a layer above)."""

    body_calls: int  # bodies run so far

    @property
    def name(self) -> str: ...

    @property
    def job_type(self) -> str: ...

    @property
    def config(self) -> FunctionConfig: ...

    @property
    def session(self) -> EagerSession: ...

    @property
    def func(self) -> Callable[..., Any]: ...

    @property
    def inputs(self) -> Sequence[signature.InputSpec]: ...

    @property
    def leaves(self) -> Sequence[signature.InputSpec]: ...

    @property
    def ret(self) -> signature.ReturnSpec: ...


def call(job: EagerJob, args: Sequence[Any]) -> Any:
    """Run eager ``job`` (a :class:`flowtorch._src.session.Job`) once on ``args``; an error names the job."""
    with errors.job_context(job.name, "an eager call: its body runs at every call"):
        return _call(job, args)


def _call(job: EagerJob, args: Sequence[Any]) -> Any:
    session = job.session
    if not session.is_running:
        session.start()
    steps = accumulate.steps_of(job.config) if job.job_type == "train" else 1
    if steps > 1:
        raise NotImplementedError(f"eager job {job.name!r}: train.num_gradient_accumulation_steps({steps}) is not "
                                  "supported in eager mode; define the job in lazy mode")
    leaves = job.leaves
    values = [v for a, spec in zip(args, job.inputs) for v in spec.split(a, job.name)]
    dtypes_in = [leaf.leaf_arg.resolved_dtype(job.config.default_dtype) for leaf in leaves]
    # (tensors and, for tp.ListListNumpy arguments, tensor lists: a step's inputs, list[Any] as the session's)
    tensors: list[Any] = [
        signature.convert_input(check_input(v, leaf, d, job.name, i), leaf, d, job.name, i, session.device)
        for i, (v, leaf, d) in enumerate(zip(values, leaves, dtypes_in))]
    builder = EagerBuilder(job.name, job.job_type, job.config, session)
    with building(builder):
        blobs_in = []
        for tensor, leaf, d in zip(tensors, leaves, dtypes_in):
            blob = builder.add_eager_input(naming.unique_str("Input_"), tensor, leaf.leaf_arg, d)
            # OneFlow's eager feed passes a Numpy placeholder on through an identity op (push_util.py)
            blobs_in.append(identity(blob) if leaf.leaf_arg.kind == "numpy" else blob)
        job.body_calls += 1
        flat = iter(blobs_in)
        value = job.func(*(spec.assemble(flat) for spec in job.inputs))
        returned, kinds, rebuild = signature.flatten_return(value, job.ret, job.name)
        if builder.is_train:  # OneFlow's eager return op copies in train jobs only (ops/__init__.py)
            for _ in returned:
                naming.unique_str("Return_")
        legacy.attach_legacy_optimizer(builder, job.config)
        built = builder.finalize(returned)
    step = EagerStep(job.name, builder, built)
    with interrupts.deferred_interrupts():  # the backward pass and the update run whole
        out = step.eager(tensors)
    # a job with integer losses or integer diff watches differentiates by replaying its graph (step/int_grad.py):
    # its watch_diff values come from that replay's taps
    grads = out.record.grads if getattr(step, "int_grads", None) is not None else builder.grads
    for watch, grad in zip(built.diff_watches, grads):
        if grad is not None:
            watch.deliver(grad)
    return _result(job.name, job.ret.mode, out.returns, kinds, rebuild)


def _result(job: str, mode: str, returns: list[torch.Tensor], kinds: list[str],
            rebuild: Callable[[list[Any]], Any]) -> Any:
    if mode == "none":
        return None

    value = rebuild([results.convert_leaf(t, k) for t, k in zip(returns, kinds)])  # the value at the call
    if mode == "sync":
        return value
    future = EagerFuture(job, value)
    return future.register if mode == "callback" else future
