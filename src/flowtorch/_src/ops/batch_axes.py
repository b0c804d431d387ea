"""OneFlow's batch axis of an op's outputs (``blob.batch_axis``), by op type.

OneFlow inferred each output's batch axis when the op was added to the job: a user op by its
``SetBatchAxisInferFn``, by default ``BatchAxisInferFnUtil::DefaultAsFirstHasValueInput``
(``core/framework/batch_axis_context.cpp``: the first input that has a batch axis gives it to every
output; none has one, no output has one); a system op by its ``InferBatchAxis``. v0.1.2
(``customized/ops``) and v0.3.4 (``user/ops``) have the same rules for the ops below. :func:`infer` applies
them when :func:`flowtorch._src.ops._record.apply` records an op; a rule reads the op's kernel arguments,
whose order each op module fixes (the same the split rules of ``dist/sbp.py`` read).

Where OneFlow would name an axis the output does not have (``reshape`` keeps its input's axis number), the
blob has no batch axis here (:func:`flowtorch._src.capture.blob.fit_axis`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flowtorch._src.capture.blob import Blob, fit_axis

__all__ = ["RULES", "follow", "infer"]


@dataclass(frozen=True)
class _Op:
    """One op being recorded: its kernel arguments (blobs among them) and its outputs."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    outputs: Sequence[Blob]

    def arg(self, i: int, default: Any = None) -> Any:
        return self.args[i] if len(self.args) > i else default

    def axis(self, i: int) -> int | None:
        """The batch axis of argument ``i`` (None: no blob there, or a blob without one)."""
        a = self.arg(i)
        return a.batch_axis if isinstance(a, Blob) else None

    def ndim(self, i: int) -> int:
        a = self.arg(i)
        return a.ndim if isinstance(a, Blob) else 0


# A rule gives one batch axis for every output, or a list with one per output.
Rule = Callable[[_Op], "int | None | list[int | None]"]


def _blobs(tree: Any) -> list[Blob]:
    if isinstance(tree, Blob):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [b for item in tree for b in _blobs(item)]
    if isinstance(tree, dict):
        return [b for item in tree.values() for b in _blobs(item)]
    return []


def first_has_value(op: _Op) -> int | None:
    """OneFlow's default (``DefaultAsFirstHasValueInput``, and ``NaiveInferBatchAxis`` of one output): the
    batch axis of the first input blob that has one."""
    return next((b.batch_axis for b in _blobs((op.args, op.kwargs)) if b.batch_axis is not None), None)


def _no_batch_axis(op: _Op) -> None:
    """Constants, ranges and variables (``constant_op.cpp``, ``range_op.cpp``, ``variable_op.cpp``)."""
    return None


def _first_axis(op: _Op) -> int:
    """Sources that make batches (``TestSource`` … in ``test_ops.cpp``; the readers): axis 0."""
    return 0


def _of_arg(i: int) -> Rule:
    """Every output takes argument ``i``'s batch axis (``like`` ops, the loss ops' ``label``)."""
    return lambda op: op.axis(i)


def _reduce(op: _Op) -> int | None:
    """``reduce_ops.cpp``: kept with ``keepdims`` or when its axis is not reduced (at the same number)."""
    x, axes, keepdims = op.arg(0), op.arg(1), bool(op.arg(2))
    axis = op.axis(0)
    if axis is None or not isinstance(x, Blob):
        return None
    reduced = range(x.ndim) if axes is None else [a % max(x.ndim, 1) for a in axes]
    return axis if keepdims or axis not in reduced else None


def _argmax(op: _Op) -> int | None:
    """``argmax_op.cpp``: lost when the batch axis is the last (the one reduced)."""
    axis = op.axis(0)
    return axis if axis is not None and axis != op.ndim(0) - 1 else None


def _matmul(op: _Op) -> int | None:
    """``matmul_op.cpp`` (2-D): a's batch axis when, after ``transpose_a``, it is a's rows; else b's when,
    after ``transpose_b``, it is b's columns; else none."""
    a_axis, b_axis = op.axis(0), op.axis(1)
    if a_axis is not None and bool(op.arg(2)):
        a_axis = 1 - a_axis
    if b_axis is not None and bool(op.arg(3)):
        b_axis = 1 - b_axis
    if a_axis == 0:
        return a_axis
    return b_axis if b_axis == 1 else None


def _batch_matmul(op: _Op) -> int | None:
    """``batch_matmul``: a's batch axis, else b's."""
    return op.axis(0) if op.axis(0) is not None else op.axis(1)


def _transpose(op: _Op) -> int | None:
    """``transpose_ops.cpp``: ``perm[batch_axis]``, as OneFlow wrote it (the output axis that holds the batch
    is ``perm.index(batch_axis)``; the two agree for the usual swaps of two axes)."""
    axis, perm = op.axis(0), op.arg(1)
    if axis is None or not isinstance(perm, (list, tuple)) or not 0 <= axis < len(perm):
        return None
    return int(perm[axis]) % len(perm)


def _squeeze(op: _Op) -> int | None:
    """``squeeze_op.cpp``: lost when squeezed, else moved left past the squeezed axes before it."""
    axis, axes = op.axis(0), op.arg(1)
    if axis is None:
        return None
    squeezed = [a % max(op.ndim(0), 1) for a in (axes or ())]
    return None if axis in squeezed else axis - sum(a < axis for a in squeezed)


def _expand_dims(op: _Op) -> int | None:
    """``expand_dims_op.cpp``: moved right when the new axis is inserted at or before it."""
    axis, new = op.axis(0), op.arg(1)
    if axis is None or not isinstance(new, int):
        return None
    return axis + 1 if new <= axis else axis


def _flatten(op: _Op) -> int | None:
    """``flatten_op.cpp``: kept before ``start_dim``, ``start_dim`` inside the flattened range, moved left
    after it. (OneFlow read the input's axis without asking whether it had one, so a blob without a batch
    axis came out with axis 0 or ``start_dim``; here it comes out without one.)"""
    axis, start, end = op.axis(0), op.arg(1, 0), op.arg(2, -1)
    if axis is None or not isinstance(start, int) or not isinstance(end, int):
        return None
    end %= max(op.ndim(0), 1)
    if axis < start:
        return axis
    return start if axis <= end else axis - (end - start)


def _gather(op: _Op) -> int | None:
    """``gather_op.cpp``: the indices' batch axis, shifted by the gather axis; none without one."""
    axis, indices_axis = op.arg(2, 0), op.axis(1)
    return None if indices_axis is None or not isinstance(axis, int) else axis + indices_axis


def _segment_sum(op: _Op) -> int | None:
    """``unsorted_segment_sum_op.cpp``: the data's batch axis before ``axis`` stays, inside the segment ids'
    axes it is lost, after them it moves (OneFlow compared with the ids' rank, not ``axis`` + rank: kept)."""
    axis, data_axis, ids_ndim = op.arg(3, 0), op.axis(0), op.ndim(1)
    if data_axis is None or not isinstance(axis, int):
        return None
    if data_axis < axis:
        return data_axis
    if data_axis < axis + ids_ndim:
        return None
    return data_axis - ids_ndim + 1 if data_axis >= ids_ndim else None


def _softmax_cross_entropy(op: _Op) -> list[int | None]:
    """``(sparse_)softmax_cross_entropy``: ``prob`` takes the prediction's, ``out`` the label's (the kernels
    here take ``(labels, logits)``)."""
    return [op.axis(1), op.axis(0)]


def _normalization(op: _Op) -> list[int | None]:
    """``normalization_op.cpp``: ``y`` keeps x's; ``mean`` and ``inv_variance`` have none."""
    return [op.axis(0)] + [None] * (len(op.outputs) - 1)


def _argwhere(op: _Op) -> list[int | None]:
    """``arg_where_op.cpp``: the coordinates are batch 0 when the condition has a batch axis; the count none."""
    return [0 if op.axis(0) is not None else None, None]


def _batch_permutation(op: _Op) -> int | None:
    """``generate_random_batch_permutation_indices_op.cpp``: batch 0 when x's batch axis is 0."""
    return 0 if op.axis(0) == 0 else None


# Keyed by OneFlow's op type (``ops/op_types.py``, the node's ``flowtorch_op_type``). Every other type takes
# the default, :func:`first_has_value`.
RULES: dict[str, Rule] = {
    "constant": _no_batch_axis,
    "range": _no_batch_axis,
    "TestSource": _first_axis,
    "TestSourceMultiGpuFixedOutNum": _first_axis,
    "TestDynamicSource": _first_axis,
    "argmax": _argmax,
    "matmul": _matmul,
    "batch_matmul": _batch_matmul,
    "broadcast_matmul": _batch_matmul,
    "transpose": _transpose,
    "squeeze": _squeeze,
    "expand_dims": _expand_dims,
    "flatten": _flatten,
    "gather": _gather,
    "local_gather": _gather,  # (v0.1.0: a gather on the device's own part)
    "dim_gather": _of_arg(2),  # (x, dim, index): the index's
    "unsorted_segment_sum": _segment_sum,
    "unsorted_segment_sum_like": _of_arg(2),  # (data, segment_ids, like, axis)
    "sparse_softmax_cross_entropy": _softmax_cross_entropy,
    "sparse_softmax_cross_entropy_ms": _softmax_cross_entropy,
    "softmax_cross_entropy": _softmax_cross_entropy,
    "sparse_cross_entropy": _of_arg(0),  # (labels, prediction): the label's
    "normalization": _normalization,
    "normalization_add_relu": _normalization,
    "argwhere": _argwhere,
    "generate_random_batch_permutation_indices": _batch_permutation,
}
for _reduce_type in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all"):
    RULES[_reduce_type] = _reduce


def infer(op_type: str, args: tuple[Any, ...], kwargs: dict[str, Any], outputs: Sequence[Blob]) -> None:
    """Set the batch axis of each of an op's ``outputs`` by its type's rule."""
    if not outputs:
        return
    op = _Op(args, kwargs, outputs)
    found = RULES.get(op_type, first_has_value)(op)
    axes = found if isinstance(found, list) else [found] * len(outputs)
    for blob, axis in zip(outputs, axes):
        blob.batch_axis = fit_axis(axis, blob.ndim)


def follow(out: Blob, source: Blob) -> Blob:
    """``out`` takes ``source``'s batch axis, for ops whose rule reads an input the kernel does not take as a
    blob (``reshape_like``/``broadcast_like``: the ``like`` blob's; ``transpose(batch_axis_non_change=True)``:
    the input's own)."""
    out.batch_axis = fit_axis(source.batch_axis, out.ndim)
    return out
