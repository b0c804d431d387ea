"""``flow.optimizer.CombinedOptimizer``: several optimizers over disjoint variables in one train job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim.base import Optimizer, StateStore
from flowtorch._src.optim.clipping import LossScalePolicy

__all__ = ["CombinedOptimizer"]


class CombinedOptimizer(Optimizer):
    """Several optimizers in one train job, each over its own ``variables`` (OneFlow v0.4.0).

    Loss scaling and the train step belong to the combination, not to its members; no variable
    may be claimed by two members (a member without ``variables`` claims all of them).
    """

    _needs_scheduler = False

    def __init__(
        self,
        optimizers: Sequence[Optimizer],
        loss_scale_factor: float | None = None,
        train_step_lbn: str | None = None,
        loss_scale_policy: LossScalePolicy | None = None,
    ) -> None:
        super().__init__(None, loss_scale_factor, None, train_step_lbn, loss_scale_policy)
        optimizers = list(optimizers)
        for i, opt in enumerate(optimizers):
            what = f"CombinedOptimizer: optimizers[{i}]"
            if not isinstance(opt, Optimizer) or isinstance(opt, CombinedOptimizer):
                raise ArgumentError(f"{what} must be a (non-combined) optimizer, got {type(opt).__name__}")
            if opt.train_step_lbn is not None:
                raise ArgumentError(f"{what} sets train_step_lbn; set it on the CombinedOptimizer")
            if opt.loss_scale_policy is not None:
                raise ArgumentError(f"{what} sets a loss scale; set it on the CombinedOptimizer")
        self.optimizers = optimizers
        self._checked: set[str] = set()
        self.capturable = all(opt.capturable for opt in optimizers)

    def learning_rate(self, step: int) -> float:
        raise NotImplementedError("CombinedOptimizer has no learning rate of its own; ask its members")

    def numbers_for(self, step: int) -> dict[str, float]:
        """Every member's step numbers, keyed ``"<member index>.<key>"``."""
        return {f"{i}.{k}": v for i, opt in enumerate(self.optimizers) for k, v in opt.numbers_for(step).items()}

    def slot_names(self, var_name: str) -> list[str]:
        return [n for opt in self._owners(var_name) for n in opt.slot_names(var_name)]

    def init_slots(self, var_name: str, var: torch.Tensor, state: StateStore) -> None:
        for opt in self._owners(var_name):
            opt.init_slots(var_name, var, state)

    def _owners(self, var_name: str) -> list[Optimizer]:
        owners = []
        for opt in self.optimizers:
            names = opt.variable_names()
            if names is None or var_name in names:
                owners.append(opt)
        if len(owners) > 1:
            raise ArgumentError(
                f"CombinedOptimizer: variable {var_name!r} is claimed by several optimizers "
                f"({', '.join(type(o).__name__ for o in owners)}); give each a disjoint `variables` list"
            )
        return owners

    def _apply_scaled(
        self,
        params: Sequence[tuple[str, torch.Tensor]],
        grads: Sequence[torch.Tensor | None],
        step: int,
        grad_scale: float,
        state: StateStore,
        regularizers: Mapping[str, tuple[float, float]],
        lr: float | None,
        numbers: Mapping[str, torch.Tensor] | None = None,
    ) -> None:
        for name, _ in params:
            if name not in self._checked:
                self._owners(name)
                self._checked.add(name)
        for i, opt in enumerate(self.optimizers):
            mine = None if numbers is None else {k.split(".", 1)[1]: v for k, v in numbers.items()
                                                 if k.startswith(f"{i}.")}
            opt._apply_scaled(params, grads, step, grad_scale, state, regularizers, lr, mine)
