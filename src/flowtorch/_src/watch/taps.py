"""Value and gradient taps: the graph nodes behind ``watch`` and ``watch_diff``.

A job's captured graph calls :func:`value_tap` on each watched blob and routes every use of a
diff-watched blob through :func:`diff_tap`, which hangs a ``Tensor.register_hook`` on that step's
tensor. Both write into the :class:`StepRecord` of the step being run; the executor hands the record's
values to the user's handlers once the step is done. Outside a step (``_active.record is None``) the
taps do nothing, so tracing or exporting a job never fires a handler.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.fx


class StepRecord:
    """Watched values and gradients of one step, indexed by watch slot; ``checks``: host checks that run
    once the step's values reach the host, each a flag (a 0-d device bool, true when there is something to
    report) and the report (see :func:`flowtorch._src.runtime.graph_capture.defer`). ``static``: the step's
    tensors (returns included) live in a graph's buffers, which the next replay rewrites; otherwise they are
    the step's own and nobody writes them again."""

    __slots__ = ("values", "grads", "checks", "static")

    def __init__(self, n_values: int, n_grads: int) -> None:
        self.values: list[torch.Tensor | None] = [None] * n_values
        self.grads: list[torch.Tensor | None] = [None] * n_grads
        self.checks: list[tuple[torch.Tensor, Callable[[], None]]] = []
        self.static = False


@dataclass
class StepOutput:
    """What one step gives back: its returned tensors and the watched values and gradients it recorded."""

    returns: list[torch.Tensor]
    record: StepRecord


class _Active(threading.local):
    record: StepRecord | None = None


_active = _Active()
# The same record for gradient taps inside compiled backward graphs: on CUDA, autograd runs the backward
# pass on its own device thread, where ``_active`` is empty. Steps run one at a time (the executor's step
# lock), so one process-wide slot is enough.
_stepping: list[StepRecord | None] = [None]


def set_record(record: StepRecord | None) -> None:
    _active.record = record
    _stepping[0] = record


def active_record() -> StepRecord | None:
    """The record of the step running on this thread (None outside a step)."""
    return _active.record


def value_tap(x: torch.Tensor, slot: int, copy: bool) -> None:
    """Keep this step's value of a watched blob (a copy for variables, which the update mutates)."""
    record = _active.record
    if record is not None:
        value = x.detach()
        record.values[slot] = value.clone() if copy else value


def _store_grad(record: StepRecord, slot: int, grad: torch.Tensor) -> None:
    record.grads[slot] = grad.detach()


def diff_tap(x: torch.Tensor, slot: int) -> torch.Tensor:
    """Pass ``x`` on and capture the gradient that reaches it in this step's backward pass.

    Blobs that need no gradient (inputs, non-trainable variables, predict jobs) are passed through
    untouched, which is OneFlow's rule: their diff watchers are silently never called. A leaf (a
    trainable variable) is aliased first, so the hook lives on a fresh tensor each step instead of
    piling up on the variable.
    """
    record = _active.record
    if record is None or not x.requires_grad or not torch.is_grad_enabled():
        return x
    y = x.view_as(x) if x.is_leaf else x
    y.register_hook(functools.partial(_store_grad, record, slot))
    return y


torch.fx.node.has_side_effect(value_tap)
torch.fx.node.has_side_effect(diff_tap)


# --- compile-clean versions ------------------------------------------------------------------------
# Under torch.compile a Python function that writes into a dict breaks the graph; an opaque custom op
# does not (measured in ../shared/notes/capturing-values-and-gradients.md). Marked side-effectful so the
# compiler keeps them although they return nothing.
@torch.library.custom_op("flowtorch::value_tap", mutates_args=())
def _value_tap_op(x: torch.Tensor, slot: int, copy: bool) -> None:
    value_tap(x, slot, copy)


@_value_tap_op.register_fake
def _value_tap_fake(x: torch.Tensor, slot: int, copy: bool) -> None:
    return None


@torch.library.custom_op("flowtorch::grad_tap", mutates_args=())
def _grad_tap_op(grad: torch.Tensor, slot: int) -> None:
    record = _active.record if _active.record is not None else _stepping[0]
    if record is not None:
        _store_grad(record, slot, grad)


@_grad_tap_op.register_fake
def _grad_tap_fake(grad: torch.Tensor, slot: int) -> None:
    return None


torch.fx.node.has_side_effect(torch.ops.flowtorch.value_tap.default)
torch.fx.node.has_side_effect(torch.ops.flowtorch.grad_tap.default)


def compiled_value_tap(x: torch.Tensor, slot: int, copy: bool) -> None:
    torch.ops.flowtorch.value_tap(x, slot, copy)


def _grad_hook(slot: int, grad: torch.Tensor) -> None:
    torch.ops.flowtorch.grad_tap(grad, slot)


def compiled_diff_tap(x: torch.Tensor, slot: int) -> torch.Tensor:
    """:func:`diff_tap` for compiled steps: the step record is looked up inside the opaque op."""
    if not x.requires_grad or not torch.is_grad_enabled():
        return x
    y = x.view_as(x) if x.is_leaf else x
    y.register_hook(functools.partial(_grad_hook, slot))
    return y


COMPILED = {value_tap: compiled_value_tap, diff_tap: compiled_diff_tap}
