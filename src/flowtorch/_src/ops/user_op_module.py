"""``flow.nn.Module`` and ``flow.find_or_create_module`` (v0.3.4 ``framework/module.py`` and
``framework/session_util.py``): a module object kept per job under a name, typically holding a
``flow.user_op_module_builder`` and building one op per call (``call_seq_no`` counts the calls).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flowtorch._src import naming
from flowtorch._src.capture.context import current_builder
from flowtorch._src.errors import ArgumentError

__all__ = ["Module", "find_or_create_module"]

class Module:
    """``flow.nn.Module``: subclass it and define ``forward``; calling the module runs ``forward`` and then
    counts the call (``call_seq_no``)."""

    def __init__(self, name: str | None = None) -> None:
        self.module_name_ = name if name is not None else naming.unique_str("Module_")
        self.call_seq_no_ = 0

    @property
    def module_name(self) -> str:
        return self.module_name_

    @property
    def call_seq_no(self) -> int:
        return self.call_seq_no_

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}: a flow.nn.Module subclass must define forward()")

    def __call__(self, *args: Any) -> Any:
        out = self.forward(*args)
        self.call_seq_no_ += 1
        return out


def find_or_create_module(module_name: str, create: Callable[[], Module], reuse: bool = False) -> Module:
    """``flow.find_or_create_module(name, create, reuse=False)``: this job's module ``name``, made by
    ``create()`` the first time. Asking again for a name the session has seen raises unless ``reuse``."""
    job = current_builder("find_or_create_module")
    if not callable(create):
        raise ArgumentError(f"flow.find_or_create_module: create must be callable; received {create!r}")
    modules = job.modules  # this job's modules; the names seen so far are the session's
    seen = job.session.module_names
    if module_name not in modules:
        module = create()
        if not isinstance(module, Module):
            raise ArgumentError(f"flow.find_or_create_module: create() must return a flow.nn.Module; received "
                                  f"{type(module).__name__}")
        modules[module_name] = module
    elif not reuse and module_name in seen:
        raise ArgumentError(f"flow.find_or_create_module: duplicated module name {module_name!r} in global function "
                              f"{job.job_name!r} (pass reuse=True to share it)")
    seen.add(module_name)
    return modules[module_name]
