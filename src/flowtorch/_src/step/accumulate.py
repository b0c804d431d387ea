"""Gradient accumulation: ``function_config().train.num_gradient_accumulation_steps(n)`` (OneFlow v0.4).

OneFlow's ``GradientAccumulationRewritePass`` (``core/job_rewriter/gradient_accumulation_rewrite_pass.cpp``)
makes one call of a train job run its graph n times: every source op (a data loader) produces a new
batch per micro-step, each variable is read through a ``repeat`` op whose backward sums the n gradients,
and every returned blob goes through a ``pack`` op, which concatenates the n micro-step values along
axis 0 (a loss of shape (1,) comes back as (n,)). The model is updated once per call; the gradient is
divided by the loss's element count times n (``ScaleModelDiffByLossInstanceNum`` counts the loss's
time shape), i.e. the update uses the mean over all micro-batches.

flowtorch does the same: :func:`run_accumulated` runs the forward and backward n times with the job's
data pipeline feeding a new batch to each, sums the raw gradients (watch_diff values stay per micro-step
and are delivered once per micro-step, as OneFlow's watchers fired per micro-step), applies one
optimizer update with 1/(loss count · n) scaling, advances the train-step counter by one, and returns the
returns concatenated along axis 0. The micro-steps run eagerly (or compiled, under
``FLOWTORCH_CAPTURE=compile``); ``cuda_graph`` capture is not used for them.

Jobs with fed placeholders (``tp.Numpy.Placeholder`` arguments) are refused for n > 1: one call gives
one array per argument, and OneFlow's pass only repeats source ops, so there is nothing to feed the other
micro-steps with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import torch

from flowtorch._src.capture.builder import ConfigView
from flowtorch._src.step import sparse_update
from flowtorch._src.watch import taps


def steps_of(config: ConfigView | None) -> int:
    """The job's ``train.num_gradient_accumulation_steps`` (1 when unset)."""
    return int(config.get("train.num_gradient_accumulation_steps") or 1) if config is not None else 1


def check_accumulation(n: int, job_name: str, n_args: int) -> None:
    if n > 1 and n_args:
        raise NotImplementedError(
            f"job {job_name!r}: train.num_gradient_accumulation_steps({n}) with fed placeholder arguments is not "
            "supported: one call feeds one array per argument, and OneFlow repeats only data-loader sources for "
            "the other micro-steps. Feed the job from a flow.data loader, or accumulate over calls yourself.")


class AccumulatingStep(Protocol):
    """What :func:`run_accumulated` needs of a train step (:class:`~flowtorch._src.step.compile.StepFunction`,
    which imports this module)."""

    loss_numel: int

    def run_taps(self, inputs: list[torch.Tensor], clone_returns: bool, predict_mode: Callable[[], Any]
                 ) -> tuple[list[torch.Tensor], Sequence[sparse_update.Grad], taps.StepRecord]: ...

    def update(self, grads: Sequence[sparse_update.Grad], loss_numel: int | None = None) -> None: ...


def run_accumulated(step: AccumulatingStep, micro_inputs: list[list[torch.Tensor]], pack: bool = True
                    ) -> tuple[list[Any], list[taps.StepRecord]]:
    """n micro-steps of ``step`` (a train :class:`StepFunction`) and one update; returns the returns
    concatenated along axis 0 (``pack=False``: each return's n values, as a list) and each micro-step's watch
    record. Also one process's N device parts of a mirrored train call: each device's gradients summed, as
    the processes of ``--nproc N`` sum theirs, and OneFlow's 1/n over every part's loss elements."""
    total: list[torch.Tensor | None] | None = None
    parts: list[list[torch.Tensor]] = []
    records = []
    for inputs in micro_inputs:
        returns, raw, record = step.run_taps(inputs, clone_returns=True, predict_mode=torch.inference_mode)
        grads = sparse_update.dense(raw)  # (no row-wise variables when accumulating: sparse_update.plan)
        parts.append(returns)
        records.append(record)
        if total is None:  # (a copy: on several processes the sums are the gradient buckets', reused next step)
            total = [None if g is None else g.clone() for g in grads]
        else:
            total = [b if a is None else a if b is None else a + b for a, b in zip(total, grads)]
    # OneFlow scales by the loss count of all n micro-steps
    step.update(total or [], step.loss_numel * len(micro_inputs))
    if not pack:
        return [list(values) for values in zip(*parts)], records
    packed = [torch.cat(values, dim=0) if values[0].dim() else torch.stack(values) for values in zip(*parts)]
    return packed, records

