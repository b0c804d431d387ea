"""``flow.quantization.moving_average_min_maxObserver`` (v0.3.4 ``python/ops/quantize_ops.py``): the observer
that keeps its statistics in variables, so it lives in the state layer; the op itself is
:mod:`flowtorch._src.ops.quantization_ops`'s ``moving_average_min_max_observer``.

As OneFlow's wrapper, it makes three non-trainable variables under ``scope.namespace(<op name>)``:
``<op name>-moving_max`` and ``-moving_min`` (shape (1,), the input's dtype, zeros) and
``-current_train_step`` (int64 zeros), and builds the op with ``training`` = whether the job is a train
job and ``stop_update_after_iters = 1``. A train job updates the statistics at every step while
``current_train_step <= 1``; nothing advances that variable (OneFlow's wrapper did not either), so they
are updated at every step unless a loaded snapshot sets it above 1. Other jobs only read them.
"""

from __future__ import annotations

from typing import Any

from flowtorch._src import dtypes, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.initializers import zeros_initializer
from flowtorch._src.ops._checks import arg_error, is_number
from flowtorch._src.ops.quantization_ops import check_attrs, float_input, moving_average_observer_op
from flowtorch._src.variables import get_variable

__all__ = ["moving_average_min_max_observer", "moving_average_min_max_observer_v040"]

_STOP_UPDATE_AFTER_ITERS = 1  # fixed in OneFlow's wrapper


def moving_average_min_max_observer(input: Blob, quantization_bit: int = 8, quantization_scheme: str = "symmetric",
                                    momentum: float = 0.95, name: str | None = None, *,
                                    quantization_formula: str = "google") -> tuple[Blob, Blob]:
    """``flow.quantization.moving_average_min_maxObserver``: ``(scale, zero_point)``, each ``(1,)``, from
    moving averages of ``input``'s max and min (``MovingAverageMinMaxObserver_<n>/scale_0``; see the
    module docstring). ``quantization_formula`` (v0.4.0) is keyword-only here."""
    op = "quantization.moving_average_min_maxObserver"
    bit = check_attrs(op, quantization_bit, quantization_scheme, quantization_formula)
    if not is_number(momentum):
        raise arg_error(op, "momentum", "a number", momentum)
    x = float_input(input, op)
    training = current_builder(op).is_train
    op_name = name if name is not None else naming.unique_str("MovingAverageMinMaxObserver_")
    with naming.namespace(op_name):
        moving_max = _statistic("moving_max", x.dtype)
        moving_min = _statistic("moving_min", x.dtype)
        current_train_step = _statistic("current_train_step", dtypes.int64)
    return moving_average_observer_op(
        x, current_train_step, moving_max, moving_min, op_name=op_name, training=training,
        stop_update_after_iters=_STOP_UPDATE_AFTER_ITERS, quantization_bit=bit,
        quantization_scheme=quantization_scheme, momentum=float(momentum), quantization_formula=quantization_formula)


def _statistic(name: str, dtype: Any) -> Blob:
    return get_variable(name, shape=(1,), dtype=dtype, initializer=zeros_initializer(dtype), trainable=False)


def moving_average_min_max_observer_v040(input: Blob, quantization_bit: int = 8,
                                         quantization_scheme: str = "symmetric", quantization_formula: str = "google",
                                         momentum: float = 0.95, name: str | None = None) -> tuple[Blob, Blob]:
    """``flow.quantization.moving_average_min_max_observer`` (v0.4.0's spelling, with ``quantization_formula``
    before ``momentum``): the same observer as v0.3.4's ``moving_average_min_maxObserver``."""
    return moving_average_min_max_observer(input, quantization_bit, quantization_scheme, momentum, name,
                                           quantization_formula=quantization_formula)
