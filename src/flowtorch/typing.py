"""``oneflow.typing``: job input placeholders and result annotations."""

from flowtorch._src.capture.typing_defs import Bundle as Bundle
from flowtorch._src.capture.typing_defs import Callback as Callback
from flowtorch._src.capture.typing_defs import ListListNumpy as ListListNumpy
from flowtorch._src.capture.typing_defs import ListNumpy as ListNumpy
from flowtorch._src.capture.typing_defs import Numpy as Numpy

__all__ = ["Bundle", "Callback", "ListListNumpy", "ListNumpy", "Numpy"]
