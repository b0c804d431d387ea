"""``oneflow.regularizers``: l1 / l2 / l1_l2 penalties for ``get_variable`` and layers."""

from flowtorch._src.regularizers import l1 as l1
from flowtorch._src.regularizers import l1_l2 as l1_l2
from flowtorch._src.regularizers import l2 as l2

__all__ = ["l1", "l1_l2", "l2"]
