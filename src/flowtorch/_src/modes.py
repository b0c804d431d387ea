"""``flow.enable_eager_execution``: flowtorch reproduces OneFlow's lazy (graph) mode only."""

from __future__ import annotations


def enable_eager_execution(val: bool = True) -> None:
    if val:
        raise NotImplementedError(
            "flow.enable_eager_execution(True): flowtorch implements OneFlow 0.x's lazy global_function API; "
            "for eager code use PyTorch directly")


def eager_execution_enabled() -> bool:
    return False
