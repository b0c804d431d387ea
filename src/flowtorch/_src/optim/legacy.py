"""Train jobs of OneFlow's master of 2020 and v0.1: ``train.primary_lr(lr)`` + ``train.model_update_conf({...})``.

The conf dict is OneFlow's ``NormalModelUpdateOpUserConf`` (``oneflow/core/operator/op_conf.proto`` of the
2020 master and v0.1.x) as ``pb_util.PythonDict2PbMessage`` filled it: one update rule (``naive_conf`` = plain
SGD, ``momentum_conf``, ``adam_conf``, ``rmsprop_conf``, ``lars_conf``, ``lazy_adam_conf``) and, beside it,

* ``warmup_conf``: ``{"linear_conf": {"warmup_batches", "start_multiplier"}}`` or
  ``{"constant_conf": {"warmup_batches", "multiplier"}}``;
* ``learning_rate_decay``: one of ``exponential_conf``, ``inverse_time_conf``, ``natural_exp_conf``,
  ``piecewise_constant_conf``, ``polynomial_conf``, ``cosine_conf``, ``linear_cosine_conf``,
  ``piecewise_scaling_conf`` (the proto's defaults for the fields a dict leaves out);
* ``clip_conf``: ``{"clip_by_global_norm": {"clip_norm"}}``;
* ``weight_decay_conf``: ``{"weight_decay_rate", "includes" | "excludes": {"pattern": [...]}}``.

How OneFlow used them (master of June 2020, the same in v0.1.0): ``job_completer/auto_learning_rate.cpp``
made one ``learning_rate_schedule`` op from ``primary_lr`` with the warmup and decay
(``kernel/learning_rate_schedule_kernel.cpp``: a warmup replaces the decay while it lasts; the decay is
evaluated at the unshifted step; a piecewise constant decay gives its own ``values``, ignoring
``primary_lr``); ``generate_backward_and_optimizer_op_confs.cpp`` scaled the gradient by the loss's element
count, added the variable's regularizer, then clipped by the global norm (``autograd.cpp``); and
``optimizer.cpp`` gave a variable the decay rate when its op name matched the patterns (RE2 partial match),
which only the naive, momentum and Adam kernels accepted (``IsWeightDecaySupported``; the others CHECK-failed).
Those are the numbers of :mod:`flowtorch._src.optim.schedulers`, :mod:`~flowtorch._src.optim.clipping` and the
optimizers' decoupled weight decay (``SGDW``, ``AdamW``), so a conf maps onto them; the RMSProp and bias-corrected
Adam kernels of the time differ from v0.3.4's (:mod:`~flowtorch._src.optim.legacy_rules`).

Before the optimizer refactor of February 2020 (the API of a bare ``@flow.function``, ``master_2020.py``), the
update kernels clipped each variable's gradient by its own norm (:class:`~flowtorch._src.optim.clipping.ClipEachByNorm`)
and added ``train.weight_l1/l2`` / ``train.bias_l1/l2`` to the variables made with ``model_name="weight"`` /
``"bias"`` (their regularizers, ``variables.py``); ``weight_decay_conf`` came with the refactor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.errors import ArgumentError
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.optim import schedulers
from flowtorch._src.optim.adam import Adam, AdamW, LazyAdam
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.optim.clipping import ClipByGlobalNorm, ClipEachByNorm, ClipGradientConf
from flowtorch._src.optim.legacy_rules import LegacyAdam, LegacyRMSProp
from flowtorch._src.optim.sgd import LARS, SGD, SGDW

log = logging.getLogger("flowtorch")
WHERE = "function_config.train.model_update_conf"
_RULES = ("naive_conf", "momentum_conf", "adam_conf", "rmsprop_conf", "lars_conf", "lazy_adam_conf")
_OTHERS = ("warmup_conf", "learning_rate_decay", "clip_conf", "weight_decay_conf")


def _one_of(conf: Any, what: str, choices: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """The one ``{choice: {...}}`` entry of a proto ``oneof`` given as a dict."""
    if not isinstance(conf, dict) or len(conf) != 1 or next(iter(conf)) not in choices:
        raise ArgumentError(f"{WHERE}: {what} takes one of {', '.join(choices)} as its only key; received {conf!r}")
    key = next(iter(conf))
    value = conf[key] or {}
    if not isinstance(value, dict):
        raise ArgumentError(f"{WHERE}: {what}.{key} takes a dict; received {value!r}")
    return key, value


def _required(fields: dict[str, Any], name: str, where: str) -> Any:
    if name not in fields:
        raise ArgumentError(f"{WHERE}: {where} needs {name!r} (a required field of OneFlow's proto); "
                            f"received {fields!r}")
    return fields[name]


def warmup_from_conf(conf: Any) -> schedulers.WarmupConf:
    """``warmup_conf`` → flowtorch's warmup (``WarmupConf`` of ``op_conf.proto``)."""
    kind, f = _one_of(conf, "warmup_conf", ("linear_conf", "constant_conf"))
    where = f"warmup_conf.{kind}"
    steps = int(_required(f, "warmup_batches", where))
    if kind == "linear_conf":
        return schedulers.LinearWarmup(steps, float(_required(f, "start_multiplier", where)))
    return schedulers.ConstantWarmup(steps, float(_required(f, "multiplier", where)))


class _PrimaryPiecewiseConstant(schedulers.PiecewiseConstantScheduler):
    """A piecewise constant decay under ``primary_lr``: the segments give their own ``values``, while a warmup
    scales ``primary_lr`` (the schedule op's ``learning_rate``), not ``values[0]``."""

    def __init__(self, primary_lr: float, boundaries: list[int], values: list[float],
                 warmup: schedulers.WarmupConf | None) -> None:
        super().__init__(boundaries, values, warmup)
        self.base_lr = float(primary_lr)


_DECAYS: dict[str, Callable[[float, dict[str, Any], schedulers.WarmupConf | None, str], schedulers.LrScheduler]] = {
    "exponential_conf": lambda lr, f, w, at: schedulers.ExponentialScheduler(
        lr, int(_required(f, "decay_batches", at)), float(_required(f, "decay_rate", at)),
        bool(f.get("staircase", False)), w),
    "inverse_time_conf": lambda lr, f, w, at: schedulers.InverseTimeScheduler(
        lr, int(_required(f, "decay_batches", at)), float(_required(f, "decay_rate", at)),
        bool(f.get("staircase", False)), w),
    "natural_exp_conf": lambda lr, f, w, at: schedulers.NaturalExpScheduler(
        lr, int(_required(f, "decay_batches", at)), float(_required(f, "decay_rate", at)),
        bool(f.get("staircase", False)), w),
    "piecewise_constant_conf": lambda lr, f, w, at: _PrimaryPiecewiseConstant(
        lr, [int(b) for b in f.get("boundaries", [])], [float(v) for v in f.get("values", [])], w),
    "polynomial_conf": lambda lr, f, w, at: schedulers.PolynomialScheduler(
        lr, int(_required(f, "decay_batches", at)), float(f.get("end_learning_rate", 0.0001)),
        float(f.get("power", 1.0)), bool(f.get("cycle", False)), w),
    "cosine_conf": lambda lr, f, w, at: schedulers.CosineScheduler(
        lr, int(_required(f, "decay_batches", at)), float(f.get("alpha", 0.0)), w),
    "linear_cosine_conf": lambda lr, f, w, at: schedulers.LinearCosineScheduler(
        lr, int(_required(f, "decay_batches", at)), float(f.get("num_periods", 0.5)), float(f.get("alpha", 0.0)),
        float(f.get("beta", 0.001)), w),
    "piecewise_scaling_conf": lambda lr, f, w, at: _piecewise_scaling(lr, f, w),
}


def _piecewise_scaling(lr: float, f: dict[str, Any], warmup: schedulers.WarmupConf | None) -> schedulers.LrScheduler:
    boundaries = [int(b) for b in f.get("boundaries", [])]
    scales = [float(s) for s in f.get("scales", [])]
    if len(scales) != len(boundaries) + 1:  # OneFlow's CHECK_EQ(boundaries.size() + 1, scales.size())
        raise ArgumentError(f"{WHERE}: learning_rate_decay.piecewise_scaling_conf needs one more scale than "
                            f"boundaries; received boundaries={boundaries}, scales={scales}")
    sched = schedulers.PiecewiseScalingScheduler(lr, boundaries, scales[1:], warmup)
    sched.scale = scales  # the proto lists the first segment's scale too (the flow.optimizer API fixes it at 1)
    return sched


def scheduler_from_conf(conf: dict[str, Any], primary_lr: float) -> schedulers.LrScheduler:
    """The learning rate of every step: ``primary_lr`` with the conf's warmup and decay."""
    warmup = warmup_from_conf(conf["warmup_conf"]) if conf.get("warmup_conf") is not None else None
    decay = conf.get("learning_rate_decay")
    if decay is None:
        return _PrimaryPiecewiseConstant(primary_lr, [], [primary_lr], warmup)
    kind, fields = _one_of(decay, "learning_rate_decay", tuple(_DECAYS))
    return _DECAYS[kind](primary_lr, fields, warmup, f"learning_rate_decay.{kind}")


def _clipping(conf: Any, late_2019: bool) -> ClipGradientConf | None:
    """``clip_conf``: the global norm of all gradients (the job pass of February 2020 on), or, for a job of late
    2019's API (a bare ``@flow.function``), each variable's own norm, clipped in its update kernel."""
    if conf is None:
        return None
    _, fields = _one_of(conf, "clip_conf", ("clip_by_global_norm",))
    clip_norm = float(_required(fields, "clip_norm", "clip_conf.clip_by_global_norm"))
    return ClipEachByNorm(clip_norm) if late_2019 else ClipByGlobalNorm(clip_norm)


def _weight_decay(conf: Any, rule: str) -> dict[str, Any]:
    """``weight_decay_conf`` as the keyword arguments of ``SGDW``/``AdamW``."""
    if conf is None:
        return {}
    if not isinstance(conf, dict):
        raise ArgumentError(f"{WHERE}: weight_decay_conf takes a dict; received {conf!r}")
    if rule not in ("naive_conf", "momentum_conf", "adam_conf"):
        raise ArgumentError(f"{WHERE}: weight_decay_conf with {rule}: OneFlow's {rule[:-5]} kernel has no weight "
                            "decay (it stopped the job: IsWeightDecaySupported); use naive_conf, momentum_conf or "
                            "adam_conf")
    if "includes" in conf and "excludes" in conf:
        raise ArgumentError(f"{WHERE}: weight_decay_conf takes includes or excludes (a proto oneof), not both")
    out: dict[str, Any] = {"weight_decay": float(_required(conf, "weight_decay_rate", "weight_decay_conf"))}
    for key in ("includes", "excludes"):
        if key in conf:
            patterns = (conf[key] or {}).get("pattern", [])
            out[f"weight_decay_{key}"] = [patterns] if isinstance(patterns, str) else list(patterns)
    return out


def optimizer_from_conf(conf: dict[str, Any], primary_lr: float | None, config: FunctionConfig) -> Optimizer:
    if primary_lr is None:
        raise ValueError("function_config: train.model_update_conf is set but train.primary_lr is not; "
                         "a v0.1 train job needs both")
    unknown = sorted(k for k in conf if k not in _RULES + _OTHERS)
    rules = [k for k in conf if k in _RULES]
    if unknown or len(rules) != 1:
        raise ValueError(f"{WHERE} needs exactly one update rule ({', '.join(_RULES)}) and may set "
                         f"{', '.join(_OTHERS)}; received keys {sorted(conf)}")
    rule, args = rules[0], dict(conf[rules[0]] or {})
    lr = scheduler_from_conf(conf, float(primary_lr))
    common: dict[str, Any] = {"loss_scale_factor": config.get("train.loss_scale_factor"),
                              "grad_clipping": _clipping(conf.get("clip_conf"), config.era == "late-2019")}
    decay = _weight_decay(conf.get("weight_decay_conf"), rule)
    if rule in ("naive_conf", "momentum_conf"):
        momentum = 0.0 if rule == "naive_conf" else float(args.get("beta", 0.9))
        return SGDW(lr, momentum=momentum, **decay, **common) if decay else SGD(lr, momentum=momentum, **common)
    if rule == "adam_conf":
        adam: dict[str, Any] = {"beta1": float(args.get("beta1", 0.9)), "beta2": float(args.get("beta2", 0.999)),
                                "epsilon": float(args.get("epsilon", 1e-8))}
        if bool(args.get("do_bias_correction", False)):  # the corrected moments are stored (legacy_rules.py)
            return LegacyAdam(lr, **adam, **decay, **common)
        return AdamW(lr, **adam, **decay, **common) if decay else Adam(lr, **adam, **common)
    if rule == "lazy_adam_conf":
        return LazyAdam(lr, beta1=float(args.get("beta1", 0.9)), beta2=float(args.get("beta2", 0.999)),
                        epsilon=float(args.get("epsilon", 1e-8)), **common)
    if rule == "rmsprop_conf":
        return LegacyRMSProp(lr, decay_rate=float(args.get("decay_rate", 0.99)),
                             epsilon=float(args.get("epsilon", 1e-8)), **common)
    return LARS(lr, momentum_beta=float(args.get("momentum_beta", 0.9)), epsilon=float(args.get("epsilon", 1e-9)),
                lars_coefficient=float(args.get("lars_coefficient", 1e-4)), **common)


def attach_legacy_optimizer(builder: JobBuilder, config: FunctionConfig) -> None:
    """A v0.1 train job's optimizer from ``func_config.train.primary_lr`` + ``model_update_conf`` (its losses
    come from ``losses.add_loss``); nothing when the body called ``minimize`` or the job is not a train job."""
    if not builder.is_train or builder.optimizers:
        return
    conf = config.get("train.model_update_conf")
    lr = config.get("train.primary_lr")
    if conf is None and lr is None:
        return
    secondary = config.get("train.secondary_lr")
    if secondary is not None and secondary != lr:
        log.warning("job %r: function_config.train.secondary_lr(%s) is not applied: OneFlow gave it to the variables "
                    "whose model_name was 'bias'; flowtorch updates every variable with train.primary_lr(%s)",
                    builder.job_name, secondary, lr)
    builder.optimizers.append(optimizer_from_conf(conf or {"naive_conf": {}}, lr, config))
