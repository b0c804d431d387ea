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

import torch
import torch.fx


class StepRecord:
    """Watched values and gradients of one step, indexed by watch slot."""

    __slots__ = ("values", "grads")

    def __init__(self, n_values: int, n_grads: int) -> None:
        self.values: list[torch.Tensor | None] = [None] * n_values
        self.grads: list[torch.Tensor | None] = [None] * n_grads


class _Active(threading.local):
    record: StepRecord | None = None


_active = _Active()


def set_record(record: StepRecord | None) -> None:
    _active.record = record


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
