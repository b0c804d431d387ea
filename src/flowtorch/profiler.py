"""``oneflow.profiler``: NVTX range markers (pass-through ops; flowtorch records no range)."""

from flowtorch._src.ops.hint_ops import nvtx_end as nvtx_end
from flowtorch._src.ops.hint_ops import nvtx_start as nvtx_start

__all__ = ["nvtx_end", "nvtx_start"]
