"""Lazy embedding updates in a train step (``indexed_slices_optimizer_conf``; the math is in
:mod:`flowtorch._src.optim.indexed_slices`).

A listed trainable variable qualifies as in OneFlow's rewrite pass (``indexed_slices_optimizer_rewrite_pass.cpp``)
when its only gradient path is one ``flow.gather`` on axis 0 taking it as ``params``, directly or through
multiplications by a Python number (``scalar_mul``, whose factors the pass moves onto the gradient rows) and
``parallel_cast`` s, each with no other consumer. Value watches and returns carry no gradient and do not count;
a second use or another gather form keeps it dense, since OneFlow's gradient would then not come straight from
the gather's backward. The job must also not accumulate gradients (OneFlow's accumulation pass runs first and
puts its own op between the gather's backward and the update), and
:func:`~flowtorch._src.optim.indexed_slices.row_owner` must accept its optimizer. A
``watch_diff`` on the variable itself also keeps it dense: the watcher needs the dense gradient (OneFlow adds
diff watchers after the rewrite, when that gradient no longer exists).

For such a variable the step never forms the dense ``(vocab, ...)`` gradient. The gather node is switched to
:func:`sparse_gather_kernel`, which gathers from the *detached* (scaled) variable and makes its output a leaf that
requires grad; the graph also returns that output and the indices. The step differentiates the losses with
respect to the output (the gradient rows) and hands ``(indices, rows)`` to the update as a :class:`RowGrad`.
Variables that do not qualify, and jobs without the conf, keep the unchanged dense path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import torch
import torch.fx

from flowtorch._src.capture.builder import ConfigView
from flowtorch._src.ops.identity_ops import parallel_cast_kernel
from flowtorch._src.ops.index_ops import gather_kernel
from flowtorch._src.ops.math_ops import scalar_mul_kernel
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.optim.indexed_slices import parse_conf, row_owner
from flowtorch._src.watch import taps


def sparse_gather_kernel(params: torch.Tensor, indices: torch.Tensor, axis: int) -> torch.Tensor:
    """``gather_kernel`` on the detached variable; the output is a leaf whose gradient the step takes."""
    out = gather_kernel(params.detach(), indices, axis)
    if torch.is_grad_enabled():
        out.requires_grad_(True)
    return out


@dataclass
class SparseVar:
    """A variable updated row by row: its index in the step's trainable list and its updating optimizer."""

    name: str
    position: int
    owner: Optimizer
    scale: float = 1.0  # the product of the scalar_mul s between the variable and its gather


@dataclass
class RowGrad:
    """The gradient of a gather output: the rows ``values`` (raw, unscaled) for ``indices``."""

    indices: torch.Tensor
    values: torch.Tensor


# A trainable variable's raw gradient: dense, the rows of a row-wise variable, or none.
Grad: TypeAlias = "torch.Tensor | RowGrad | None"


def dense(grads: Sequence[Grad]) -> list[torch.Tensor | None]:
    """The gradients of a step without row-wise variables (those run eagerly and accumulate nothing)."""
    out = [g for g in grads if not isinstance(g, RowGrad)]
    if len(out) != len(grads):
        raise TypeError("row-wise gradients from a step that has no row-wise variables")
    return out


def _gradient_users(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The consumers of ``node`` that pass a gradient back to it (not value watches, nor the graph's output
    where ``node`` is only returned, not a loss)."""
    def carries_gradient(user: torch.fx.Node) -> bool:
        if user.target is taps.value_tap:
            return False
        if user.op != "output":
            return True
        returns_and_losses = cast("tuple[Any, ...]", user.args[0])
        return node in returns_and_losses[1]  # a loss; only returned: no gradient
    return [u for u in node.users if carries_gradient(u)]


def _gathered(var: torch.fx.Node) -> tuple[torch.fx.Node, torch.fx.Node, float] | None:
    """The axis-0 gather node that is the variable's only gradient path (through ``scalar_mul`` s and
    ``parallel_cast`` s), its indices and the product of those scalars; None when there is no such gather."""
    node, scale = var, 1.0
    while True:
        users = _gradient_users(node)
        if len(users) != 1 or users[0].op != "call_function" or users[0].kwargs or users[0].args[0] is not node:
            return None
        user = users[0]
        if user.target is scalar_mul_kernel and len(user.args) == 2 and isinstance(user.args[1], (int, float)):
            scale *= float(user.args[1])
        elif user.target is not parallel_cast_kernel:
            break
        node = user
    if user.target is not gather_kernel or len(user.args) != 3 or user.args[2] != 0:
        return None
    indices = user.args[1]
    if not isinstance(indices, torch.fx.Node) or indices is node:
        return None
    return user, indices, scale


def plan(module: torch.fx.GraphModule, n_inputs: int, var_names: Sequence[str],
         trainable: Sequence[tuple[str, torch.Tensor]], optimizer: Optimizer | None,
         regularizers: Mapping[str, tuple[float, float]], config: ConfigView | None, accumulation: int
         ) -> list[SparseVar]:
    """Find the qualifying variables and rewrite ``module`` for them (see the module docstring). The graph's
    output gains a third entry, ``((gather_out, indices), ...)`` in the order of the returned list."""
    if config is None or optimizer is None:
        return []
    names = parse_conf(config.get("indexed_slices_optimizer_conf"))
    if not names or accumulation > 1:
        return []
    placeholders = [n for n in module.graph.nodes if n.op == "placeholder"]
    found: list[SparseVar] = []
    pairs: list[tuple[torch.fx.Node, torch.fx.Node]] = []
    for position, (name, _) in enumerate(trainable):
        if name not in names:
            continue
        owner = row_owner(optimizer, name, regularizers)
        if owner is None:
            continue
        chain = _gathered(placeholders[n_inputs + list(var_names).index(name)])
        if chain is None:
            continue
        gather, indices, scale = chain
        gather.target = sparse_gather_kernel
        found.append(SparseVar(name, position, owner, scale))
        pairs.append((gather, indices))
    if found:
        output = next(n for n in reversed(module.graph.nodes) if n.op == "output")
        outs, losses = output.args[0]
        output.args = ((outs, losses, tuple(pairs)),)
        module.recompile()
    return found
