"""``flow.optimizer.grad_clipping`` and ``flow.optimizer.loss_scale``.

Where clipping sits in OneFlow's gradient pipeline (v0.3.4
``oneflow/core/job_rewriter/generate_backward_and_optimizer_op_confs.cpp``): the raw gradient of
``sum(loss)`` is scaled by ``1/loss_element_count``, then by ``1/loss_scale``, then the variable's
l1/l2 regularization is added, and only then is the global norm taken and the clip applied;
the optimizer update comes last. ``Optimizer.apply`` (``base.py``) follows that order.
"""

from __future__ import annotations

import types
from collections.abc import Mapping

import torch

from flowtorch._src.errors import ArgumentError

__all__ = [
    "ClipByGlobalNorm",
    "ClipEachByNorm",
    "ClipGradientConf",
    "DynamicLossScalePolicy",
    "LossScalePolicy",
    "StaticLossScalePolicy",
    "grad_clipping",
    "loss_scale",
    "regularize_and_clip",
]


class ClipGradientConf:
    """Base of the gradient clipping strategies."""

    #: clip the raw gradients before the regularizers are added (OneFlow's update kernels of late 2019),
    #: instead of after (the job pass of February 2020 on)
    before_regularization = False

    def scale_factor(self, grads: list[torch.Tensor], grad_scale: float = 1.0) -> torch.Tensor:
        """0-d tensor to multiply every gradient by, where the true gradients are ``grad_scale * grads``."""
        raise NotImplementedError

    def clip(self, grads: list[torch.Tensor], grad_scale: float = 1.0) -> list[torch.Tensor]:
        """The clipped ``grads`` (new tensors), where the true gradients are ``grad_scale * grads``."""
        return list(torch._foreach_mul(grads, self.scale_factor(grads, grad_scale)))


class ClipByGlobalNorm(ClipGradientConf):
    """``flow.optimizer.grad_clipping.by_global_norm(clip_norm)``.

    Multiplies all gradients of the optimizer by ``min(1 / global_norm, 1 / clip_norm)``.

    This is OneFlow's formula (v0.3.4 ``oneflow/core/job_rewriter/autograd.cpp``,
    ``ClipGradientByGlobalNorm``), which lacks TensorFlow's final ``* clip_norm``: for
    ``clip_norm == 1`` (the usual setting) it is ordinary clipping, for any other value the
    clipped gradients come out ``clip_norm`` times smaller than ``torch.nn.utils.clip_grad_norm_``
    would make them (and unclipped ones are divided by ``clip_norm``). flowtorch keeps OneFlow's
    numbers. A zero global norm gives the factor ``1 / clip_norm``.
    """

    def __init__(self, clip_norm: float) -> None:
        if not float(clip_norm) > 0.0:
            raise ArgumentError(f"grad_clipping.by_global_norm: clip_norm must be > 0, got clip_norm={clip_norm!r}")
        self.clip_norm = float(clip_norm)

    def scale_factor(self, grads: list[torch.Tensor], grad_scale: float = 1.0) -> torch.Tensor:
        norms = list(torch._foreach_norm(grads))
        first = norms[0]
        if any(n.device != first.device or n.dtype != first.dtype for n in norms):
            norms = [n.to(first.device, first.dtype, non_blocking=True) for n in norms]
        square_sum = torch.stack(norms).square().sum() * (grad_scale * grad_scale)
        return torch.clamp(torch.rsqrt(square_sum), max=1.0 / self.clip_norm)

    def __repr__(self) -> str:
        return f"grad_clipping.by_global_norm(clip_norm={self.clip_norm})"


class ClipEachByNorm(ClipGradientConf):
    """``clip_conf: {clip_by_global_norm: {clip_norm}}`` as OneFlow's model-update kernels of late 2019 applied
    it (``normal_model_update_kernel.cpp`` until the optimizer refactor of February 2020): each variable's own
    gradient, scaled by the loss's element count, is multiplied by ``clip_norm / max(|g|, clip_norm)``, before
    the variable's L1/L2 terms are added."""

    before_regularization = True

    def __init__(self, clip_norm: float) -> None:
        if not float(clip_norm) > 0.0:
            raise ArgumentError(f"clip_by_global_norm: clip_norm must be > 0, got clip_norm={clip_norm!r}")
        self.clip_norm = float(clip_norm)

    def clip(self, grads: list[torch.Tensor], grad_scale: float = 1.0) -> list[torch.Tensor]:
        norms = torch._foreach_norm(grads)
        factors = [torch.clamp(self.clip_norm / (n * grad_scale), max=1.0) for n in norms]
        return [g * f for g, f in zip(grads, factors)]

    def __repr__(self) -> str:
        return f"ClipEachByNorm(clip_norm={self.clip_norm})"


#: ``flow.optimizer.grad_clipping`` namespace.
grad_clipping = types.SimpleNamespace(by_global_norm=ClipByGlobalNorm)


def regularize_and_clip(
    names: list[str],
    ws: list[torch.Tensor],
    gs: list[torch.Tensor],
    s: float,
    regularizers: Mapping[str, tuple[float, float]],
    clipping: ClipGradientConf | None,
) -> list[torch.Tensor]:
    """Gradients ``h`` such that ``s * h`` is OneFlow's regularized, clipped gradient ``g'``.

    ``gs`` (raw gradients) are never written; new tensors are made only for regularized
    variables and, when clipping, for all. Keeping ``s`` outside lets the update fold it into
    the ``alpha`` of its fused ops.
    """
    if clipping is not None and clipping.before_regularization:
        gs = clipping.clip(list(gs), s)
        clipping = None
    if regularizers:
        gs = list(gs)
        for i, name in enumerate(names):
            l1, l2 = regularizers.get(name, (0.0, 0.0))
            if l1 or l2:
                # s*h = g*s + l1*sign(w) + l2*w
                h = torch.add(gs[i], ws[i], alpha=l2 / s) if l2 else gs[i].clone()
                if l1:
                    h.add_(torch.sign(ws[i]), alpha=l1 / s)
                gs[i] = h
    if clipping is not None:
        gs = clipping.clip(gs, s)
    return gs


class LossScalePolicy:
    """Base of the loss scaling policies."""

    #: Value to seed the backward pass with (``d(loss * seed)``); the update divides it out.
    grad_seed: float = 1.0


class StaticLossScalePolicy(LossScalePolicy):
    """``flow.optimizer.loss_scale.static_loss_scale(loss_scale_factor)``.

    Backward starts from ``loss_scale_factor`` instead of ones (so ``watch_diff`` shows scaled
    gradients, as in OneFlow) and the update multiplies the gradients by ``1 / loss_scale_factor``.
    """

    def __init__(self, loss_scale_factor: float) -> None:
        if not float(loss_scale_factor) > 0.0:
            raise ArgumentError(
                f"loss_scale.static_loss_scale: loss_scale_factor must be > 0, got {loss_scale_factor!r}"
            )
        self.loss_scale_factor = float(loss_scale_factor)
        self.grad_seed = self.loss_scale_factor

    def __repr__(self) -> str:
        return f"loss_scale.static_loss_scale({self.loss_scale_factor})"


class DynamicLossScalePolicy(LossScalePolicy):
    """``flow.optimizer.loss_scale.dynamic_loss_scale(initial_loss_scale, increment_period, multiplier)``.

    Partial support. OneFlow seeds backward with a scale ``S`` (``initial_loss_scale``, times
    ``multiplier`` after every ``increment_period`` finite steps, divided by it after a step with
    inf/nan gradients, which is then skipped) and divides the gradients by ``S`` again.
    flowtorch trains in float32, where that round trip changes nothing: with the default
    power-of-two scale and multiplier, multiplying and dividing by ``S`` is exact, so the update
    is bit-identical to OneFlow's on every step whose scaled gradients are finite. It therefore
    seeds with 1 and does not scale. Not reproduced: skipping the update of a step whose
    gradients are not finite, and the ``System-Train-DynamicLossScale-*`` variables.
    """

    def __init__(
        self,
        initial_loss_scale: float = 2**30,
        increment_period: int = 2000,
        multiplier: float = 2.0,
    ) -> None:
        if not float(initial_loss_scale) > 0.0 or not float(multiplier) > 0.0 or int(increment_period) <= 0:
            raise ArgumentError(
                "loss_scale.dynamic_loss_scale: initial_loss_scale and multiplier must be > 0 and "
                f"increment_period >= 1, got initial_loss_scale={initial_loss_scale!r}, "
                f"increment_period={increment_period!r}, multiplier={multiplier!r}"
            )
        self.initial_loss_scale = float(initial_loss_scale)
        self.increment_period = int(increment_period)
        self.multiplier = float(multiplier)

    def __repr__(self) -> str:
        return (
            f"loss_scale.dynamic_loss_scale(initial_loss_scale={self.initial_loss_scale}, "
            f"increment_period={self.increment_period}, multiplier={self.multiplier})"
        )


#: ``flow.optimizer.loss_scale`` namespace.
loss_scale = types.SimpleNamespace(
    static_loss_scale=StaticLossScalePolicy,
    dynamic_loss_scale=DynamicLossScalePolicy,
)
