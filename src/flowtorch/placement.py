"""``oneflow.placement`` (v0.2.0): ``placement.current_scope()``, the placement scope now open
(``flow.current_scope()`` in later versions)."""

from flowtorch._src.placement import current_scope as current_scope

__all__ = ["current_scope"]
