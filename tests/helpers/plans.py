"""Jobs planned as on several processes, in one: what ``dist/sbp.py`` makes of a job graph, for tests."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch

from flowtorch._src import session
from flowtorch._src.dist import collectives
from flowtorch._src.dist.sbp import Plan, Split
from flowtorch._src.step import distributed


class _World:
    """The collectives of ``size`` ranks that are threads of this process."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.barrier = threading.Barrier(size, timeout=60)
        self.slots: list[Any] = [None] * size
        self.local = threading.local()

    def _exchange(self, x: torch.Tensor) -> list[torch.Tensor]:
        self.slots[self.local.rank] = x
        self.barrier.wait()
        got = list(self.slots)
        self.barrier.wait()  # every rank has read before any writes again
        return got

    def gather(self, x: torch.Tensor, axis: int) -> torch.Tensor:
        return torch.cat(self._exchange(x), axis)

    def sum_partial(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack(self._exchange(x)).sum(0)

    def mean_partial(self, x: torch.Tensor) -> torch.Tensor:
        return self.sum_partial(x) / self.size

    def local_part(self, x: torch.Tensor, axis: int, parts: int | None = None, index: int | None = None
                   ) -> torch.Tensor:
        return torch.chunk(x, self.size, axis)[self.local.rank]


@dataclass
class Planned:
    """A job's plan and its graph as rewritten for its ranks (before the one-process step compiles it)."""

    ranks: int
    plan: Plan
    module: torch.fx.GraphModule
    var_names: list[str]
    var_values: list[torch.Tensor]

    def inserted(self) -> list[tuple[str, str, int | None]]:
        """Each collective the rules inserted, in graph order: its name, what it reads (``input_k``, a variable's
        name or the op type) and its axis (None for a sum)."""
        found = []
        for node in self.module.graph.nodes:
            if node.op == "call_function" and getattr(node.target, "__module__", "") == collectives.__name__:
                source = node.args[0]
                found.append((node.target.__name__, self._describe(source), node.args[1] if len(node.args) > 1
                              else None))
        return found

    def _describe(self, node: torch.fx.Node) -> str:
        if node.op == "placeholder" and node.name.startswith("var_"):
            return self.var_names[int(node.name[4:])]
        if node.op == "placeholder":
            return node.name
        return node.meta.get("flowtorch_op_type", node.name)

    def run_on_ranks(self, *arrays: np.ndarray, variables: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
        """The job's logical returns computed as its ranks would: each runs the graph on its part of every split
        input (and the whole of the others, variables included: their values at build, or ``variables``), the
        collectives exchange among the ranks; a split return is the ranks' parts joined, a broadcast one must
        be the same on every rank."""
        world = _World(self.ranks)
        module = copy.deepcopy(self.module)
        for node in module.graph.nodes:
            if node.op == "call_function" and getattr(node.target, "__module__", "") == collectives.__name__:
                node.target = getattr(world, node.target.__name__)  # an unknown collective fails here
        module.recompile()
        given = variables or {}
        values = [torch.from_numpy(given[n]) if n in given else v for n, v in zip(self.var_names, self.var_values,
                                                                                   strict=True)]
        device = values[0].device if values else torch.device("cpu")  # the job's variables' device (CUDA or CPU)
        inputs = [torch.from_numpy(a).to(device) for a in arrays]
        values = [v.to(device) for v in values]
        results: list[Any] = [None] * self.ranks
        errors: list[BaseException] = []

        def rank_main(rank: int) -> None:
            world.local.rank = rank
            try:
                mine = [torch.chunk(x, self.ranks, s.axis)[rank] if isinstance(s, Split) else x
                        for x, s in zip(inputs, self.plan.inputs, strict=True)]
                with torch.no_grad():
                    results[rank] = module(*mine, *[v.clone() for v in values])  # each rank has its own copy
            except BaseException as exc:
                errors.append(exc)
                world.barrier.abort()

        threads = [threading.Thread(target=rank_main, args=(r,)) for r in range(self.ranks)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        logical = []
        for i, state in enumerate(self.plan.returns):
            parts = [results[r][0][i] for r in range(self.ranks)]
            if isinstance(state, Split):
                logical.append(torch.cat(parts, state.axis).cpu().numpy())
            else:
                for r in range(1, self.ranks):
                    np.testing.assert_array_equal(parts[r].cpu().numpy(), parts[0].cpu().numpy(),
                                                  err_msg=f"return {i}, rank {r}")
                logical.append(parts[0].cpu().numpy())
        return logical


def plan_as_on(ranks: int, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Planned]:
    """``build(name) -> Planned``: starts the session with its jobs planned as on ``ranks`` processes and hands
    back job ``name``'s plan and rewritten graph. The steps themselves stay one process's (``plan_step``
    answers None to them), and the variables are taken as broadcast already."""
    plans: dict[str, Planned] = {}
    real_plan_step = distributed.plan_step
    monkeypatch.setattr(collectives, "world_size", lambda: ranks)
    monkeypatch.setattr(collectives, "broadcast_", lambda tensors: None)

    def spy(job_name: str, built: Any, variables: Any) -> None:
        plan = real_plan_step(job_name, built, variables)
        plans[job_name] = Planned(ranks, plan, copy.deepcopy(built.module), list(built.var_names),
                                  [variables[n].tensor.detach().clone() for n in built.var_names])

    monkeypatch.setattr(distributed, "plan_step", spy)

    def build(name: str) -> Planned:
        session.default_session().start()
        return plans[name]
    return build
