"""``flow.optimizer.RMSProp`` (see :mod:`~flowtorch._src.optim.base` for the gradient pipeline)."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from flowtorch._src.optim.base import Batch, Optimizer, StateStore, Variables, add_quotient_
from flowtorch._src.optim.clipping import ClipGradientConf, LossScalePolicy
from flowtorch._src.optim.schedulers import LrScheduler

__all__ = ["RMSProp"]


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

    capturable = True

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
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
        add_quotient_(b.ws, b.gs, denom, -n["lr"] * s)
