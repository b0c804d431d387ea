"""``oneflow.scope``: placement, name spaces and logical views."""

from flowtorch._src.naming import namespace as namespace
from flowtorch._src.placement import consistent_view as consistent_view
from flowtorch._src.placement import consistent_view_enabled as consistent_view_enabled
from flowtorch._src.placement import mirrored_view as mirrored_view
from flowtorch._src.placement import mirrored_view_enabled as mirrored_view_enabled
from flowtorch._src.placement import placement as placement
from flowtorch._src.placement import scope_current_scope as current_scope

__all__ = ["consistent_view", "consistent_view_enabled", "current_scope", "mirrored_view", "mirrored_view_enabled",
           "namespace", "placement"]
