"""``oneflow.experimental``: ``experimental.scope.config(**attrs)`` (scope attributes such as
``checkpointing=`` or ``pipeline_stage_id_hint=``)."""

from flowtorch._src import experimental_scope as scope

__all__ = ["scope"]
