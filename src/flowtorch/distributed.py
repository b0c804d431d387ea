"""``oneflow.distributed`` (v0.4.0): this process's rank and the number of processes (the launcher's,
``python -m flowtorch --nproc N``)."""

from flowtorch._src.dist.group import get_rank as get_rank
from flowtorch._src.dist.group import get_world_size as get_world_size

__all__ = ["get_rank", "get_world_size"]
