"""A job's step on several processes in OneFlow's consistent view: what :class:`StepFunction` asks of
:mod:`flowtorch._src.dist` (the graph's split plan, the inputs' parts, the whole results).

Every rank runs the same program. Rank 0's inputs are the logical batch, as the master process's were in
OneFlow; results, watched values and watched gradients come back whole on every rank. The variables start
equal (rank 0's values at build) and stay equal: each rank's gradient contributions are summed before
the one update every rank makes. OneFlow's 1/n scaling counts the logical loss's elements.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any, Protocol, cast

import torch

from flowtorch._src.capture.builder import BuiltGraph
from flowtorch._src.dist import collectives, sbp
from flowtorch._src.errors import DifferentFeedsError
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.runtime import results
from flowtorch._src.step.blob_views import asked_devices as asked_devices  # (and installs the blob views)
from flowtorch._src.variable_store import VariableStore
from flowtorch._src.watch import taps

log = logging.getLogger("flowtorch")


def mirrored_parts(config: FunctionConfig) -> int:
    """How many parts a ``tp.Numpy`` placeholder is cut into: the processes, in the mirrored view."""
    return collectives.world_size() if config.is_mirrored() else 1


def part_shape(shape: tuple[int, ...], parts: int, job_name: str, kind: str) -> tuple[int, ...]:
    """The shape a job body sees for a placeholder of ``shape``: in OneFlow's mirrored view a ``tp.Numpy``
    array is split along its first axis over the devices, and each device's blob is its part."""
    shape = tuple(shape)
    if parts == 1 or kind != "numpy":
        return shape
    if not shape or shape[0] % parts:
        raise ValueError(f"job {job_name!r}: in the mirrored view on {parts} processes a tp.Numpy placeholder is "
                         f"split along its first axis, one part per device; its shape {shape} does not divide by "
                         f"{parts}")
    return (shape[0] // parts, *shape[1:])




def plan_step(job_name: str, built: BuiltGraph, variables: VariableStore) -> sbp.Plan | None:
    """The split plan of a job's graph (rewritten in place), or None on one process."""
    size = collectives.world_size()
    if size <= 1:
        return None
    try:
        if built.config.is_mirrored():
            plan = sbp.mirrored(built.module, size)
        else:
            plan = sbp.distribute(built.module, size)
    except NotImplementedError as exc:
        raise NotImplementedError(f"job {job_name!r}: {exc}") from None
    if plan.gathered_ops:
        log.info("flowtorch: job %r runs %d op(s) whole on every rank (no split rule for them): %s", job_name,
                 len(plan.gathered_ops), ", ".join(plan.gathered_ops))
    collectives.broadcast_([variables[name].tensor for name in built.var_names])
    plan.feed = feed_mode()  # read once: the launch's setting
    return plan


# "check" (default): each rank slices its own arrays, compared over the ranks; "trust": the same, not compared (as
# DDP, where each rank feeds its own part); "rank0": rank 0's arrays are sent
FEED_ENV = "FLOWTORCH_DIST_FEED"
FEED_MODES = ("check", "trust", "rank0")
_CHUNK = 1 << 21  # a checksum travels in a float bucket as three 21-bit integers, each exact in float32


def feed_mode() -> str:
    mode = os.environ.get(FEED_ENV, "check") or "check"
    if mode not in FEED_MODES:
        raise ValueError(f"{FEED_ENV} must be one of {', '.join(FEED_MODES)}; received {mode!r}")
    return mode


def _different_feeds() -> DifferentFeedsError:
    return DifferentFeedsError(
        "the ranks were fed different arrays. OneFlow's one controlling process fed every device; under "
        "python -m flowtorch --nproc every rank runs the program, and its arrays must be the same on every rank "
        "(the launcher seeds numpy and random alike) so that each rank takes its part. Feed the same arrays, or set "
        f"{FEED_ENV}=rank0 to have rank 0's arrays sent to every rank each step. Nothing was updated.")


def shard_inputs(plan: sbp.Plan, inputs: list[torch.Tensor], defer_check: bool = False
                 ) -> tuple[list[torch.Tensor], int | None]:
    """This rank's part of each split input and the whole of the others (in the mirrored view each rank's
    inputs are already its parts), and the checksum still to compare over the ranks (None: nothing left to check).

    Rank 0's arrays are the logical batch, as OneFlow's master process fed it. Every rank runs the same program,
    so each takes its part of its own arrays, and a checksum of them proves the ranks agree: compared here in one
    small all-reduce, or, with ``defer_check``, by the caller in the step's last gradient bucket
    (:func:`summed_gradients`), which costs no collective. ``FLOWTORCH_DIST_FEED=trust`` skips the checksum (it
    reads the whole logical batch on every rank: 1-3 % of a small model's step on 2 CPU processes);
    ``FLOWTORCH_DIST_FEED=rank0`` sends rank 0's arrays (a scatter or broadcast per input) instead."""
    # already this rank's own part: read by its own reader, or a mirrored tp.ListNumpy part
    own = [i in plan.local_inputs or (plan.mirrored and i not in plan.split_feeds) for i in range(len(plan.inputs))]
    send = plan.feed == "rank0"
    fed = [t for t, is_own in zip(inputs, own) if not is_own]
    check = collectives.fingerprint(fed) if fed and plan.feed == "check" else None
    if check is not None and not defer_check:
        check_now(check)
        check = None
    out = []
    for tensor, state, is_own in zip(inputs, plan.inputs, own):
        if is_own:
            out.append(tensor)
        elif not send:
            out.append(collectives.local_part(tensor, state.axis, plan.size, plan.rank)
                       if isinstance(state, sbp.Split) else tensor)
        elif isinstance(state, sbp.Split):
            out.append(collectives.shard_input(tensor, state.axis))
        else:
            out.append(collectives.broadcast_input(tensor))
    return out + list(inputs[len(plan.inputs):]), check


def check_now(check: int | None) -> None:
    """Compare a deferred input checksum over the ranks (a train step with nothing to ride in)."""
    if check is not None and not collectives.same_on_every_rank(check):
        raise _different_feeds()


def _whole(value: torch.Tensor | None, state: sbp.Placed, mirrored: bool = False) -> torch.Tensor | None:
    if value is None or not isinstance(state, sbp.Split):
        return value
    if mirrored:  # OneFlow merges a mirrored blob's parts for its watchers
        return torch.cat(collectives.gather_parts(value))
    return collectives.gather(value.detach(), state.axis)


def whole_returns(plan: sbp.Plan, returns: Sequence[torch.Tensor | None]) -> list[Any]:
    """The logical results; in the mirrored view, every device's part (``tp.ListNumpy``: a list of them).
    (None stays None.)"""
    if plan.mirrored:
        return [_device_parts(r, s, plan.size) for r, s in zip(returns, plan.returns)]
    return [_whole(r, s) for r, s in zip(returns, plan.returns)]


def _device_parts(value: torch.Tensor | None, state: sbp.Placed, size: int) -> results.DeviceParts | None:
    if value is None:
        return None
    if isinstance(state, sbp.Split):
        return results.DeviceParts(collectives.gather_parts(value))
    return results.DeviceParts([value] * size, identical=True)


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


def logical_numel(state: sbp.Placed, loss: torch.Tensor, size: int) -> int:
    return loss.numel() * size if isinstance(state, sbp.Split) else loss.numel()


def rank_seeds(plan: sbp.Plan, seeds: list[torch.Tensor]) -> list[torch.Tensor]:
    """Backward seeds: a split loss's part is this rank's alone; a whole loss is on every rank, so each
    seeds 1/size of it and the summed contributions make one."""
    return [s if isinstance(state, sbp.Split) else s / plan.size for s, state in zip(seeds, plan.losses)]


class _Reducer:
    """What summing a train step's gradients needs, fixed for the step and made when it first runs: its
    gradient buckets, which of its returns ride in them, and the riders themselves (the returns' zones and the
    input checksum's, in the first float type a bucket carries), kept from step to step."""

    def __init__(self, plan: sbp.Plan, params: list[torch.Tensor], returns: list[torch.Tensor]) -> None:
        self.buckets = collectives.GradientBuckets(params)
        self.riding = [] if plan.mirrored else [
            i for i, (r, s) in enumerate(zip(returns, plan.returns))
            if isinstance(s, sbp.Split) and self.buckets.carries(r.dtype)]
        float_type = next((t for t in (torch.float32, torch.float64) if self.buckets.carries(t)), None)
        self.rank, self.size = plan.rank, plan.size
        self.zones: list[torch.Tensor] = []
        self.slots: list[torch.Tensor] = []
        self.check_zone: torch.Tensor | None = None
        if float_type is not None:
            self.check_zone = torch.zeros(3 * plan.size, dtype=float_type, device=params[0].device)
            self.check_slot = self.check_zone.narrow(0, 3 * plan.rank, 3)
            self.check_host = self.check_slot.numpy() if self.check_slot.device.type == "cpu" else None

    def write_zones(self, returns: list[torch.Tensor]) -> list[torch.Tensor]:
        """The riding returns' riders: each holds every rank's part at the rank's offset, zeros elsewhere, so
        that its sum is the parts side by side. Kept from step to step: a step writes only its own part."""
        parts = [returns[i].reshape(-1) for i in self.riding]
        if [s.numel() for s in self.slots] != [p.numel() for p in parts]:  # the first step, or a size changed
            self.zones = [p.new_zeros(self.size * p.numel()) for p in parts]
            self.slots = [z.narrow(0, self.rank * p.numel(), p.numel()) for z, p in zip(self.zones, parts)]
        for slot, part in zip(self.slots, parts):
            slot.copy_(part)
        return list(self.zones)

    def write_check(self, check: int) -> None:
        """Put this rank's input checksum in its slot of the checksum's rider."""
        chunks = [float((check // _CHUNK**k) % _CHUNK) for k in range(3)]
        if self.check_host is not None:
            self.check_host[:] = chunks
        else:
            self.check_slot.copy_(torch.tensor(chunks, dtype=self.check_slot.dtype))


class ReducingStep(Protocol):
    """What :func:`summed_gradients` needs of a train step (:class:`~flowtorch._src.step.compile.StepFunction`,
    which imports this module)."""

    reducer: _Reducer | None  # made by the step's first summed_gradients

    @property
    def plan(self) -> sbp.Plan | None: ...


def summed_gradients(step: ReducingStep, losses: Sequence[torch.Tensor], params: list[torch.Tensor],
                     seeds: Sequence[torch.Tensor], returns: list[torch.Tensor], check: int | None = None
                     ) -> tuple[list[torch.Tensor | None], list[Any]]:
    """The variables' gradients summed over the ranks, each bucket's all-reduce overlapping the rest of backward
    (``step.reducer``, made once: the step's :class:`~flowtorch._src.dist.collectives.GradientBuckets`), and the
    step's returns whole (:func:`whole_returns`). Riding in the last bucket of their dtype, at no collective's
    cost: each split return (an all-gather is the sum of the parts, each placed at its rank's offset) and the
    inputs' ``check`` from :func:`shard_inputs` (DifferentFeedsError when the ranks' differ).

    The gradients are views of the buckets' buffers: valid until the step's next run."""
    plan = step.plan
    if plan is None:  # (StepFunction calls this only with a plan)
        raise RuntimeError("summed_gradients: the step has no split plan; it runs on one process")
    reducer = step.reducer
    if reducer is None:  # a step's trainable variables and its returns' types are fixed when it is built
        reducer = step.reducer = _Reducer(plan, params, returns)
    riding, size = reducer.riding, plan.size
    zones = reducer.write_zones(returns)
    if check is not None:
        if reducer.check_zone is None:  # nothing to ride in: compare now
            check_now(check)
            check = None
        else:
            reducer.write_check(check)
            zones.append(reducer.check_zone)
    grads, summed = reducer.buckets.run(
        lambda: torch.autograd.grad(losses, params, grad_outputs=seeds, allow_unused=True), zones)
    if check is not None:
        got = summed[-1].tolist()
        if any(got[3 * r:3 * r + 3] != got[:3] for r in range(1, size)):
            raise _different_feeds()
    whole = whole_returns(plan, [r if i not in riding else None for i, r in enumerate(returns)])
    for i, zone in zip(riding, summed):  # (a copy: the zone is the bucket's, which the next step overwrites)
        shape, axis = returns[i].shape, cast(sbp.Split, plan.returns[i]).axis  # (riding returns are split: _Reducer)
        if axis == 0:
            whole[i] = zone.view(size * shape[0], *shape[1:]).clone()
        else:
            whole[i] = zone.view(size, *shape).movedim(0, axis).reshape(
                *shape[:axis], size * shape[axis], *shape[axis + 1:]).clone()
    return grads, whole
