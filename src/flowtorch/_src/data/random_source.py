"""Data sources that read no files: ``flow.random.CoinFlip`` and ``flow.data.decode_random``.

``CoinFlip`` is a data op, so data ops such as ``image.CropMirrorNormalize(mirror_blob=…)`` can use its
flips; used by graph ops, its value is fed like any data blob. ``decode_random`` is OneFlow's synthetic
source for benchmarks. Its kernel fills the blob once, at its first run, and returns the same values on
every later step (``core/kernel/decode_random_kernel.cpp``: ``is_init_``). flowtorch draws those values
once, when the job is built, and keeps them on the job's device as a graph constant, so synthetic
benchmarks pay no host-to-device copy per step.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src import dtypes
from flowtorch._src.capture.context import current_builder
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.record_kernels import flip
from flowtorch._src.initializers import initializer_from_conf, is_initializer_conf, random_uniform_initializer
from flowtorch._src.ops._checks import arg_error, check_int, check_shape, module_op_name
from flowtorch._src.ops._record import apply


def coin_flip(batch_size: int = 1, seed: int | None = None, probability: float = 0.5,
              name: str = "CoinFlip") -> db.DataBlob:
    """``flow.random.CoinFlip`` / ``coin_flip``: int8 ``(batch_size,)``, 1 with ``probability``, new flips
    on every call (``CoinFlip/out_0``, later ones in the job ``CoinFlip_<n>/out_0``)."""
    op = "random.CoinFlip"
    pipe = pl.pipeline(op)
    batch_size = check_int(batch_size, op, "batch_size")
    if not isinstance(probability, (int, float)) or isinstance(probability, bool) or not 0.0 <= probability <= 1.0:
        raise arg_error(op, "probability", "a float in [0, 1]", probability)
    op_name = module_op_name(None if name == "CoinFlip" else name, "CoinFlip", "CoinFlip_", op)
    (blob,) = pipe.add(op_name, functools.partial(flip, batch_size=batch_size, probability=float(probability)), (),
                       [("out_0", db.meta((batch_size,), torch.int8), db.TENSOR)], seed=db.draw_seed(seed, op))
    return blob


CoinFlip = coin_flip


class _Constant:
    """A kernel returning the same device tensor on every step (decode_random's batch)."""

    def __init__(self, value: torch.Tensor) -> None:
        self.value = value

    def __call__(self) -> torch.Tensor:
        return self.value

    @property
    def __name__(self) -> str:  # fx names the node after its target
        return "decode_random"


def decode_random(shape: Sequence[int], dtype: Any, batch_size: int = 1, initializer: Any = None,
                  tick: Any = None, name: str | None = None) -> Any:
    """``flow.data.decode_random``: a ``(batch_size, *shape)`` blob filled by ``initializer`` (default
    ``random_uniform_initializer()``, i.e. U[0, 1)) once, the same on every step (``DecodeRandom_<n>/out``)."""
    op = "data.decode_random"
    builder = current_builder(op)
    shape = check_shape(shape, op, "shape", "a list/tuple of positive ints (one sample's shape)")
    batch_size = check_int(batch_size, op, "batch_size")
    if dtype is None:
        raise arg_error(op, "dtype", "a flow dtype", dtype)
    dt = dtypes.to_dtype(dtype, what=f"flow.{op}: dtype")
    if initializer is None:
        initializer = random_uniform_initializer()
    if is_initializer_conf(initializer):  # OneFlow's decode_random took an InitializerConf
        initializer = initializer_from_conf(initializer)
    if not hasattr(initializer, "make"):
        raise arg_error(op, "initializer", "one of flow.*_initializer(...)", initializer)
    value = initializer.make((batch_size, *shape), dt.torch_dtype).to(builder.device)
    return apply(_Constant(value), op_type="decode_random", prefix="DecodeRandom", name=name, outputs=("out",))
