"""``flow.optimizer.SGD`` ... ``CombinedOptimizer`` with OneFlow's update formulas.

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

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch

from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim.clipping import ClipGradientConf, LossScalePolicy, StaticLossScalePolicy, regularize_and_clip
from flowtorch._src.optim.schedulers import LrScheduler

__all__ = ["LAMB", "LARS", "SGD", "SGDW", "Adam", "AdamW", "CombinedOptimizer", "LazyAdam", "Optimizer", "RMSProp"]
__all__ += ["StateStore"]

Variables = Sequence[str] | Callable[[], Sequence[str]] | None
Patterns = Sequence[str] | str | None


class StateStore(Protocol):
    """Persistent optimizer slots, keyed by OneFlow variable name."""

    def get(self, name: str, like: torch.Tensor) -> torch.Tensor:
        """The slot ``name``: zeros shaped like ``like`` on first use, the same tensor afterwards."""
        ...


@dataclass
class _Batch:
    """The variables updated in one step; ``s * gs[i]`` is the gradient ``g'`` of ``ws[i]``."""

    names: list[str]
    ws: list[torch.Tensor]
    gs: list[torch.Tensor]
    s: float


def _f32(x: float) -> float:
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
        from flowtorch._src.capture.context import current_builder  # the job core; imported lazily

        current_builder("minimize").add_optimizer(self, list(loss) if isinstance(loss, (list, tuple)) else [loss])

    def learning_rate(self, step: int) -> float:
        """The scheduler's rate for ``step`` (before Adam's bias correction)."""
        if self.lr_scheduler is None:
            raise NotImplementedError(f"{type(self).__name__} has no lr_scheduler")
        return self.lr_scheduler.lr(step)

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
    ) -> None:
        """Update every ``params[i]`` in place for train step ``step`` (0-based).

        ``grads[i]`` is the gradient of ``sum(loss) * grad_seed`` w.r.t. ``params[i]`` (None: not
        trained this step); it is only read. ``loss_numel`` is the element count of *one* loss
        blob (OneFlow requires equal shapes and scales by one loss's count, not the total).
        ``regularizers`` maps a variable name to its ``(l1, l2)``. ``lr`` overrides the scheduler
        (used for :class:`CustomScheduler`, whose rate is a job blob).
        """
        if len(params) != len(grads):
            raise ArgumentError(f"{type(self).__name__}.apply: {len(params)} params but {len(grads)} grads")
        if loss_numel < 1:
            raise ArgumentError(f"{type(self).__name__}.apply: loss_numel must be >= 1, got {loss_numel}")
        self._apply_scaled(params, grads, step, self._grad_scale(loss_numel), state, regularizers or {}, lr)

    def _grad_scale(self, loss_numel: int) -> float:
        # OneFlow multiplies by float(1/n) and then by float(1/loss_scale): two float32 constants.
        scale = _f32(1.0 / _f32(loss_numel))
        if self.grad_seed != 1.0:
            scale *= _f32(1.0 / self.grad_seed)
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
        rate = self.learning_rate(step) if lr is None else float(lr)
        self._update(_Batch(names, ws, gs, grad_scale), rate, step, state)

    def _decay(self, b: _Batch, lr: float) -> None:
        """``w -= lr * wd * w`` for every variable with a non-zero decay rate, grouped by rate."""
        if not self.weight_decay:
            return
        groups: dict[float, list[torch.Tensor]] = {}
        for name, w in zip(b.names, b.ws):
            rate = self.weight_decay_rate(name)
            if rate:
                groups.setdefault(rate, []).append(w)
        for rate, group in groups.items():
            torch._foreach_mul_(group, 1.0 - lr * rate)

    def _slots(self, suffix: str, b: _Batch, state: StateStore) -> list[torch.Tensor]:
        return [state.get(f"{name}-{suffix}", w) for name, w in zip(b.names, b.ws)]

    def _update(self, b: _Batch, lr: float, step: int, state: StateStore) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        skip = {"_variable_set", "_decay_cache", "_checked"}
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k not in skip and v is not None)
        return f"{type(self).__name__}({fields})"


class SGD(Optimizer):
    """Plain SGD (``momentum=0``) or momentum SGD (the default, ``momentum=0.9``).

    * ``momentum == 0``: ``w -= lr * (g' + wd * w)``
    * otherwise: ``v = momentum * v - lr * g'``; ``w += v - lr * wd * w`` (slot ``<var>-momentum``)

    ``wd`` is 0 unless set through :class:`SGDW`.
    """

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        loss_scale_factor: float | None = None,
        momentum: float = 0.9,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(lr_scheduler, loss_scale_factor, grad_clipping, train_step_lbn, loss_scale_policy, variables)
        self.momentum = float(momentum)

    def _slot_suffixes(self) -> list[str]:
        return [] if self.momentum == 0 else ["momentum"]

    def _update(self, b: _Batch, lr: float, step: int, state: StateStore) -> None:
        if self.momentum == 0:
            self._decay(b, lr)
            torch._foreach_add_(b.ws, b.gs, alpha=-lr * b.s)
            return
        vs = self._slots("momentum", b, state)
        torch._foreach_mul_(vs, self.momentum)
        torch._foreach_add_(vs, b.gs, alpha=-lr * b.s)
        self._decay(b, lr)
        torch._foreach_add_(b.ws, vs)


class SGDW(SGD):
    """:class:`SGD` with decoupled weight decay for the variables selected by the patterns."""

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        loss_scale_factor: float | None = None,
        momentum: float = 0.9,
        weight_decay: float | None = None,
        weight_decay_includes: Patterns = None,
        weight_decay_excludes: Patterns = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(
            lr_scheduler, loss_scale_factor, momentum, grad_clipping, train_step_lbn, loss_scale_policy, variables
        )
        self._set_weight_decay(weight_decay, weight_decay_includes, weight_decay_excludes)


def _adam_moments(opt: Adam | LAMB, b: _Batch, state: StateStore) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """``m = b1 m + (1-b1) g'`` and ``v = b2 v + (1-b2) g'^2`` in the ``<var>-m`` / ``<var>-v`` slots."""
    ms, vs = opt._slots("m", b, state), opt._slots("v", b, state)
    torch._foreach_mul_(ms, opt.beta1)
    torch._foreach_add_(ms, b.gs, alpha=(1.0 - opt.beta1) * b.s)
    torch._foreach_mul_(vs, opt.beta2)
    torch._foreach_addcmul_(vs, b.gs, b.gs, value=(1.0 - opt.beta2) * b.s * b.s)
    return ms, vs


class Adam(Optimizer):
    """Adam, without bias correction unless ``do_bias_correction=True`` (slots ``<var>-m``, ``<var>-v``).

    ``m = b1 m + (1-b1) g'``; ``v = b2 v + (1-b2) g'^2``; ``w -= lr' * (m / (sqrt(v) + eps) + wd w)``
    with ``lr' = lr * sqrt(1 - b2^(t+1)) / (1 - b1^(t+1))`` under bias correction, else ``lr``.
    """

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        do_bias_correction: bool = False,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(lr_scheduler, loss_scale_factor, grad_clipping, train_step_lbn, loss_scale_policy, variables)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self.do_bias_correction = bool(do_bias_correction)

    def _slot_suffixes(self) -> list[str]:
        return ["m", "v"]

    def corrected_lr(self, lr: float, step: int) -> float:
        """The rate the update uses: OneFlow's ``adam_bias_correction_learning_rate`` op if enabled."""
        if not self.do_bias_correction:
            return lr
        b1_pow = _f32(math.pow(_f32(self.beta1), step + 1))
        b2_pow = _f32(math.pow(_f32(self.beta2), step + 1))
        return _f32(lr * math.sqrt(_f32(1.0 - b2_pow)) / _f32(1.0 - b1_pow))

    def _update(self, b: _Batch, lr: float, step: int, state: StateStore) -> None:
        ms, vs = _adam_moments(self, b, state)
        denom = torch._foreach_sqrt(vs)
        torch._foreach_add_(denom, self.epsilon)
        lr = self.corrected_lr(lr, step)
        self._decay(b, lr)
        torch._foreach_addcdiv_(b.ws, ms, denom, value=-lr)


class AdamW(Adam):
    """:class:`Adam` with decoupled weight decay for the variables selected by the patterns."""

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        do_bias_correction: bool = False,
        loss_scale_factor: float | None = None,
        weight_decay: float | None = None,
        weight_decay_includes: Patterns = None,
        weight_decay_excludes: Patterns = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(
            lr_scheduler, beta1, beta2, epsilon, do_bias_correction, loss_scale_factor,
            grad_clipping, train_step_lbn, loss_scale_policy, variables,
        )  # fmt: skip
        self._set_weight_decay(weight_decay, weight_decay_includes, weight_decay_excludes)


class LazyAdam(Adam):
    """OneFlow's LazyAdam on dense gradients: Adam *with* bias correction.

    OneFlow v0.3.4 ``job_rewriter/adam_optm.cpp`` forces ``do_bias_correction`` for it; the "lazy"
    row-wise update only applies to the sparse (indexed-slices) gradients flowtorch never produces.
    """

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(
            lr_scheduler, beta1, beta2, epsilon, True, loss_scale_factor,
            grad_clipping, train_step_lbn, loss_scale_policy, variables,
        )  # fmt: skip


class RMSProp(Optimizer):
    """RMSProp (slots ``<var>-mean_square`` and, if ``centered``, ``<var>-mean_gradient``).

    ``ms = (1-d) g'^2 + d ms``; centered: ``mg = (1-d) g' + d mg``, ``denom = ms - mg^2``, else
    ``denom = ms``; ``w -= lr * g' / sqrt(denom + eps)`` (epsilon *inside* the root, as in the kernel).
    """

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        decay_rate: float = 0.99,
        epsilon: float = 1e-8,
        centered: bool = False,
        loss_scale_factor: float | None = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(lr_scheduler, loss_scale_factor, grad_clipping, train_step_lbn, loss_scale_policy, variables)
        self.decay_rate = float(decay_rate)
        self.epsilon = float(epsilon)
        self.centered = bool(centered)

    def _slot_suffixes(self) -> list[str]:
        return ["mean_square", "mean_gradient"] if self.centered else ["mean_square"]

    def _update(self, b: _Batch, lr: float, step: int, state: StateStore) -> None:
        d, s = self.decay_rate, b.s
        ms = self._slots("mean_square", b, state)
        torch._foreach_mul_(ms, d)
        torch._foreach_addcmul_(ms, b.gs, b.gs, value=(1.0 - d) * s * s)
        if self.centered:
            mg = self._slots("mean_gradient", b, state)
            torch._foreach_mul_(mg, d)
            torch._foreach_add_(mg, b.gs, alpha=(1.0 - d) * s)
            denom = torch._foreach_addcmul(ms, mg, mg, value=-1.0)
            torch._foreach_add_(denom, self.epsilon)
        else:
            denom = torch._foreach_add(ms, self.epsilon)
        torch._foreach_sqrt_(denom)
        torch._foreach_addcdiv_(b.ws, b.gs, denom, value=-lr * s)


class LARS(Optimizer):
    """LARS with momentum (slot ``<var>-momentum``), OneFlow v0.3.4's GPU kernel.

    ``local = lr * lars_coefficient * |w| / (eps + |g'| + [t > 0] * wd * |g'|)`` (L2 norms of the
    whole tensor); ``v = beta * v - local * (g' + wd * w)``; ``w += v``. A zero ``|w|`` gives a zero
    step, as in v0.3.4. ``weight_decay`` and its patterns were added to LARS in OneFlow v0.4.0.
    (The v0.3.4 CPU kernel used root-mean-square norms, which only moves ``eps``.)
    """

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        momentum_beta: float = 0.9,
        epsilon: float = 1e-9,
        lars_coefficient: float = 0.0001,
        loss_scale_factor: float | None = None,
        weight_decay: float | None = None,
        weight_decay_includes: Patterns = None,
        weight_decay_excludes: Patterns = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(lr_scheduler, loss_scale_factor, grad_clipping, train_step_lbn, loss_scale_policy, variables)
        self.momentum_beta = float(momentum_beta)
        self.epsilon = float(epsilon)
        self.lars_coefficient = float(lars_coefficient)
        self._set_weight_decay(weight_decay, weight_decay_includes, weight_decay_excludes)

    def _slot_suffixes(self) -> list[str]:
        return ["momentum"]

    def _update(self, b: _Batch, lr: float, step: int, state: StateStore) -> None:
        gps = torch._foreach_mul(b.gs, b.s)
        w_norms = torch._foreach_norm(b.ws)
        g_norms = torch._foreach_norm(gps)
        vs = self._slots("momentum", b, state)
        for name, w, gp, v, wn, gn in zip(b.names, b.ws, gps, vs, w_norms, g_norms):
            wd = self.weight_decay_rate(name)
            denom = gn * (1.0 + wd) + self.epsilon if step > 0 and wd else gn + self.epsilon
            local = wn * (lr * self.lars_coefficient) / denom
            if wd:
                gp.add_(w, alpha=wd)
            v.mul_(self.momentum_beta).addcmul_(gp, local, value=-1.0)
            w.add_(v)


class LAMB(Optimizer):
    """LAMB, OneFlow v0.3.4 kernel (slots ``<var>-m``, ``<var>-v``, ``<var>-beta1_t``, ``<var>-beta2_t``).

    ``m, v`` as in Adam; ``u = (m / (1 - b1_t)) / sqrt(v / (1 - b2_t) + eps)`` (epsilon inside the
    root); ``trust = |w| / |u|`` (1 if either norm is 0); ``w -= lr * trust * (u + wd * w)``.
    OneFlow's ``beta*_t`` variables start at ``beta`` and are multiplied by it *before* use, so
    step ``t`` corrects with ``beta ** (t + 2)``. They are recomputed from ``step`` and mirrored
    into the slots for checkpoints. ``weight_decay`` and its patterns were added in v0.4.0.
    """

    def __init__(
        self,
        lr_scheduler: LrScheduler,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-6,
        loss_scale_factor: float | None = None,
        weight_decay: float | None = None,
        weight_decay_includes: Patterns = None,
        weight_decay_excludes: Patterns = None,
        grad_clipping: ClipGradientConf | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
        variables: Variables = None,
    ) -> None:
        super().__init__(lr_scheduler, loss_scale_factor, grad_clipping, train_step_lbn, loss_scale_policy, variables)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self._set_weight_decay(weight_decay, weight_decay_includes, weight_decay_excludes)

    def _slot_suffixes(self) -> list[str]:
        return ["m", "v", "beta1_t", "beta2_t"]

    def init_slots(self, var_name: str, var: torch.Tensor, state: StateStore) -> None:
        # beta*_t are (1,)-shaped and start at beta (OneFlow v0.3.4 job_rewriter/lamb_optm.cpp).
        state.get(f"{var_name}-m", var)
        state.get(f"{var_name}-v", var)
        head = var.detach().reshape(-1)[:1]
        state.get(f"{var_name}-beta1_t", head).fill_(self.beta1)
        state.get(f"{var_name}-beta2_t", head).fill_(self.beta2)

    def _update(self, b: _Batch, lr: float, step: int, state: StateStore) -> None:
        b1_t, b2_t = self.beta1 ** (step + 2), self.beta2 ** (step + 2)
        ms, vs = _adam_moments(self, b, state)
        denom = torch._foreach_mul(vs, 1.0 / (1.0 - b2_t))
        torch._foreach_add_(denom, self.epsilon)
        torch._foreach_sqrt_(denom)
        us = torch._foreach_div(ms, denom)
        torch._foreach_mul_(us, 1.0 / (1.0 - b1_t))
        w_norms = torch._foreach_norm(b.ws)
        u_norms = torch._foreach_norm(us)
        for name, w, u, wn, un in zip(b.names, b.ws, us, w_norms, u_norms):
            trust = torch.where((wn > 0) & (un > 0), wn / un, torch.ones_like(wn))
            wd = self.weight_decay_rate(name)
            if wd:
                u.add_(w, alpha=wd)
            w.addcmul_(u, trust, value=-lr)
            head = w.reshape(-1)[:1]
            state.get(f"{name}-beta1_t", head).fill_(b1_t)
            state.get(f"{name}-beta2_t", head).fill_(b2_t)


class CombinedOptimizer(Optimizer):
    """Several optimizers in one train job, each over its own ``variables`` (OneFlow v0.4.0).

    Loss scaling and the train step belong to the combination, not to its members; no variable
    may be claimed by two members (a member without ``variables`` claims all of them).
    """

    _needs_scheduler = False

    def __init__(
        self,
        optimizers: Sequence[Optimizer],
        loss_scale_factor: float | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
    ) -> None:
        super().__init__(None, loss_scale_factor, None, train_step_lbn, loss_scale_policy)
        optimizers = list(optimizers)
        for i, opt in enumerate(optimizers):
            what = f"CombinedOptimizer: optimizers[{i}]"
            if not isinstance(opt, Optimizer) or isinstance(opt, CombinedOptimizer):
                raise ArgumentError(f"{what} must be a (non-combined) optimizer, got {type(opt).__name__}")
            if opt.train_step_lbn is not None:
                raise ArgumentError(f"{what} sets train_step_lbn; set it on the CombinedOptimizer")
            if opt.loss_scale_policy is not None:
                raise ArgumentError(f"{what} sets a loss scale; set it on the CombinedOptimizer")
        self.optimizers = optimizers
        self._checked: set[str] = set()

    def learning_rate(self, step: int) -> float:
        raise NotImplementedError("CombinedOptimizer has no learning rate of its own; ask its members")

    def slot_names(self, var_name: str) -> list[str]:
        return [n for opt in self._owners(var_name) for n in opt.slot_names(var_name)]

    def init_slots(self, var_name: str, var: torch.Tensor, state: StateStore) -> None:
        for opt in self._owners(var_name):
            opt.init_slots(var_name, var, state)

    def _owners(self, var_name: str) -> list[Optimizer]:
        owners = []
        for opt in self.optimizers:
            names = opt.variable_names()
            if names is None or var_name in names:
                owners.append(opt)
        if len(owners) > 1:
            raise ArgumentError(
                f"CombinedOptimizer: variable {var_name!r} is claimed by several optimizers "
                f"({', '.join(type(o).__name__ for o in owners)}); give each a disjoint `variables` list"
            )
        return owners

    def _apply_scaled(
        self,
        params: Sequence[tuple[str, torch.Tensor]],
        grads: Sequence[torch.Tensor | None],
        step: int,
        grad_scale: float,
        state: StateStore,
        regularizers: Mapping[str, tuple[float, float]],
        lr: float | None,
    ) -> None:
        for name, _ in params:
            if name not in self._checked:
                self._owners(name)
                self._checked.add(name)
        for opt in self.optimizers:
            opt._apply_scaled(params, grads, step, grad_scale, state, regularizers, lr)
