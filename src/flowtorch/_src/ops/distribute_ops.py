"""``flow.advanced.distribute_*`` and ``flow.eager_nccl_all_reduce`` (OneFlow ``advanced/distribute_ops.py``,
``ops/eager_nccl_ops.py``) and ``flow.distributed_partial_fc_sample`` (``ops/partial_fc_sample.py``).

In OneFlow these ops move a consistent blob between its logical whole and one blob per device of the
current placement: ``distribute_split`` cuts it into the devices' parts, ``distribute_clone`` gives each
device a copy, ``distribute_concat``/``distribute_add`` join one blob per device. flowtorch's blobs are
logical, so each op is the matching tensor operation on the whole values; the number of parts is the
current placement's device count (``flow.scope.placement("gpu", "0:0-3")`` → 4), or without a placement
scope the number of processes, as OneFlow's default placement spans every device of the job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from flowtorch._src import placement
from flowtorch._src.capture.blob import Blob
from flowtorch._src.dist import group
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops._checks import Desc, arg_error, check_blobs, norm_axis
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.ops.random_ops import uniform

__all__ = ["distribute_add", "distribute_clone", "distribute_concat", "distribute_map", "distribute_split",
           "distributed_partial_fc_sample", "eager_nccl_all_reduce", "parallel_count"]


def parallel_count() -> int:
    """How many devices the ops of this point of a job body run on: the open placement's, else every process's."""
    if placement.has_placement_scope():
        return placement.placement_devices()
    return group.env_world()[1]


def _parts_kernel(x: torch.Tensor, parts: int, axis: int) -> tuple[torch.Tensor, ...]:
    # OneFlow's BalancedSplitter: the first ``size % parts`` parts get one more row; tensor_split cuts the same way
    return tuple(torch.tensor_split(x, parts, dim=axis))


def _clone_kernel(x: torch.Tensor, parts: int) -> tuple[torch.Tensor, ...]:
    return tuple(x.view_as(x) for _ in range(parts))


def _add_kernel(xs: list[torch.Tensor]) -> torch.Tensor:
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


def _concat_kernel(xs: list[torch.Tensor], axis: int) -> torch.Tensor:
    return torch.cat(xs, dim=axis)


def distribute_split(x: Blob, axis: int = 0, name: str | None = None) -> tuple[Blob, ...]:
    """``flow.advanced.distribute_split(x, axis=0, name=None)``: one part of ``x`` per device of the placement,
    cut along ``axis`` as OneFlow's BalancedSplitter cuts (``DistributeSplit_<n>/out_<i>``)."""
    op = "advanced.distribute_split"
    x = check_blob(x, op, "x")
    ax = norm_axis(axis, x.ndim, op)
    parts = parallel_count()
    if x.shape[ax] < parts:
        raise arg_error(op, "x", f"at least {parts} rows on axis {ax} (one per device of the placement)",
                        Desc(f"{x.lbn} {x.shape}"))
    out = apply(_parts_kernel, x, parts, ax, op_type="distribute_split", prefix="DistributeSplit", name=name,
                outputs=tuple(f"out_{i}" for i in range(parts)))
    return out if isinstance(out, tuple) else (out,)


def distribute_clone(x: Blob, name: str | None = None) -> tuple[Blob, ...]:
    """``flow.advanced.distribute_clone(x, name=None)``: ``x`` once per device of the placement
    (``DistributeClone_<n>/out_<i>``)."""
    x = check_blob(x, "advanced.distribute_clone", "x")
    parts = parallel_count()
    out = apply(_clone_kernel, x, parts, op_type="distribute_clone", prefix="DistributeClone", name=name,
                outputs=tuple(f"out_{i}" for i in range(parts)))
    return out if isinstance(out, tuple) else (out,)


def _per_device(xs: Any, op: str) -> list[Blob]:
    blobs = check_blobs(xs, op, "xs")
    parts = parallel_count()
    if placement.has_placement_scope() and len(blobs) != parts:
        # OneFlow asserts ``parallel_num == len(xs)``; without a placement scope flowtorch takes len(xs)
        raise arg_error(op, "xs", f"one blob per device of the placement ({parts})", f"{len(blobs)} blobs")
    first = blobs[0]
    for b in blobs[1:]:
        if b.meta.dtype != first.meta.dtype or b.ndim != first.ndim:
            raise arg_error(op, "xs", f"blobs of {first.lbn}'s dtype {first.dtype} and rank {first.ndim}",
                            Desc(f"{b.lbn} {b.shape} {b.dtype}"))
    return blobs


def distribute_add(xs: Sequence[Blob], name: str | None = None) -> Blob:
    """``flow.advanced.distribute_add(xs, name=None)``: the sum of one blob per device
    (``DistributeAdd_<n>/out``)."""
    op = "advanced.distribute_add"
    blobs = _per_device(xs, op)
    for b in blobs[1:]:
        if b.shape != blobs[0].shape:
            raise arg_error(op, "xs", f"blobs of {blobs[0].lbn}'s shape {blobs[0].shape}", Desc(f"{b.lbn} {b.shape}"))
    return apply(_add_kernel, blobs, op_type="distribute_add", prefix="DistributeAdd", name=name, outputs=("out",))


def distribute_concat(xs: Sequence[Blob], axis: int = 0, name: str | None = None) -> Blob:
    """``flow.advanced.distribute_concat(xs, axis=0, name=None)``: one blob per device joined along ``axis``
    (``DistributeConcat_<n>/out``)."""
    op = "advanced.distribute_concat"
    blobs = _per_device(xs, op)
    ax = norm_axis(axis, blobs[0].ndim, op)
    for b in blobs[1:]:
        if any(b.shape[i] != blobs[0].shape[i] for i in range(b.ndim) if i != ax):
            raise arg_error(op, "xs", f"blobs matching {blobs[0].lbn} {blobs[0].shape} except on axis {ax}",
                            Desc(f"{b.lbn} {b.shape}"))
    return apply(_concat_kernel, blobs, ax, op_type="distribute_concat", prefix="DistributeConcat", name=name,
                 outputs=("out",))


def distribute_map(xs: Any, f: Callable[..., Any], axis: int = 0) -> Any:
    """``flow.advanced.distribute_map(xs, f, axis=0)``: split each blob of ``xs`` over the devices, call ``f`` on
    each device's parts (inside that one device's placement, as OneFlow did), and concat ``f``'s results back
    along ``axis``: a blob when ``f`` returns one, else a tuple."""
    op = "advanced.distribute_map"
    if not callable(f):
        raise arg_error(op, "f", "a function of the parts", f)
    blobs = [xs] if isinstance(xs, Blob) else check_blobs(xs, op, "xs")
    split = [distribute_split(b, axis=axis) for b in blobs]
    tag = placement.current_scope().device_parallel_desc_symbol.device_tag
    results = []
    for device, parts in enumerate(zip(*split)):
        with placement.placement(tag, f"{group.machine_id()}:{device}"):
            results.append(f(*parts))
    single = all(isinstance(r, Blob) for r in results)
    wrapped = [(r,) if isinstance(r, Blob) else tuple(r) for r in results]
    if any(len(w) != len(wrapped[0]) for w in wrapped):
        raise ArgumentError(f"flow.{op}: f returned a different number of blobs on different devices")
    joined = tuple(distribute_concat(list(outs), axis=axis) for outs in zip(*wrapped))
    return joined[0] if single else joined


def _all_reduce_kernel(x: torch.Tensor, devices: int) -> torch.Tensor:
    return x.view_as(x)


def eager_nccl_all_reduce(x: Blob, parallel_conf: str, name: str | None = None) -> Blob:
    """``flow.eager_nccl_all_reduce(x, parallel_conf, name=None)``: the sum of ``x`` over the devices that
    ``parallel_conf`` (a ``ParallelConf`` text such as ``'device_tag: "gpu" device_name: "0:0-3"'``) names, as
    OneFlow's eager boxing used it (``EagerNcclAllReduce_<n>/out_0``). A consistent blob is one value across
    the devices, so its sum is that value: every rank holds the same result."""
    op = "eager_nccl_all_reduce"
    x = check_blob(x, op, "x")
    if not isinstance(parallel_conf, str) or "device_name" not in parallel_conf:
        raise arg_error(op, "parallel_conf", "a ParallelConf text naming device_name (e.g. "
                        "'device_tag: \"gpu\" device_name: \"0:0-1\"')", parallel_conf)
    devices = placement.count_devices(placement.parallel_conf_devices(parallel_conf))
    return apply(_all_reduce_kernel, x, devices, op_type="eager_nccl_all_reduce", prefix="EagerNcclAllReduce",
                 name=name)


def _balanced_bounds(total: int, parts: int) -> list[tuple[int, int]]:
    base, rest = divmod(total, parts)
    bounds, lo = [], 0
    for i in range(parts):
        hi = lo + base + (1 if i < rest else 0)
        bounds.append((lo, hi))
        lo = hi
    return bounds


def _make_partial_fc_kernel(parts: int) -> Callable[..., tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    def distributed_partial_fc_sample(weight: torch.Tensor, label: torch.Tensor,
                                      num_sample: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        per_rank = num_sample // parts
        lab = label.long()
        mapped = torch.zeros_like(lab)
        sampled = []
        for j, (lo, hi) in enumerate(_balanced_bounds(weight.shape[0], parts)):
            n = hi - lo
            inside = (lab >= lo) & (lab < hi)
            idx = torch.where(inside, lab - lo, torch.full_like(lab, n))  # slot n collects the other ranks' labels
            positive = torch.zeros(n + 1, dtype=torch.bool, device=lab.device).scatter_(0, idx, True)[:n]
            # partial_fc_sample_kernel.cu: each class draws a random key in [0, n); a positive class's key is
            # ``class - n``, so the stable sort puts the positives first, in class order, then random negatives
            keys = (uniform((n,), weight.device, None) * n).long().clamp_(max=n - 1)
            keys = torch.where(positive, torch.arange(n, device=lab.device) - n, keys)
            sampled.append(torch.argsort(keys, stable=True)[:per_rank] + lo)
            rank_of = torch.cumsum(positive.long(), 0) - 1  # a positive class's place among the positives
            mapped = torch.where(inside, j * per_rank + rank_of.gather(0, idx.clamp(max=n - 1)), mapped)
        sampled_label = torch.cat(sampled)
        return mapped.to(label.dtype), sampled_label.to(label.dtype), weight.index_select(0, sampled_label)
    return distributed_partial_fc_sample


def distributed_partial_fc_sample(weight: Blob, label: Blob, num_sample: int,
                                  name: str | None = None) -> tuple[Blob, Blob, Blob]:
    """``flow.distributed_partial_fc_sample(weight, label, num_sample, name=None)`` → ``(mapped_label,
    sampled_label, sampled_weight)``: Partial FC's class sampling (``ops/partial_fc_sample.py``). Each device
    holds a balanced share of ``weight``'s classes and samples ``num_sample / devices`` of them: the classes
    that occur in ``label`` first (ascending), then random others. ``sampled_label`` are the sampled class
    ids, ``sampled_weight`` their rows (its gradient is summed back into ``weight``'s rows), and
    ``mapped_label`` is each label's index among the sampled classes. The random classes come from torch's
    generator, not OneFlow's curand states."""
    op = "distributed_partial_fc_sample"
    w = check_blob(weight, op, "weight")
    lab = check_blob(label, op, "label")
    if w.ndim != 2 or not w.meta.dtype.is_floating_point:
        raise arg_error(op, "weight", "a 2-D float blob (classes, features)", Desc(f"{w.lbn} {w.shape} {w.dtype}"))
    if lab.ndim != 1 or lab.meta.dtype not in (torch.int32, torch.int64):
        raise arg_error(op, "label", "a 1-D int32/int64 blob", Desc(f"{lab.lbn} {lab.shape} {lab.dtype}"))
    parts = parallel_count()
    if not isinstance(num_sample, int) or isinstance(num_sample, bool) or num_sample < parts \
            or num_sample % parts or num_sample > w.shape[0]:
        raise arg_error(op, "num_sample", f"an int multiple of the {parts} device(s), at most the {w.shape[0]} "
                        "classes", num_sample)
    if w.shape[0] % parts:
        raise arg_error(op, "weight", f"a class count divisible by the {parts} device(s)", Desc(f"{w.lbn} {w.shape}"))
    out = apply(_make_partial_fc_kernel(parts), w, lab, num_sample, op_type="distributed_partial_fc_sample",
                prefix="DistributedPartialFcSample", name=name,
                outputs=("mapped_label_0", "sampled_label_0", "sampled_weight_0"))
    return out[0], out[1], out[2]
