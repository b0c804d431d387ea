"""A train job's optimizer as a ``torch.optim.Optimizer`` subclass with OneFlow's own rule, and its schedule.

OneFlow's update of a variable ``w`` with raw gradient ``g`` of ``sum(losses)`` uses ``g' = g / n`` (``n``
the element count of one loss blob) plus the regularizers; the exported module's ``objective()`` is the scalar
whose gradient is that ``g'`` (see :mod:`flowtorch._src.optim.base`). On it, the class the export writes
(:mod:`.export_optim_rules`) applies flowtorch's rule for the job's optimizer, which is OneFlow's:

* ``SGD``/``SGDW`` (any momentum, at any rate: OneFlow's momentum ``v`` is the state as it is), ``Adam``,
  ``AdamW``, ``LazyAdam`` (with or without bias correction), ``RMSProp`` (centered or not), ``LAMB`` and
  ``LARS``: exactly, with the schedule and warm-up (``learning_rate(step)``), weight decay per variable, clipping
  by global norm, a static loss scale (the objective is unscaled: the update is the same) and a dynamic one
  (flowtorch computes in float32 and does not scale; neither does the export);
* lazy row updates (``indexed_slices_optimizer_conf``; variables in ``lazy``): approximately, and only with
  ``exact_optimizer=False``: the step cannot know which rows the batch gathered; it updates the rows whose
  gradient is not all zero;
* ``CombinedOptimizer``, a ``CustomScheduler``, and the v0.1 rules of ``optim.legacy`` (RMSProp without history
  at step 0, Adam storing corrected moments, clipping each gradient by its own norm): ``NotImplementedError``.
"""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from flowtorch._src.migrate import export_optim_rules as rules
from flowtorch._src.optim import schedulers as of_sched
from flowtorch._src.optim.adam import LAMB, Adam
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.optim.clipping import ClipByGlobalNorm
from flowtorch._src.optim.combined import CombinedOptimizer
from flowtorch._src.optim.legacy_rules import LegacyAdam, LegacyRMSProp
from flowtorch._src.optim.rmsprop import RMSProp
from flowtorch._src.optim.sgd import LARS, SGD

log = logging.getLogger("flowtorch")


@dataclass
class OptimizerPlan:
    """How to rebuild one job's optimizer in torch: generated code, and the state to put in it."""

    source: str  # learning_rate(), the optimizer classes, make_optimizer(model), make_scheduler(optimizer)
    start_step: int  # the job's next train step (0-based)
    # attr → {state key: tensor or number}; tensors are OneFlow's slot variables
    state: dict[str, dict[str, Any]] = field(default_factory=dict)


def _unsupported(opt: Optimizer, reason: str) -> NotImplementedError:
    return NotImplementedError(f"flowtorch.export: OneFlow's {type(opt).__name__} cannot be exported: {reason}")


def plan_optimizer(opt: Optimizer, names: Sequence[str], attr_of: dict[str, str], slots: dict[str, torch.Tensor],
                   start_step: int, exact: bool, lazy: Sequence[str] = ()) -> OptimizerPlan:
    """The torch form of ``opt`` over the trainable variables ``names`` (OneFlow names; ``attr_of`` gives their
    module attributes; ``slots`` maps slot variable names to tensors; ``lazy``: the variables OneFlow updates
    row by row, ``step.sparse``)."""
    _refuse(opt)
    sched = opt.lr_scheduler
    if sched is None:
        raise _unsupported(opt, "it has no learning rate scheduler")
    lr_source = schedule_source(sched)
    only = opt.variable_names()
    names = [n for n in names if only is None or n in only]
    lazy = [n for n in names if n in set(lazy)]
    if lazy:
        if not isinstance(opt, (SGD, Adam)):
            raise _unsupported(opt, "OneFlow updates rows with SGD and Adam only")
        reason = (f"it updates {', '.join(lazy)} row by row (indexed_slices_optimizer_conf): the exported step "
                  "updates the rows whose gradient is not all zero, OneFlow the rows the batch gathered (they "
                  "differ where a gathered row's summed gradient is exactly zero)")
        if exact:
            raise _unsupported(opt, reason + "; pass exact_optimizer=False (flowtorch export "
                               "--approximate-optimizer) to export it anyway")
        log.warning("flowtorch.export: %s is exported approximately: %s", type(opt).__name__, reason)
    cls, kwargs, slot_keys = _rule(opt)
    decays = cls != "OneFlowRMSProp"
    groups: dict[tuple[float, bool], list[str]] = {}  # (weight decay, updated row by row) → variables
    for n in names:
        groups.setdefault((opt.weight_decay_rate(n) if decays else 0.0, n in lazy), []).append(n)
    state: dict[str, dict[str, Any]] = {}
    for n in names:
        entry: dict[str, Any] = {key: slots[f"{n}-{suffix}"] for key, suffix in slot_keys.items()}
        if cls in ("OneFlowAdam", "OneFlowLAMB", "OneFlowLARS"):
            entry["step"] = start_step
        if entry:
            state[attr_of[n]] = entry
    if isinstance(opt.grad_clipping, ClipByGlobalNorm):
        kwargs["clip_norm"] = opt.grad_clipping.clip_norm
    source = (lr_source + rules.BASE + rules.CLASSES[cls]
              + _optimizer_source(opt, cls, kwargs, groups, attr_of, decays))
    return OptimizerPlan(source, start_step, state)


def _refuse(opt: Optimizer) -> None:
    """``NotImplementedError`` for the optimizers the export has no rule for."""
    if isinstance(opt, CombinedOptimizer):
        raise _unsupported(opt, "it combines several update rules, each with its own schedule; export a job with "
                           "one optimizer, or split the variables between jobs")
    if isinstance(opt, (LegacyAdam, LegacyRMSProp)):
        raise _unsupported(opt, "its OneFlow v0.1 rule (the 2020 train_conf: "
                           + ("Adam storing bias-corrected moments" if isinstance(opt, LegacyAdam)
                              else "RMSProp without history at the first step") + ") has no export")
    if not isinstance(opt, (SGD, Adam, RMSProp, LAMB, LARS)):
        raise _unsupported(opt, "it is none of SGD, SGDW, Adam, AdamW, LazyAdam, RMSProp, LAMB, LARS")
    if opt.grad_clipping is not None and not isinstance(opt.grad_clipping, ClipByGlobalNorm):
        raise _unsupported(opt, f"its clipping {opt.grad_clipping!r} (OneFlow v0.1's clipping of each gradient by "
                           "its own norm) has no export")


def _rule(opt: Optimizer) -> tuple[str, dict[str, Any], dict[str, str]]:
    """The exported class, its arguments besides lr, and its state keys → OneFlow's slot suffixes."""
    if isinstance(opt, SGD):
        return "OneFlowSGD", {"momentum": opt.momentum}, {"momentum": "momentum"} if opt.momentum else {}
    if isinstance(opt, Adam):
        return ("OneFlowAdam", {"betas": (opt.beta1, opt.beta2), "eps": opt.epsilon,
                                "bias_correction": opt.do_bias_correction}, {"exp_avg": "m", "exp_avg_sq": "v"})
    if isinstance(opt, RMSProp):
        keys = {"square_avg": "mean_square"} | ({"grad_avg": "mean_gradient"} if opt.centered else {})
        return "OneFlowRMSProp", {"decay_rate": opt.decay_rate, "eps": opt.epsilon, "centered": opt.centered}, keys
    if isinstance(opt, LAMB):
        return "OneFlowLAMB", {"betas": (opt.beta1, opt.beta2), "eps": opt.epsilon}, {"exp_avg": "m",
                                                                                       "exp_avg_sq": "v"}
    if isinstance(opt, LARS):
        return ("OneFlowLARS", {"momentum": opt.momentum_beta, "eps": opt.epsilon,
                                "lars_coefficient": opt.lars_coefficient}, {"momentum": "momentum"})
    raise _unsupported(opt, "it has no exported rule")  # (_refuse stops the others first)


def _describe(opt: Optimizer) -> str:
    """``SGD(momentum=0.9)``: the optimizer as the docstring of make_optimizer names it."""
    if isinstance(opt, SGD):
        return f"{type(opt).__name__}(momentum={opt.momentum!r})"
    if isinstance(opt, Adam):
        return f"{type(opt).__name__}(do_bias_correction={opt.do_bias_correction!r})"
    return type(opt).__name__


def _optimizer_source(opt: Optimizer, cls: str, kwargs: dict[str, Any], groups: dict[tuple[float, bool], list[str]],
                      attr_of: dict[str, str], decays: bool) -> str:
    clipping = f", clipping by global norm {opt.grad_clipping.clip_norm!r}" if isinstance(
        opt.grad_clipping, ClipByGlobalNorm) else ""
    lines = ["", "", "def make_optimizer(model):",
             f'    """OneFlow\'s {_describe(opt)}{clipping}, as {cls}, over the parameters it trained.',
             "",
             "    Its lr is the rate of step START_STEP; make_scheduler() sets it every step.",
             '    """']
    labels: list[str] = []  # the name of each group's list of attributes
    for rate, lazy in groups:
        label = "lazy_rows" if lazy else "decayed" if rate else "not_decayed" if len(groups) > 1 else "names"
        labels.append(label if label not in labels else f"{label}_{len(labels) + 1}")
    for label, members in zip(labels, groups.values()):
        quoted = ", ".join(repr(attr_of[n]) for n in members)
        lines += [f"    {label} = ["]
        lines += textwrap.wrap(quoted, width=112, initial_indent=" " * 8, subsequent_indent=" " * 8,
                               break_long_words=False, break_on_hyphens=False)
        lines += ["    ]"]
    lines += ["    groups = ["]
    for label, (rate, lazy) in zip(labels, groups):
        extra = (f', "weight_decay": {rate!r}' if decays else "") + (', "lazy_rows": True' if lazy else "")
        lines.append(f'        {{"params": [getattr(model, name) for name in {label}]{extra}}},')
    args = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    lines += ["    ]", f"    return {cls}(groups, lr=learning_rate(START_STEP){args})", "", "",
              "def make_scheduler(optimizer, start_step=START_STEP):",
              '    """OneFlow\'s schedule from train step `start_step` on: call step() after each optimizer.step()."""',
              "    for group in optimizer.param_groups:",
              '        group["initial_lr"] = 1.0  # so the lambda gives the rate itself',
              "    return torch.optim.lr_scheduler.LambdaLR(",
              "        optimizer, lambda epoch: learning_rate(start_step + epoch))",
              ""]
    return "\n".join(lines)


# --- learning-rate schedules ----------------------------------------------------------------------------
def schedule_source(sched: Any) -> str:
    """``def learning_rate(step)``: OneFlow's rate of 0-based train ``step`` in plain Python, float32-rounded."""
    if isinstance(sched, of_sched.CustomScheduler):
        raise NotImplementedError(f"flowtorch.export: the learning rate comes from the job blob {sched.lr_lbn!r} "
                                  "(CustomScheduler); compute it in your training loop instead")
    body = _decay_lines(sched)
    lines = ["", "", "def _f32(x):", "    return torch.tensor(x, dtype=torch.float32).item()", "", "",
             "def learning_rate(step):",
             f'    """OneFlow\'s {sched!r}: the rate of 0-based train step `step`."""',
             f"    base = _f32({sched.base_lr!r})"]
    warm = sched.warmup
    if isinstance(warm, of_sched.ConstantWarmup):
        lines += [f"    if step < {warm.steps}:", f"        return _f32(base * {warm.multiplier!r})"]
    elif isinstance(warm, of_sched.LinearWarmup):
        s = warm.start_multiplier
        lines += [f"    if step < {warm.steps}:",
                  f"        return _f32(base * ({s!r} + (1.0 - {s!r}) * (step / {warm.steps})))"]
    return "\n".join(lines + ["    " + line for line in body]) + "\n"


def _decay_lines(s: Any) -> list[str]:
    if isinstance(s, (of_sched.PiecewiseConstantScheduler, of_sched.PiecewiseScalingScheduler)):
        if isinstance(s, of_sched.PiecewiseConstantScheduler):
            table, scale = s.values, ""
        else:
            table, scale = s.scale, " * base"
        if not s.boundaries:
            return [f"return _f32({table[0]!r}{scale})"]
        return [f"for boundary, value in zip({s.boundaries!r}, {table!r}):",
                "    if step <= boundary:",
                f"        return _f32(value{scale})",
                f"return _f32({table[-1]!r}{scale})"]
    if isinstance(s, of_sched.CosineScheduler):
        return [f"cur = min(float(step), {float(s.steps)!r})",
                f"cosine = 0.5 * (1.0 + math.cos(math.pi * cur / {s.steps}))",
                f"return _f32(base * ((1.0 - {s.alpha!r}) * cosine + {s.alpha!r}))"]
    if isinstance(s, of_sched.LinearCosineScheduler):
        return [f"decay = {float(s.steps)!r}",
                "cur = min(float(step), decay)",
                "linear = (decay - cur) / decay",
                f"cosine = 0.5 * (1.0 + math.cos(math.pi * 2.0 * {s.num_periods!r} * cur / decay))",
                f"return _f32(base * (({s.alpha!r} + linear) * cosine + {s.beta!r}))"]
    if isinstance(s, of_sched.PolynomialScheduler):
        lines = ["cur, decay = float(step), " + repr(float(s.steps))]
        if s.cycle:
            lines += ["cur = 1.0 if step == 0 else cur", "decay = decay * math.ceil(cur / decay)"]
        else:
            lines += ["cur = min(cur, decay)"]
        end = s.end_learning_rate
        return lines + [f"return _f32((base - {end!r}) * math.pow(1.0 - cur / decay, {s.power!r}) + {end!r})"]
    if isinstance(s, of_sched._StaircaseScheduler):
        ratio = f"float(step) / {float(s.steps)!r}"
        lines = [f"ratio = math.floor({ratio})" if s.staircase else f"ratio = {ratio}"]
        if isinstance(s, of_sched.ExponentialScheduler):
            return lines + [f"return _f32(base * math.pow({s.decay_rate!r}, ratio))"]
        if isinstance(s, of_sched.InverseTimeScheduler):
            return lines + [f"return _f32(base / (1.0 + {s.decay_rate!r} * ratio))"]
        if isinstance(s, of_sched.NaturalExpScheduler):
            return lines + [f"return _f32(base * math.exp(-{s.decay_rate!r} * ratio))"]
    raise NotImplementedError(f"flowtorch.export: the learning-rate schedule {type(s).__name__} has no export")

