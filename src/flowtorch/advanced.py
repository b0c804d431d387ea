"""``oneflow.advanced``: a blob's parts per device and back (``advanced/distribute_ops.py``)."""

from flowtorch._src.ops.distribute_ops import distribute_add as distribute_add
from flowtorch._src.ops.distribute_ops import distribute_clone as distribute_clone
from flowtorch._src.ops.distribute_ops import distribute_concat as distribute_concat
from flowtorch._src.ops.distribute_ops import distribute_map as distribute_map
from flowtorch._src.ops.distribute_ops import distribute_split as distribute_split

__all__ = ["distribute_add", "distribute_clone", "distribute_concat", "distribute_map", "distribute_split"]
