"""Learning-rate schedules: hand-computed values, warmup composition, errors."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim import schedulers as S


def rates(sched: S.LrScheduler, steps: list[int]) -> list[float]:
    return [sched.lr(t) for t in steps]


def approx(values: list[float]):
    return pytest.approx(values, rel=1e-6, abs=1e-9)


def test_piecewise_constant_boundaries_are_inclusive():
    sched = S.PiecewiseConstantScheduler([3, 6], [1.0, 0.5, 0.1])
    assert rates(sched, [0, 3, 4, 6, 7, 100]) == approx([1.0, 1.0, 0.5, 0.5, 0.1, 0.1])


def test_piecewise_constant_without_boundaries_is_constant():
    sched = S.PiecewiseConstantScheduler([], [0.001])
    assert rates(sched, [0, 1, 10**6]) == approx([0.001] * 3)


def test_rates_are_float32_values():
    lr = S.PiecewiseConstantScheduler([], [0.1]).lr(0)
    assert lr == float(np.float32(0.1)) and lr != 0.1


def test_piecewise_scaling():
    sched = S.PiecewiseScalingScheduler(0.1, [5, 10], [0.5, 0.1])
    assert rates(sched, [0, 5, 6, 10, 11]) == approx([0.1, 0.1, 0.05, 0.05, 0.01])
    # a scalar scale is repeated per boundary, not compounded
    scalar = S.PiecewiseScalingScheduler(1.0, [2, 4], 0.5)
    assert rates(scalar, [2, 3, 5]) == approx([1.0, 0.5, 0.5])


def test_cosine():
    sched = S.CosineScheduler(1.0, 10, alpha=0.1)
    assert rates(sched, [0, 3, 5, 10, 20]) == approx([1.0, 0.8145033, 0.55, 0.1, 0.1])


def test_linear_cosine():
    sched = S.LinearCosineScheduler(1.0, 10)
    assert rates(sched, [0, 5, 10, 12]) == approx([1.001, 0.251, 0.001, 0.001])


def test_polynomial():
    sched = S.PolynomialScheduler(0.1, 10, end_learning_rate=0.001, power=2)
    assert rates(sched, [0, 5, 10, 15]) == approx([0.1, 0.02575, 0.001, 0.001])


def test_polynomial_cycle_counts_step_zero_as_one():
    sched = S.PolynomialScheduler(0.1, 10, end_learning_rate=0.001, power=2, cycle=True)
    assert rates(sched, [0, 10, 15, 20]) == approx([0.08119, 0.001, 0.0071875, 0.001])


def test_polynomial_misspelt_name_warns_and_matches(caplog):
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        old = S.PolynomialSchduler(0.1, 10, 0.001, 2)
    assert [r.getMessage() for r in caplog.records] == [
        "oneflow.optimizer.PolynomialSchduler will be removed in the future, use "
        "oneflow.optimizer.PolynomialScheduler instead."]
    assert isinstance(old, S.PolynomialScheduler)
    assert rates(old, [0, 5]) == approx([0.1, 0.02575])


@pytest.mark.parametrize(
    ("cls", "smooth", "stairs"),
    [
        (S.ExponentialScheduler, [1.0, 0.7071068, 0.5, 0.25], [1.0, 1.0, 0.5, 0.5]),
        (S.InverseTimeScheduler, [1.0, 0.8, 2 / 3, 0.5], [1.0, 1.0, 2 / 3, 2 / 3]),
        (S.NaturalExpScheduler, [1.0, 0.7788008, 0.6065307, 0.3678794], [1.0, 1.0, 0.6065307, 0.6065307]),
    ],
)
def test_staircase_family(cls, smooth, stairs):
    assert rates(cls(1.0, 4, 0.5), [0, 2, 4, 8]) == approx(smooth)
    assert rates(cls(1.0, 4, 0.5, staircase=True), [0, 2, 4, 7]) == approx(stairs)


def test_linear_warmup_then_unshifted_decay():
    sched = S.CosineScheduler(1.0, 10, warmup=S.warmup.linear(4, 0.2))
    assert rates(sched, [0, 1, 2, 3, 4]) == approx([0.2, 0.4, 0.6, 0.8, 0.6545085])


def test_constant_warmup():
    sched = S.ExponentialScheduler(0.1, 1, 0.9, warmup=S.warmup.constant(3, 0.1))
    assert rates(sched, [0, 2, 3]) == approx([0.01, 0.01, 0.0729])


def test_warmup_scales_first_piecewise_value():
    sched = S.PiecewiseConstantScheduler([0], [0.5, 0.2], warmup=S.warmup.linear(2, 0.0))
    assert rates(sched, [0, 1, 2]) == approx([0.0, 0.25, 0.2])


def test_custom_scheduler_needs_the_runtime():
    sched = S.CustomScheduler("lr_op/out")
    assert sched.lr_lbn == "lr_op/out"
    with pytest.raises(NotImplementedError, match="lr_op/out"):
        sched.lr(0)


def test_reprs_are_readable():
    assert repr(S.warmup.linear(4, 0.2)) == "warmup.linear(steps=4, start_multiplier=0.2)"
    assert "boundaries=[1]" in repr(S.PiecewiseConstantScheduler([1], [0.1, 0.01]))


# ---------------------------------------------------------------------------------------- errors
def test_piecewise_constant_length_mismatch_names_both_lengths():
    with pytest.raises(ValueError, match=r"len\(boundaries\)=2 and len\(values\)=2"):
        S.PiecewiseConstantScheduler([1, 2], [0.1, 0.2])
    with pytest.raises(AssertionError):  # OneFlow's own exception type still matches
        S.PiecewiseConstantScheduler([1], [0.1])


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: S.PiecewiseScalingScheduler(0.1, [1, 2], [0.5]), r"len\(boundaries\)=2 and len\(scale\)=1"),
        (lambda: S.CosineScheduler(0.1, 0), "steps=0"),
        (lambda: S.ExponentialScheduler(0.1, -1, 0.5), "steps=-1"),
        (lambda: S.warmup.constant(3, 1.0), "multiplier"),
        (lambda: S.warmup.linear(3, 1.0), "start_multiplier"),
        (lambda: S.warmup.linear(-1, 0.5), "steps"),
        (lambda: S.CosineScheduler(0.1, 10, warmup=0.5), "warmup"),  # type: ignore[arg-type]
        (lambda: S.CustomScheduler("no_slash"), "lbn"),
    ],
)
def test_bad_arguments(make, match):
    with pytest.raises(ArgumentError, match=match):
        make()
