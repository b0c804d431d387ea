"""``function_config.enable_auto_mixed_precision(True)``: the step's forward under ``torch.autocast``, and
OneFlow's dynamic loss scaling when the optimizer asks for it.

OneFlow's AMP pass (``core/job_rewriter/auto_mixed_precision.cpp``, op lists in
``auto_mixed_precision_lists.cpp``) runs matmul and conv in float16 and keeps reductions, softmax and
losses in float32; ``torch.autocast``'s op lists make the same split. On CUDA the low type is float16, as
OneFlow's; on CPU it is bfloat16 (torch's CPU autocast type: float16 GEMMs are slow there). Returned and
watched blobs keep their declared float32 type.

``flow.optimizer.loss_scale.dynamic_loss_scale`` (OneFlow-Benchmark's ``--use_fp16`` path) then does what
OneFlow's ``dynamic_loss_scale_schedule`` kernel does: backward is seeded with the scale S, the update
divides it out, a step whose gradients are not all finite updates nothing (the train-step counter still
advances) and sets ``S = max(S / multiplier, 1)``; after ``increment_period`` finite steps in a row
``S *= multiplier``. S lives on the device, so a captured graph reads the current value.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src.capture.builder import ConfigView
from flowtorch._src.optim.clipping import DynamicLossScalePolicy

LOW_PRECISION = (torch.float16, torch.bfloat16)


def enabled(config: ConfigView) -> bool:
    return bool(config.get("enable_auto_mixed_precision"))


def low_dtype(device: str) -> torch.dtype:
    return torch.float16 if device.startswith("cuda") else torch.bfloat16


def autocast(device: str, on: bool) -> contextlib.AbstractContextManager[Any]:
    """The forward's autocast region (restores the caller's autocast state on exit). A step sets autocast
    itself: the region of a caller that runs a job inside ``torch.autocast`` does not reach into a job
    without mixed precision."""
    kind = "cuda" if device.startswith("cuda") else "cpu"
    if not on:
        return torch.autocast(device_type=kind, enabled=False) if torch.is_autocast_enabled(kind) \
            else contextlib.nullcontext()
    return torch.autocast(device_type=kind, dtype=low_dtype(device))


def restore_float(t: Any) -> Any:
    """A returned or watched tensor back in float32 (its declared type) when autocast made it lower."""
    if isinstance(t, torch.Tensor) and t.dtype in LOW_PRECISION:
        return t.float()
    return t


class DynamicScaler:
    """The dynamic loss scale of one train job (``DynamicLossScalePolicy``'s numbers). The scale and the count
    of finite steps in a row live on the device, so a captured step keeps them as an eager one does."""

    def __init__(self, policy: DynamicLossScalePolicy, device: str) -> None:
        self.scale = torch.full((), policy.initial_loss_scale, dtype=torch.float32, device=device)
        self.good = torch.zeros((), dtype=torch.int64, device=device)  # finite steps since the last change
        self.period = policy.increment_period
        self.multiplier = policy.multiplier

    def seeds(self, losses: Any) -> list[torch.Tensor]:
        return [self.scale.to(loss.dtype).expand_as(loss).clone() for loss in losses]

    def unscale(self, grads: Sequence[Any]) -> bool:
        """Divide the gradients by S in place; True when all are finite (the update may run)."""
        return bool(self.unscale_on_device(grads))

    def unscale_on_device(self, grads: Sequence[Any]) -> torch.Tensor:
        """:meth:`unscale` without a host sync: the flag is a 0-d device bool (a captured step)."""
        # a row-wise (indexed-slices) gradient carries its rows in .values
        present = [g if isinstance(g, torch.Tensor) else g.values for g in grads if g is not None]
        if not present:
            return torch.ones((), dtype=torch.bool, device=self.scale.device)
        finite = torch.stack([torch.isfinite(g).all() for g in present]).all()
        inverse = 1.0 / self.scale
        for g in present:
            g.mul_(inverse)
        self._schedule(finite)
        return finite

    def _schedule(self, finite: torch.Tensor) -> None:
        """OneFlow's ``dynamic_loss_scale_schedule``: ``S *= multiplier`` after ``period`` finite steps in a
        row; ``S = max(S / multiplier, 1)`` after a non-finite one."""
        good = torch.where(finite, self.good + 1, torch.zeros_like(self.good))
        grow = good == self.period
        shrunk = torch.clamp(self.scale / self.multiplier, min=1.0)
        self.scale.copy_(torch.where(finite, torch.where(grow, self.scale * self.multiplier, self.scale), shrunk))
        self.good.copy_(torch.where(grow, torch.zeros_like(good), good))
