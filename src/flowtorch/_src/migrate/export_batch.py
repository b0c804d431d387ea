"""Batch-size-free exports: which numbers of a job's graph are its batch size, and how to compute them at run time.

OneFlow's shapes are static, so a job's graph holds its batch size as plain numbers: the ``(100, 784)`` of
``flow.reshape(x, (x.shape[0], -1))``, the ``1/100`` of a mean over the batch, the ``(100, 10)`` a kernel
expands to. :class:`~flowtorch._src.migrate.export_codegen.GraphConverter` converts the graph a second time
with inputs of another batch size (:data:`BatchPlan.other`): a number a kernel computes that differs between
the two is a function of the batch size, written as such (:func:`deduce`). The numbers the job's body wrote
itself into an op's arguments (a reshape's or a constant's shape) cannot be told apart from other numbers by
running anything, so :func:`user_shape` reads the few ops that take a shape: the leading entry of the shape
counts as the batch when it is (a multiple of) the batch size and, for a reshape, its input depends on the
batch; so does a slice's first axis that runs over the whole batch. The mean of ``flow.math.reduce_mean``
(``reduce_sum`` times ``1/count``) is read by the converter, which knows the counts. Anything the second
conversion cannot follow leaves the export's batch size fixed (logged).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

# op type → (position of its shape argument, whether it is a reshape: a leading -1 may stand for the batch)
SHAPE_ARGS: dict[str, tuple[int, bool]] = {
    "reshape": (1, True), "reshape_like": (1, True), "dynamic_reshape": (1, True),
    "broadcast_like": (1, False), "broadcast_to_compatible_with": (1, False), "constant": (1, False),
    "scatter_nd": (2, False),
}  # fmt: skip


@dataclass(frozen=True)
class BatchPlan:
    """The job's batch size (``size``) and the one the second conversion uses (``other``)."""

    size: int

    @property
    def other(self) -> int:
        return 2 * self.size + 3  # never the size itself, nor a likely feature size

    def resized(self, meta: torch.Tensor) -> torch.Tensor:
        """An input's meta tensor at the other batch size."""
        return torch.empty((self.other, *meta.shape[1:]), dtype=meta.dtype, device="meta")


@dataclass(frozen=True)
class BatchExpr:
    """``factor * batch`` (``per_batch`` False) or ``factor / batch`` (True): a number written at run time."""

    factor: int | float
    per_batch: bool = False


def deduce(v1: Any, v2: Any, plan: BatchPlan) -> BatchExpr | None:
    """How ``v1`` (at the job's batch size) and ``v2`` (at the other) follow the batch size, if they do simply."""
    if isinstance(v1, bool) or isinstance(v2, bool) or type(v1) is not type(v2):
        return None
    b1, b2 = plan.size, plan.other
    if isinstance(v1, int):
        if v1 % b1 == 0 and v2 == v1 // b1 * b2:
            return BatchExpr(v1 // b1)
        return None
    if isinstance(v1, float) and math.isfinite(v1) and math.isfinite(v2):
        if math.isclose(v1 / b1, v2 / b2, rel_tol=1e-9):
            return BatchExpr(_tidy_factor(v1 / b1))
        if math.isclose(v1 * b1, v2 * b2, rel_tol=1e-9):
            return BatchExpr(_tidy_factor(v1 * b1), per_batch=True)
    return None


def _tidy_factor(f: float) -> float:
    """``f`` rounded to a whole number or to 1/n when it is one up to rounding (the code reads 1 / (batch * 10))."""
    if f and math.isclose(f, round(f), rel_tol=1e-12):
        return float(round(f))
    if f and math.isclose(1 / f, round(1 / f), rel_tol=1e-12):
        return 1 / round(1 / f)
    return f


def user_shape(op_type: str | None, args: tuple[Any, ...], input_resized: bool, plan: BatchPlan
               ) -> tuple[int, tuple[Any, ...], bool] | None:
    """For an op whose shape argument's leading entry is the batch: (its position, the shape at the other batch
    size, whether a -1 may stand for the entry); else None. ``input_resized``: the op's tensor input changed size
    with the batch. A slice (``flow.slice``, ``slice_v2``) whose first axis runs over the whole batch counts too."""
    if op_type == "slice" and input_resized and len(args) > 1 and isinstance(args[1], tuple) and args[1]:
        first = args[1][0]  # (start, stop, step, flip) per axis: ops/index_ops.py
        if isinstance(first, tuple) and len(first) == 4 and first[:3] == (0, plan.size, 1):
            return 1, ((0, plan.other, 1, first[3]), *args[1][1:]), False
        return None
    if op_type not in SHAPE_ARGS:
        return None
    pos, reshape = SHAPE_ARGS[op_type]
    if pos >= len(args):
        return None
    shape = args[pos]
    if not isinstance(shape, (tuple, list, torch.Size)) or not shape or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape):
        return None
    lead = shape[0]
    if reshape:
        if not input_resized or lead <= 0 or lead % plan.size:
            return None
        return pos, (lead // plan.size * plan.other, *shape[1:]), -1 not in shape[1:]
    if lead != plan.size:
        return None
    return pos, (plan.other, *shape[1:]), False


def same_value(a: Any, b: Any) -> bool:
    """Whether a kernel's argument ``a`` at the job's batch size is ``b`` at the other (NaN is NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    try:
        return bool(a == b)
    except Exception:  # an object without equality: it did not change if it is the same one
        return a is b


def factor_name(f: int | float) -> str:
    """``f`` in a line's name (``batch_x0_5`` for ``batch * 0.5``)."""
    return str(f).replace(".", "_").replace("-", "m")
