"""``flow.optimizer.Adam``, ``AdamW``, ``LazyAdam`` and ``LAMB``: the ``m``/``v`` moment rules.

See :mod:`~flowtorch._src.optim.base` for the gradient pipeline they share.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch

from flowtorch._src.optim.base import Batch, Optimizer, Patterns, StateStore, Variables, add_quotient_, as_dtype, f32
from flowtorch._src.optim.clipping import ClipGradientConf, LossScalePolicy
from flowtorch._src.optim.schedulers import LrScheduler

__all__ = ["LAMB", "Adam", "AdamW", "LazyAdam"]


def _adam_moments(opt: Adam | LAMB, b: Batch, state: StateStore) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
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

    capturable = True

    def step_numbers(self, lr: float, step: int) -> dict[str, float]:
        return {"lr": self.corrected_lr(lr, step)}

    def corrected_lr(self, lr: float, step: int) -> float:
        """The rate the update uses: OneFlow's ``adam_bias_correction_learning_rate`` op if enabled."""
        if not self.do_bias_correction:
            return lr
        b1_pow = f32(math.pow(f32(self.beta1), step + 1))
        b2_pow = f32(math.pow(f32(self.beta2), step + 1))
        return f32(lr * math.sqrt(f32(1.0 - b2_pow)) / f32(1.0 - b1_pow))

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        ms, vs = _adam_moments(self, b, state)
        denom = torch._foreach_sqrt(vs)
        torch._foreach_add_(denom, self.epsilon)
        lr = n["lr"]
        self._decay(b, lr)
        add_quotient_(b.ws, ms, denom, -lr)


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

    capturable = True

    def step_numbers(self, lr: float, step: int) -> dict[str, float]:
        b1_t, b2_t = self.beta1 ** (step + 2), self.beta2 ** (step + 2)
        return {"lr": lr, "b1_t": b1_t, "b2_t": b2_t, "inv_b1": 1.0 / (1.0 - b1_t), "inv_b2": 1.0 / (1.0 - b2_t)}

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        ms, vs = _adam_moments(self, b, state)
        like = b.ws[0]
        denom = torch._foreach_mul(vs, as_dtype(n["inv_b2"], like))
        torch._foreach_add_(denom, self.epsilon)
        torch._foreach_sqrt_(denom)
        us = torch._foreach_div(ms, denom)
        torch._foreach_mul_(us, as_dtype(n["inv_b1"], like))
        w_norms = torch._foreach_norm(b.ws)
        u_norms = torch._foreach_norm(us)
        neg_lr = as_dtype(-n["lr"], like)
        for name, w, u, wn, un in zip(b.names, b.ws, us, w_norms, u_norms):
            trust = torch.where((wn > 0) & (un > 0), wn / un, torch.ones_like(wn))
            wd = self.weight_decay_rate(name)
            if wd:
                u.add_(w, alpha=wd)
            if isinstance(neg_lr, torch.Tensor):  # (-lr u) trust, rounded as addcmul's value does
                w.addcmul_(u * neg_lr, trust)
            else:
                w.addcmul_(u, trust, value=neg_lr)
            head = w.reshape(-1)[:1]
            for key in ("b1_t", "b2_t"):
                slot = state.get(f"{name}-beta{key[1]}_t", head)
                value = n[key]
                slot.copy_(value) if isinstance(value, torch.Tensor) else slot.fill_(value)
