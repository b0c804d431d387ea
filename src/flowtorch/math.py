"""``oneflow.math``: arithmetic, element-wise math and reductions."""

from flowtorch._src.ops.math_ops import add as add
from flowtorch._src.ops.math_ops import divide as divide
from flowtorch._src.ops.math_ops import equal as equal
from flowtorch._src.ops.math_ops import greater as greater
from flowtorch._src.ops.math_ops import greater_equal as greater_equal
from flowtorch._src.ops.math_ops import less as less
from flowtorch._src.ops.math_ops import less_equal as less_equal
from flowtorch._src.ops.math_ops import multiply as multiply
from flowtorch._src.ops.math_ops import not_equal as not_equal
from flowtorch._src.ops.math_ops import reduce_mean as reduce_mean
from flowtorch._src.ops.math_ops import reduce_sum as reduce_sum
from flowtorch._src.ops.math_ops import subtract as subtract
from flowtorch._src.ops.nn_ops import relu as relu

__all__ = ["add", "divide", "equal", "greater", "greater_equal", "less", "less_equal", "multiply", "not_equal",
           "reduce_mean", "reduce_sum", "relu", "subtract"]
