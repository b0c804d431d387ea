"""``oneflow.experimental``: ``experimental.scope.config(**attrs)`` (scope attributes such as
``checkpointing=`` or ``pipeline_stage_id_hint=``)."""

from flowtorch._src import experimental_scope as scope
from flowtorch._src.ops.dynamic_ops import unique_with_counts as unique_with_counts

__all__ = ["scope", "unique_with_counts"]
