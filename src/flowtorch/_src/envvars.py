"""flowtorch's numeric environment knobs (``FLOWTORCH_*``): read where they are used, refused with the
variable's name when malformed or out of range."""

from __future__ import annotations

import os


def env_number(name: str, default: float, minimum: float, kind: type[int] | type[float] = int) -> float:
    """``$name`` parsed as ``kind`` (``default`` when unset or empty); ValueError below ``minimum``."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    what = "an int" if kind is int else "a number"
    try:
        value = kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be {what} >= {minimum}; received {raw!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be {what} >= {minimum}; received {raw!r}")
    return value


def env_choice(name: str, choices: tuple[str, ...]) -> str:
    """``$name``, one of ``choices`` (the first when unset or empty); ValueError naming them otherwise."""
    raw = os.environ.get(name) or choices[0]
    if raw not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; received {raw!r}")
    return raw
