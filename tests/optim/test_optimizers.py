"""Optimizer updates against an independent float64 numpy restatement of OneFlow's formulas.

Each case trains two variables for five steps. The raw gradient fed to ``apply`` is that of
``sum(loss)`` for a loss with 8 elements, so the optimizers must scale it by 1/8 first.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from flowtorch import optimizer as O
from flowtorch._src.errors import ArgumentError
from flowtorch._src.optim import clipping as C
from flowtorch._src.optim import schedulers as S
from flowtorch._src.optim.base import Optimizer

N = 8  # loss element count
STEPS = 5
rng = np.random.default_rng(1234)
W0 = {"fc-weight": rng.normal(size=(3, 4)), "fc-bias": rng.normal(size=(4,))}
TARGET = {k: rng.normal(size=v.shape) for k, v in W0.items()}
NOISE = [{k: rng.normal(size=v.shape) for k, v in W0.items()} for _ in range(STEPS)]


class DictState:
    """A StateStore backed by a dict."""

    def __init__(self) -> None:
        self.slots: dict[str, torch.Tensor] = {}

    def get(self, name: str, like: torch.Tensor) -> torch.Tensor:
        if name not in self.slots:
            self.slots[name] = torch.zeros_like(like)
        return self.slots[name]


def raw_grad(name: str, w: np.ndarray, t: int) -> np.ndarray:
    """d sum(loss) / dw of a made-up loss: depends on w and differs per step."""
    return 3.0 * (w - TARGET[name]) + NOISE[t][name]


def run_flowtorch(opt: Optimizer, regularizers=None, grad_seed: float = 1.0):
    params = {k: torch.tensor(v, dtype=torch.float32) for k, v in W0.items()}
    state = DictState()
    for t in range(STEPS):
        grads = [
            torch.tensor(raw_grad(k, p.double().numpy(), t) * grad_seed, dtype=torch.float32) for k, p in params.items()
        ]
        opt.apply(list(params.items()), grads, t, N, state, regularizers)
    return {k: v.numpy() for k, v in params.items()}, state


def run_reference(update, regularizers=None, clip_norm=None, loss_scale=1.0):
    """``update(name, w, g, t, slots)`` returns the new w; gradients go through OneFlow's pipeline."""
    ws = {k: v.copy() for k, v in W0.items()}
    slots: dict[str, dict] = {k: {} for k in ws}
    for t in range(STEPS):
        gs = {}
        for k, w in ws.items():
            g = raw_grad(k, w, t) * loss_scale / N / loss_scale
            l1, l2 = (regularizers or {}).get(k, (0.0, 0.0))
            gs[k] = g + l1 * np.sign(w) + l2 * w
        if clip_norm is not None:
            norm = math.sqrt(sum(float(np.sum(g * g)) for g in gs.values()))
            factor = min(1.0 / norm, 1.0 / clip_norm)  # OneFlow's formula (no "* clip_norm")
            gs = {k: g * factor for k, g in gs.items()}
        ws = {k: update(k, w, gs[k], t, slots[k]) for k, w in ws.items()}
    return ws


def assert_close(got, want):
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5, err_msg=k)


def const_lr(lr: float) -> S.PiecewiseConstantScheduler:
    return S.PiecewiseConstantScheduler([], [lr])


# ------------------------------------------------------------------------------------ references
def sgd_ref(lr, momentum=0.0, wd=lambda name: 0.0):
    def update(name, w, g, t, slot):
        if momentum == 0:
            return w - lr * (g + wd(name) * w)
        v = momentum * slot.get("v", 0.0) - lr * g
        slot["v"] = v
        return w + v - lr * wd(name) * w

    return update


def adam_ref(lr, b1=0.9, b2=0.999, eps=1e-8, bias_correction=False, wd=lambda name: 0.0):
    def update(name, w, g, t, slot):
        m = b1 * slot.get("m", 0.0) + (1 - b1) * g
        v = b2 * slot.get("v", 0.0) + (1 - b2) * g * g
        slot["m"], slot["v"] = m, v
        rate = lr * math.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1)) if bias_correction else lr
        return w - rate * (m / (np.sqrt(v) + eps) + wd(name) * w)

    return update


def rmsprop_ref(lr, decay=0.99, eps=1e-8, centered=False):
    def update(name, w, g, t, slot):
        ms = (1 - decay) * g * g + decay * slot.get("ms", 0.0)
        slot["ms"] = ms
        denom = ms
        if centered:
            mg = (1 - decay) * g + decay * slot.get("mg", 0.0)
            slot["mg"] = mg
            denom = ms - mg * mg
        return w - lr * g / np.sqrt(denom + eps)

    return update


def lars_ref(lr, beta=0.9, eps=1e-9, coef=1e-4, wd=0.0):
    def update(name, w, g, t, slot):
        wn, gn = np.linalg.norm(w), np.linalg.norm(g)
        local = lr * coef * wn / (eps + gn + (wd * gn if t > 0 else 0.0))
        v = beta * slot.get("v", 0.0) - local * (g + wd * w)
        slot["v"] = v
        return w + v

    return update


def lamb_ref(lr, b1=0.9, b2=0.999, eps=1e-6, wd=0.0):
    def update(name, w, g, t, slot):
        m = b1 * slot.get("m", 0.0) + (1 - b1) * g
        v = b2 * slot.get("v", 0.0) + (1 - b2) * g * g
        slot["m"], slot["v"] = m, v
        b1t, b2t = b1 ** (t + 2), b2 ** (t + 2)  # OneFlow's beta_t start at beta, multiplied first
        u = (m / (1 - b1t)) / np.sqrt(v / (1 - b2t) + eps)
        wn, un = np.linalg.norm(w), np.linalg.norm(u)
        trust = wn / un if wn > 0 and un > 0 else 1.0
        return w - lr * trust * (u + wd * w)

    return update


# ------------------------------------------------------------------------------------ the cases
REGS = {"fc-weight": (0.01, 0.05)}


def test_sgd_plain_with_l1_l2_regularizers():
    got, state = run_flowtorch(O.SGD(const_lr(0.1), momentum=0), REGS)
    assert_close(got, run_reference(sgd_ref(0.1), REGS))
    assert state.slots == {}  # naive SGD keeps no slot


def test_sgd_default_momentum_is_0_9():
    opt = O.SGD(const_lr(0.1))
    assert opt.momentum == 0.9
    got, state = run_flowtorch(opt)
    assert_close(got, run_reference(sgd_ref(0.1, momentum=0.9)))
    assert sorted(state.slots) == ["fc-bias-momentum", "fc-weight-momentum"]


def test_sgd_with_grad_clipping_uses_oneflow_factor():
    clip = C.grad_clipping.by_global_norm(0.5)
    got, _ = run_flowtorch(O.SGD(const_lr(0.1), momentum=0.9, grad_clipping=clip), REGS)
    assert_close(got, run_reference(sgd_ref(0.1, momentum=0.9), REGS, clip_norm=0.5))


def test_sgd_clipping_with_small_gradients_divides_by_clip_norm():
    # global norm < clip_norm: OneFlow still multiplies by 1/clip_norm
    got, _ = run_flowtorch(O.SGD(const_lr(0.1), momentum=0, grad_clipping=C.grad_clipping.by_global_norm(100.0)))
    assert_close(got, run_reference(sgd_ref(0.1), clip_norm=100.0))


def test_sgdw_decays_only_included_variables():
    opt = O.SGDW(const_lr(0.05), momentum=0.9, weight_decay=0.1, weight_decay_includes="weight")
    got, _ = run_flowtorch(opt)
    assert_close(got, run_reference(sgd_ref(0.05, 0.9, wd=lambda n: 0.1 if "weight" in n else 0.0)))


def test_sgdw_plain():
    opt = O.SGDW(const_lr(0.05), momentum=0, weight_decay=0.2)
    got, _ = run_flowtorch(opt)
    assert_close(got, run_reference(sgd_ref(0.05, 0.0, wd=lambda n: 0.2)))


@pytest.mark.parametrize("bias_correction", [False, True])
def test_adam(bias_correction):
    opt = O.Adam(const_lr(0.01), do_bias_correction=bias_correction)
    got, state = run_flowtorch(opt)
    assert_close(got, run_reference(adam_ref(0.01, bias_correction=bias_correction)))
    assert sorted(state.slots) == ["fc-bias-m", "fc-bias-v", "fc-weight-m", "fc-weight-v"]


def test_adam_defaults_match_oneflow():
    opt = O.Adam(const_lr(0.01))
    assert (opt.beta1, opt.beta2, opt.epsilon, opt.do_bias_correction) == (0.9, 0.999, 1e-8, False)


@pytest.mark.parametrize("bias_correction", [False, True])
def test_adamw_with_excludes_and_regularizers(bias_correction):
    # a large epsilon checks that it is added outside the square root
    opt = O.AdamW(
        const_lr(0.01), beta1=0.8, epsilon=0.05, do_bias_correction=bias_correction,
        weight_decay=0.3, weight_decay_excludes=["bias"],
    )  # fmt: skip
    got, _ = run_flowtorch(opt, REGS)
    def wd(n):
        return 0.0 if "bias" in n else 0.3

    assert_close(got, run_reference(adam_ref(0.01, b1=0.8, eps=0.05, bias_correction=bias_correction, wd=wd), REGS))


def test_lazy_adam_is_adam_with_bias_correction():
    got, _ = run_flowtorch(O.LazyAdam(const_lr(0.01)))
    assert_close(got, run_reference(adam_ref(0.01, bias_correction=True)))


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(centered):
    opt = O.RMSProp(const_lr(0.01), decay_rate=0.9, epsilon=0.05, centered=centered)  # eps goes inside the root
    got, state = run_flowtorch(opt)
    assert_close(got, run_reference(rmsprop_ref(0.01, decay=0.9, eps=0.05, centered=centered)))
    expected = {"fc-weight-mean_square", "fc-bias-mean_square"}
    if centered:
        expected |= {"fc-weight-mean_gradient", "fc-bias-mean_gradient"}
    assert set(state.slots) == expected


@pytest.mark.parametrize("wd", [None, 0.01])
def test_lars(wd):
    opt = O.LARS(const_lr(0.5), momentum_beta=0.9, lars_coefficient=0.02, weight_decay=wd)
    got, state = run_flowtorch(opt)
    assert_close(got, run_reference(lars_ref(0.5, beta=0.9, coef=0.02, wd=wd or 0.0)))
    assert sorted(state.slots) == ["fc-bias-momentum", "fc-weight-momentum"]


@pytest.mark.parametrize(("wd", "eps"), [(None, 1e-6), (0.01, 0.05)])
def test_lamb(wd, eps):
    opt = O.LAMB(const_lr(0.01), epsilon=eps, weight_decay=wd)
    got, state = run_flowtorch(opt)
    assert_close(got, run_reference(lamb_ref(0.01, eps=eps, wd=wd or 0.0)))
    assert state.slots["fc-weight-beta1_t"].shape == (1,)
    assert state.slots["fc-weight-beta1_t"].item() == pytest.approx(0.9 ** (STEPS + 1), rel=1e-6)
    assert state.slots["fc-weight-beta2_t"].item() == pytest.approx(0.999 ** (STEPS + 1), rel=1e-6)


def test_lamb_init_slots_start_at_beta():
    state = DictState()
    O.LAMB(const_lr(0.01), beta1=0.8).init_slots("w", torch.zeros(2, 3), state)
    assert state.slots["w-beta1_t"].tolist() == [pytest.approx(0.8)]
    assert state.slots["w-m"].shape == (2, 3)


def test_scheduler_rate_and_warmup_reach_the_update():
    sched = S.PiecewiseConstantScheduler([2], [0.1, 0.01], warmup=S.warmup.constant(1, 0.5))
    rates = [0.05, 0.1, 0.1, 0.01, 0.01]  # warmup at step 0; step 2 still <= boundary 2
    assert [sched.lr(t) for t in range(STEPS)] == pytest.approx(rates)
    got, _ = run_flowtorch(O.SGD(sched, momentum=0))
    assert_close(got, run_reference(lambda name, w, g, t, slot: w - rates[t] * g))


def test_static_loss_scale_cancels_the_seed():
    opt = O.Adam(const_lr(0.01), loss_scale_factor=4.0)
    assert opt.grad_seed == 4.0 and opt.loss_scale_factor == 4.0
    got, _ = run_flowtorch(opt, grad_seed=4.0)
    assert_close(got, run_reference(adam_ref(0.01), loss_scale=4.0))


def test_dynamic_loss_scale_seeds_with_one():
    opt = O.SGD(const_lr(0.1), loss_scale_policy=C.loss_scale.dynamic_loss_scale())
    assert opt.grad_seed == 1.0 and opt.loss_scale_factor is None
    got, _ = run_flowtorch(opt)
    assert_close(got, run_reference(sgd_ref(0.1, momentum=0.9)))


def test_none_gradients_and_variables_are_skipped():
    w, b = torch.ones(2), torch.ones(2)
    state = DictState()
    O.SGD(const_lr(1.0), momentum=0).apply([("w", w), ("b", b)], [torch.ones(2), None], 0, 1, state)
    assert w.tolist() == [0.0, 0.0] and b.tolist() == [1.0, 1.0]
    only_b = O.SGD(const_lr(1.0), momentum=0, variables=["b"])
    only_b.apply([("w", w), ("b", b)], [torch.ones(2), torch.ones(2)], 0, 2, state)
    assert w.tolist() == [0.0, 0.0] and b.tolist() == [0.5, 0.5]


def test_custom_scheduler_takes_rate_from_apply():
    opt = O.SGD(S.CustomScheduler("lr_job/out"), momentum=0)
    w = torch.ones(3)
    with pytest.raises(NotImplementedError, match="lr_job/out"):
        opt.apply([("w", w)], [torch.ones(3)], 0, 1, DictState())
    opt.apply([("w", w)], [torch.ones(3)], 0, 1, DictState(), lr=0.25)
    assert w.tolist() == [0.75, 0.75, 0.75]


def test_combined_optimizer_partitions_variables():
    sgd = O.SGD(const_lr(0.1), momentum=0, variables=["fc-weight"])
    adam = O.Adam(const_lr(0.01), variables=lambda: ["fc-bias"])
    got, state = run_flowtorch(O.CombinedOptimizer([sgd, adam]))
    sgd_want = run_reference(sgd_ref(0.1))
    adam_want = run_reference(adam_ref(0.01))
    assert_close(got, {"fc-weight": sgd_want["fc-weight"], "fc-bias": adam_want["fc-bias"]})
    assert sorted(state.slots) == ["fc-bias-m", "fc-bias-v"]


def test_weight_decay_patterns_are_regex_searches():
    opt = O.AdamW(const_lr(0.1), weight_decay=0.5, weight_decay_includes=[r"-weight$", "^emb"])
    rates = {n: opt.weight_decay_rate(n) for n in ["fc-weight", "fc-weight-m", "embedding", "x-emb"]}
    assert rates == {"fc-weight": 0.5, "fc-weight-m": 0.0, "embedding": 0.5, "x-emb": 0.0}
    assert O.Adam(const_lr(0.1)).weight_decay_rate("fc-weight") == 0.0


def test_slot_names_use_oneflow_names():
    assert O.SGD(const_lr(0.1)).slot_names("w") == ["w-momentum"]
    assert O.SGD(const_lr(0.1), momentum=0).slot_names("w") == []
    assert O.RMSProp(const_lr(0.1), centered=True).slot_names("w") == ["w-mean_square", "w-mean_gradient"]
    assert O.LAMB(const_lr(0.1)).slot_names("w") == ["w-m", "w-v", "w-beta1_t", "w-beta2_t"]


def test_apply_does_not_write_the_gradients():
    g = torch.full((4,), 2.0)
    opt = O.SGD(const_lr(0.1), momentum=0, grad_clipping=C.grad_clipping.by_global_norm(1.0))
    opt.apply([("w", torch.ones(4))], [g], 0, 4, DictState(), {"w": (0.1, 0.1)})
    assert g.tolist() == [2.0] * 4


def test_minimize_outside_a_job_names_the_api():
    with pytest.raises(RuntimeError, match="minimize"):
        O.SGD(const_lr(0.1)).minimize(object())


# ---------------------------------------------------------------------------------------- errors
def test_bad_arguments_are_reported():
    with pytest.raises(ArgumentError, match="lr_scheduler"):
        O.SGD(0.1)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="lr_scheduler"):
        O.Adam(None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="not both"):
        O.AdamW(const_lr(0.1), weight_decay=0.1, weight_decay_includes="a", weight_decay_excludes="b")
    with pytest.raises(AssertionError, match="not both"):  # OneFlow asserted; the type still matches
        O.Adam(const_lr(0.1), loss_scale_factor=2.0, loss_scale_policy=C.loss_scale.static_loss_scale(2.0))
    with pytest.raises(ArgumentError, match="grad_clipping"):
        O.SGD(const_lr(0.1), grad_clipping=1.0)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="regular expression"):
        O.SGDW(const_lr(0.1), weight_decay=0.1, weight_decay_includes="(")
    with pytest.raises(ArgumentError, match="3 params but 1 grads"):
        O.SGD(const_lr(0.1)).apply([("a", torch.ones(1))] * 3, [None], 0, 1, DictState())


def test_combined_optimizer_errors():
    sgd = O.SGD(const_lr(0.1))
    with pytest.raises(ArgumentError, match="claimed by several"):
        O.CombinedOptimizer([sgd, O.Adam(const_lr(0.1))]).apply(
            [("w", torch.ones(1))], [torch.ones(1)], 0, 1, DictState()
        )
    with pytest.raises(ArgumentError, match="non-combined"):
        O.CombinedOptimizer([O.CombinedOptimizer([sgd])])
    with pytest.raises(ArgumentError, match="train_step_lbn"):
        O.CombinedOptimizer([O.SGD(const_lr(0.1), train_step_lbn="a/b")])
    with pytest.raises(ArgumentError, match="loss scale"):
        O.CombinedOptimizer([O.SGD(const_lr(0.1), loss_scale_factor=2.0)])


def test_a_variables_function_runs_in_minimize_while_the_job_is_built():
    # OneFlow-Benchmark's LARS programs pick the variables from the job being built (GetLarsVariablesForCurrentJob)
    import flowtorch as flow
    import flowtorch.typing as tp
    from flowtorch import oneflow_api

    seen = []

    def current_job_variables():
        seen.append(oneflow_api.JobBuildAndInferCtx_GetCurrentJobName())
        return ["b"]

    @flow.global_function(type="train")
    def train_job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.get_variable("w", (3,), initializer=flow.ones_initializer())
        b = flow.get_variable("b", (3,), initializer=flow.ones_initializer())
        loss = flow.math.reduce_sum(x * w + b)
        O.SGD(const_lr(0.5), momentum=0, variables=current_job_variables).minimize(loss)
        return loss

    train_job(np.ones((2, 3), np.float32))
    assert seen == ["train_job"]
    values = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    np.testing.assert_array_equal(values["w"], np.ones(3))  # not in the list: untouched
    np.testing.assert_allclose(values["b"], np.ones(3) - 0.5 * 2)  # d loss / d b = 2 (a scalar loss: n = 1)
