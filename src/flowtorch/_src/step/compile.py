"""Turns a built job graph into a step function and runs it.

A predict step replays the graph under ``torch.inference_mode``. A train step replays it, back-propagates
the losses with a ones seed (× loss scale) exactly as OneFlow does (its watch_diff values are that raw
gradient), and hands the raw gradients to the optimizer, which applies OneFlow's 1/n scaling and update
rule in place. Values returned or watched are taken before the update (spec §1, §9.8).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, cast

import torch

from flowtorch._src import envvars
from flowtorch._src.capture.builder import BuiltGraph
from flowtorch._src.optim import indexed_slices
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.optim.clipping import DynamicLossScalePolicy
from flowtorch._src.step import accumulate, amp, distributed, int_grad, qat, sparse_update
from flowtorch._src.step.fuse import drop_unread_outputs, fuse_bias
from flowtorch._src.step.graphed import GraphedStep
from flowtorch._src.variable_store import VariableStore
from flowtorch._src.watch import taps
from flowtorch._src.watch.taps import StepOutput

log = logging.getLogger("flowtorch")

CAPTURE_MODES = ("auto", "eager", "compile", "cuda_graph")


def capture_mode(device: str = "cpu") -> str:
    """``FLOWTORCH_CAPTURE``: ``auto`` (the default: ``cuda_graph`` on a CUDA device, ``eager`` elsewhere),
    ``eager`` (replay the fx graph), ``compile`` (torch.compile, ``fullgraph=True``; backend from
    ``FLOWTORCH_COMPILE_BACKEND``, default inductor) or ``cuda_graph`` (the step replayed from one CUDA
    graph after a warm-up; see :mod:`flowtorch._src.step.graphed`)."""
    mode = os.environ.get("FLOWTORCH_CAPTURE", "") or "auto"
    if mode not in CAPTURE_MODES:
        raise ValueError(f"FLOWTORCH_CAPTURE must be one of {', '.join(CAPTURE_MODES)}; received {mode!r}")
    if mode == "auto":
        # On CPU a step is compute-bound and eager replay is as fast as anything (../shared/notes); on CUDA
        # launch overhead dominates small steps, which one graph launch removes.
        return "cuda_graph" if device.startswith("cuda") and torch.cuda.is_available() else "eager"
    return mode


def compiled_forward(module: torch.fx.GraphModule) -> Any:
    """The step's graph with compile-clean taps, under ``torch.compile(fullgraph=True)``."""
    for node in module.graph.nodes:
        if node.op == "call_function" and node.target in taps.COMPILED:
            node.target = taps.COMPILED[node.target]
    module.recompile()
    backend = envvars.compile_backend()  # (refused by name when torch has no such backend)
    return torch.compile(module, fullgraph=True, dynamic=False, backend=backend)


def grad_mode_on() -> contextlib.AbstractContextManager[Any]:
    """A train step sets grad mode itself: a caller's ``no_grad``/``inference_mode`` region does not reach
    into it (nor does one an interrupt of the caller's own code left on)."""
    if torch.is_grad_enabled() and not torch.is_inference_mode_enabled():
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(torch.inference_mode(False))
    stack.enter_context(torch.enable_grad())
    return stack


class StepFunction:
    """One job's captured step: ``step(inputs) -> StepOutput``."""

    def __init__(self, job_name: str, built: BuiltGraph, variables: VariableStore, is_train: bool,
                 mode: str | None = None, fuse: bool = True, key: str | None = None) -> None:
        """``mode`` overrides :func:`capture_mode`; ``fuse=False`` leaves the graph as built (eager jobs replay
        nothing: :mod:`~flowtorch._src.step.eager`); ``key`` (default ``job_name``) names the job's state."""
        self.job_name = job_name
        self.module = built.module
        self.variables = variables
        self.is_train = is_train
        step_name = f"System-Train-TrainStep-{key or job_name}"
        # OneFlow's QAT pass (function_config.enable_qat) rewrites the job first: it may add variables
        qat.rewrite(job_name, built, variables, is_train, step_name, eager=not fuse)
        self.var_tensors = [variables[n].tensor for n in built.var_names]
        self.n_values = len(built.value_watches)
        self.n_grads = len(built.diff_watches)
        self.clone_returns = built.return_is_variable
        self.any_clone = any(self.clone_returns)
        self.autocast_kind = "cuda" if variables.device.startswith("cuda") else "cpu"
        self.optimizer: Optimizer | None = built.optimizers[0] if built.optimizers else None
        self.mode = capture_mode(variables.device) if mode is None else mode
        # Several processes (python -m flowtorch --nproc n): the consistent view splits the logical batch.
        self.plan = distributed.plan_step(job_name, built, variables)
        self.reducer: distributed._Reducer | None = None  # the plan's gradient buckets (distributed.summed_gradients)
        if self.plan is not None:
            self.mode = "eager"
        if fuse:
            fuse_bias(built.module)
            drop_unread_outputs(built.module)
        self.sparse: list[sparse_update.SparseVar] = []
        self.accumulation = accumulate.steps_of(built.config) if is_train else 1
        if self.accumulation > 1 and self.mode == "cuda_graph":
            log.warning("flowtorch: job %r accumulates gradients over %d micro-steps, which run eagerly, not from "
                        "a CUDA graph", job_name, self.accumulation)
            self.mode = "eager"
        if is_train:
            self.trainable = [(n, variables[n].tensor) for n in built.var_names
                              if variables[n].trainable and variables[n].tensor.requires_grad]
            self.regularizers = _regularizers(variables, [n for n, _ in self.trainable])
            self.sparse = sparse_update.plan(self.module, built.n_inputs, built.var_names, self.trainable,
                                             self.optimizer, self.regularizers, built.config, self.accumulation)
            if self.sparse and self.mode != "eager":
                log.warning("flowtorch: job %r updates %s row by row (indexed_slices_optimizer_conf), which "
                            "FLOWTORCH_CAPTURE=%s cannot capture; it runs eagerly", job_name,
                            ", ".join(v.name for v in self.sparse), self.mode)
                self.mode = "eager"
        # integer losses or integer diff watches: gradients through integer blobs (int_grad), run eagerly
        self.int_grads = int_grad.runner(built) if is_train else None
        if self.int_grads is not None:
            self.mode = "eager"
        if self.plan is not None and (self.sparse or self.int_grads is not None):
            raise NotImplementedError(f"job {job_name!r}: lazy row updates (indexed_slices_optimizer_conf) and "
                                      "integer losses or diff watches do not run on several processes yet")
        self.forward: Any = compiled_forward(built.module) if self.mode == "compile" else self.module
        self.loss_numel = 1
        self.feed_check: int | None = None  # a step's input checksum, still to compare over the ranks
        output = next(n for n in reversed(self.module.graph.nodes) if n.op == "output")
        # A hook on a tensor that is itself the root of backward never fires, so a diff-watched loss
        # is differentiated through one extra alias.
        self.alias_losses = any(getattr(n, "target", None) is taps.diff_tap for n in output.args[0][1])
        self.amp = amp.enabled(built.config)
        self.scaler: amp.DynamicScaler | None = None
        if is_train:
            self.loss_scale = float(getattr(self.optimizer, "loss_scale_factor", None) or 1.0)
            policy = getattr(self.optimizer, "loss_scale_policy", None)
            if self.amp and isinstance(policy, DynamicLossScalePolicy):
                self.scaler = amp.DynamicScaler(policy, variables.device)
            if step_name not in variables:
                variables.create(step_name, torch.zeros(1, dtype=torch.int64), trainable=False)
            self.step_var = variables[step_name].tensor
            # The counter's value on the host: read from the variable only when something outside the
            # jobs wrote variables (a checkpoint load), not with a host sync every step.
            self._host_step = 0
            self._host_step_generation = -1
            if self.optimizer is not None and hasattr(self.optimizer, "init_slots"):
                # OneFlow creates optimizer state when the job is built, so a checkpoint can be
                # loaded into it before the first step.
                for name, tensor in self.trainable:
                    self.optimizer.init_slots(name, tensor, variables)
        # (checks that cannot change between calls, made once)
        self.plain_predict = not is_train and self.plan is None and not self.amp and not self.any_clone
        self.graphed: GraphedStep | None = None
        if self.mode == "cuda_graph":
            self.graphed = GraphedStep.for_step(self, variables.device)

    def __call__(self, inputs: list[torch.Tensor]) -> StepOutput:
        if self.graphed is not None:
            return self.graphed(inputs)
        if self.plain_predict and self.forward is self.module:
            return self.predict(inputs)
        return self.eager(inputs)

    def predict(self, inputs: list[torch.Tensor]) -> StepOutput:
        """A plain predict step (one process, no autocast, no returned variable): the graph's forward under
        inference mode, its watch taps recording; what :meth:`run_taps` does, without its branches."""
        record = taps.StepRecord(self.n_values, self.n_grads)
        taps.set_record(record)
        try:
            with torch.inference_mode():
                if torch.is_autocast_enabled(self.autocast_kind):  # a caller's region stops at the job
                    with amp.autocast(self.variables.device, False):
                        outs = self.module.forward(*inputs, *self.var_tensors)[0]
                else:
                    outs = self.module.forward(*inputs, *self.var_tensors)[0]
        finally:
            taps.set_record(None)
        return StepOutput(list(outs), record)

    def eager(self, inputs: list[torch.Tensor]) -> StepOutput:
        """One step replaying the fx graph (or its torch.compile'd form)."""
        returns, grads, record = self.run_taps(inputs, clone_returns=True, predict_mode=torch.inference_mode)
        if self.is_train:
            self.update(grads)
        return StepOutput(returns, record)

    def run_taps(self, inputs: list[torch.Tensor], clone_returns: bool,
                 predict_mode: Callable[[], Any]) -> tuple[list[torch.Tensor], Sequence[sparse_update.Grad],
                                                           taps.StepRecord]:
        """Forward (and backward, in a train job) with the watch taps recording; nothing is updated.

        Returns the step's returns, the raw gradients of its trainable variables and the watch record.
        """
        record = taps.StepRecord(self.n_values, self.n_grads)
        self.feed_check = None
        if self.plan is not None:  # a train step compares the ranks' inputs in its last gradient bucket
            inputs, self.feed_check = distributed.shard_inputs(self.plan, inputs, defer_check=self.is_train)
        taps.set_record(record)
        try:
            if self.is_train:  # on several processes, the returns come back whole
                with grad_mode_on():
                    returns, grads = self.forward_backward(inputs, clone_returns)
            else:
                with predict_mode():
                    outs = self._run(inputs)[0]
                    # a returned variable keeps its value at this call, whatever later steps do to it
                    returns = [o.clone() if clone and clone_returns else o
                               for o, clone in zip(outs, self.clone_returns)] if self.any_clone else list(outs)
                grads = []
        finally:
            taps.set_record(None)
        if self.plan is not None:
            if not self.is_train:
                returns = distributed.whole_returns(self.plan, returns)
            distributed.whole_record(self.plan, record)
        if self.amp:  # blobs keep their declared float32 type
            returns = [amp.restore_float(t) for t in returns]
            record.values = [amp.restore_float(t) for t in record.values]
            record.grads = [amp.restore_float(t) for t in record.grads]
        return returns, grads, record

    def _run(self, inputs: list[torch.Tensor]) -> Any:
        if not self.amp and not torch.is_autocast_enabled(self.autocast_kind):  # (no region to enter or leave)
            return self._run_graph(inputs)
        with amp.autocast(self.variables.device, self.amp):
            return self._run_graph(inputs)

    def _run_graph(self, inputs: list[torch.Tensor]) -> Any:
        if self.forward is self.module:  # (its generated forward itself: the module has no hooks to run)
            return self.module.forward(*inputs, *self.var_tensors)
        try:
            return self.forward(*inputs, *self.var_tensors)
        except Exception as exc:  # one logged fallback, never a recompile loop
            log.warning("flowtorch: compiling job %r failed (%s: %s); running it eagerly from now on",
                        self.job_name, type(exc).__name__, exc)
            self.forward = self.module
            return self.module(*inputs, *self.var_tensors)

    def forward_backward(self, inputs: list[torch.Tensor],
                         clone_returns: bool) -> tuple[list[torch.Tensor], Sequence[sparse_update.Grad]]:
        """The train step's returns and the raw gradients of its trainable variables (nothing updated)."""
        if self.int_grads is None:
            outs, losses, *rows = self._run(inputs)
        else:
            outs, losses, *rows = self.int_grads(*inputs, *self.var_tensors)
        if self.alias_losses:
            losses = tuple(loss.view_as(loss) for loss in losses)
        returns = [o.detach().clone() if clone and clone_returns else o.detach()
                   for o, clone in zip(outs, self.clone_returns)]
        self.loss_numel = losses[0].numel()
        params = [t for _, t in self.trainable]
        if not params:
            if self.plan is None:
                return returns, []
            distributed.check_now(self.feed_check)
            return distributed.whole_returns(self.plan, returns), []
        seeds = (self.scaler.seeds(losses) if self.scaler is not None
                 else [torch.full_like(loss, self.loss_scale) for loss in losses])
        if self.plan is not None:
            self.loss_numel = distributed.logical_numel(self.plan.losses[0], losses[0], self.plan.size)
            seeds = distributed.rank_seeds(self.plan, seeds)
            grads, returns = distributed.summed_gradients(self, losses, params, seeds, returns, self.feed_check)
            return returns, grads
        if not self.sparse:
            return returns, list(torch.autograd.grad(losses, params, grad_outputs=seeds, allow_unused=True))
        # Row-wise variables: differentiate with respect to their gathers' outputs (sparse_update).
        pairs = rows[0]
        found = torch.autograd.grad(losses, params + [out for out, _ in pairs], grad_outputs=seeds,
                                    allow_unused=True)
        with_rows: list[sparse_update.Grad] = list(found[:len(params)])
        for var, (_, indices), g in zip(self.sparse, pairs, found[len(params):]):
            if g is not None and var.scale != 1.0:  # the scalar_mul s before the gather, moved onto the rows
                g = g * var.scale
            with_rows[var.position] = None if g is None else sparse_update.RowGrad(indices, g)
        return returns, with_rows

    def current_step(self) -> int:
        """The train-step counter (0-based number of the next step)."""
        if self._host_step_generation != self.variables.generation:
            # The counter is a variable: a checkpoint load may have changed it since the last step.
            self._host_step = int(self.step_var.item())
            self._host_step_generation = self.variables.generation
        return self._host_step

    def update(self, grads: Sequence[sparse_update.Grad], loss_numel: int | None = None) -> None:
        """The optimizer's update from raw gradients (of ``loss_numel`` loss elements, by default this step's),
        then the train-step counter."""
        loss_numel = self.loss_numel if loss_numel is None else loss_numel
        step = self.current_step()
        if self.scaler is not None and not self.scaler.unscale(grads):
            grads = []  # not all finite: OneFlow skips the update and lowers the scale
        if grads and self.optimizer is not None:
            for var in self.sparse:
                g = grads[var.position]
                if isinstance(g, sparse_update.RowGrad):  # (a row-wise variable's: its rows, or None)
                    name, w = self.trainable[var.position]
                    indexed_slices.apply_rows(self.optimizer, var.owner, name, w, g.indices, g.values, step,
                                              loss_numel, self.variables)
            # only a step with row-wise variables has RowGrads to leave out (no per-step copy otherwise)
            dense = ([None if isinstance(g, sparse_update.RowGrad) else g for g in grads] if self.sparse
                     else cast("Sequence[torch.Tensor | None]", grads))
            self.optimizer.apply(self.trainable, dense, step, loss_numel, self.variables, self.regularizers)
        with torch.no_grad():
            self.step_var.fill_(step + 1)
        self._host_step = step + 1

    def update_capturable(self) -> str | None:
        """Why this step's update cannot be held by a CUDA graph with its forward and backward (None: it can)."""
        # (row-wise variables never get here: they make the step eager before any graph is made)
        if self.optimizer is not None and not self.optimizer.capturable:
            return f"{type(self.optimizer).__name__}'s update reads host numbers"
        return None

    def step_numbers(self) -> list[float]:
        """This step's numbers for a captured update (:meth:`Optimizer.step_numbers`), in key order."""
        if self.optimizer is None:
            return []
        return list(self.optimizer.numbers_for(self.current_step()).values())

    def update_in_graph(self, grads: Sequence[sparse_update.Grad], numbers: torch.Tensor) -> None:
        """The update as :meth:`update` does it, every step-dependent number read from ``numbers`` (a device
        tensor the host fills before each replay: :meth:`step_numbers`); the counter is incremented on the
        device. The host's copy of the counter moves on in :meth:`updated_in_graph`."""
        if self.optimizer is not None:
            keys = list(self.optimizer.numbers_for(0))
            by_key = {k: numbers[i] for i, k in enumerate(keys)}
            dense = cast("Sequence[torch.Tensor | None]", grads)
            if self.scaler is None:
                self.optimizer.apply(self.trainable, dense, 0, self.loss_numel, self.variables, self.regularizers,
                                     numbers=by_key)
            else:  # a step whose gradients are not all finite updates nothing: its update is undone on the device
                finite = self.scaler.unscale_on_device(dense)
                touched: list[torch.Tensor] = []  # the variables and optimizer slots the update writes
                for name, w in self.trainable:
                    touched.append(w)
                    slots = [s for s in self.optimizer.slot_names(name) if s in self.variables]
                    touched += [self.variables[s].tensor for s in slots]
                with torch.no_grad():
                    before = [t.clone() for t in touched]
                    self.optimizer.apply(self.trainable, dense, 0, self.loss_numel, self.variables,
                                         self.regularizers, numbers=by_key)
                    for t, old in zip(touched, before):
                        t.copy_(torch.where(finite, t, old))
        with torch.no_grad():
            self.step_var.add_(1)

    def updated_in_graph(self) -> None:
        self._host_step = self.current_step() + 1


def _regularizers(variables: VariableStore, names: list[str]) -> dict[str, tuple[float, float]]:
    out = {}
    for n in names:
        reg = variables[n].regularizer
        if reg is not None:
            out[n] = (float(getattr(reg, "l1", 0.0)), float(getattr(reg, "l2", 0.0)))
    return out
