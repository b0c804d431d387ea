"""OneFlow user ops with no ``flow.*`` wrapper of their own in v0.3.4, reached through
``flow.user_op_builder``: ``split_like`` (``user/ops/split_like_op.cpp``), ``square_sum`` and
``multi_square_sum`` (``square_sum_op.cpp``), ``fused_cast_scale`` (``fused_cast_scale_op.cpp``),
``dynamic_loss_scale_schedule`` (``dynamic_loss_scale_schedule_op.cpp`` and its CPU kernel); plus
``flow.experimental.square_sum`` (``python/experimental/square_sum_op.py``), written on the builder as OneFlow
wrote it.
"""

from __future__ import annotations

from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, check_blob
from flowtorch._src.ops.op_registry import Arg, AttrSpec, invalid, register
from flowtorch._src.ops.user_op_builder import user_op_builder

_FLT_MAX = float(torch.finfo(torch.float32).max)


def _desc(b: Any) -> Desc:
    return Desc(f"{b.lbn} {b.shape} {b.dtype}")


# --- split_like ------------------------------------------------------------------------------------------
def split_like_kernel(x: torch.Tensor, likes: list[torch.Tensor], axis: int) -> tuple[torch.Tensor, ...]:
    """Slices of ``x`` along ``axis``, as long as each ``like`` is there; its gradient is the slices'
    gradients concatenated, zeros where a slice got none (OneFlow's ``concat`` + ``zero_like`` grad)."""
    out = []
    start = 0
    for like in likes:
        n = like.shape[axis]
        out.append(x.narrow(axis, start, n))
        start += n
    return tuple(out)


def _check_split_like(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    x, likes, axis = inputs["in"][0], inputs["like"], attrs["axis"]
    rank = likes[0].ndim
    if rank > x.ndim:
        raise invalid("input 'like'", f"blobs of rank <= {x.ndim} (the rank of {x.lbn})", _desc(likes[0]))
    if not 0 <= axis < rank:
        raise invalid("attr 'axis'", f"an int in [0, {rank}) (the rank of the like blobs)", axis)
    if outputs["out"] != len(likes):
        raise invalid("Output('out', n)", f"one blob per like blob ({len(likes)})", outputs["out"])
    static = dynamic = 0
    for like in likes:
        if like.ndim != rank or any(like.shape[j] != x.shape[j] for j in range(rank) if j != axis):
            raise invalid("input 'like'", f"blobs of rank {rank} matching {x.lbn} {x.shape} except on axis {axis}",
                          _desc(like))
        if like.is_dynamic:
            dynamic += like.shape[axis]
        else:
            static += like.shape[axis]
    if static > x.shape[axis] or (not dynamic and static != x.shape[axis]):
        raise invalid("input 'like'", f"blobs whose axis-{axis} sizes add up to {x.shape[axis]} ({x.lbn})",
                      Desc(" + ".join(str(like.shape[axis]) for like in likes)))


register("split_like", inputs=("in", Arg("like", 2, at_least=True)), outputs=(Arg("out", 2, at_least=True),),
         attrs=[AttrSpec("axis", "int64")], kernel=split_like_kernel, check=_check_split_like)


# --- square sums -----------------------------------------------------------------------------------------
def square_sum_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.sum(torch.square(x), dtype=x.dtype).reshape(1)


def multi_square_sum_kernel(xs: list[torch.Tensor]) -> torch.Tensor:
    return torch.stack([torch.sum(torch.square(x), dtype=x.dtype) for x in xs]).sum().reshape(1)


def _check_same_dtype(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    xs = inputs["x"]
    for x in xs[1:]:
        if x.meta.dtype != xs[0].meta.dtype:
            raise invalid("input 'x'", f"blobs of one dtype ({xs[0].lbn}: {xs[0].dtype})", _desc(x))


register("square_sum", inputs=("x",), outputs=("y",), kernel=square_sum_kernel)
register("multi_square_sum", inputs=(Arg("x", 1, at_least=True),), outputs=("y",), kernel=multi_square_sum_kernel,
         check=_check_same_dtype)


def square_sum(x: Blob, name: str | None = None) -> Blob:
    """``flow.experimental.square_sum(x)``: sum(x²) as a (1,) blob of x's dtype (``SquareSum_<n>/y_0``)."""
    x = check_blob(x, "experimental.square_sum", "x")
    op_name = name if name is not None else naming.unique_str("SquareSum_")
    return user_op_builder(op_name).Op("square_sum").Input("x", [x]).Output("y").Build().InferAndTryRun() \
        .RemoteBlobList()[0]


# --- fused_cast_scale ------------------------------------------------------------------------------------
def fused_cast_scale_kernel(x: torch.Tensor, scalar: torch.Tensor) -> torch.Tensor:
    """``x`` cast to ``scalar``'s dtype, times its one value (``fused_cast_scale_kernel.cpp``)."""
    return x.to(scalar.dtype) * scalar.reshape(())


def _check_fused_cast_scale(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    scalar = inputs["scalar"][0]
    if scalar.shape != (1,):
        raise invalid("input 'scalar'", "a (1,) blob (its dtype is y's)", _desc(scalar))


register("fused_cast_scale", inputs=("x", "scalar"), outputs=("y",), kernel=fused_cast_scale_kernel,
         check=_check_fused_cast_scale)


# --- dynamic loss scale ----------------------------------------------------------------------------------
def dynamic_loss_scale_schedule_kernel(count_not_finite: torch.Tensor, loss_scale: torch.Tensor,
                                       good_step_counter: torch.Tensor, increment_period: int,
                                       multiplier: float) -> None:
    """Updates ``loss_scale`` and ``good_step_counter`` in place: a step with non-finite gradients divides
    the scale by ``multiplier`` (not below 1) and restarts the count; ``increment_period`` finite steps in a
    row multiply it (not above FLT_MAX). Branch-free, so a compiled step keeps one graph."""
    with torch.no_grad():
        finite = count_not_finite == 0
        counter = torch.where(finite, good_step_counter + 1, torch.zeros_like(good_step_counter))
        grow = finite & (counter >= increment_period)
        old = loss_scale.double()
        new = torch.where(grow, torch.clamp(old * multiplier, max=_FLT_MAX),
                          torch.where(finite, old, torch.clamp(old / multiplier, min=1.0)))
        loss_scale.copy_(new)
        good_step_counter.copy_(torch.where(grow, torch.zeros_like(counter), counter))


def _check_loss_scale_inputs(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    for name, dtype in (("count_not_finite", torch.int64), ("loss_scale", torch.float32),
                        ("good_step_counter", torch.int64)):
        b = inputs[name][0]
        if b.shape != (1,) or b.meta.dtype != dtype:
            raise invalid(f"input {name!r}", f"a (1,) blob of dtype {str(dtype).removeprefix('torch.')}", _desc(b))


register("dynamic_loss_scale_schedule", inputs=("count_not_finite", "loss_scale", "good_step_counter"), outputs=(),
         attrs=[AttrSpec("increment_period", "int64", 2000), AttrSpec("multiplier", "float", 2.0)],
         kernel=dynamic_loss_scale_schedule_kernel, check=_check_loss_scale_inputs)
