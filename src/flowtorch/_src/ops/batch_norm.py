"""The kernels of OneFlow's batch normalization ops as ``flow.layers.batch_normalization*`` build them
(``normalization``, ``normalization_add_relu``): moving statistics updated in place in training, an optional
addend and relu fused after the normalization, any channel axis."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def _to_channels(t: torch.Tensor, axis: int) -> torch.Tensor:
    return t if axis == 1 or t.dim() < 2 else t.movedim(axis, 1)


def _from_channels(t: torch.Tensor, axis: int) -> torch.Tensor:
    return t if axis == 1 or t.dim() < 2 else t.movedim(1, axis)


def post_norm(y: torch.Tensor, addend: torch.Tensor | None, relu: bool) -> torch.Tensor:
    """What follows a normalization in OneFlow's fused batch norm: ``+ addend``, then relu."""
    if addend is not None:
        y = y + addend
    return torch.relu(y) if relu else y


def bn_train_kernel(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, moving_mean: torch.Tensor,
                    moving_variance: torch.Tensor, addend: torch.Tensor | None, axis: int, momentum: float,
                    eps: float, relu: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Batch statistics; updates ``moving_*`` in place (torch momentum = 1 − OneFlow momentum)."""
    y, mean, inv_std = torch.native_batch_norm(_to_channels(x, axis), gamma, beta, moving_mean, moving_variance,
                                               True, 1.0 - momentum, eps)
    return post_norm(_from_channels(y, axis), addend, relu), mean, inv_std


def bn_infer_kernel(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, moving_mean: torch.Tensor,
                    moving_variance: torch.Tensor, addend: torch.Tensor | None, axis: int, eps: float,
                    relu: bool) -> torch.Tensor:
    y = F.batch_norm(_to_channels(x, axis), moving_mean, moving_variance, gamma, beta, False, 0.0, eps)
    return post_norm(_from_channels(y, axis), addend, relu)
