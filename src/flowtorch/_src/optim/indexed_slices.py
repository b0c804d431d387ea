"""Lazy (indexed-slices) updates: ``function_config().indexed_slices_optimizer_conf(...)``.

OneFlow v0.4's ``IndexedSlicesOptimizerRewritePass`` (``oneflow/core/job_rewriter/
indexed_slices_optimizer_rewrite_pass.cpp``) replaces the update of a listed variable whose gradient is the
backward of a ``gather`` on axis 0 (``unsorted_segment_sum_like``, followed only by the loss-count and static
loss-scale ``scalar_mul`` s) with ``indexed_slices_{sgd,momentum,adam}_update``. Those kernels
(``oneflow/user/kernels/model_update_kernels.cpp``, ``model_update_kernel_util.cpp``) take the gather's
indices and the output gradient rows, scale the rows (the ``scalar_mul`` s moved onto them), sum the rows of
repeated indices (``indexed_slices_reduce_sum``), then update **only those rows** of the variable and of its
slots with the dense rule (``scale = 1``, no l1/l2):

* SGD: ``w = w - lr * (g + wd * w)``
* momentum: ``v = beta * v - lr * g``; ``w = w + v - lr * wd * w``
* Adam (and LazyAdam, AdamW): ``m = b1 m + (1 - b1) g``; ``v = b2 v + (1 - b2) g^2``;
  ``w = w - lr * (m / (sqrt(v) + eps) + wd * w)``, ``lr`` bias-corrected when the optimizer asks for it.

Rows absent from the batch keep their values, momenta and moments. The pass leaves the update dense when the
optimizer is another kind (LARS, LAMB, RMSProp), clips gradients, the variable has a regularizer, or the loss
scale is dynamic; :func:`row_owner` applies the same rules. The graph side (which variables qualify, how the
rows reach the update) is :mod:`flowtorch._src.step.sparse_update`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim.adam import Adam
from flowtorch._src.optim.base import Optimizer, StateStore
from flowtorch._src.optim.clipping import DynamicLossScalePolicy
from flowtorch._src.optim.combined import CombinedOptimizer
from flowtorch._src.optim.sgd import SGD


def parse_conf(value: Any) -> frozenset[str] | None:
    """The variable names of ``indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=[...])))``
    (None when the conf is unset or ``enable`` is False; ``enable`` defaults to True as in OneFlow's proto)."""
    if value is None:
        return None
    what = "function_config.indexed_slices_optimizer_conf"
    if not isinstance(value, Mapping):
        raise ArgumentError(f"{what} takes a dict such as dict(include_op_names=dict(op_name=[...])); "
                            f"received {value!r}")
    unknown = set(value) - {"enable", "include_op_names"}
    if unknown:
        raise ArgumentError(f"{what}: unknown field(s) {sorted(unknown)}; it has 'enable' and 'include_op_names'")
    if not value.get("enable", True):
        return None
    names = value.get("include_op_names")
    if not isinstance(names, Mapping) or set(names) - {"op_name"}:
        raise ArgumentError(f"{what}: include_op_names (required) must be dict(op_name=[variable names]); "
                            f"received {names!r}")
    op_names = names.get("op_name", [])
    op_names = [op_names] if isinstance(op_names, str) else list(op_names)
    if not all(isinstance(n, str) for n in op_names):
        raise ArgumentError(f"{what}: include_op_names.op_name must be a list of str; received {op_names!r}")
    return frozenset(op_names)


def row_owner(optimizer: Optimizer, var_name: str, regularizers: Mapping[str, tuple[float, float]]
              ) -> Optimizer | None:
    """The optimizer that would update ``var_name`` row by row, or None when OneFlow's pass would leave the
    variable's update dense (other optimizer kind, clipping, a regularizer, a dynamic loss scale)."""
    if isinstance(optimizer.loss_scale_policy, DynamicLossScalePolicy):
        return None  # the loss scale arrives as a tensor (scalar_mul_by_tensor): not rewritten
    if isinstance(optimizer, CombinedOptimizer):
        owners = optimizer._owners(var_name)
        owner = owners[0] if owners else None
    else:
        names = optimizer.variable_names()
        owner = optimizer if names is None or var_name in names else None
    if owner is None or not isinstance(owner, (SGD, Adam)) or owner.grad_clipping is not None:
        return None
    l1, l2 = regularizers.get(var_name, (0.0, 0.0))
    if l1 or l2:
        return None  # an l1_l2_regularize_gradient op sits between the gather's backward and the update
    return owner


@torch.no_grad()
def apply_rows(optimizer: Optimizer, owner: Optimizer, name: str, w: torch.Tensor, indices: torch.Tensor,
               values: torch.Tensor, step: int, loss_numel: int, state: StateStore) -> None:
    """Update the rows ``indices`` of ``w`` (and of its slots) from the raw gradient ``values`` of the gather
    output (shape ``indices.shape + w.shape[1:]``). ``optimizer`` is the job's (its loss scaling applies),
    ``owner`` the one updating ``name`` (:func:`row_owner`)."""
    idx = indices.reshape(-1).long()
    if idx.numel() == 0:
        return
    scaled = values.reshape((idx.numel(),) + tuple(w.shape[1:])) * optimizer._grad_scale(loss_numel)
    rows, inverse = torch.unique(idx, return_inverse=True)
    g = torch.zeros((rows.numel(),) + tuple(w.shape[1:]), dtype=scaled.dtype, device=scaled.device)
    g.index_add_(0, inverse, scaled)
    lr = owner.learning_rate(step)
    wd = owner.weight_decay_rate(name)
    w_rows = w.index_select(0, rows)
    if isinstance(owner, SGD):
        if owner.momentum == 0:
            w_rows.sub_(lr * (g + wd * w_rows))
        else:
            v = state.get(f"{name}-momentum", w)
            v_rows = v.index_select(0, rows).mul_(owner.momentum).sub_(lr * g)
            v.index_copy_(0, rows, v_rows)
            w_rows.add_(v_rows - (lr * wd) * w_rows)
    elif isinstance(owner, Adam):
        lr = owner.corrected_lr(lr, step)
        m, v = state.get(f"{name}-m", w), state.get(f"{name}-v", w)
        m_rows = m.index_select(0, rows).mul_(owner.beta1).add_(g, alpha=1.0 - owner.beta1)
        v_rows = v.index_select(0, rows).mul_(owner.beta2).addcmul_(g, g, value=1.0 - owner.beta2)
        m.index_copy_(0, rows, m_rows)
        v.index_copy_(0, rows, v_rows)
        w_rows.sub_(lr * (m_rows / (v_rows.sqrt() + owner.epsilon) + wd * w_rows))
    else:  # row_owner never returns another kind
        raise ArgumentError(f"{type(owner).__name__} has no indexed-slices update")
    w.index_copy_(0, rows, w_rows)
