"""``oneflow.train``: the old checkpoint API (``CheckPoint``, ``SimpleCheckPointManager``)."""

from flowtorch._src.io.checkpoint import CheckPoint as CheckPoint
from flowtorch._src.io.checkpoint import SimpleCheckPointManager as SimpleCheckPointManager

__all__ = ["CheckPoint", "SimpleCheckPointManager"]
