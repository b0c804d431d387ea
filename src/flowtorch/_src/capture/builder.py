"""Runs a job body once and records what it builds into a ``torch.fx`` graph.

Each OneFlow op called in the body becomes one ``call_function`` node; its output shape and dtype come
from running the op on meta tensors (or on zeros when an op cannot run on meta). Inputs and variables
are graph placeholders, so one graph serves every call. Watches become tap nodes
(:mod:`flowtorch._src.watch.taps`); losses and optimizers are kept for the step function.

Call tree: ``Session.build`` → :meth:`JobBuilder.run_body` → body → ops → :meth:`JobBuilder.record`
→ :meth:`JobBuilder.finalize` → :class:`flowtorch._src.step.compile.StepFunction`.
"""

from __future__ import annotations

import logging
import operator
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol

import torch
import torch.fx
from torch.fx.node import map_aggregate

from flowtorch._src import experimental_scope
from flowtorch._src.capture import errors
from flowtorch._src.capture.blob import Blob
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.variable_store import VariableStore
from flowtorch._src.watch import taps

log = logging.getLogger("flowtorch")

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PKG_ROOT = os.path.dirname(_PKG_DIR)


def user_location() -> str:
    """``file:line in func`` of the innermost frame outside flowtorch (where the user built a blob)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PKG_ROOT):
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f'File "{frame.f_code.co_filename}", line {frame.f_lineno}, in {frame.f_code.co_name}'


def _other_than(node: torch.fx.Node) -> Callable[[torch.fx.Node], bool]:
    """A ``delete_user_cb`` for ``replace_all_uses_with(node)``: every use but ``node`` itself moves to it."""
    return lambda user: user is not node


@dataclass
class Watch:
    """A value or diff watch: ``deliver`` gets the torch tensor of each step."""

    blob: Blob
    deliver: Callable[[torch.Tensor], None]
    slot: int


class ConfigView(Protocol):
    """What the step layer reads of a built job's config: its :class:`FunctionConfig`, or an eager call's
    view of it (``step/eager.py``'s ``_EagerConfig``, a layer above)."""

    def get(self, name: str, default: Any = None) -> Any: ...

    def is_mirrored(self) -> bool: ...


@dataclass
class OpRecord:
    """One op as OneFlow's compiler described it (read by the job IR, ``migrate/job_ir.py``): its name, OneFlow's
    op type, its input blobs in argument order (``named``: by OneFlow's argument names, where the op gave them),
    its attributes and its output blobs."""

    name: str
    op_type: str
    inputs: list[Blob]
    named: dict[str, list[Blob]] | None
    attrs: dict[str, Any]
    outputs: list[Blob]
    args: tuple[Any, ...] = ()  # the kernel's arguments, blobs among them (attributes the IR derives from them)


@dataclass
class JobIR:
    """What the job IR (``migrate/job_ir.py``) reads of a built job: its inputs, variables (by name), ops in
    order, returns (each with its ``Return_<n>`` op name), every blob, and ``train``/``predict``."""

    inputs: list[Blob]
    variables: dict[str, Blob]
    ops: list[OpRecord]
    returns: list[tuple[str, Blob]]
    blobs: list[Blob]
    job_type: str


@dataclass
class BuiltGraph:
    """What finalize hands to the step compiler."""

    module: torch.fx.GraphModule
    n_inputs: int
    var_names: list[str]
    return_is_variable: list[bool]  # a variable or a view of one (JobBuilder.shares_variable): copied before the update
    value_watches: list[Watch]
    diff_watches: list[Watch]
    losses: list[Blob]
    optimizers: list[Any]  # optim.base.Optimizer (a layer above); see JobBuilder.optimizers
    return_blobs: list[Blob]
    config: ConfigView


class SessionView(Protocol):
    """What building a job needs of its session (:class:`flowtorch._src.session.Session`, layers above)."""

    device: str
    variables: VariableStore
    module_names: set[str]  # flow.find_or_create_module's names so far in the session
    config: dict[str, Any]  # flow.config flags (the devices asked for: blob.split_axis, step/distributed.py)


class JobBuilder:
    """Collects one job's graph while its body runs."""

    blob_class: type[Blob] = Blob  # what the body's blobs are (eager jobs' blobs also hold values)

    def __init__(self, job_name: str, job_type: str, config: FunctionConfig, session: SessionView) -> None:
        self.job_name = job_name
        self.job_type = job_type
        self.is_train = job_type == "train"
        self.config = config
        self.session = session
        self.default_dtype = config.default_dtype
        self.device: str = session.device
        self.graph = torch.fx.Graph()
        self.n_inputs = 0
        self.var_names: list[str] = []
        self.var_blobs: dict[str, Blob] = {}
        self.losses: list[Blob] = []
        # optim.base.Optimizer, a layer above: the builder only keeps it for the step, which types it (step/compile.py)
        self.optimizers: list[Any] = []
        self.value_watches: list[Watch] = []
        self.diff_watches: list[Watch] = []
        self.recorders: list[Callable[[Blob], None]] = []
        self.all_blobs: list[Blob] = []
        self.ops: list[OpRecord] = []  # every op recorded, in order (the job IR's net)
        self.input_blobs: list[Blob] = []
        # The job's data pipeline (flowtorch._src.data), set by the first data op of the body; the builder
        # only gives its outputs placeholders (``add_fed_input``), fed by the loader on every call.
        self.pipeline: Any = None
        self.modules: dict[str, Any] = {}  # flow.find_or_create_module's modules of this job, by name
        self.ssp_proxies: dict[str, Blob] = {}  # enable_ssp: each variable's stale-value proxy, by op name
        self.n_fed = 0
        self._last_placeholder: torch.fx.Node | None = None
        self._last_input: torch.fx.Node | None = None
        self._diff_taps: list[tuple[torch.fx.Node, int]] = []

    # --- graph inputs ---------------------------------------------------------------------------
    def _placeholder(self, name: str, after: torch.fx.Node | None) -> torch.fx.Node:
        if after is None:
            first = next(iter(self.graph.nodes), None)
            ctx = self.graph.inserting_before(first) if first is not None else self.graph.inserting_after()
        else:
            ctx = self.graph.inserting_after(after)
        with ctx:
            node = self.graph.placeholder(name)
        if self._last_placeholder is after:
            self._last_placeholder = node
        return node

    def add_input(self, op_name: str, meta: torch.Tensor, batch_axis: int | None, is_dynamic: bool,
                  tensor_list: bool = False) -> Blob:
        if self.var_names or self.n_fed:
            raise RuntimeError("job inputs must be created before data ops and variables")
        node = self._placeholder(f"input_{self.n_inputs}", self._last_input)
        # not "flowtorch_meta": int_grad.py reads a placeholder without one as a job input or variable
        node.meta["flowtorch_placeholder_meta"] = meta
        node.meta["flowtorch_batch_axis"] = batch_axis
        node.meta["flowtorch_per_device"] = is_dynamic  # a ListNumpy input: one part per device
        node.meta["flowtorch_lbn"] = f"{op_name}/out"
        self._last_input = node
        self.n_inputs += 1
        blob = self.blob_class(self, node, meta, op_name, "out", batch_axis=batch_axis, is_dynamic=is_dynamic)
        blob.tensor_list = tensor_list
        self.input_blobs.append(blob)
        self._created(blob)
        return blob

    def read_variable(self, name: str, meta: torch.Tensor, trainable: bool) -> Blob:
        """The blob of variable ``name`` in this job (one placeholder per variable per job)."""
        if name in self.var_blobs:
            return self.var_blobs[name]
        node = self._placeholder(f"var_{len(self.var_names)}", self._last_placeholder)
        node.meta["flowtorch_placeholder_meta"] = meta
        node.meta["flowtorch_lbn"] = f"{name}/out"
        store = self.session.variables
        if name in store:  # its layout over devices (flow.distribute), for dist/sbp.py
            node.meta["flowtorch_distribution"] = getattr(store[name], "parallel_distribution", ())
        self.var_names.append(name)
        if not trainable and self.is_train:
            node = self.graph.call_function(torch.Tensor.detach, (node,))
        blob = self.blob_class(self, node, meta, name, "out", batch_axis=None, is_variable=True)
        self.var_blobs[name] = blob
        self._created(blob)
        return blob

    def add_fed_input(self) -> torch.fx.Node:
        """A placeholder fed on every call by the job's data pipeline. The step takes the job's inputs,
        then the fed values, then the variables: ``module(*inputs, *fed, *variables)``."""
        node = self._placeholder(f"data_{self.n_fed}", self._last_input)
        self._last_input = node
        self.n_fed += 1
        return node

    # --- ops --------------------------------------------------------------------------------------
    def record(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], op_name: str,
               outputs: Sequence[str], *, meta: Any = None, dynamic: Any = None,
               tensor_lists: Sequence[bool] | None = None) -> list[Blob]:
        """Record ``fn(*args, **kwargs)`` (blobs among the args) as op ``op_name`` with these outputs.

        ``meta`` (a meta tensor, or a tuple of them) replaces shape inference for ops whose output shape
        depends on the data: it is the static upper bound. ``dynamic`` (a bool, or one per output) sets the
        outputs' ``is_dynamic``; by default an output is dynamic when any blob argument is. ``tensor_lists``
        (one bool per output: which outputs are tensor lists) is for the few ops that pass tensor lists on
        (identity); only they may take one.
        """
        blobs_in = _blobs_in((args, kwargs))
        for a in blobs_in:
            if a.builder is not self:
                raise ValueError(
                    f"op {op_name} in job {self.job_name!r}: blob {a.logical_blob_name} belongs to job "
                    f"{a.builder.job_name!r}; blobs cannot cross jobs")
            if a.is_tensor_list and tensor_lists is None:  # OneFlow's user ops take no TensorList either
                raise TypeError(
                    f"op {op_name} in job {self.job_name!r}: blob {a.logical_blob_name} is a tensor list (tensors of "
                    "different shapes); take its tensors with flow.tensor_list_split(x) or make a tensor buffer "
                    "with flow.tensor_list_to_tensor_buffer(x) first")
        sources: list[Blob | None] = []
        if meta is None:
            out_meta, sources = self._infer_views(fn, args, kwargs, op_name)
        else:
            out_meta = meta
        if dynamic is None:
            dynamic = any(a.is_dynamic for a in blobs_in)
        node_args = map_aggregate(tuple(args), _to_node)
        node_kwargs = map_aggregate(dict(kwargs), _to_node)
        node = self.graph.call_function(fn, node_args, node_kwargs)
        scope = experimental_scope.current_attrs()
        if scope != experimental_scope.ATTR_DEFAULTS:  # flow.experimental.scope.config, for rewrites (step/qat.py)
            node.meta["flowtorch_scope_attrs"] = scope
        metas = list(out_meta) if isinstance(out_meta, (tuple, list)) else [out_meta]
        if len(metas) != len(outputs):
            raise RuntimeError(f"op {op_name}: expected {len(outputs)} outputs, the kernel gave {len(metas)}")
        location = user_location()
        errors.record_op(node, op_name, f"{op_name}/{outputs[0]}" if len(outputs) == 1 else op_name, location)
        blobs = []
        flags = list(dynamic) if isinstance(dynamic, (list, tuple)) else [bool(dynamic)] * len(outputs)
        for i, (out, blob_name) in enumerate(zip(metas, outputs)):
            out_node = node if not isinstance(out_meta, (tuple, list)) else self.graph.call_function(
                operator.getitem, (node, i))
            out_node.meta["flowtorch_meta"] = out
            out_node.meta["flowtorch_lbn"] = f"{op_name}/{blob_name}"
            blob = self.blob_class(self, out_node, out, op_name, blob_name, location=location, is_dynamic=flags[i])
            if i < len(sources):
                mark_view(blob, sources[i])
            if tensor_lists is not None:
                blob.tensor_list = bool(tensor_lists[i])
            self._created(blob)
            blobs.append(blob)
        return blobs

    def _infer(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], op_name: str) -> Any:
        return self._infer_views(fn, args, kwargs, op_name)[0]

    def infer_meta(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], op_name: str) -> Any:
        """The output meta tensor(s) ``fn`` gives for the blobs' static shapes, without recording anything."""
        return self._infer(fn, args, kwargs, op_name)

    def _infer_views(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any], op_name: str
                     ) -> tuple[Any, list[Blob | None]]:
        """The op's output metas, and for each output the input blob it is (or is a view of), if any."""
        fed: list[tuple[Blob, Any]] = []

        def feed(convert: Callable[[Blob], torch.Tensor]) -> Callable[[Any], Any]:
            def to_tensor(a: Any) -> Any:
                if not isinstance(a, Blob):
                    return a
                t = convert(a)
                fed.append((a, t))
                return t
            return to_tensor

        try:
            out = fn(*map_aggregate(tuple(args), feed(_to_meta)), **map_aggregate(dict(kwargs), feed(_to_meta)))
        except Exception:  # some kernels have no meta support; retry on real zeros
            fed.clear()
            try:
                out = fn(*map_aggregate(tuple(args), feed(_to_zeros)), **map_aggregate(dict(kwargs), feed(_to_zeros)))
            except Exception as exc:
                errors.annotate(exc, f"job {self.job_name!r}, op {op_name!r} (while building it, at "
                                     f"{user_location()})", self.job_name)
                raise
        sources = view_sources(fed, list(out) if isinstance(out, (tuple, list)) else [out])
        return map_aggregate(out, lambda t: t.to("meta") if isinstance(t, torch.Tensor) else t), sources

    def shares_variable(self, blob: Blob) -> bool:
        """Whether ``blob`` is a variable or a view of one (through a chain of ops that return views:
        identity, reshape, squeeze, expand_dims, ...): the update after the forward pass would rewrite its
        value, so a step copies it before the update where it is returned or watched."""
        var_nodes = {b.node for b in self.var_blobs.values()}
        node: torch.fx.Node | None = blob.node
        while node is not None:
            if node in var_nodes:
                return True
            node = node.meta.get("flowtorch_view_of")
        return blob.is_variable

    def _created(self, blob: Blob) -> None:
        if not blob.location:
            blob.location = user_location()
        self.all_blobs.append(blob)
        for recorder in list(self.recorders):
            recorder(blob)

    def make_train(self, why: str) -> None:
        """Make this job a train job while its body runs: OneFlow's master of late 2019 had no job types, and
        a body that set a train conf (``flow.config.train.primary_lr(...)`` inside ``@flow.function``, ``why``)
        built a train job. Refused once the body made a variable (it was read as a predict job's)."""
        if self.is_train:
            return
        if self.var_names:
            raise RuntimeError(f"job {self.job_name!r}: {why} after the body made variables; set the train conf "
                               "first in the body, as OneFlow's programs did")
        self.job_type = "train"
        self.is_train = True

    # --- losses, optimizers, watches ----------------------------------------------------------------
    def add_loss(self, blob: Blob) -> None:
        if not self.is_train:
            raise NotImplementedError(
                f"job {self.job_name!r} is a predict job: losses can only be added in a "
                "global_function(type=\"train\") job")
        if not isinstance(blob, Blob):
            raise TypeError(f"job {self.job_name!r}: a loss must be a blob; received {type(blob).__name__}")
        if blob.meta.dtype == torch.bool:
            # integer losses are fine: OneFlow seeds them with integer ones (see step/int_grad.py)
            raise TypeError(f"job {self.job_name!r}: loss {blob.logical_blob_name} must be a number blob; "
                            f"it is {blob.dtype}")
        if self.losses and self.losses[0].shape != blob.shape:
            raise ValueError(f"job {self.job_name!r}: all losses must have the same shape; "
                             f"{self.losses[0].logical_blob_name} is {self.losses[0].shape}, "
                             f"{blob.logical_blob_name} is {blob.shape}")
        self.losses.append(blob)

    def add_optimizer(self, optimizer: Any, losses: list[Blob]) -> None:
        """``optimizer.minimize(losses)``. OneFlow v0.4 (``ops/optimizer.py``) first *replaces* the job's
        whole train conf, loss list included (``JobBuildAndInferCtx::SetTrainConf``), then adds each loss:
        a loss added by ``losses.add_loss`` before ``minimize`` is dropped (``add_loss(x); minimize(x)``
        trains on ``x`` once), a second ``minimize`` replaces the first optimizer and its losses, and
        ``add_loss`` after ``minimize`` adds to its list."""
        if not self.is_train:
            raise NotImplementedError(
                f"job {self.job_name!r}: optimizer.minimize() needs a global_function(type=\"train\") job; "
                f"this job's type is {self.job_type!r}")
        if self.optimizers:
            log.warning("job %r: minimize() was called again; as in OneFlow, the new optimizer and its losses "
                        "replace %s and its losses", self.job_name, type(self.optimizers[0]).__name__)
        dropped = [b for b in self.losses if all(b is not loss for loss in losses)]
        if dropped and not self.optimizers:
            log.warning("job %r: minimize() replaces the job's loss list, as OneFlow's did; the loss(es) %s added "
                        "before it are not trained", self.job_name, ", ".join(b.logical_blob_name for b in dropped))
        self.losses = []
        self.optimizers = []
        for loss in losses:
            self.add_loss(loss)
        self.optimizers.append(optimizer)

    def add_value_watch(self, blob: Blob, deliver: Callable[[torch.Tensor], None]) -> Watch:
        watch = Watch(blob, deliver, len(self.value_watches))
        self.graph.call_function(taps.value_tap, (blob.node, watch.slot, self.shares_variable(blob)))
        self.value_watches.append(watch)
        return watch

    def add_diff_watch(self, blob: Blob, deliver: Callable[[torch.Tensor], None]) -> Watch:
        watch = Watch(blob, deliver, len(self.diff_watches))
        self._diff_taps.append((blob.node, watch.slot))
        self.diff_watches.append(watch)
        return watch

    # --- finish -------------------------------------------------------------------------------------
    def finalize(self, return_blobs: list[Blob]) -> BuiltGraph:
        if self.is_train and not self.losses:
            raise RuntimeError(f"Loss blob not found. (train job {self.job_name!r} added no loss: call "
                               "flow.optimizer.<Optimizer>(...).minimize(loss) or flow.losses.add_loss(loss))")
        for i, loss in enumerate(self.losses):
            if any(loss is other for other in self.losses[:i]):
                # OneFlow's autograd CHECK-fails on a loss listed twice (``loss_lbi2op_node.emplace``)
                raise RuntimeError(f"train job {self.job_name!r}: loss {loss.logical_blob_name} was added twice "
                                   "(flow.losses.add_loss / minimize); OneFlow's autograd rejects a repeated loss")
        for blob in return_blobs:
            if getattr(blob, "time_shape", ()):
                raise ValueError(
                    f"job {self.job_name!r} returns {blob.logical_blob_name}, which comes {blob.time_shape} times a "
                    "step (its time shape, from flow.unpack/flow.repeat): a job returns one value per call; "
                    "flow.pack or flow.acc it first")
        outs = tuple(b.node for b in return_blobs)
        loss_nodes = tuple(b.node for b in self.losses)
        self.graph.output((outs, loss_nodes))
        # Every use of a diff-watched blob, earlier or later than the watch call, must go through its tap,
        # so the tap sits right after the blob's node (after the last placeholder for inputs/variables).
        # A blob watched twice (or a loss that is the watched blob itself) gets a chain of taps, each after
        # the one before, so every hook sees the same gradient.
        latest: dict[torch.fx.Node, torch.fx.Node] = {}
        for node, slot in self._diff_taps:
            source = latest.get(node, node)
            anchor = self._last_placeholder if source.op == "placeholder" else source
            with self.graph.inserting_after(anchor):
                tap = self.graph.call_function(taps.diff_tap, (source, slot))
            if anchor is self._last_placeholder:
                self._last_placeholder = tap
            source.replace_all_uses_with(tap, delete_user_cb=_other_than(tap))
            latest[node] = tap
        self.graph.lint()
        module = torch.fx.GraphModule(torch.nn.Module(), self.graph, class_name=f"Job_{self.job_name}")
        return BuiltGraph(module, self.n_inputs + self.n_fed, list(self.var_names),
                          [self.shares_variable(b) for b in return_blobs],
                          self.value_watches, self.diff_watches, self.losses, self.optimizers, return_blobs,
                          self.config)


def view_sources(fed: Sequence[tuple[Blob, Any]], outs: Sequence[Any]) -> list[Blob | None]:
    """For each of an op's outputs, the blob among its inputs (``fed``: each with the tensor the kernel
    got) whose memory the output is or views; None for an output with memory of its own."""
    def root(t: torch.Tensor) -> torch.Tensor:
        return t._base if t._base is not None else t

    found: list[Blob | None] = []
    for out in outs:
        source = None
        if isinstance(out, torch.Tensor):
            source = next((b for b, t in fed if isinstance(t, torch.Tensor) and root(out) is root(t)), None)
        found.append(source)
    return found


def mark_view(blob: Blob, source: Blob | None) -> None:
    """Note on ``blob``'s node that it views ``source``'s memory (read by :meth:`JobBuilder.shares_variable`)."""
    if source is not None:
        blob.node.meta["flowtorch_view_of"] = source.node


def _to_node(a: Any) -> Any:
    return a.node if isinstance(a, Blob) else a


def _to_meta(a: Any) -> Any:
    return a.meta if isinstance(a, Blob) else a


def _to_zeros(a: Any) -> Any:
    return torch.zeros(a.meta.shape, dtype=a.meta.dtype) if isinstance(a, Blob) else a


def blobs_in(tree: Any) -> list[Blob]:
    """The blobs among an op's arguments, in order."""
    return _blobs_in(tree)


def _blobs_in(tree: Any) -> list[Blob]:
    found: list[Blob] = []
    map_aggregate(tree, lambda a: found.append(a) if isinstance(a, Blob) else None)
    return found
