"""``oneflow.unittest``: TestCase (fresh session per test), device-count skips, and OneFlow 0.1's
function-style test collection (``register_test_cases``, ``num_nodes_required``)."""

from types import SimpleNamespace as _NS

from flowtorch._src import testing as _t
from flowtorch._src.testing import TestCase as TestCase
from flowtorch._src.testing import skip_unless_1n1d as skip_unless_1n1d
from flowtorch._src.testing import skip_unless_1n2d as skip_unless_1n2d
from flowtorch._src.testing import skip_unless_1n4d as skip_unless_1n4d
from flowtorch._src.testing import skip_unless_2n1d as skip_unless_2n1d
from flowtorch._src.testing import skip_unless_2n2d as skip_unless_2n2d
from flowtorch._src.testing import skip_unless_2n4d as skip_unless_2n4d
from flowtorch._src.testing_v01 import num_nodes_required as num_nodes_required
from flowtorch._src.testing_v01 import register_test_cases as register_test_cases
from flowtorch._src.testing_v01 import run as run  # (late 2019)
from flowtorch._src.testing_v01 import run_if_this_is_main as run_if_this_is_main  # (late 2019)

env = _NS(eager_execution_enabled=_t.eager_execution_enabled, typing_check_enabled=_t.typing_check_enabled,
          node_list=_t.node_list, has_node_list=_t.has_node_list, node_size=_t.node_size, device_num=_t.device_num,
          has_world_size=_t.has_world_size, world_size=_t.world_size)

__all__ = ["TestCase", "env", "num_nodes_required", "register_test_cases", "run", "run_if_this_is_main",
           "skip_unless_1n1d", "skip_unless_1n2d", "skip_unless_1n4d", "skip_unless_2n1d", "skip_unless_2n2d",
           "skip_unless_2n4d"]
