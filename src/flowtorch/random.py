"""``oneflow.random``: random ops."""

from flowtorch._src.data.random_source import CoinFlip as CoinFlip
from flowtorch._src.data.random_source import coin_flip as coin_flip
from flowtorch._src.ops.random_ops import bernoulli as bernoulli
from flowtorch._src.ops.random_ops import gen_seed as gen_seed
from flowtorch._src.ops.random_ops import (
    generate_random_batch_permutation_indices as generate_random_batch_permutation_indices,
)
from flowtorch._src.ops.random_ops import shuffle as shuffle

__all__ = ["CoinFlip", "bernoulli", "coin_flip", "gen_seed", "generate_random_batch_permutation_indices", "shuffle"]
