"""flowtorch's environment knobs (``FLOWTORCH_*``): read where they are used, through these readers, which
refuse a malformed or out-of-range value with the variable's name, the values it takes and the value
received (``FLOWTORCH_MAX_INFLIGHT must be an int >= 1; received '2.5'``). README.md's knob table lists
them all."""

from __future__ import annotations

import math
import os

_FALSE = ("0", "false", "no", "off")
_TRUE = ("1", "true", "yes", "on")


def env_number(name: str, default: float, minimum: float, kind: type[int] | type[float] = int,
               maximum: float | None = None) -> float:
    """``$name`` parsed as ``kind`` (``default`` when unset or empty); ValueError naming the variable when it
    is no ``kind`` ("2.5" for an int; NaN or an infinity for a number) or lies outside
    ``minimum..maximum``."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    what = ("an int" if kind is int else "a finite number") + f" >= {minimum}"
    if maximum is not None:
        what += f" and <= {maximum}"
    try:
        value = kind(raw.strip())
    except ValueError:
        raise ValueError(f"{name} must be {what}; received {raw!r}") from None
    if not math.isfinite(value) or value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {what}; received {raw!r}")
    return value


def env_int(name: str, default: int, minimum: int, maximum: int | None = None) -> int:
    """``$name`` as an int (``default`` when unset or empty): :func:`env_number` with ``kind=int``, so a
    fraction such as ``2.5`` is refused, not truncated."""
    return int(env_number(name, default, minimum, int, maximum))


def env_choice(name: str, choices: tuple[str, ...]) -> str:
    """``$name``, one of ``choices`` (the first when unset or empty); ValueError naming them otherwise."""
    raw = os.environ.get(name) or choices[0]
    if raw not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; received {raw!r}")
    return raw


def env_flag(name: str) -> bool:
    """``$name`` as a switch: on for ``1`` (or true/yes/on), off for ``0`` (false/no/off) or unset or empty,
    any case; ValueError naming the values it takes otherwise."""
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if value in ("", *_FALSE):
        return False
    if value in _TRUE:
        return True
    raise ValueError(f"{name} must be 1 or 0 (also true/false, yes/no, on/off); received {raw!r}")


def compile_backend(name: str = "FLOWTORCH_COMPILE_BACKEND", default: str = "inductor") -> str:
    """``$name``: the ``torch.compile`` backend a ``FLOWTORCH_CAPTURE=compile`` step uses (``default`` when unset
    or empty), one of the names torch's registry lists (``torch._dynamo.list_backends``, debug and experimental
    ones included: ``eager``, ``aot_eager``, ``inductor`` …, and those installed packages register); ValueError
    naming them otherwise, before anything is compiled (torch would raise its ``InvalidBackend`` at the first
    step)."""
    raw = os.environ.get(name, "").strip() or default
    # (imported here, not at the top: this module is read by the interpreter-start hook, and torch._dynamo
    # costs seconds to import; only a compiled step reads this knob)
    from torch._dynamo import list_backends  # noqa: PLC0415 - see above

    known = list_backends(exclude_tags=())
    if raw not in known:
        raise ValueError(f"{name} must be one of {', '.join(known)} (torch.compile's registered backends); "
                         f"received {raw!r}")
    return raw
