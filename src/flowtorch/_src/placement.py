"""``flow.scope.placement``, the logical views and ``flow.distribute``, on one torch device.

flowtorch runs a session on one device (CUDA when present, else CPU); placements are recorded so
``flow.current_scope()`` answers as OneFlow did, and a "gpu" placement without CUDA falls back to the
CPU with one warning, as OneFlow's CPU builds did.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from flowtorch._src.deprecation import deprecated_alias, mark_deprecated

log = logging.getLogger("flowtorch")

_stack: list[tuple[str, tuple[str, ...]]] = []
_warned_no_gpu = False


def _check_ids(ids: Any) -> tuple[str, ...]:
    items = [ids] if isinstance(ids, (str, int)) else list(ids) if isinstance(ids, (list, tuple)) else None
    if items is None:
        raise TypeError(f"scope.placement: device ids must be a str like '0:0' or '0:0-3', or a list of them; "
                        f"received {ids!r}")
    out = []
    for item in items:
        text = str(item)
        if not re.fullmatch(r"(\d+:)?\d+(-\d+)?", text):
            raise ValueError(f"scope.placement: bad device id {text!r}; expected 'machine:device' such as '0:0' "
                             "or '0:0-3'")
        out.append(text)
    return tuple(out)


class PlacementScope:
    """What ``flow.scope.placement(device_tag, ids)`` returns: ops built inside its ``with`` are placed there.
    It can be entered again and again, as OneFlow's scope objects can (a function config's
    ``default_placement_scope`` is entered at each build of its jobs: compiler.py, ``_CompileJob``)."""

    def __init__(self, device_tag: str, ids: tuple[str, ...]) -> None:
        self.device_tag, self.ids = device_tag, ids

    def __enter__(self) -> None:
        _stack.append((self.device_tag, self.ids))

    def __exit__(self, *exc: object) -> None:
        _stack.pop()

    def __repr__(self) -> str:
        return f"placement({self.device_tag!r}, {list(self.ids)!r})"


def placement(device_tag: str, machine_device_ids: Any = "0:0", hierarchy: Any = None) -> PlacementScope:
    """``with flow.scope.placement("gpu", "0:0"):`` — ops built inside are placed there."""
    global _warned_no_gpu
    if device_tag not in ("cpu", "gpu"):
        raise ValueError(f"scope.placement: device_tag must be \"cpu\" or \"gpu\"; received {device_tag!r}")
    ids = _check_ids(machine_device_ids)
    if device_tag == "gpu" and not torch.cuda.is_available() and not _warned_no_gpu:
        _warned_no_gpu = True
        log.warning("flowtorch: scope.placement(\"gpu\") without CUDA; running on the CPU")
    return PlacementScope(device_tag, ids)


def device(device_tag_and_id: str) -> Any:
    """``flow.device("gpu:0")`` (v0.2.0, eager): the placement scope of one device of this machine."""
    match = re.fullmatch(r"(cpu|gpu):(\d+)", device_tag_and_id) if isinstance(device_tag_and_id, str) else None
    if match is None:
        raise ValueError(f"flow.device: expected \"cpu:<id>\" or \"gpu:<id>\"; received {device_tag_and_id!r}")
    return placement(match.group(1), f"0:{match.group(2)}")


@mark_deprecated
def fixed_placement(device_tag: str, machine_device_ids: Any = "0:0") -> Any:
    """v0.1 name of :func:`placement` (also ``flow.device_prior_placement``)."""
    return placement(device_tag, machine_device_ids)


device_prior_placement = fixed_placement


def eager_fixed_placement(device_tag: str, machine_device_ids: Any) -> Any:
    """``flow.eager_fixed_placement(device_tag, machine_device_ids)`` (v0.2.0): the placement scope of eager
    code; placement scopes here serve lazy and eager jobs alike."""
    return placement(device_tag, machine_device_ids)


def scope_ids() -> tuple[str, ...] | None:
    """The ``machine:device`` ids of the innermost placement scope; None outside every scope (the job's
    default placement: the devices the program asked for)."""
    return _stack[-1][1] if _stack else None


def default_device_tag() -> str:
    return "gpu" if torch.cuda.is_available() else "cpu"


@dataclass(frozen=True)
class DeviceParallelDesc:
    device_tag: str
    machine_device_ids: tuple[str, ...]

    @property
    def parallel_num(self) -> int:
        return 1


class DeviceNames(list[str]):
    """``parallel_conf.device_name``: OneFlow v0.1.2's repeated field of ``"machine:tag:devices"`` entries
    (``"0:gpu:0-3"``, iterated: ``for d in conf.device_name``) that, called, gives v0.2.0's ``device_name()``:
    the ``"machine:devices"`` entries, the tag having moved to ``device_tag()``."""

    __slots__ = ("_ids",)

    def __init__(self, device_tag: str, machine_device_ids: Sequence[str]) -> None:
        ids = [i if ":" in i else f"0:{i}" for i in machine_device_ids]
        super().__init__(f"{machine}:{device_tag}:{devices}" for machine, devices in (i.split(":", 1) for i in ids))
        self._ids = ids

    def __call__(self) -> list[str]:
        return list(self._ids)


class ParallelConf:
    """OneFlow's ``ParallelConf`` of a blob or placement: ``device_tag()`` and ``device_name`` (see
    :class:`DeviceNames`)."""

    __slots__ = ("_tag", "_ids")

    def __init__(self, device_tag: str, machine_device_ids: Sequence[str] = ("0:0",)) -> None:
        self._tag = device_tag
        self._ids = tuple(machine_device_ids)

    def device_tag(self) -> str:
        return self._tag

    @property
    def device_name(self) -> DeviceNames:
        return DeviceNames(self._tag, self._ids)

    def __repr__(self) -> str:
        return f'device_tag: "{self._tag}"\n' + "\n".join(f'device_name: "{i}"' for i in self.device_name())


class Scope:
    """What ``flow.current_scope()`` returns (v0.3.4's scope) and ``flow.placement.current_scope()`` (v0.1.2's
    and v0.2.0's placement scope: ``default_device_tag``, ``parallel_size`` …, ``placement_context.py``)."""

    @property
    def device_parallel_desc_symbol(self) -> DeviceParallelDesc:
        tag, ids = _stack[-1] if _stack else (default_device_tag(), ("0:0",))
        return DeviceParallelDesc(tag, ids)

    @property
    def default_device_tag(self) -> str:
        return self.device_parallel_desc_symbol.device_tag

    @property
    def default_parallel_conf(self) -> ParallelConf:
        desc = self.device_parallel_desc_symbol
        return ParallelConf(desc.device_tag, desc.machine_device_ids)

    @property
    def machine_id2device_id_list(self) -> dict[int, list[int]]:
        """``{machine: [device ids]}`` of the placement's ``"machine:first-last"`` entries."""
        out: dict[int, list[int]] = {}
        for entry in self.device_parallel_desc_symbol.machine_device_ids:
            machine, devices = entry.split(":", 1) if ":" in entry else ("0", entry)
            first, _, last = devices.partition("-")
            out.setdefault(int(machine), []).extend(range(int(first), int(last or first) + 1))
        return out

    @property
    def parallel_size(self) -> int:
        return count_devices(self.device_parallel_desc_symbol.machine_device_ids)

    @property
    def is_physical_placement(self) -> bool:
        return False


def current_scope() -> Scope:
    return Scope()


@dataclass(frozen=True)
class LogicalView:
    name: str

    def __enter__(self) -> LogicalView:
        _views.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _views.pop()


_views: list[LogicalView] = []


def mirrored_view_enabled() -> bool:
    """``flow.scope.mirrored_view_enabled()``: the innermost ``with flow.scope.mirrored_view()`` (OneFlow's
    strategy stack, ``distribute_context.py``: False when no view scope is open)."""
    return bool(_views) and _views[-1].name == "mirrored"


def consistent_view_enabled() -> bool:
    """``flow.scope.consistent_view_enabled()``: the innermost view scope is ``consistent_view()``."""
    return bool(_views) and _views[-1].name == "consistent"


def consistent_view() -> LogicalView:
    return LogicalView("consistent")


def mirrored_view() -> LogicalView:
    return LogicalView("mirrored")


@dataclass(frozen=True)
class Distribute:
    """``flow.distribute.split(axis)`` / ``broadcast()`` / ``auto()``: recorded; one device needs none."""

    kind: str
    axis: int | None = None

    @property
    def sbp(self) -> str | None:
        """OneFlow's string for it (``distribute_to_str``): ``"S(k)"``, ``"B"``; None for ``auto()``."""
        return f"S({self.axis})" if self.kind == "split" else "B" if self.kind == "broadcast" else None


def assert_is_valid_distribute(distribute: Any) -> None:
    """``flow.distribute.assert_is_valid_distribute``: an AssertionError unless ``distribute`` is one."""
    if not isinstance(distribute, Distribute):
        raise AssertionError("not a valid distribute policy.\n expected: 1) oneflow.distribute.split(axis); "
                             "2) oneflow.distribute.broadcast(); 3) oneflow.distribute.auto(); received "
                             f"{distribute!r}")


def split(axis: int) -> Distribute:
    if not isinstance(axis, int):
        raise TypeError(f"distribute.split: axis must be an int; received {axis!r}")
    return Distribute("split", axis)


def broadcast() -> Distribute:
    return Distribute("broadcast")


def auto() -> Distribute:
    return Distribute("auto")


@mark_deprecated
def consistent_strategy() -> LogicalView:
    return consistent_view()


@mark_deprecated
def mirrored_strategy() -> LogicalView:
    return mirrored_view()


def has_placement_scope() -> bool:
    """Whether a ``flow.scope.placement`` is open here."""
    return bool(_stack)


def count_devices(machine_device_ids: Sequence[str]) -> int:
    """How many devices ids such as ``("0:0-3", "1:0")`` name (5)."""
    count = 0
    for ids in machine_device_ids:
        m = re.fullmatch(r"(?:\d+:)?(\d+)(?:-(\d+))?", ids)
        count += 1 if m is None or m.group(2) is None else int(m.group(2)) - int(m.group(1)) + 1
    return max(count, 1)


def expand_ids(machine_device_ids: Sequence[str]) -> list[str]:
    """Each device that ids such as ``("0:0-1", "1:0")`` name, one ``"machine:device"`` each, in order
    (``["0:0", "0:1", "1:0"]``)."""
    devices: list[str] = []
    for ids in machine_device_ids:
        m = re.fullmatch(r"(?:(\d+):)?(\d+)(?:-(\d+))?", ids)
        if m is None:
            raise ValueError(f"bad device ids {ids!r}; expected 'machine:device' such as '0:0' or '0:0-3'")
        machine, first, last = m.group(1) or "0", int(m.group(2)), int(m.group(3) or m.group(2))
        devices.extend(f"{machine}:{d}" for d in range(first, last + 1))
    return devices


def placement_devices() -> int:
    """How many devices the current placement names (``"0:0-3"`` → 4; a list adds up)."""
    return count_devices(current_scope().device_parallel_desc_symbol.machine_device_ids)


def parallel_conf_devices(text: str) -> tuple[str, ...]:
    """The ``device_name`` entries of a ``ParallelConf`` text (``'device_tag: "gpu" device_name: "0:0-1"'``)."""
    return _check_ids(re.findall(r'device_name\s*:\s*"([^"]*)"', text))


# OneFlow v0.3.4's deprecated spellings (@oneflow_deprecate), each a name of its own for flow.is_deprecated
scope_current_scope = deprecated_alias(current_scope, "scope.current_scope", "current_scope")
mirrored_strategy_enabled = deprecated_alias(mirrored_view_enabled, "distribute.mirrored_strategy_enabled",
                                             "scope.mirrored_view_enabled")
consistent_strategy_enabled = deprecated_alias(consistent_view_enabled, "distribute.consistent_strategy_enabled",
                                               "scope.consistent_view_enabled")
