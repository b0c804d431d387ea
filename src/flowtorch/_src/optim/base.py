"""The base of ``flow.optimizer.SGD`` ... ``CombinedOptimizer``: the gradient pipeline they share.

The update rules are in :mod:`~flowtorch._src.optim.sgd` (SGD, SGDW, LARS), :mod:`~flowtorch._src.optim.adam`
(Adam, AdamW, LazyAdam, LAMB), :mod:`~flowtorch._src.optim.rmsprop` and :mod:`~flowtorch._src.optim.combined`.

How the job runtime uses an optimizer::

    opt.minimize(loss)            # in the job body, at build time: registers opt with the builder
    ...
    loss.backward(seed)           # each step; seed = torch.full_like(loss, opt.grad_seed)
    opt.apply(params, grads, step, loss_numel, state, regularizers)

``apply`` reproduces OneFlow v0.3.4's optimizer pass (``oneflow/core/job_rewriter/
generate_backward_and_optimizer_op_confs.cpp``) and kernels (``oneflow/user/kernels/
model_update_kernel_util.{h,cpp,cu}``). With ``g`` the raw gradient of ``sum(loss)``:

1. ``g' = g * s + l1 * sign(w) + l2 * w`` where ``s = 1 / loss_numel / loss_scale``: a vector loss
   acts like its mean; ``l1, l2`` come from the variable's regularizer;
2. ``g' *= clip_factor`` when ``grad_clipping`` is set (see ``clipping.ClipByGlobalNorm``);
3. the optimizer's update of ``w`` and its slots with the scheduler's learning rate.

Slots use OneFlow's variable names (``<var>-momentum``, ``<var>-m``, ``<var>-v``, ...), so a
checkpoint holds the same entries as OneFlow's. For speed the scale ``s`` is folded into the
``alpha`` of the fused ``torch._foreach_*`` updates instead of materialising ``g'``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch

from flowtorch._src.capture.context import current_builder
from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim.clipping import ClipGradientConf, LossScalePolicy, StaticLossScalePolicy, regularize_and_clip
from flowtorch._src.optim.schedulers import LrScheduler

__all__ = ["Batch", "Optimizer", "Patterns", "StateStore", "Variables", "add_quotient_", "add_scaled_", "as_dtype",
           "f32"]

Variables = Sequence[str] | Callable[[], Sequence[str]] | None
Patterns = Sequence[str] | str | None


class StateStore(Protocol):
    """Persistent optimizer slots, keyed by OneFlow variable name."""

    def get(self, name: str, like: torch.Tensor) -> torch.Tensor:
        """The slot ``name``: zeros shaped like ``like`` on first use, the same tensor afterwards."""
        ...


@dataclass
class Batch:
    """The variables updated in one step; ``s * gs[i]`` is the gradient ``g'`` of ``ws[i]``."""

    names: list[str]
    ws: list[torch.Tensor]
    gs: list[torch.Tensor]
    s: float


def f32(x: float) -> float:
    return float(np.float32(x))


def _check_type(owner: str, arg: str, value: object, cls: type, example: str, required: bool = False) -> None:
    if (required or value is not None) and not isinstance(value, cls):
        raise ArgumentError(f"{owner}: {arg} must be like flow.optimizer.{example}, got {type(value).__name__}")


def _as_patterns(patterns: Patterns, what: str) -> list[str] | None:
    if patterns is None:
        return None
    patterns = [patterns] if isinstance(patterns, str) else list(patterns)
    for p in patterns:
        try:
            re.compile(p)
        except (re.error, TypeError) as e:
            raise ArgumentError(f"{what}: {p!r} is not a valid regular expression ({e})") from None
    return patterns


class Optimizer:
    """Base of all optimizers (OneFlow ``oneflow/python/ops/optimizer.py``, ``Optimizer``).

    Subclasses implement ``_update``; ``apply`` does the shared gradient pipeline.
    """

    _needs_scheduler = True

    def __init__(
        self,
        lr_scheduler: LrScheduler | None,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        name = type(self).__name__
        example = "PiecewiseConstantScheduler([], [0.1])"
        _check_type(name, "lr_scheduler", lr_scheduler, LrScheduler, example, required=self._needs_scheduler)
        _check_type(name, "grad_clipping", grad_clipping, ClipGradientConf, "grad_clipping.by_global_norm(1.0)")
        if loss_scale_factor is not None:
            if loss_scale_policy is not None:
                raise ArgumentError(f"{name}: pass loss_scale_factor or loss_scale_policy, not both")
            loss_scale_policy = StaticLossScalePolicy(loss_scale_factor)
        _check_type(name, "loss_scale_policy", loss_scale_policy, LossScalePolicy, "loss_scale.static_loss_scale(8)")
        self.lr_scheduler = lr_scheduler
        self.grad_clipping = grad_clipping
        self.train_step_lbn = train_step_lbn
        self.loss_scale_policy = loss_scale_policy
        self.variables = variables
        self._variable_set: frozenset[str] | None = None
        self.weight_decay: float | None = None
        self.weight_decay_includes: list[str] | None = None
        self.weight_decay_excludes: list[str] | None = None
        self._decay_cache: dict[str, float] = {}

    # ------------------------------------------------------------------ configuration helpers
    def _set_weight_decay(self, weight_decay: float | None, includes: Patterns, excludes: Patterns) -> None:
        name = type(self).__name__
        if includes is not None and excludes is not None:
            raise ArgumentError(f"{name}: set weight_decay_includes or weight_decay_excludes, not both")
        self.weight_decay = None if weight_decay is None else float(weight_decay)
        self.weight_decay_includes = _as_patterns(includes, f"{name} weight_decay_includes")
        self.weight_decay_excludes = _as_patterns(excludes, f"{name} weight_decay_excludes")

    def weight_decay_rate(self, var_name: str) -> float:
        """Weight decay applied to ``var_name``.

        Patterns are regular expressions searched anywhere in the variable name (RE2
        ``PartialMatch`` in OneFlow's ``job_rewriter/optimizer.cpp``); with no pattern every
        variable decays.
        """
        rate = self._decay_cache.get(var_name)
        if rate is None:
            rate = 0.0
            if self.weight_decay:
                if self.weight_decay_includes is not None:
                    selected = any(re.search(p, var_name) for p in self.weight_decay_includes)
                elif self.weight_decay_excludes is not None:
                    selected = not any(re.search(p, var_name) for p in self.weight_decay_excludes)
                else:
                    selected = True
                rate = self.weight_decay if selected else 0.0
            self._decay_cache[var_name] = rate
        return rate

    @property
    def loss_scale_factor(self) -> float | None:
        policy = self.loss_scale_policy
        return policy.loss_scale_factor if isinstance(policy, StaticLossScalePolicy) else None

    @property
    def grad_seed(self) -> float:
        """Value the runtime seeds backward with: the static loss scale, else 1."""
        return 1.0 if self.loss_scale_policy is None else self.loss_scale_policy.grad_seed

    def variable_names(self) -> frozenset[str] | None:
        """Names this optimizer is restricted to (``variables=``, from OneFlow v0.4.0), or None = all."""
        if self.variables is None:
            return None
        if self._variable_set is None:
            names = self.variables() if callable(self.variables) else self.variables
            if isinstance(names, str):
                names = [names]
            self._variable_set = frozenset(names)
        return self._variable_set

    def slot_names(self, var_name: str) -> list[str]:
        """OneFlow names of the slot variables this optimizer keeps for ``var_name``."""
        return [f"{var_name}-{suffix}" for suffix in self._slot_suffixes()]

    def _slot_suffixes(self) -> list[str]:
        return []

    def init_slots(self, var_name: str, var: torch.Tensor, state: StateStore) -> None:
        """Create the slots of ``var_name`` up front (OneFlow creates them when the job is built)."""
        for name in self.slot_names(var_name):
            state.get(name, var)

    # ------------------------------------------------------------------------------ runtime
    def minimize(self, loss: Any) -> None:
        """Make the current train job minimise ``loss`` (a blob or a list/tuple of blobs)."""
        builder = current_builder("minimize")
        if callable(self.variables):
            # OneFlow called ``variables=`` in minimize, while the job is built (a program's function may ask for
            # the job being built, e.g. ``JobBuildAndInferCtx_GetCurrentJobName``)
            self._variable_set = None
            self.variable_names()
        builder.add_optimizer(self, list(loss) if isinstance(loss, (list, tuple)) else [loss])

    def learning_rate(self, step: int) -> float:
        """The scheduler's rate for ``step`` (before Adam's bias correction)."""
        if self.lr_scheduler is None:
            raise NotImplementedError(f"{type(self).__name__} has no lr_scheduler")
        return self.lr_scheduler.lr(step)

    #: The update can read its per-step numbers (:meth:`step_numbers`) from device tensors, so a CUDA graph
    #: can hold it: schedules and bias corrections then change nothing in the graph (as torch's
    #: ``capturable`` optimizers).
    capturable = False

    def step_numbers(self, lr: float, step: int) -> dict[str, float]:
        """The numbers of step ``step`` (0-based) a capturable update reads, computed on the host exactly as
        the eager update does; ``lr`` is the scheduler's rate. Keys are fixed per optimizer."""
        return {"lr": lr}

    def numbers_for(self, step: int) -> dict[str, float]:
        """:meth:`step_numbers` at ``step`` with the scheduler's rate."""
        return self.step_numbers(self.learning_rate(step), step)

    @torch.no_grad()
    def apply(
        self,
        params: Sequence[tuple[str, torch.Tensor]],
        grads: Sequence[torch.Tensor | None],
        step: int,
        loss_numel: int,
        state: StateStore,
        regularizers: Mapping[str, tuple[float, float]] | None = None,
        *,
        lr: float | None = None,
        numbers: Mapping[str, torch.Tensor] | None = None,
    ) -> None:
        """Update every ``params[i]`` in place for train step ``step`` (0-based).

        ``grads[i]`` is the gradient of ``sum(loss) * grad_seed`` w.r.t. ``params[i]`` (None: not
        trained this step); it is only read. ``loss_numel`` is the element count of *one* loss
        blob (OneFlow requires equal shapes and scales by one loss's count, not the total).
        ``regularizers`` maps a variable name to its ``(l1, l2)``. ``lr`` overrides the scheduler
        (used for :class:`CustomScheduler`, whose rate is a job blob). ``numbers`` (a capturable optimizer
        only): this step's :meth:`step_numbers` as 0-d device tensors, read instead of ``step`` and ``lr``.
        """
        if numbers is not None and not self.capturable:
            raise ArgumentError(f"{type(self).__name__}.apply: its update cannot read device numbers")
        if len(params) != len(grads):
            raise ArgumentError(f"{type(self).__name__}.apply: {len(params)} params but {len(grads)} grads")
        if loss_numel < 1:
            raise ArgumentError(f"{type(self).__name__}.apply: loss_numel must be >= 1, got {loss_numel}")
        self._apply_scaled(params, grads, step, self._grad_scale(loss_numel), state, regularizers or {}, lr,
                           numbers)

    def _grad_scale(self, loss_numel: int) -> float:
        # OneFlow multiplies by float(1/n) and then by float(1/loss_scale): two float32 constants.
        scale = f32(1.0 / f32(loss_numel))
        if self.grad_seed != 1.0:
            scale *= f32(1.0 / self.grad_seed)
        return scale

    def _apply_scaled(
        self,
        params: Sequence[tuple[str, torch.Tensor]],
        grads: Sequence[torch.Tensor | None],
        step: int,
        grad_scale: float,
        state: StateStore,
        regularizers: Mapping[str, tuple[float, float]],
        lr: float | None,
        numbers: Mapping[str, torch.Tensor] | None = None,
    ) -> None:
        only = self.variable_names()
        names: list[str] = []
        ws: list[torch.Tensor] = []
        gs: list[torch.Tensor] = []
        for (name, w), g in zip(params, grads):
            if g is not None and (only is None or name in only):
                names.append(name)
                ws.append(w)
                gs.append(g)
        if not ws:
            return
        gs = regularize_and_clip(names, ws, gs, grad_scale, regularizers, self.grad_clipping)
        if numbers is not None:
            self._update_numbers(Batch(names, ws, gs, grad_scale), numbers, state)
            return
        rate = self.learning_rate(step) if lr is None else float(lr)
        self._update(Batch(names, ws, gs, grad_scale), rate, step, state)

    def _decay(self, b: Batch, lr: float | torch.Tensor) -> None:
        """``w -= lr * wd * w`` for every variable with a non-zero decay rate, grouped by rate."""
        if not self.weight_decay:
            return
        groups: dict[float, list[torch.Tensor]] = {}
        for name, w in zip(b.names, b.ws):
            rate = self.weight_decay_rate(name)
            if rate:
                groups.setdefault(rate, []).append(w)
        for rate, group in groups.items():
            torch._foreach_mul_(group, as_dtype(1.0 - lr * rate, group[0]))

    def _slots(self, suffix: str, b: Batch, state: StateStore) -> list[torch.Tensor]:
        return [state.get(f"{name}-{suffix}", w) for name, w in zip(b.names, b.ws)]

    def _update(self, b: Batch, lr: float, step: int, state: StateStore) -> None:
        if not self.capturable:
            raise NotImplementedError
        self._update_numbers(b, self.step_numbers(lr, step), state)

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        """A capturable optimizer's update from its step numbers: host floats (eager) or 0-d device tensors."""
        raise NotImplementedError


ForeachTensors = list[torch.Tensor] | tuple[torch.Tensor, ...]  # (what torch._foreach_* take)


def as_dtype(n: float | torch.Tensor, like: torch.Tensor) -> float | torch.Tensor:
    """A step number in ``like``'s dtype: a host float as it is (an op casts it), a device number cast, so a
    captured update rounds exactly as the eager one."""
    return n.to(like.dtype) if isinstance(n, torch.Tensor) else n


def add_scaled_(targets: ForeachTensors, sources: ForeachTensors, factor: float | torch.Tensor) -> None:
    """``targets += factor * sources``; a device-tensor factor (a captured step) through ``addcmul``, which
    rounds as the eager form's fused ``alpha`` does."""
    if isinstance(factor, torch.Tensor):
        torch._foreach_addcmul_(targets, sources, [factor.to(t.dtype) for t in targets])
    else:
        torch._foreach_add_(targets, sources, alpha=factor)


def add_quotient_(targets: ForeachTensors, num: ForeachTensors, den: ForeachTensors,
                  factor: float | torch.Tensor) -> None:
    """``targets += factor * num / den`` (``addcdiv``), for a host or device ``factor``."""
    if isinstance(factor, torch.Tensor):
        add_scaled_(targets, torch._foreach_div(num, den), factor)
    else:
        torch._foreach_addcdiv_(targets, num, den, value=factor)
