"""``oneflow.quantization``: quantization-aware training ops (v0.3.4 ``python/ops/quantize_ops.py``; v0.4.0
renamed the observer ``moving_average_min_max_observer``)."""

from flowtorch._src.ops.quantization_ops import fake_quantization as fake_quantization
from flowtorch._src.ops.quantization_ops import min_max_observer as min_max_observer
from flowtorch._src.quantization import moving_average_min_max_observer as moving_average_min_maxObserver
from flowtorch._src.quantization import moving_average_min_max_observer_v040 as moving_average_min_max_observer

__all__ = ["fake_quantization", "min_max_observer", "moving_average_min_maxObserver", "moving_average_min_max_observer"]
