"""``oneflow.profiler``: NVTX range markers (pass-through ops; flowtorch records no range) and v0.4.0's
host-side ``range_push``/``range_pop``."""

from flowtorch._src.ops.hint_ops import nvtx_end as nvtx_end
from flowtorch._src.ops.hint_ops import nvtx_start as nvtx_start
from flowtorch._src.ops.hint_ops import range_pop as range_pop
from flowtorch._src.ops.hint_ops import range_push as range_push

__all__ = ["nvtx_end", "nvtx_start", "range_pop", "range_push"]
