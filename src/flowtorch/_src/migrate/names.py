"""OneFlow variable names → Python identifiers, shared by checkpoint conversion and export.

OneFlow names variables like ``dense1-weight`` or ``System-Train-TrainStep-train_job``; a PyTorch module
attribute / state-dict key that ``getattr`` can reach must be an identifier. The mapping is deterministic so
that ``convert-checkpoint --rename-for-torch`` and ``flowtorch export`` agree on every name.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable

__all__ = ["OPTIMIZER_SLOTS", "optimizer_state", "torch_name", "unique_torch_names"]

_INVALID = re.compile(r"\W", re.ASCII)
# The suffixes of the variables OneFlow's optimizers keep beside a model variable ``<var>`` (``<var>-momentum``
# of SGD/LARS with momentum, ``<var>-m``/``-v`` of Adam/LAMB, ``-beta1_t``/``-beta2_t`` of LAMB's bias
# correction, ``-mean_square``/``-mean_gradient`` of RMSProp: OneFlow's ``python/ops/optimizer.py``).
OPTIMIZER_SLOTS = ("momentum", "m", "v", "beta1_t", "beta2_t", "mean_square", "mean_gradient")
_TRAINING = "System-"  # System-Train-TrainStep-<job>, System-Train-DynamicLossScale-… : the training's state


def optimizer_state(names: Iterable[str]) -> set[str]:
    """The names among ``names`` that hold training state rather than weights: the optimizers' slots of a
    variable that is among ``names`` too, and OneFlow's ``System-*`` variables (step counters, loss scale)."""
    names = set(names)
    slots = {n for n in names for suffix in OPTIMIZER_SLOTS
             if n.endswith("-" + suffix) and n[:-len(suffix) - 1] in names}
    return slots | {n for n in names if n.startswith(_TRAINING)}


def torch_name(oneflow_name: str) -> str:
    """The identifier for one OneFlow variable name (no collision handling).

    Every character that is not ASCII ``[A-Za-z0-9_]`` becomes ``_``; a name starting with a digit (or an empty
    name) gets the prefix ``v_``; a Python keyword gets a trailing ``_``.
    """
    if not isinstance(oneflow_name, str):
        raise TypeError(f"torch_name: oneflow_name must be a str, got {type(oneflow_name).__name__}")
    name = _INVALID.sub("_", oneflow_name)
    if not name or name[0].isdigit():
        name = "v_" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


def unique_torch_names(names: Iterable[str]) -> dict[str, str]:
    """Map each OneFlow name to a distinct identifier, in the order given.

    Collisions (``a-b`` and ``a.b`` both give ``a_b``) are resolved by suffixing ``_2``, ``_3``… to the later
    names; a suffixed candidate that is itself taken is skipped. Duplicate input names map once.
    """
    result: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        if name in result:
            continue
        base = torch_name(name)
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}_{n}"
        result[name] = candidate
        taken.add(candidate)
    return result
