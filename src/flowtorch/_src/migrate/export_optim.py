"""A train job's optimizer as the ``torch.optim`` class with OneFlow's numbers, and its learning-rate schedule.

OneFlow's update of a variable ``w`` with raw gradient ``g`` of ``sum(losses)`` uses ``g' = g / n`` (``n``
the element count of one loss blob); the exported module's ``objective()`` is the scalar whose gradient is
that ``g'`` (see :mod:`flowtorch._src.optim.base`). On it, each OneFlow rule maps to a torch class:

* ``SGD`` without momentum (and ``SGDW`` without momentum): ``torch.optim.SGD`` — the same update; the
  decoupled decay ``w -= lr·wd·w`` equals torch's coupled ``weight_decay`` when there is no momentum.
* ``SGD`` with momentum: OneFlow keeps ``v = m·v − lr·g'`` and adds it, torch keeps ``b = m·b + g'`` and
  subtracts ``lr·b``. With ``b = −v / lr`` they agree while the rate stays constant; under a changing rate
  (or a decoupled decay) they do not.
* ``Adam``/``AdamW`` without bias correction (OneFlow's default): ``torch.optim.Adam``/``AdamW`` whose state
  ``step`` is so large that torch's bias corrections ``1 − β^step`` are exactly 1.
* ``Adam`` with bias correction (``LazyAdam``) and ``RMSProp`` put epsilon elsewhere than torch
  (``√v + ε`` against torch's ``√v/√(1−β₂ᵗ) + ε``; ``√(ms + ε)`` against ``√ms + ε``): converted only with
  ``exact_optimizer=False``, their numbers then differ by about ε.
* Clipping by global norm (``grad_clipping.by_global_norm``) becomes a subclass of the torch class whose
  ``step()`` first scales the gradients by OneFlow's factor ``min(1 / global_norm, 1 / clip_norm)``.
* Lazy row updates (``indexed_slices_optimizer_conf``; variables in ``lazy``) become a subclass of the torch
  class whose ``step()`` updates those parameters row by row with OneFlow's rule (``optim.indexed_slices``)
  and leaves the others to the torch class: only with ``exact_optimizer=False``, since the step cannot know
  which rows the batch gathered; it updates the rows whose gradient is not all zero (``_lazy_class``).
* ``LARS``, ``LAMB``, ``CombinedOptimizer``, clipping under a loss scale, dynamic loss scaling and a
  ``CustomScheduler`` have no torch counterpart here: ``NotImplementedError``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from flowtorch._src.optim import schedulers as of_sched
from flowtorch._src.optim.adam import LAMB, Adam
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.optim.clipping import ClipByGlobalNorm, DynamicLossScalePolicy
from flowtorch._src.optim.combined import CombinedOptimizer
from flowtorch._src.optim.rmsprop import RMSProp
from flowtorch._src.optim.sgd import LARS, SGD

log = logging.getLogger("flowtorch")


@dataclass
class OptimizerPlan:
    """How to rebuild one job's optimizer in torch: generated code, and the state to put in it."""

    source: str  # learning_rate(), make_optimizer(model), make_scheduler(optimizer, start_step)
    start_step: int  # the job's next train step (0-based)
    # attr → {torch state key: tensor or number}; tensors are OneFlow's slot variables
    state: dict[str, dict[str, Any]] = field(default_factory=dict)


def _unsupported(opt: Optimizer, reason: str) -> NotImplementedError:
    return NotImplementedError(f"flowtorch.export: OneFlow's {type(opt).__name__} cannot be exported as a torch.optim "
                               f"optimizer: {reason}")


def plan_optimizer(opt: Optimizer, names: Sequence[str], attr_of: dict[str, str], slots: dict[str, torch.Tensor],
                   start_step: int, exact: bool, lazy: Sequence[str] = ()) -> OptimizerPlan:
    """The torch form of ``opt`` over the trainable variables ``names`` (OneFlow names; ``attr_of`` gives their
    module attributes; ``slots`` maps slot variable names to tensors; ``lazy``: the variables OneFlow updates
    row by row, ``step.sparse``)."""
    if isinstance(opt, CombinedOptimizer):
        raise _unsupported(opt, "it combines several update rules; export each part's variables yourself")
    if isinstance(opt, (LARS, LAMB)):
        raise _unsupported(opt, "torch.optim has no LARS/LAMB class")
    if not isinstance(opt, (SGD, Adam, RMSProp)):
        raise _unsupported(opt, "it is not one of SGD, SGDW, Adam, AdamW, LazyAdam, RMSProp")
    clip_norm = None
    if opt.grad_clipping is not None:
        if not isinstance(opt.grad_clipping, ClipByGlobalNorm) or opt.loss_scale_policy is not None:
            raise _unsupported(opt, f"it clips gradients ({opt.grad_clipping!r})"
                               + (" under a loss scale" if opt.loss_scale_policy is not None else ""))
        clip_norm = opt.grad_clipping.clip_norm  # the exported class clips in step() (_clipped_class)
    if isinstance(opt.loss_scale_policy, DynamicLossScalePolicy):
        raise _unsupported(opt, "it uses a dynamic loss scale (use torch.amp.GradScaler in PyTorch)")
    sched = opt.lr_scheduler
    if sched is None:
        raise _unsupported(opt, "it has no learning rate scheduler")
    lr_source = schedule_source(sched)
    only = opt.variable_names()
    names = [n for n in names if only is None or n in only]
    lazy = [n for n in names if n in set(lazy)]
    groups: dict[tuple[float, bool], list[str]] = {}  # (weight decay, updated row by row) → variables
    for n in names:
        groups.setdefault((opt.weight_decay_rate(n), n in lazy), []).append(n)
    lr_now = sched.lr(start_step)

    def inexact(reason: str) -> None:
        if exact:
            raise _unsupported(opt, reason + "; pass exact_optimizer=False to export it anyway")
        log.warning("flowtorch.export: %s is exported approximately: %s", type(opt).__name__, reason)

    if lazy:
        inexact(f"it updates {', '.join(lazy)} row by row (indexed_slices_optimizer_conf): the exported step "
                "updates the rows whose gradient is not all zero, OneFlow the rows the batch gathered (they differ "
                "where a gathered row's summed gradient is exactly zero)")
    state: dict[str, dict[str, Any]] = {}
    kwargs: dict[str, float | bool | tuple[float, float]]  # the torch class's arguments
    if isinstance(opt, SGD):
        cls, kwargs = "torch.optim.SGD", {"momentum": opt.momentum}
        note = "OneFlow's momentum v = m*v - lr*g is torch's buffer b = -v / lr (equal at a constant rate)"
        if opt.momentum:
            if any(rate for rate, _ in groups):
                raise _unsupported(opt, "with momentum, OneFlow decays the weights outside the momentum buffer and "
                                        "torch.optim.SGD inside it")
            if not constant_after(sched, start_step):
                inexact("with momentum, OneFlow folds the learning rate into its momentum (v = m*v - lr*g) where "
                        "torch.optim.SGD applies it outside (w -= lr*b); they agree only at a constant rate, and "
                        f"{sched!r} changes after step {start_step}")
            for n in names:
                v = slots[f"{n}-momentum"]
                if lr_now == 0.0 and bool(v.any()):
                    raise _unsupported(opt, f"its rate at step {start_step} is 0, so the momentum of {n!r} has no "
                                            "torch.optim.SGD buffer")
                state[attr_of[n]] = {"momentum_buffer": -v / lr_now if lr_now else torch.zeros_like(v)}
    elif isinstance(opt, Adam):
        decoupled = any(rate for rate, _ in groups)
        cls = "torch.optim.AdamW" if decoupled else "torch.optim.Adam"
        kwargs = {"betas": (opt.beta1, opt.beta2), "eps": opt.epsilon}
        if opt.do_bias_correction:
            inexact("with bias correction, OneFlow adds epsilon to sqrt(v) before the correction and torch after it"
                    + (", and OneFlow decays the weights at the corrected rate" if decoupled else ""))
            step = float(start_step)
            note = "OneFlow's Adam with bias correction; the state's step is the job's train step"
        else:
            step = _uncorrected_step(opt)
            note = (f"OneFlow's Adam without bias correction: the state's step ({step:.0f}) makes torch's "
                    "corrections 1 - beta**step exactly 1")
        for n in names:
            state[attr_of[n]] = {"step": torch.tensor(step, dtype=torch.float32),
                                 "exp_avg": slots[f"{n}-m"], "exp_avg_sq": slots[f"{n}-v"]}
    else:  # RMSProp
        inexact("OneFlow divides by sqrt(mean_square + epsilon), torch.optim.RMSprop by sqrt(mean_square) + eps")
        cls = "torch.optim.RMSprop"
        kwargs = {"alpha": opt.decay_rate, "eps": opt.epsilon, "centered": opt.centered}
        note = "OneFlow's mean_square (and mean_gradient) are torch's square_avg (and grad_avg)"
        for n in names:
            entry: dict[str, Any] = {"step": torch.tensor(float(start_step)), "square_avg": slots[f"{n}-mean_square"]}
            if opt.centered:
                entry["grad_avg"] = slots[f"{n}-mean_gradient"]
            state[attr_of[n]] = entry
    if clip_norm is not None:
        lr_source += _clipped_class(cls, clip_norm)
        cls = _clipped_name(cls)
        note += "; gradients are clipped first, as OneFlow's grad_clipping.by_global_norm"
    if lazy:
        if isinstance(opt, RMSProp):  # (row_owner leaves its variables dense)
            raise _unsupported(opt, "OneFlow updates rows with SGD and Adam only")
        rule = "adam" if isinstance(opt, Adam) else "momentum" if opt.momentum else "sgd"
        lr_source += _lazy_class(cls, rule, isinstance(opt, Adam) and opt.do_bias_correction)
        cls = _lazy_name(cls)
        note += ("; the groups with lazy_rows=True are updated row by row, as OneFlow's "
                 "indexed_slices_optimizer_conf")
    source = lr_source + _optimizer_source(opt, cls, kwargs, groups, attr_of, note)
    return OptimizerPlan(source, start_step, state)


def _clipped_name(cls: str) -> str:
    return "Clipped" + cls.rsplit(".", 1)[1]


def _clipped_class(cls: str, clip_norm: float) -> str:
    """``cls`` clipping the gradients by their global norm before each step, by OneFlow's formula
    (``optim.clipping.ClipByGlobalNorm``: every gradient times ``min(1 / global_norm, 1 / clip_norm)``)."""
    return "\n".join([
        "", "", f"CLIP_NORM = {clip_norm!r}", "", "",
        f"class {_clipped_name(cls)}({cls}):",
        f'    """{cls} after OneFlow\'s clipping by global norm: each step first multiplies every gradient by',
        "    min(1 / global_norm, 1 / CLIP_NORM) (OneFlow's formula: no final * clip_norm as TensorFlow's).\"\"\"",
        "",
        "    @torch.no_grad()",
        "    def step(self, closure=None):",
        '        grads = [p.grad for group in self.param_groups for p in group["params"] if p.grad is not None]',
        "        if grads:",
        "            square_sum = torch.stack([torch.linalg.vector_norm(g) for g in grads]).square().sum()",
        "            factor = torch.clamp(torch.rsqrt(square_sum), max=1.0 / CLIP_NORM)",
        "            for g in grads:",
        "                g.mul_(factor)",
        "        return super().step(closure)",
        ""])


def _lazy_name(cls: str) -> str:
    return "LazyRows" + cls.rsplit(".", 1)[-1]


_ROW_RULES = {  # OneFlow's indexed_slices_*_update on the rows `rows` (optim.indexed_slices.apply_rows)
    "sgd": [
        "        w = p.index_select(0, rows)",
        '        p.index_copy_(0, rows, w - group["lr"] * (g + group["weight_decay"] * w))'],
    "momentum": [  # torch's buffer b = -v / lr (make_optimizer's note), on the rows only
        "        state = self.state[p]",
        '        if state.get("momentum_buffer") is None:',
        '            state["momentum_buffer"] = torch.zeros_like(p)',
        '        b = state["momentum_buffer"].index_select(0, rows).mul_(group["momentum"]).add_(g)',
        '        state["momentum_buffer"].index_copy_(0, rows, b)',
        "        w = p.index_select(0, rows)",
        '        p.index_copy_(0, rows, w - group["lr"] * (b + group["weight_decay"] * w))'],
    "adam": [
        "        state = self.state[p]",
        "        if not state:  # OneFlow's moments start at zero",
        '            state.update(step=torch.tensor(0.0), exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p))',
        '        state["step"] += 1',
        '        beta1, beta2 = group["betas"]',
        '        lr = group["lr"]',
        "        if BIAS_CORRECTION:  # OneFlow corrects the rate (epsilon added to sqrt(v) before the correction)",
        '            t = state["step"].item()',
        "            lr = lr * math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t)",
        '        m = state["exp_avg"].index_select(0, rows).mul_(beta1).add_(g, alpha=1.0 - beta1)',
        '        v = state["exp_avg_sq"].index_select(0, rows).mul_(beta2).addcmul_(g, g, value=1.0 - beta2)',
        '        state["exp_avg"].index_copy_(0, rows, m)',
        '        state["exp_avg_sq"].index_copy_(0, rows, v)',
        "        w = p.index_select(0, rows)",
        '        p.index_copy_(0, rows, w - lr * (m / (v.sqrt() + group["eps"]) + group["weight_decay"] * w))'],
}


def _lazy_class(cls: str, rule: str, bias_correction: bool) -> str:
    """``cls`` whose ``step()`` updates the parameters of the groups with ``lazy_rows=True`` row by row, with
    OneFlow's rule ``rule`` (``_ROW_RULES``), and lets ``cls`` update the others."""
    return "\n".join([
        "", "", f"BIAS_CORRECTION = {bias_correction!r}", "", "",
        f"class {_lazy_name(cls)}({cls}):",
        f'    """{cls}, except for the parameter groups with lazy_rows=True, updated row by row as OneFlow\'s',
        "    indexed_slices_optimizer_conf does: only the rows whose gradient is not all zero (OneFlow: the rows the",
        "    batch gathered; they differ where a gathered row's summed gradient is exactly zero) change, their",
        '    state included, with OneFlow\'s rule; lr and weight_decay come from the group."""',
        "",
        "    @torch.no_grad()",
        "    def step(self, closure=None):",
        "        loss = None",
        "        if closure is not None:",
        "            with torch.enable_grad():",
        "                loss = closure()",
        "        held = []",
        "        for group in self.param_groups:",
        '            for p in group["params"] if group.get("lazy_rows") else ():',
        "                if p.grad is not None:",
        "                    self._update_rows(group, p, p.grad)",
        "                    held.append((p, p.grad))",
        "                    p.grad = None  # so that super().step() leaves p alone",
        "        try:",
        "            super().step()",
        "        finally:",
        "            for p, grad in held:",
        "                p.grad = grad",
        "        return loss",
        "",
        "    def _update_rows(self, group, p, grad):",
        "        rows = grad.reshape(grad.shape[0], -1).ne(0).any(dim=1).nonzero().squeeze(1)",
        "        g = grad.index_select(0, rows)",
        *_ROW_RULES[rule],
        ""])


def _uncorrected_step(opt: Adam) -> float:
    """A step count at which ``beta ** step`` is 0.0 in double precision for both betas."""
    beta = max(opt.beta1, opt.beta2)
    if not 0.0 <= beta < 1.0:
        raise _unsupported(opt, f"its betas ({opt.beta1}, {opt.beta2}) must be in [0, 1) for torch.optim.Adam")
    step = 10.0
    while opt.beta1 ** step or opt.beta2 ** step:
        step *= 10.0
    return step


def _optimizer_source(opt: Optimizer, cls: str, kwargs: dict[str, Any], groups: dict[tuple[float, bool], list[str]],
                      attr_of: dict[str, str], note: str) -> str:
    lines = ["", "", "def make_optimizer(model):",
             f'    """{cls} standing for OneFlow\'s {type(opt).__name__}.', "",
             f"    {note}.",
             "",
             "    Its lr is the rate of START_STEP; make_scheduler() sets it every step.",
             '    """',
             "    groups = ["]
    for (rate, lazy), names in groups.items():
        params = ", ".join(f"model.{attr_of[n]}" for n in names)
        lazy_key = ', "lazy_rows": True' if lazy else ""
        lines.append(f'        {{"params": [{params}], "weight_decay": {rate!r}{lazy_key}}},')
    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    lines += ["    ]", f"    return {cls}(groups, lr=learning_rate(START_STEP), {args})", "", "",
              "def make_scheduler(optimizer, start_step=START_STEP):",
              '    """OneFlow\'s schedule from train step `start_step` on: call step() after each optimizer.step()."""',
              "    for group in optimizer.param_groups:",
              '        group["initial_lr"] = 1.0  # so the lambda gives the rate itself',
              "    return torch.optim.lr_scheduler.LambdaLR(",
              "        optimizer, lambda epoch: learning_rate(start_step + epoch))",
              ""]
    return "\n".join(lines)


# --- learning-rate schedules ----------------------------------------------------------------------------
def constant_after(sched: of_sched.LrScheduler, step: int) -> bool:
    """Whether ``sched`` gives the same rate at every step from ``step`` on (decided from its formula)."""
    warm = sched.warmup
    if warm is not None and warm.active(step):
        return False
    if isinstance(sched, of_sched.PiecewiseConstantScheduler):
        seg = of_sched._segment(sched.boundaries, step)
        return len(set(sched.values[seg:])) == 1
    if isinstance(sched, of_sched.PiecewiseScalingScheduler):
        seg = of_sched._segment(sched.boundaries, step)
        return len(set(sched.scale[seg:])) == 1
    if isinstance(sched, (of_sched.CosineScheduler, of_sched.LinearCosineScheduler)):
        return step >= sched.steps
    if isinstance(sched, of_sched.PolynomialScheduler):
        return not sched.cycle and step >= sched.steps
    return False


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

