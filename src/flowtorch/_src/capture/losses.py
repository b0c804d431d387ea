"""``flow.losses.add_loss`` and ``flow.current_global_function_desc``."""

from __future__ import annotations

from typing import Any

from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.capture.context import current_builder


def add_loss(loss: Any) -> None:
    """Mark ``loss`` as a loss of the train job being built (several allowed, same shape)."""
    current_builder("losses.add_loss").add_loss(loss)


class GlobalFunctionDesc:
    def __init__(self, builder: JobBuilder) -> None:
        self._builder = builder

    def IsTrainable(self) -> bool:  # OneFlow's name
        return self._builder.is_train

    def __getattr__(self, name: str) -> Any:
        return getattr(self._builder.config.function_desc, name)


def current_global_function_desc() -> GlobalFunctionDesc:
    return GlobalFunctionDesc(current_builder("current_global_function_desc"))
