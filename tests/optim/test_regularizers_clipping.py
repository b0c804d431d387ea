"""Regularizers, global-norm clipping and loss-scale policies."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from flowtorch._src import regularizers as R
from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim import clipping as C


def test_regularizer_factories():
    assert (R.l1().l1, R.l1().l2) == (0.01, 0.0)
    assert (R.l2(0.5).l1, R.l2(0.5).l2) == (0.0, 0.5)
    both = R.l1_l2(l1=0.1, l2=0.2)
    assert (both.l1, both.l2) == (0.1, 0.2)
    assert repr(both) == "regularizers.l1_l2(l1=0.1, l2=0.2)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        both.l1 = 1.0  # type: ignore[misc]
    with pytest.raises(ArgumentError, match="l1 must be a number"):
        R.l1("big")  # type: ignore[arg-type]


def test_global_norm_factor_is_oneflows_min_of_inverses():
    grads = [torch.tensor([3.0]), torch.tensor([[4.0]])]  # global norm 5
    assert C.grad_clipping.by_global_norm(1.0).scale_factor(grads).item() == pytest.approx(0.2)
    assert C.grad_clipping.by_global_norm(10.0).scale_factor(grads).item() == pytest.approx(0.1)
    # grad_scale: the true gradients are 0.5 * grads, global norm 2.5
    assert C.grad_clipping.by_global_norm(1.0).scale_factor(grads, 0.5).item() == pytest.approx(0.4)
    zeros = [torch.zeros(3)]
    assert C.grad_clipping.by_global_norm(4.0).scale_factor(zeros).item() == pytest.approx(0.25)


def test_regularize_and_clip_keeps_scale_outside():
    w = torch.tensor([-2.0, 0.0, 3.0])
    g = torch.tensor([1.0, 2.0, 3.0])
    s = 0.25
    (h,) = C.regularize_and_clip(["w"], [w], [g], s, {"w": (0.1, 0.2)}, None)
    want = g * s + 0.1 * torch.sign(w) + 0.2 * w
    torch.testing.assert_close(h * s, want)
    (same,) = C.regularize_and_clip(["w"], [w], [g], s, {}, None)
    assert same is g  # nothing to do: no copy
    # |g * s| = 0.935 > clip_norm 0.5: OneFlow's factor 1/|g'| leaves a unit norm (not 0.5)
    (clipped,) = C.regularize_and_clip(["w"], [w], [g], s, {}, C.ClipByGlobalNorm(0.5))
    torch.testing.assert_close((clipped * s).norm(), torch.tensor(1.0))
    assert g.tolist() == [1.0, 2.0, 3.0]


def test_loss_scale_policies():
    static = C.loss_scale.static_loss_scale(128.0)
    assert static.grad_seed == 128.0 and repr(static) == "loss_scale.static_loss_scale(128.0)"
    dynamic = C.loss_scale.dynamic_loss_scale()
    assert (dynamic.initial_loss_scale, dynamic.increment_period, dynamic.multiplier) == (2.0**30, 2000, 2.0)
    assert dynamic.grad_seed == 1.0


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: C.grad_clipping.by_global_norm(0.0), "clip_norm"),
        (lambda: C.loss_scale.static_loss_scale(-1.0), "loss_scale_factor"),
        (lambda: C.loss_scale.dynamic_loss_scale(increment_period=0), "increment_period"),
    ],
)
def test_bad_arguments(make, match):
    with pytest.raises(ArgumentError, match=match):
        make()
