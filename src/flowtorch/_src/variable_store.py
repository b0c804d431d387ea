"""The variable store: one per session, keyed by name, in creation order (spec §6).

A variable is a leaf tensor that lives as long as the session. Jobs read it through a graph placeholder,
so the same tensor serves every job that names it, and updates made by one job are seen by the next.
Optimizer state (``<var>-momentum``, ``<var>-m`` …) and train-step counters live in the same store so
``flow.get_all_variables()`` and checkpoints see them, as in OneFlow. ``flow.get_variable`` (the API that
makes them inside a job body) is :mod:`flowtorch._src.variables`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes


@dataclass
class Variable:
    name: str
    tensor: torch.Tensor
    trainable: bool
    initializer: Any = None
    regularizer: Any = None
    # OneFlow's variable_conf.parallel_distribution ("B", "S(0)" …): recorded, no effect on one device
    parallel_distribution: tuple[str, ...] = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_torch(self.tensor.dtype)

    def numpy(self) -> np.ndarray:
        return self.tensor.detach().cpu().numpy().copy()


class VariableStore:
    """Name → :class:`Variable`, in creation order."""

    def __init__(self, device: str) -> None:
        self.device = device
        self._vars: dict[str, Variable] = {}
        #: Counts the writes from outside the jobs (:meth:`assign`: checkpoint loads, interface blobs), so a
        #: job's host copy of its train-step counter knows when to read the variable again.
        self.generation = 0

    def __contains__(self, name: str) -> bool:
        return name in self._vars

    def __getitem__(self, name: str) -> Variable:
        return self._vars[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._vars)

    def __len__(self) -> int:
        return len(self._vars)

    def items(self) -> Iterator[tuple[str, Variable]]:
        return iter(list(self._vars.items()))

    def create(self, name: str, value: torch.Tensor, *, trainable: bool, initializer: Any = None,
               regularizer: Any = None) -> Variable:
        if name in self._vars:
            raise KeyError(f"variable {name!r} already exists")
        tensor = value.detach().to(self.device).contiguous()
        if trainable and tensor.is_floating_point():
            tensor.requires_grad_(True)
        var = Variable(name, tensor, trainable, initializer, regularizer)
        self._vars[name] = var
        return var

    def get(self, name: str, like: torch.Tensor) -> torch.Tensor:
        """Optimizer state: a zero tensor shaped like ``like``, created on first use (StateStore protocol)."""
        var = self._vars.get(name)
        if var is None:
            var = self.create(name, torch.zeros_like(like.detach()), trainable=False)
        return var.tensor

    def assign(self, name: str, value: np.ndarray | torch.Tensor, *, what: str = "load_variables") -> None:
        """Copy ``value`` into variable ``name`` in place (same tensor, so captured jobs see it)."""
        var = self._vars[name]
        src = torch.as_tensor(np.ascontiguousarray(value) if isinstance(value, np.ndarray) else value)
        if tuple(src.shape) != var.shape or src.dtype != var.tensor.dtype:
            raise AssertionError(
                f"{what}: variable {name!r} expects shape {var.shape} dtype {var.dtype}; received shape "
                f"{tuple(src.shape)} dtype {dtypes.from_torch(src.dtype) if src.dtype in _TORCH_OK else src.dtype}"
                f" ({var.shape} vs {tuple(src.shape)})")
        with torch.no_grad():
            var.tensor.copy_(src)
        self.generation += 1


_TORCH_OK = {d.torch_dtype for d in dtypes.ALL}
