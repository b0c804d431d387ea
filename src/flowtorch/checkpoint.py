"""``oneflow.checkpoint``: model IO v2 (``save`` a snapshot directory, ``get`` one back)."""

from flowtorch._src.io.checkpoint import get as get
from flowtorch._src.io.checkpoint import save as save

__all__ = ["get", "save"]
