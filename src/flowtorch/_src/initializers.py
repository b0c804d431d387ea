"""``flow.*_initializer``: variable initializers that draw OneFlow's own numbers.

Each initializer is an object with ``make(shape, dtype, generator=None, *, seed=None)`` returning a
CPU tensor. Random ones follow OneFlow's default model IO (v2, default from v0.3.2;
``oneflow/python/ops/initializer_util.py`` ``GetInitializer`` and
``oneflow/python/framework/check_point_v2.py`` ``Init``): a ``numpy.random.default_rng(seed)``
stream, sampled in float64 in the same 32 MiB slices, then cast to the variable's dtype. So a
variable made with ``get_variable(..., random_seed=s)`` gets exactly OneFlow's values when the
runtime passes ``seed=s``. Without a seed one is drawn from ``generator`` (torch's default
generator if None), so ``torch.manual_seed`` makes runs repeatable.

Numbers stored by OneFlow in ``float`` proto fields (min/max, mean/std, scale) are rounded
through float32 first, as OneFlow did.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes
from flowtorch._src.errors import ArgumentError
from flowtorch._src.proto_confs import is_message, message_from_dict, oneof_fields
from flowtorch.core.job import initializer_conf_pb2

__all__ = [
    "Initializer",
    "constant_initializer",
    "empty_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "initializer_from_conf",
    "is_initializer_conf",
    "kaiming_initializer",
    "ones_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "xavier_normal_initializer",
    "xavier_uniform_initializer",
    "zeros_initializer",
]

log = logging.getLogger("flowtorch")
_warned_reversed_range = False
Sampler = Callable[[int], np.ndarray]
_SLICE_BYTES = 32 * 1024 * 1024  # check_point_v2._ForEachSlice: values are generated per slice
_TRUNCATED_STD = 0.87962566103423978  # std of a unit normal truncated at +-2
INITIALIZER_CONF = "oneflow.InitializerConf"


def _f32(x: float) -> float:
    return float(np.float32(x))


def _is_integer(dtype: Any, what: str) -> bool:
    """OneFlow's split: float/double get a float conf, int8/int32/int64 an int conf, others fail."""
    d = dtypes.to_dtype(dtype, what=what)
    if d is dtypes.float32 or d is dtypes.float64:
        return False
    if d is dtypes.int8 or d is dtypes.int32 or d is dtypes.int64:
        return True
    raise NotImplementedError(f"{what}: OneFlow initializers do not support data type {d!r}")


def _slice_lengths(shape: tuple[int, ...], itemsize: int) -> list[int]:
    """Element counts of the slices OneFlow's model IO fills one after the other."""
    size = math.prod(shape)
    if size == 0:
        return []
    if not shape:
        return [1]
    slice_len = _SLICE_BYTES // itemsize
    cnt, axis = 1, 0
    for axis in reversed(range(len(shape))):
        cnt *= shape[axis]
        if cnt > slice_len:
            break
    unit_size = math.prod(shape[axis + 1 :])
    max_units = slice_len // unit_size
    lengths: list[int] = []
    for _ in range(size // (shape[axis] * unit_size)):
        remainder = shape[axis]
        while remainder > 0:
            units = min(max_units, remainder)
            lengths.append(units * unit_size)
            remainder -= units
    return lengths


def _truncated_normal(rng: np.random.Generator, mean: float, std: float) -> Sampler:
    def sample(length: int) -> np.ndarray:
        # Redraw only the missing count each round, keeping |x - mean| < 2 std (OneFlow's loop).
        parts, have = [], 0
        while have < length:
            draw = rng.normal(mean, std, size=length - have)
            kept = draw[np.abs(draw - mean) < 2 * std]
            parts.append(kept)
            have += kept.size
        return np.concatenate(parts)

    return sample


class Initializer:
    """Base class: random subclasses give ``_sampler`` (OneFlow's per-slice generator), fixed ones ``_fixed``."""

    seed: int | None = None

    def make(
        self,
        shape: Sequence[int],
        dtype: Any = torch.float32,
        generator: torch.Generator | None = None,
        *,
        seed: int | None = None,
    ) -> torch.Tensor:
        """A new CPU tensor of ``shape`` and ``dtype`` (torch or flow dtype) holding initial values."""
        shape = tuple(int(s) for s in shape)
        torch_dtype = dtype if isinstance(dtype, torch.dtype) else dtypes.to_dtype(dtype).torch_dtype
        fixed = self._fixed(shape, torch_dtype)
        if fixed is not None:
            return fixed
        if seed is None:
            seed = self.seed
        if seed is None:
            seed = int(torch.randint(0, 2**63 - 1, (), generator=generator))
        sample = self._sampler(shape, np.random.default_rng(seed))
        itemsize = torch.empty((), dtype=torch_dtype).element_size()
        parts = [np.asarray(sample(n)) for n in _slice_lengths(shape, itemsize)]
        values = np.concatenate(parts) if parts else np.empty(0)
        return torch.from_numpy(values.reshape(shape)).to(torch_dtype)

    def _fixed(self, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor | None:
        """The value of a non-random initializer (None: draw with ``_sampler``)."""
        return None

    def _sampler(self, shape: tuple[int, ...], rng: np.random.Generator) -> Sampler:
        raise NotImplementedError


class ConstantInitializer(Initializer):
    def __init__(self, value: float, integer: bool, name: str = "constant_initializer") -> None:
        self.value: int | float = int(value) if integer else _f32(value)
        self.integer = integer
        self._name = name

    def _fixed(self, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        # Through numpy like OneFlow (np.full(...).astype), so e.g. 0.5 into an int variable truncates.
        return torch.from_numpy(np.full(shape, self.value)).to(dtype)

    def __repr__(self) -> str:
        if self._name != "constant_initializer":
            return f"{self._name}()"
        return f"constant_initializer(value={self.value!r}{', dtype=flow.int32' if self.integer else ''})"


class EmptyInitializer(Initializer):
    """Leaves the memory uninitialized (OneFlow v0.4.0 ``empty_initializer``)."""

    def _fixed(self, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        return torch.empty(shape, dtype=dtype)

    def __repr__(self) -> str:
        return "empty_initializer()"


class RandomUniformInitializer(Initializer):
    """Uniform on ``[minval, maxval]`` (float) or ``[minval, maxval)`` (int, numpy's ``integers``).

    ``minval > maxval`` is accepted, as OneFlow v0.1.2's python accepted it (v0.3.4 asserted), and gives
    zeros: OneFlow never drew such values. v0.1.2 ran initializers only in ``check_point.init()``, whose
    kernel then stopped on ``CHECK_LE(min, max)`` (``core/kernel/kernel_util.cpp``), so a program that
    worked left the variable as allocated; zeros are that memory made deterministic."""

    def __init__(self, minval: float, maxval: float, integer: bool) -> None:
        global _warned_reversed_range
        self.reversed = minval > maxval
        if self.reversed and not _warned_reversed_range:
            _warned_reversed_range = True
            log.warning("random_uniform_initializer(minval=%s, maxval=%s): minval > maxval draws nothing in "
                        "OneFlow (its kernel checks min <= max); the variable starts at zeros", minval, maxval)
        self.integer = integer
        self.minval: int | float = int(minval) if integer else _f32(minval)
        self.maxval: int | float = int(maxval) if integer else _f32(maxval)

    def _fixed(self, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor | None:
        return torch.zeros(shape, dtype=dtype) if self.reversed else None

    def _sampler(self, shape: tuple[int, ...], rng: np.random.Generator) -> Sampler:
        lo, hi = self.minval, self.maxval
        if self.integer:
            return lambda n: rng.integers(low=int(lo), high=int(hi), size=n)
        return lambda n: rng.uniform(low=lo, high=np.nextafter(hi, np.inf), size=n)

    def __repr__(self) -> str:
        return f"random_uniform_initializer(minval={self.minval!r}, maxval={self.maxval!r})"


class RandomNormalInitializer(Initializer):
    def __init__(self, mean: float, stddev: float, seed: int | None = None) -> None:
        if stddev < 0:
            raise ArgumentError(f"random_normal_initializer: stddev must be >= 0, got stddev={stddev!r}")
        self.mean = _f32(mean)
        self.stddev = _f32(stddev)
        self.seed = None if seed is None else int(seed)

    def _sampler(self, shape: tuple[int, ...], rng: np.random.Generator) -> Sampler:
        return lambda n: rng.normal(loc=self.mean, scale=self.stddev, size=n)

    def __repr__(self) -> str:
        seed = "" if self.seed is None else f", seed={self.seed}"
        return f"random_normal_initializer(mean={self.mean!r}, stddev={self.stddev!r}{seed})"


class TruncatedNormalInitializer(Initializer):
    """Normal samples redrawn until within ``mean +- 2 stddev`` (their std is ~0.88 stddev)."""

    def __init__(self, mean: float, stddev: float) -> None:
        if not stddev > 0:
            raise ArgumentError(f"truncated_normal_initializer: stddev must be > 0, got stddev={stddev!r}")
        self.mean = _f32(mean)
        self.stddev = _f32(stddev)

    def _sampler(self, shape: tuple[int, ...], rng: np.random.Generator) -> Sampler:
        return _truncated_normal(rng, self.mean, self.stddev)

    def __repr__(self) -> str:
        return f"truncated_normal_initializer(mean={self.mean!r}, stddev={self.stddev!r})"


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "random_normal", "random_uniform")


def _data_format(data_format: str, what: str) -> str:
    if not isinstance(data_format, str):
        raise ArgumentError(f"{what}: data_format must be a string, got {data_format!r}")
    if data_format.startswith("NC"):
        return "channels_first"
    if data_format.startswith("N") and data_format.endswith("C"):
        return "channels_last"
    if data_format != "":
        raise ArgumentError(f'{what}: data_format must be "N...C", "NC..." or "", got {data_format!r}')
    return ""


class VarianceScalingInitializer(Initializer):
    """Variance ``scale / fan`` with fan from ``mode`` (``fan_in``, ``fan_out``, ``fan_avg``).

    Fans as OneFlow's model IO v2 computes them (``initializer_util.py`` ``GenInitialFan``):
    ``fan_in = prod(shape[1:])``, ``fan_out = shape[0] * prod(shape[1:-1])``. The channels-first
    branch there tests ``"channel_first"`` while the stored format is ``"channels_first"``, so it
    never runs: an NCHW conv weight ``(out, in, kh, kw)`` gets ``fan_out = out * in * kh``, not
    ``out * kh * kw``. flowtorch keeps that, so seeded variables match OneFlow. Dense weights
    ``(units, in)`` are unaffected (``fan_in = in``, ``fan_out = units``).
    ``truncated_normal`` divides the std by 0.8796..., the std of a 2-sigma-truncated unit normal.
    """

    def __init__(self, scale: float, mode: str, distribution: str, data_format: str, name: str = "") -> None:
        what = name or "variance_scaling_initializer"
        if str(mode).lower() not in _MODES:
            raise ArgumentError(f"{what}: invalid variance_norm: mode must be one of {_MODES}, got {mode!r}")
        if str(distribution).lower() not in _DISTRIBUTIONS:
            raise ArgumentError(
                f"{what}: invalid random_distribution: distribution must be one of {_DISTRIBUTIONS}, "
                f"got {distribution!r}"
            )
        self.scale = _f32(scale)
        self.mode = str(mode).lower()
        self.distribution = str(distribution).lower()
        self.data_format = _data_format(data_format, what)
        self._name = name

    def fan(self, shape: Sequence[int]) -> float:
        if len(shape) < 1:
            raise ArgumentError(f"{self!r}: cannot compute the fan of a scalar variable")
        fan_in = math.prod(shape[1:])
        fan_out = shape[0] * math.prod(shape[1:-1])
        if self.mode == "fan_avg":
            return (fan_in + fan_out) / 2
        return float(fan_in if self.mode == "fan_in" else fan_out)

    def _sampler(self, shape: tuple[int, ...], rng: np.random.Generator) -> Sampler:
        scale = self.scale / self.fan(shape)
        if self.distribution == "truncated_normal":
            return _truncated_normal(rng, 0.0, math.sqrt(scale) / _TRUNCATED_STD)
        if self.distribution == "random_normal":
            stddev = math.sqrt(scale)
            return lambda n: rng.normal(0, stddev, size=n)
        limit = math.sqrt(3.0 * scale)
        return lambda n: rng.uniform(low=-limit, high=limit, size=n)

    def __repr__(self) -> str:
        fmt = {"channels_first": "NCHW", "channels_last": "NHWC", "": ""}[self.data_format]
        if self._name:
            return f"{self._name}(data_format={fmt!r})"
        return (
            f"variance_scaling_initializer(scale={self.scale!r}, mode={self.mode!r}, "
            f"distribution={self.distribution!r}, data_format={fmt!r})"
        )


# ----------------------------------------------------------------------------- public factories
def constant_initializer(value: float = 0, dtype: Any = dtypes.float32) -> ConstantInitializer:
    """Every element is ``value`` (an int conf for int8/int32/int64 ``dtype``)."""
    return ConstantInitializer(value, _is_integer(dtype, "constant_initializer dtype"))


def zeros_initializer(dtype: Any = dtypes.float32) -> ConstantInitializer:
    return ConstantInitializer(0.0, _is_integer(dtype, "zeros_initializer dtype"), "zeros_initializer")


def ones_initializer(dtype: Any = dtypes.float32) -> ConstantInitializer:
    return ConstantInitializer(1.0, _is_integer(dtype, "ones_initializer dtype"), "ones_initializer")


def empty_initializer(dtype: Any = dtypes.float32) -> EmptyInitializer:
    return EmptyInitializer()


def random_uniform_initializer(
    minval: float = 0, maxval: float = 1, dtype: Any = dtypes.float32
) -> RandomUniformInitializer:
    """Uniform in ``[minval, maxval]``; for int dtypes ``[minval, maxval)`` (as OneFlow's model IO v2)."""
    return RandomUniformInitializer(minval, maxval, _is_integer(dtype, "random_uniform_initializer dtype"))


def random_normal_initializer(
    mean: float = 0.0, stddev: float = 1.0, seed: int | None = None, dtype: Any = None
) -> RandomNormalInitializer:
    """Normal ``(mean, stddev)``. OneFlow asserted ``seed is None``; flowtorch honours a seed instead."""
    return RandomNormalInitializer(mean, stddev, seed)


def truncated_normal_initializer(mean: float = 0.0, stddev: float = 1.0) -> TruncatedNormalInitializer:
    return TruncatedNormalInitializer(mean, stddev)


def truncated_normal(stddev: float = 1.0) -> TruncatedNormalInitializer:
    """``flow.truncated_normal(stddev)``: truncated normal around 0."""
    return TruncatedNormalInitializer(0.0, stddev)


def variance_scaling_initializer(
    scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal", data_format: str = ""
) -> VarianceScalingInitializer:
    return VarianceScalingInitializer(scale, mode, distribution, data_format)


def glorot_uniform_initializer(data_format: str = "") -> VarianceScalingInitializer:
    """Xavier uniform: ``U(-sqrt(6 / (fan_in + fan_out)), +...)`` (fans as in variance scaling)."""
    return VarianceScalingInitializer(1.0, "fan_avg", "random_uniform", data_format, "xavier_uniform_initializer")


def glorot_normal_initializer(data_format: str = "") -> VarianceScalingInitializer:
    """Xavier normal: ``N(0, 2 / (fan_in + fan_out))`` (fans as in variance scaling)."""
    return VarianceScalingInitializer(1.0, "fan_avg", "random_normal", data_format, "xavier_normal_initializer")


xavier_uniform_initializer = glorot_uniform_initializer
xavier_normal_initializer = glorot_normal_initializer

_GAINS: dict[str | None, Callable[[float], float]] = {
    None: lambda _: 1.0,
    "sigmoid": lambda _: 1.0,
    "tanh": lambda _: 5.0 / 3,
    "relu": lambda _: math.sqrt(2.0),
    "leaky_relu": lambda slope: math.sqrt(2.0 / (1 + slope**2)),
}


def kaiming_initializer(
    shape: Sequence[int],
    distribution: str = "random_normal",
    mode: str = "fan_in",
    nonlinearity: str | None = "leaky_relu",
    negative_slope: float = 0.0,
    data_format: str = "NCHW",
) -> RandomNormalInitializer | RandomUniformInitializer:
    """He initialization for a weight of ``shape``: ``std = gain / sqrt(fan)``.

    Unlike variance scaling this uses ``_CalcFan`` of ``initializer_util.py``, which honours
    ``data_format``: 2-D ``(out, in)``; NCHW ``fan_out = out * prod(shape[2:])``; NHWC
    ``fan_out = out * prod(shape[1:-1])``; ``fan_in = prod(shape[1:])``.
    """
    what = "kaiming_initializer"
    shape = tuple(shape)
    if len(shape) < 2 or math.prod(shape) <= 0:
        raise ArgumentError(f"{what}: shape must have >= 2 positive dims, got shape={shape!r}")
    if distribution not in ("random_normal", "random_uniform"):
        raise ArgumentError(f"{what}: distribution must be 'random_normal' or 'random_uniform', got {distribution!r}")
    if mode not in _MODES:
        raise ArgumentError(f"{what}: mode must be one of {_MODES}, got {mode!r}")
    if nonlinearity not in _GAINS:
        raise ArgumentError(f"{what}: nonlinearity must be one of {list(_GAINS)}, got {nonlinearity!r}")
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentError(f"{what}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    fan_in: float = math.prod(shape[1:])
    fan_out: float = shape[0]
    if len(shape) == 2:
        fan_in = shape[1]
    else:
        fan_out *= math.prod(shape[2:]) if data_format == "NCHW" else math.prod(shape[1:-1])
    fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    std = _GAINS[nonlinearity](negative_slope) / math.sqrt(float(fan))
    if distribution == "random_normal":
        return RandomNormalInitializer(0.0, std)
    bound = math.sqrt(3.0) * std
    return RandomUniformInitializer(-bound, bound, integer=False)


def initializer_from_conf(conf: Mapping[str, Any] | Initializer | Any) -> Initializer:
    """An initializer from an ``InitializerConf`` dict, e.g. ``{"constant_conf": {"value": 0}}``, or from an
    ``InitializerConf`` message (``oneflow.core.job.initializer_conf_pb2``, what OneFlow's initializers returned).

    Used by ``function_config.default_initializer_conf`` and by ``get_variable`` and ``data.decode_random`` for
    messages. A dict is read into the message first (unknown fields and values of the wrong type are errors);
    proto defaults apply to missing fields. The confs are the ones OneFlow v0.4.0's model IO could
    run (``python/ops/initializer_util.py``, ``GetInitializer``): ``xavier_conf``, ``msra_conf``, ``range_conf``
    and ``int_range_conf`` had no initializer there and have none here.
    """
    if isinstance(conf, Initializer):
        return conf
    known = ", ".join(_CONF_BUILDERS)
    if isinstance(conf, Mapping) and len(conf) == 1:
        # read through the schema, as OneFlow filled its JobConfigProto: a misspelt field is an error
        ((kind, fields),) = conf.items()
        conf = message_from_dict({kind: dict(fields or {})}, initializer_conf_pb2.InitializerConf(),
                                 "initializer conf")
    if not is_message(conf, INITIALIZER_CONF):
        raise ArgumentError(f"initializer conf must be a dict with one key out of {known}; got {conf!r}")
    kind, fields = oneof_fields(conf, "type", "initializer")
    if kind not in _CONF_BUILDERS:
        raise ArgumentError(f"initializer: InitializerConf.{kind} has no initializer in OneFlow's model IO "
                            f"(initializer_util.py); use one of {known}")
    return _CONF_BUILDERS[kind](fields)


def is_initializer_conf(value: Any) -> bool:
    """Whether ``value`` is an ``InitializerConf`` message."""
    return is_message(value, INITIALIZER_CONF)


def _enum(value: Any, names: Sequence[str]) -> str:
    """Proto enum given by number (``0``) or name (``"kFanIn"``) -> its index name."""
    return names[value] if isinstance(value, int) else str(value)


_NORMS = ("kFanIn", "kFanOut", "kAverage")
_DISTS = ("kRandomUniform", "kRandomNormal", "kTruncatedNormal")
_CONF_BUILDERS: dict[str, Callable[[dict[str, Any]], Initializer]] = {
    "constant_conf": lambda f: ConstantInitializer(f.get("value", 0.0), integer=False),
    "constant_int_conf": lambda f: ConstantInitializer(f.get("value", 0), integer=True),
    "random_uniform_conf": lambda f: RandomUniformInitializer(f.get("min", 0.0), f.get("max", 1.0), integer=False),
    "random_uniform_int_conf": lambda f: RandomUniformInitializer(f.get("min", 0), f.get("max", 1), integer=True),
    "random_normal_conf": lambda f: RandomNormalInitializer(f.get("mean", 0.0), f.get("std", 1.0)),
    "truncated_normal_conf": lambda f: TruncatedNormalInitializer(f.get("mean", 0.0), f.get("std", 0.05)),
    "variance_scaling_conf": lambda f: VarianceScalingInitializer(
        f["scale"],
        {"kFanIn": "fan_in", "kFanOut": "fan_out", "kAverage": "fan_avg"}[_enum(f["variance_norm"], _NORMS)],
        {"kRandomUniform": "random_uniform", "kRandomNormal": "random_normal", "kTruncatedNormal": "truncated_normal"}[
            _enum(f["distribution"], _DISTS)
        ],
        {"channels_first": "NCHW", "channels_last": "NHWC"}.get(f.get("data_format", ""), ""),
    ),
    "empty_conf": lambda f: EmptyInitializer(),
}
