"""``flow.experimental.scope.config(**attrs)``: OneFlow's per-scope attributes (``framework/scope_util.py``).

A context manager; ops built inside belong to a scope carrying the given attributes. OneFlow v0.4.0
registers five (``core/job/*_config_def.cpp``) and asserts on any other name:

* ``checkpointing`` (bool, False): OneFlow recomputed the scope's activations in backward (sublinear
  memory); recorded, and activations are kept (same numbers, more memory).
* ``pipeline_stage_id_hint`` (int, 0): the pipeline-parallel stage of the scope's ops; recorded (one device).
* ``quantization_aware_training`` (bool, True): the QAT pass on or off for the scope's ops
  (:mod:`flowtorch._src.step.qat`; the builder keeps non-default attributes on each op's node).
* ``ssp_num_stages`` / ``ssp_stage_id`` (int, -1): stale-synchronous-parallel stages; recorded.

:func:`current_attrs` gives the attributes in effect (innermost scope wins).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

ATTR_DEFAULTS: dict[str, bool | int] = {
    "checkpointing": False,
    "pipeline_stage_id_hint": 0,
    "quantization_aware_training": True,
    "ssp_num_stages": -1,
    "ssp_stage_id": -1,
}

_stack: list[dict[str, Any]] = []


def _check(name: str, value: Any) -> bool | int:
    if name not in ATTR_DEFAULTS:
        raise AssertionError(f"flow.experimental.scope.config: unknown scope attribute {name!r}; OneFlow v0.4.0 "
                             f"knows {', '.join(sorted(ATTR_DEFAULTS))}")
    default = ATTR_DEFAULTS[name]
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise TypeError(f"flow.experimental.scope.config: {name} takes a bool; received {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"flow.experimental.scope.config: {name} takes an int; received {value!r}")
    return value


@contextlib.contextmanager
def config(**kwargs: Any) -> Iterator[None]:
    """``with flow.experimental.scope.config(checkpointing=True):`` — ops built inside get these attributes."""
    attrs = {name: _check(name, value) for name, value in kwargs.items()}
    _stack.append(attrs)
    try:
        yield
    finally:
        _stack.pop()


def current_attrs() -> dict[str, bool | int]:
    """Every scope attribute's value where this is called (defaults, overridden by enclosing scopes)."""
    out = dict(ATTR_DEFAULTS)
    for attrs in _stack:
        out.update(attrs)
    return out


__all__ = ["ATTR_DEFAULTS", "config", "current_attrs"]
