"""A job's step on several processes in OneFlow's consistent view: what :class:`StepFunction` asks of
:mod:`flowtorch._src.dist` (the graph's split plan, the inputs' parts, the whole results).

Every rank runs the same program. Rank 0's inputs are the logical batch, as the master process's were in
OneFlow; results, watched values and watched gradients come back whole on every rank. The variables start
equal (rank 0's values at build) and stay equal: each rank's gradient contributions are summed before
the one update every rank makes. OneFlow's 1/n scaling counts the logical loss's elements.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src.dist import collectives, sbp
from flowtorch._src.runtime import results
from flowtorch._src.watch import taps

log = logging.getLogger("flowtorch")


def plan_step(job_name: str, built: Any, variables: Any) -> sbp.Plan | None:
    """The split plan of a job's graph (rewritten in place), or None on one process."""
    size = collectives.world_size()
    if size <= 1:
        return None
    view = built.config.get("default_logical_view") if built.config is not None else None
    try:
        if getattr(view, "name", "consistent") == "mirrored":
            plan = sbp.mirrored(built.module, size)
        else:
            plan = sbp.distribute(built.module, size)
    except NotImplementedError as exc:
        raise NotImplementedError(f"job {job_name!r}: {exc}") from None
    if plan.gathered_ops:
        log.info("flowtorch: job %r runs %d op(s) whole on every rank (no split rule for them): %s", job_name,
                 len(plan.gathered_ops), ", ".join(plan.gathered_ops))
    collectives.broadcast_([variables[name].tensor for name in built.var_names])
    return plan


def shard_inputs(plan: sbp.Plan, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """This rank's part of each split input, rank 0's value of each whole one (in the mirrored view each
    rank's inputs are already its parts)."""
    if plan.mirrored:
        return inputs
    out = []
    for i, (tensor, state) in enumerate(zip(inputs, plan.inputs)):
        if i in plan.local_inputs:  # read by this rank's own reader
            out.append(tensor)
        elif isinstance(state, sbp.Split):
            out.append(collectives.shard_input(tensor, state.axis))
        else:
            out.append(collectives.broadcast_input(tensor))
    return out + list(inputs[len(plan.inputs):])


def _whole(value: torch.Tensor | None, state: sbp.State, mirrored: bool = False) -> torch.Tensor | None:
    if value is None or not isinstance(state, sbp.Split):
        return value
    if mirrored:  # OneFlow merges a mirrored blob's parts for its watchers
        return torch.cat(collectives.gather_parts(value))
    return collectives.gather(value.detach(), state.axis)


def whole_returns(plan: sbp.Plan, returns: list[torch.Tensor]) -> list[Any]:
    """The logical results; in the mirrored view, every device's part (``tp.ListNumpy``: a list of them)."""
    if plan.mirrored:
        return [results.DeviceParts(collectives.gather_parts(r)) if isinstance(s, sbp.Split)
                else results.DeviceParts([r] * plan.size, identical=True) for r, s in zip(returns, plan.returns)]
    return [_whole(r, s) for r, s in zip(returns, plan.returns)]


def whole_record(plan: sbp.Plan, record: taps.StepRecord) -> None:
    """Watched values and gradients as OneFlow's watchers saw them: whole, the gradients summed over ranks."""
    record.values = [_whole(v, plan.values.get(i, sbp.BROADCAST), plan.mirrored) for i, v in enumerate(record.values)]
    grads: list[torch.Tensor | None] = []
    for i, g in enumerate(record.grads):
        state = plan.grads.get(i, sbp.BROADCAST)
        if g is not None and not isinstance(state, sbp.Split):
            g = collectives.sum_partial(g.detach())  # each rank holds its contribution to a whole blob's
        grads.append(_whole(g, state, plan.mirrored))
    record.grads = grads


def logical_numel(state: sbp.State, loss: torch.Tensor, size: int) -> int:
    return loss.numel() * size if isinstance(state, sbp.Split) else loss.numel()


def rank_seeds(plan: sbp.Plan, seeds: list[torch.Tensor]) -> list[torch.Tensor]:
    """Backward seeds: a split loss's part is this rank's alone; a whole loss is on every rank, so each
    seeds 1/size of it and the summed contributions make one."""
    return [s if isinstance(state, sbp.Split) else s / plan.size for s, state in zip(seeds, plan.losses)]


def summed_gradients(step: Any, losses: Sequence[torch.Tensor], params: list[torch.Tensor],
                     seeds: Sequence[torch.Tensor]) -> list[torch.Tensor | None]:
    """The variables' gradients summed over the ranks, each bucket's all-reduce overlapping the rest of backward
    (``step.buckets``: the step's :class:`~flowtorch._src.dist.collectives.GradientBuckets`, made once)."""
    buckets = getattr(step, "buckets", None)
    if buckets is None or len(buckets.params) != len(params) or any(a is not b for a, b in zip(buckets.params, params)):
        step.buckets = collectives.GradientBuckets(params)
    return step.buckets.run(lambda: torch.autograd.grad(losses, params, grad_outputs=seeds, allow_unused=True))
