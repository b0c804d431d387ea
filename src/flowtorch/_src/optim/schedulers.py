"""Learning-rate schedules of ``flow.optimizer`` with OneFlow's exact formulas.

Every scheduler answers ``lr(step)`` for a 0-based train step. The formulas and the way warmup
composes follow OneFlow v0.3.4 ``oneflow/core/kernel/learning_rate_schedule_kernel.cpp``:

* while a warmup is active (``step < warmup.steps``) the rate is ``base_lr * warmup.factor(step)``
  and the decay is *not* applied;
* afterwards the decay formula is evaluated at the *unshifted* ``step``.

OneFlow keeps the base rate in a ``float`` proto field, computes in double and stores the result
as a ``float``; ``lr`` rounds the same way, so it returns exactly the value OneFlow's optimizer
kernels saw.
"""

from __future__ import annotations

import logging
import math
import types
from collections.abc import Sequence

import numpy as np

from flowtorch._src.errors import ArgumentError

log = logging.getLogger("flowtorch")

__all__ = [
    "ConstantWarmup",
    "CosineScheduler",
    "CustomScheduler",
    "ExponentialScheduler",
    "InverseTimeScheduler",
    "LinearCosineScheduler",
    "LinearWarmup",
    "LrScheduler",
    "NaturalExpScheduler",
    "PiecewiseConstantScheduler",
    "PiecewiseScalingScheduler",
    "PolynomialSchduler",
    "PolynomialScheduler",
    "WarmupConf",
    "warmup",
]


def _f32(x: float) -> float:
    """Round through float32, as a OneFlow ``float`` proto field or blob does."""
    return float(np.float32(x))


def _positive_steps(cls: str, steps: int) -> int:
    # OneFlow aborted the process at the first train step (CHECK_GT(decay_batches, 0)).
    if int(steps) <= 0:
        raise ArgumentError(f"{cls}: steps must be a positive number of train steps, got steps={steps!r}")
    return int(steps)


# --------------------------------------------------------------------------------------- warmup
class WarmupConf:
    """Base of the warmup strategies: scales the base rate during the first ``steps`` steps."""

    steps: int

    def active(self, step: int) -> bool:
        return step < self.steps

    def factor(self, step: int) -> float:
        """The multiplier of the base rate at ``step`` (only asked while ``active``)."""
        raise NotImplementedError


class ConstantWarmup(WarmupConf):
    """``flow.optimizer.warmup.constant(steps, multiplier)``: ``base_lr * multiplier`` while warming up."""

    def __init__(self, steps: int, multiplier: float) -> None:
        if int(steps) < 0:
            raise ArgumentError(f"warmup.constant: steps must be >= 0, got steps={steps!r}")
        if not 0.0 < float(multiplier) < 1.0:
            raise ArgumentError(f"warmup.constant: multiplier must be in (0, 1), got multiplier={multiplier!r}")
        self.steps = int(steps)
        self.multiplier = float(multiplier)

    def factor(self, step: int) -> float:
        return self.multiplier

    def __repr__(self) -> str:
        return f"warmup.constant(steps={self.steps}, multiplier={self.multiplier})"


class LinearWarmup(WarmupConf):
    """``flow.optimizer.warmup.linear(steps, start_multiplier)``: ramps from ``start_multiplier`` to 1."""

    def __init__(self, steps: int, start_multiplier: float) -> None:
        if int(steps) < 0:
            raise ArgumentError(f"warmup.linear: steps must be >= 0, got steps={steps!r}")
        if not 0.0 <= float(start_multiplier) < 1.0:
            raise ArgumentError(
                f"warmup.linear: start_multiplier must be in [0, 1), got start_multiplier={start_multiplier!r}"
            )
        self.steps = int(steps)
        self.start_multiplier = float(start_multiplier)

    def factor(self, step: int) -> float:
        return self.start_multiplier + (1.0 - self.start_multiplier) * (step / self.steps)

    def __repr__(self) -> str:
        return f"warmup.linear(steps={self.steps}, start_multiplier={self.start_multiplier})"


#: ``flow.optimizer.warmup`` namespace (OneFlow's class names are lower case).
warmup = types.SimpleNamespace(constant=ConstantWarmup, linear=LinearWarmup)


# ------------------------------------------------------------------------------------ schedulers
class LrScheduler:
    """Base of every scheduler.

    Subclasses implement ``_decayed(base, step)`` (double arithmetic on the float32 base rate).
    ``lr_lbn`` is set only by :class:`CustomScheduler`, whose rate lives in a job blob.
    """

    def __init__(
        self,
        base_lr: float | None = None,
        lr_lbn: str | None = None,
        warmup: WarmupConf | None = None,
    ) -> None:
        if warmup is not None and not isinstance(warmup, WarmupConf):
            raise ArgumentError(
                f"{type(self).__name__}: warmup must be flow.optimizer.warmup.constant/linear(...), "
                f"got {type(warmup).__name__}"
            )
        self.base_lr = None if base_lr is None else float(base_lr)
        self.lr_lbn = lr_lbn
        self.warmup = warmup

    def lr(self, step: int) -> float:
        """Learning rate used by the update of train step ``step`` (0-based), as float32."""
        if self.base_lr is None:
            raise NotImplementedError(f"{type(self).__name__} has no base learning rate")
        base = _f32(self.base_lr)
        if self.warmup is not None and self.warmup.active(step):
            return _f32(base * self.warmup.factor(step))
        return _f32(self._decayed(base, int(step)))

    def _decayed(self, base: float, step: int) -> float:
        raise NotImplementedError

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k not in ("lr_lbn",) and v is not None)
        return f"{type(self).__name__}({fields})"


def _segment(boundaries: Sequence[int], step: int) -> int:
    # OneFlow picks the first boundary with step <= boundary (inclusive), else the last segment.
    for i, b in enumerate(boundaries):
        if step <= b:
            return i
    return len(boundaries)


class PiecewiseConstantScheduler(LrScheduler):
    """``values[i]`` for the first ``i`` with ``step <= boundaries[i]``, else ``values[-1]``.

    Note the inclusive comparison: with ``boundaries=[10]`` step 10 still uses ``values[0]``.
    Warmup scales ``values[0]``.
    """

    def __init__(self, boundaries: Sequence[int], values: Sequence[float], warmup: WarmupConf | None = None) -> None:
        boundaries = [int(b) for b in boundaries]
        values = [float(v) for v in values]
        if len(values) != len(boundaries) + 1:
            raise ArgumentError(
                "PiecewiseConstantScheduler: len(values) must be len(boundaries) + 1, got "
                f"len(boundaries)={len(boundaries)} and len(values)={len(values)}"
            )
        super().__init__(base_lr=values[0], warmup=warmup)
        self.boundaries = boundaries
        self.values = values

    def _decayed(self, base: float, step: int) -> float:
        return self.values[_segment(self.boundaries, step)]


class PiecewiseScalingScheduler(LrScheduler):
    """``base_lr * ([1] + scale)[i]`` with the same inclusive boundary rule as piecewise constant.

    A scalar ``scale`` is repeated for every boundary.
    """

    def __init__(
        self,
        base_lr: float,
        boundaries: Sequence[int],
        scale: float | Sequence[float],
        warmup: WarmupConf | None = None,
    ) -> None:
        super().__init__(base_lr=base_lr, warmup=warmup)
        self.boundaries = [int(b) for b in boundaries]
        if np.ndim(scale) == 0:
            scales = [float(scale)] * len(self.boundaries)  # type: ignore[arg-type]
        else:
            scales = [float(s) for s in scale]  # type: ignore[union-attr]
        if len(scales) != len(self.boundaries):
            raise ArgumentError(
                "PiecewiseScalingScheduler: scale needs one factor per boundary, got "
                f"len(boundaries)={len(self.boundaries)} and len(scale)={len(scales)}"
            )
        self.scale = [1.0, *scales]

    def _decayed(self, base: float, step: int) -> float:
        return self.scale[_segment(self.boundaries, step)] * base


class CosineScheduler(LrScheduler):
    """``base * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, steps) / steps)) + alpha)``."""

    def __init__(self, base_lr: float, steps: int, alpha: float = 0.0, warmup: WarmupConf | None = None) -> None:
        super().__init__(base_lr=base_lr, warmup=warmup)
        self.steps = _positive_steps("CosineScheduler", steps)
        self.alpha = float(alpha)

    def _decayed(self, base: float, step: int) -> float:
        cur = min(float(step), float(self.steps))
        cosine = 0.5 * (1.0 + math.cos(math.pi * cur / self.steps))
        return base * ((1.0 - self.alpha) * cosine + self.alpha)


class LinearCosineScheduler(LrScheduler):
    """``base * ((alpha + linear) * cosine + beta)`` with ``step`` clamped to ``steps``.

    ``linear = (steps - step) / steps``, ``cosine = 0.5 * (1 + cos(2 pi num_periods step / steps))``.
    """

    def __init__(
        self,
        base_lr: float,
        steps: int,
        num_periods: float = 0.5,
        alpha: float = 0.0,
        beta: float = 0.001,
        warmup: WarmupConf | None = None,
    ) -> None:
        super().__init__(base_lr=base_lr, warmup=warmup)
        self.steps = _positive_steps("LinearCosineScheduler", steps)
        self.num_periods = float(num_periods)
        self.alpha = float(alpha)
        self.beta = float(beta)

    def _decayed(self, base: float, step: int) -> float:
        decay = float(self.steps)
        cur = min(float(step), decay)
        linear = (decay - cur) / decay
        cosine = 0.5 * (1.0 + math.cos(math.pi * 2.0 * self.num_periods * cur / decay))
        return base * ((self.alpha + linear) * cosine + self.beta)


class PolynomialScheduler(LrScheduler):
    """``(base - end) * (1 - step / decay) ** power + end``.

    Without ``cycle`` the step is clamped to ``steps``; with ``cycle`` the decay period grows to
    ``steps * ceil(step / steps)`` (step 0 counts as step 1, as in OneFlow).
    """

    def __init__(
        self,
        base_lr: float,
        steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        warmup: WarmupConf | None = None,
    ) -> None:
        super().__init__(base_lr=base_lr, warmup=warmup)
        self.steps = _positive_steps(type(self).__name__, steps)
        self.end_learning_rate = float(end_learning_rate)
        self.power = float(power)
        self.cycle = bool(cycle)

    def _decayed(self, base: float, step: int) -> float:
        cur = float(step)
        decay = float(self.steps)
        if self.cycle:
            cur = 1.0 if step == 0 else cur
            decay = decay * math.ceil(cur / decay)
        else:
            cur = min(cur, decay)
        end = self.end_learning_rate
        return (base - end) * math.pow(1.0 - cur / decay, self.power) + end


class PolynomialSchduler(PolynomialScheduler):
    """OneFlow's original misspelt name; logs OneFlow's notice (WARNING) and behaves as :class:`PolynomialScheduler`."""

    def __init__(
        self,
        base_lr: float,
        steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        warmup: WarmupConf | None = None,
    ) -> None:
        log.warning("oneflow.optimizer.PolynomialSchduler will be removed in the future, "
                    "use oneflow.optimizer.PolynomialScheduler instead.")
        super().__init__(base_lr, steps, end_learning_rate, power, cycle, warmup)


class _StaircaseScheduler(LrScheduler):
    """Shared constructor of the exponential / inverse-time / natural-exp schedules."""

    def __init__(
        self,
        base_lr: float,
        steps: int,
        decay_rate: float,
        staircase: bool = False,
        warmup: WarmupConf | None = None,
    ) -> None:
        super().__init__(base_lr=base_lr, warmup=warmup)
        self.steps = _positive_steps(type(self).__name__, steps)
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)

    def _ratio(self, step: int) -> float:
        p = float(step) / float(self.steps)
        return math.floor(p) if self.staircase else p


class ExponentialScheduler(_StaircaseScheduler):
    """``base * decay_rate ** (step / steps)`` (exponent floored with ``staircase``)."""

    def _decayed(self, base: float, step: int) -> float:
        return base * math.pow(self.decay_rate, self._ratio(step))


class InverseTimeScheduler(_StaircaseScheduler):
    """``base / (1 + decay_rate * (step / steps))``; ``staircase`` floors ``step / steps``.

    (OneFlow's docstring floors the product instead; the kernel floors the ratio.)
    """

    def _decayed(self, base: float, step: int) -> float:
        return base / (1.0 + self.decay_rate * self._ratio(step))


class NaturalExpScheduler(_StaircaseScheduler):
    """``base * exp(-decay_rate * (step / steps))`` (ratio floored with ``staircase``)."""

    def _decayed(self, base: float, step: int) -> float:
        return base * math.exp(-self.decay_rate * self._ratio(step))


class CustomScheduler(LrScheduler):
    """The learning rate is the value of a job blob, named by its ``lbn`` (``"op_name/blob_name"``).

    The value only exists while a job runs, so ``lr(step)`` cannot answer: the job runtime reads
    the blob and passes it to ``Optimizer.apply(..., lr=value)``. OneFlow forbade a warmup here.
    """

    def __init__(self, lbn: str) -> None:
        if not isinstance(lbn, str) or "/" not in lbn:
            raise ArgumentError(f"CustomScheduler: lbn must be a 'op_name/blob_name' string, got lbn={lbn!r}")
        super().__init__(lr_lbn=lbn)

    def lr(self, step: int) -> float:
        raise NotImplementedError(
            f"CustomScheduler takes its learning rate from the job blob {self.lr_lbn!r}; the value is "
            "known only while the job runs, so the runtime must pass it as Optimizer.apply(..., lr=value)"
        )

    def __repr__(self) -> str:
        return f"CustomScheduler(lbn={self.lr_lbn!r})"
