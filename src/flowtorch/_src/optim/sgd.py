"""``flow.optimizer.SGD``, ``SGDW`` and ``LARS``: the momentum-slot rules (see :mod:`~flowtorch._src.optim.base`)."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from flowtorch._src.optim.base import Batch, Optimizer, Patterns, StateStore, Variables, add_scaled_, as_dtype
from flowtorch._src.optim.clipping import ClipGradientConf, LossScalePolicy
from flowtorch._src.optim.schedulers import LrScheduler

__all__ = ["LARS", "SGD", "SGDW"]


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

    capturable = True

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        lr = n["lr"]
        if self.momentum == 0:
            self._decay(b, lr)
            add_scaled_(b.ws, b.gs, -lr * b.s)
            return
        vs = self._slots("momentum", b, state)
        torch._foreach_mul_(vs, self.momentum)
        add_scaled_(vs, b.gs, -lr * b.s)
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

    capturable = True

    def step_numbers(self, lr: float, step: int) -> dict[str, float]:
        return {"lr": lr, "after_first": 1.0 if step > 0 else 0.0}

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        gps = torch._foreach_mul(b.gs, b.s)
        w_norms = torch._foreach_norm(b.ws)
        g_norms = torch._foreach_norm(gps)
        vs = self._slots("momentum", b, state)
        like = b.ws[0]
        lr_coef = as_dtype(n["lr"] * self.lars_coefficient, like)
        after_first = n["after_first"]
        for name, w, gp, v, wn, gn in zip(b.names, b.ws, gps, vs, w_norms, g_norms):
            wd = self.weight_decay_rate(name)
            if not wd:
                denom = gn + self.epsilon
            elif isinstance(after_first, torch.Tensor):  # (1 + wd) from the second step on, 1 before
                denom = gn * as_dtype(1.0 + wd * after_first, like) + self.epsilon
            else:
                denom = gn * (1.0 + wd) + self.epsilon if after_first else gn + self.epsilon
            local = wn * lr_coef / denom
            if wd:
                gp.add_(w, alpha=wd)
            v.mul_(self.momentum_beta).addcmul_(gp, local, value=-1.0)
            w.add_(v)
