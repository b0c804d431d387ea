"""Random ops: ``nn.random_mask_like`` (behind ``nn.dropout``), ``random.bernoulli``, ``random.shuffle`` and
``random.generate_random_batch_permutation_indices`` (``random.CoinFlip`` is a data op:
:mod:`flowtorch._src.data.random_source`).

Without ``seed`` a kernel draws from torch's default generator of the job's device (seed it with
``torch.manual_seed`` for repeatable runs; OneFlow drew a fresh random seed per op). With ``seed`` the op
owns a ``torch.Generator`` seeded once when the job is built, so its sequence is the same in every run
(not OneFlow's sequence: its generators were different).
"""

from __future__ import annotations

import itertools
import random
import sys
import weakref
from typing import Any

import torch

from flowtorch._src import dtypes, naming, placement
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.ops._checks import arg_error, check_blob, check_rate, module_op_name
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.index_ops import gather
from flowtorch._src.runtime import graph_capture


class _Seeded:
    """A seeded generator owned by one op; looked up by ``key`` inside the opaque custom op that compiled
    steps call (a ``torch.Generator`` cannot enter a compiled graph)."""

    __slots__ = ("gen", "key", "__weakref__")

    def __init__(self, seed: int, device: str) -> None:
        self.gen = torch.Generator(device=device)
        self.gen.manual_seed(seed & 0xFFFF_FFFF_FFFF_FFFF)
        self.key = next(_seeded_ids)
        _SEEDED[self.key] = self


_SEEDED: weakref.WeakValueDictionary[int, _Seeded] = weakref.WeakValueDictionary()
_seeded_ids = itertools.count()


@torch.library.custom_op("flowtorch::seeded_uniform", mutates_args=())
def _seeded_uniform_op(shape: list[int], device: torch.device, key: int) -> torch.Tensor:
    return torch.rand(shape, generator=_SEEDED[key].gen, device=device)


@_seeded_uniform_op.register_fake
def _seeded_uniform_fake(shape: list[int], device: torch.device, key: int) -> torch.Tensor:
    return torch.empty(shape, device=device)


def uniform(shape: Any, device: torch.device, seeded: _Seeded | None) -> torch.Tensor:
    """U[0, 1) float32 noise from the op's own generator, or torch's default one."""
    shape = list(shape)
    if seeded is None or device.type == "meta":
        return torch.rand(shape, device=device)
    if torch.compiler.is_compiling():
        return torch.ops.flowtorch.seeded_uniform(shape, device, seeded.key)
    graph_capture.note_generator(seeded.gen)
    return torch.rand(shape, generator=seeded.gen, device=device)


def _generator(seed: Any, device: str, op: str) -> _Seeded | None:
    if seed is None:
        return None
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise arg_error(op, "seed", "an int or None", seed)
    return _Seeded(seed, device)


def _make_mask_kernel(seeded: _Seeded | None) -> Any:
    def random_mask_like(like: torch.Tensor, rate: float) -> torch.Tensor:
        # keep (1) with probability 1 - rate; a bool mask viewed as int8 costs no extra kernel
        return (uniform(like.shape, like.device, seeded) >= rate).view(torch.int8)
    return random_mask_like


def random_mask_like(like: Blob, rate: float, seed: int | None = None, noise_shape: Any = None,
                     name: str | None = None) -> Blob:
    """``flow.nn.random_mask_like``: int8 mask of ``like``'s shape, 1 with probability 1 − rate
    (``RandomMaskLike_<n>/out_0``)."""
    like = check_blob(like, "nn.random_mask_like", "like")
    rate = check_rate(rate, "nn.random_mask_like")
    if noise_shape is not None:
        raise NotImplementedError("flow.nn.random_mask_like: noise_shape is not supported (nor was it in OneFlow)")
    builder = current_builder("nn.random_mask_like")
    kernel = _make_mask_kernel(_generator(seed, builder.device, "nn.random_mask_like"))
    return apply(kernel, like, float(rate), op_type="random_mask_like", prefix="RandomMaskLike", name=name)


def _make_bernoulli_kernel(seeded: _Seeded | None) -> Any:
    def bernoulli(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return (uniform(x.shape, x.device, seeded) < x.detach()).to(dtype)
    return bernoulli


def bernoulli(x: Blob, seed: int | None = None, dtype: Any = None, name: str = "Bernoulli") -> Blob:
    """``flow.random.bernoulli``: 1 with probability x, else 0 (``Bernoulli/out_0``, later calls in the
    job ``Bernoulli_<n>/out_0``); dtype defaults to x's."""
    x = check_blob(x, "random.bernoulli", "x")
    if not x.meta.dtype.is_floating_point:
        raise TypeError(f"flow.random.bernoulli: x must hold probabilities (a float blob); received {x.lbn} of "
                        f"dtype {x.dtype}")
    builder = current_builder("random.bernoulli")
    target = x.meta.dtype if dtype is None else dtypes.to_dtype(dtype, what="flow.random.bernoulli: dtype").torch_dtype
    op_name = module_op_name(None if name == "Bernoulli" else name, "Bernoulli", "Bernoulli_", "random.bernoulli")
    kernel = _make_bernoulli_kernel(_generator(seed, builder.device, "random.bernoulli"))
    return apply(kernel, x, target, op_type="bernoulli", op_name=op_name)


def _make_permutation_kernel(seeded: _Seeded | None) -> Any:
    def random_batch_permutation_indices(x: torch.Tensor) -> torch.Tensor:
        return torch.argsort(uniform((x.shape[0],), x.device, seeded)).to(torch.int32)
    return random_batch_permutation_indices


def generate_random_batch_permutation_indices(value: Blob, seed: int | None = None, name: str | None = None) -> Blob:
    """``flow.random.generate_random_batch_permutation_indices``: an int32 permutation of
    ``range(value.shape[0])`` (op named ``<value's op>_random_batch_permutation_indices<n>``)."""
    x = check_blob(value, "random.generate_random_batch_permutation_indices", "value")
    if x.ndim < 1:
        raise arg_error("random.generate_random_batch_permutation_indices", "value", "a blob of rank >= 1", x)
    builder = current_builder("random.generate_random_batch_permutation_indices")
    full = naming.op_name(x.op_name + "_random_batch_permutation_indices", name)
    kernel = _make_permutation_kernel(_generator(seed, builder.device, "random.generate_random_batch_permutation_"
                                                                        "indices"))
    return apply(kernel, x, op_type="generate_random_batch_permutation_indices", op_name=full, outputs=("y_0",))


def shuffle(value: Blob, seed: int | None = None, name: str | None = None) -> Blob:
    """``flow.random.shuffle``: gather ``value`` along axis 0 with a random permutation."""
    return gather(value, generate_random_batch_permutation_indices(value, seed))


def gen_seed(seed: int | None = None) -> tuple[int, bool]:
    """``flow.random.gen_seed(seed=None)``: ``(seed, has_seed)`` as OneFlow's random ops take it
    (``random_util.py``): in a mirrored view an unset seed is ``(-1, False)``; otherwise a drawn one, ``True``."""
    if seed is not None:
        return int(seed), True
    if placement.mirrored_view_enabled():
        return -1, False
    return random.randint(-sys.maxsize, sys.maxsize), True
