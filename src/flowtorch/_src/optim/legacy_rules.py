"""The update rules of OneFlow v0.1.x and its master of 2020 where they differ from v0.3.4's.

Both are the model-update kernels of ``oneflow/core/kernel`` (v0.1.2, and the master of June 2020):

* RMSProp (``rmsprop_model_update_kernel.cpp``): the first step takes no history,
  ``decay = 0 if train_step == 0 else decay_rate``, so ``mean_square`` starts at ``g'^2``.
* Adam with ``do_bias_correction`` (``adam_model_update_kernel.cpp``, ``job_completer/adam_optm.cpp``): the
  helper variables ``beta1_t``/``beta2_t`` start at ``beta1``/``beta2`` and are multiplied by them from the
  second step on, and the kernel divides the *stored* moments by ``1 - beta_t`` every step
  (``m = (b1 m + (1-b1) g') / (1 - b1_t)``, likewise ``v``), the update then being
  ``w -= lr * (m / (sqrt(v) + eps) + wd * w)``. v0.3.4 instead kept the moments raw and corrected the rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch

from flowtorch._src.optim.adam import AdamW, _adam_moments
from flowtorch._src.optim.base import Batch, StateStore, add_quotient_, f32
from flowtorch._src.optim.rmsprop import RMSProp

__all__ = ["LegacyAdam", "LegacyRMSProp"]


class LegacyRMSProp(RMSProp):
    """RMSProp whose first step ignores the (zero) history: ``ms = (1-d) g'^2 + d ms`` with ``d = 0`` at step 0."""

    def step_numbers(self, lr: float, step: int) -> dict[str, float]:
        return {"lr": lr, "decay": 0.0 if step == 0 else self.decay_rate}

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        d, s = n["decay"], b.s
        ms = self._slots("mean_square", b, state)
        torch._foreach_mul_(ms, d)
        squares = torch._foreach_mul(b.gs, b.gs)
        torch._foreach_mul_(squares, (1.0 - d) * (s * s))
        torch._foreach_add_(ms, squares)
        denom = torch._foreach_add(ms, self.epsilon)
        torch._foreach_sqrt_(denom)
        add_quotient_(b.ws, b.gs, denom, -n["lr"] * s)


class LegacyAdam(AdamW):
    """Adam with v0.1's bias correction: the corrected moments are what the slots keep (see the module)."""

    def step_numbers(self, lr: float, step: int) -> dict[str, float]:
        # beta_t is a float variable: beta, then multiplied by beta once per step after the first
        b1_t = f32(math.pow(f32(self.beta1), step + 1))
        b2_t = f32(math.pow(f32(self.beta2), step + 1))
        return {"lr": lr, "c1": 1.0 / f32(1.0 - b1_t), "c2": 1.0 / f32(1.0 - b2_t)}

    def _update_numbers(self, b: Batch, n: Mapping[str, float | torch.Tensor], state: StateStore) -> None:
        ms, vs = _adam_moments(self, b, state)
        torch._foreach_mul_(ms, n["c1"])
        torch._foreach_mul_(vs, n["c2"])
        denom = torch._foreach_sqrt(vs)
        torch._foreach_add_(denom, self.epsilon)
        lr = n["lr"]
        self._decay(b, lr)
        add_quotient_(b.ws, ms, denom, -lr)
