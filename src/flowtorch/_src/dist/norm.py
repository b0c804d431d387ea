"""Batch normalization of a batch split over the ranks: statistics of the whole logical batch, as OneFlow's
consistent view computed them (and as ``torch.nn.SyncBatchNorm`` does), from each rank's part."""

from __future__ import annotations

import torch

from flowtorch._src import layers
from flowtorch._src.dist import collectives


def sync_bn_train_kernel(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, moving_mean: torch.Tensor,
                         moving_variance: torch.Tensor, addend: torch.Tensor | None, axis: int, momentum: float,
                         eps: float, relu: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`flowtorch._src.layers.bn_train_kernel` on this rank's part of the batch: the mean and the
    (biased) variance are summed over the ranks, differentiably; ``moving_*`` are updated in place with
    the unbiased variance, as torch's batch norm does (momentum: OneFlow's, the old value's weight)."""
    reduce = [d for d in range(x.dim()) if d != axis]
    shape = [1] * x.dim()
    shape[axis] = x.shape[axis]
    count = float(x.numel() // x.shape[axis] * collectives.world_size())  # the parts are equal
    mean = collectives.sum_partial(x.sum(dim=reduce)) / count
    centered = x - mean.reshape(shape)
    var = collectives.sum_partial(centered.square().sum(dim=reduce)) / count
    inv_std = torch.rsqrt(var + eps)
    y = centered * inv_std.reshape(shape) * gamma.reshape(shape) + beta.reshape(shape)
    with torch.no_grad():
        unbiased = var * (count / max(count - 1.0, 1.0))
        moving_mean.mul_(momentum).add_(mean.detach(), alpha=1.0 - momentum)
        moving_variance.mul_(momentum).add_(unbiased.detach(), alpha=1.0 - momentum)
    return layers.post_norm(y, addend, relu), mean, inv_std
