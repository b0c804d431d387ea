"""Ops that are hints to OneFlow's compiler, its multi-device boxing or its profiler, and pass their input
through unchanged on flowtorch's single device: ``amp_white_identity``, ``hierarchical_parallel_cast``,
``profiler.nvtx_start`` / ``profiler.nvtx_end``.

Each still records one op with OneFlow's v0.4.0 name (``AmpWhiteIdentity_<n>/out_0``,
``HierarchicalParallelCast_<n>/out_0``, ``NvtxStart_<n>/out_0``, ``NvtxEnd_<n>/out_0``), so names,
watches and ``watch_scope`` see the same blobs as in OneFlow. The kernel returns a view of its input
(values and gradients pass through).

* ``amp_white_identity`` marks a blob for OneFlow's automatic mixed precision pass; flowtorch runs in the
  job's float type, so there is nothing to mark.
* ``hierarchical_parallel_cast`` changes a blob's distribution (split/broadcast/partial-sum) over a device
  hierarchy; on one device every distribution is the whole tensor. The arguments are checked, then
  change nothing.
* ``nvtx_start`` / ``nvtx_end`` open and close an NVTX range on CUDA; flowtorch records no range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import arg_error, check_blob
from flowtorch._src.ops._record import apply
from flowtorch._src.placement import Distribute

# grad_mode values OneFlow's hierarchical_parallel_cast accepts (user/ops/hierarchical_parallel_cast_op.cpp)
_GRAD_MODES = ("restore", "identity", "manual")


def pass_through_kernel(x: torch.Tensor) -> torch.Tensor:
    return x.view_as(x)


def amp_white_identity(x: Blob, name: str | None = None) -> Blob:
    """``flow.amp_white_identity(x, name=None)``: x unchanged (``AmpWhiteIdentity_<n>/out_0``)."""
    x = check_blob(x, "amp_white_identity", "x")
    return apply(pass_through_kernel, x, op_type="amp_white_identity", prefix="AmpWhiteIdentity", name=name)


def distribution_strings(value: Any, op: str, arg: str) -> list[str]:
    """OneFlow's parallel distribution list as strings: ``"B"``, ``"P"``, ``"S(k)"`` or
    ``flow.distribute.split(k)`` / ``broadcast()`` objects; a comma-separated str is split."""
    if value is None:
        return []
    if isinstance(value, str):
        value = value.split(",") if value else []
    if isinstance(value, Distribute):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise arg_error(op, arg, 'a list of "B", "P", "S(k)" strings or flow.distribute objects', value)
    out = []
    for item in value:
        if isinstance(item, Distribute):
            if item.sbp is None:
                raise arg_error(op, arg, "split or broadcast distributes (OneFlow: 'unsupported distribute')", item)
            out.append(item.sbp)
        elif item is None:
            out.append("")
        elif isinstance(item, str) and (item in ("B", "P", "") or (item.startswith("S(") and item.endswith(")")
                                                                     and item[2:-1].lstrip("-").isdigit())):
            out.append(item)
        else:
            raise arg_error(op, arg, 'a list of "B", "P", "S(k)" strings or flow.distribute objects', value)
    return out


def hierarchical_parallel_cast(input: Blob, parallel_distribution: Sequence[str],  # OneFlow's name
                               grad_mode: str | None = None, grad_parallel_distribution: Sequence[str] | None = None,
                               name: str | None = None) -> Blob:
    """``flow.hierarchical_parallel_cast``: identity on one device (``HierarchicalParallelCast_<n>/out_0``)."""
    op = "hierarchical_parallel_cast"
    x = check_blob(input, op, "input")
    distribution_strings(parallel_distribution, op, "parallel_distribution")
    if grad_mode is not None and grad_mode not in _GRAD_MODES:
        raise arg_error(op, "grad_mode", "None or one of " + ", ".join(repr(m) for m in _GRAD_MODES), grad_mode)
    distribution_strings(grad_parallel_distribution, op, "grad_parallel_distribution")
    return apply(pass_through_kernel, x, op_type="hierarchical_parallel_cast", prefix="HierarchicalParallelCast",
                 name=name)


def _nvtx(x: Blob, mark_prefix: str, name: str | None, op: str, op_type: str, prefix: str) -> Blob:
    x = check_blob(x, op, "x")
    if not isinstance(mark_prefix, str):
        raise arg_error(op, "mark_prefix", "a str", mark_prefix)
    return apply(pass_through_kernel, x, op_type=op_type, prefix=prefix, name=name)


def nvtx_start(x: Blob, mark_prefix: str, name: str | None = None) -> Blob:
    """``flow.profiler.nvtx_start(x, mark_prefix, name=None)``: x unchanged (``NvtxStart_<n>/out_0``)."""
    return _nvtx(x, mark_prefix, name, "profiler.nvtx_start", "nvtx_start", "NvtxStart")


def nvtx_end(x: Blob, mark_prefix: str, name: str | None = None) -> Blob:
    """``flow.profiler.nvtx_end(x, mark_prefix, name=None)``: x unchanged (``NvtxEnd_<n>/out_0``)."""
    return _nvtx(x, mark_prefix, name, "profiler.nvtx_end", "nvtx_end", "NvtxEnd")


__all__ = ["amp_white_identity", "distribution_strings", "hierarchical_parallel_cast", "nvtx_end",
           "nvtx_start"]


def range_push(range_name: str) -> None:
    """``flow.profiler.range_push(range_name)`` (v0.4.0, called on the host, not in a job): opens an NVTX range on
    CUDA (``torch.cuda.nvtx.range_push``); without CUDA there is no profiler to mark, and nothing happens."""
    if not isinstance(range_name, str):
        raise arg_error("profiler.range_push", "range_name", "a str", range_name)
    if torch.cuda.is_available():
        torch.cuda.nvtx.range_push(range_name)


def range_pop() -> None:
    """``flow.profiler.range_pop()`` (v0.4.0): closes the innermost NVTX range (nothing without CUDA)."""
    if torch.cuda.is_available():
        torch.cuda.nvtx.range_pop()
