"""``oneflow.distribute``: distribute hints (one device: recorded, no effect)."""

from flowtorch._src.placement import assert_is_valid_distribute as assert_is_valid_distribute
from flowtorch._src.placement import auto as auto
from flowtorch._src.placement import broadcast as broadcast
from flowtorch._src.placement import consistent_strategy as consistent_strategy
from flowtorch._src.placement import consistent_strategy_enabled as consistent_strategy_enabled
from flowtorch._src.placement import mirrored_strategy as mirrored_strategy
from flowtorch._src.placement import mirrored_strategy_enabled as mirrored_strategy_enabled
from flowtorch._src.placement import split as split

# late 2019's names (the master's framework/distribute.py)
mirror_strategy = mirrored_strategy
mirror_strategy_enabled = mirrored_strategy_enabled

__all__ = ["assert_is_valid_distribute", "auto", "broadcast", "consistent_strategy", "consistent_strategy_enabled",
           "mirror_strategy", "mirror_strategy_enabled", "mirrored_strategy", "mirrored_strategy_enabled", "split"]
