"""v0.1 train jobs: ``func_config.train.primary_lr(lr)`` + ``train.model_update_conf({...})``.

The conf dict names the update rule as OneFlow's ``NormalModelUpdateOpUserConf`` did
(``naive_conf`` = plain SGD, ``momentum_conf``, ``adam_conf`` …); flowtorch maps it onto the same
optimizer classes as ``flow.optimizer.*`` with a constant learning rate.
"""

from __future__ import annotations

from typing import Any

from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.optim import schedulers
from flowtorch._src.optim.adam import Adam
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.optim.rmsprop import RMSProp
from flowtorch._src.optim.sgd import LARS, SGD


def optimizer_from_conf(conf: dict[str, Any], primary_lr: float | None, config: FunctionConfig) -> Optimizer:
    if primary_lr is None:
        raise ValueError("function_config: train.model_update_conf is set but train.primary_lr is not; "
                         "a v0.1 train job needs both")
    lr = schedulers.PiecewiseConstantScheduler([], [float(primary_lr)])
    scale = config.get("train.loss_scale_factor")
    rules = [k for k in conf if k.endswith("_conf")]
    if len(rules) != 1:
        raise ValueError(f"function_config.train.model_update_conf needs exactly one *_conf key such as "
                         f"'naive_conf'; received keys {sorted(conf)}")
    rule, args = rules[0], dict(conf[rules[0]] or {})
    common: dict[str, Any] = {"loss_scale_factor": scale}
    if rule == "naive_conf":
        return SGD(lr, momentum=0.0, **common)
    if rule == "momentum_conf":
        return SGD(lr, momentum=float(args.get("beta", 0.9)), **common)
    if rule == "adam_conf":
        return Adam(lr, beta1=float(args.get("beta1", 0.9)), beta2=float(args.get("beta2", 0.999)),
                    epsilon=float(args.get("epsilon", 1e-8)),
                    do_bias_correction=bool(args.get("do_bias_correction", False)), **common)
    if rule == "rmsprop_conf":
        return RMSProp(lr, decay_rate=float(args.get("decay_rate", 0.99)),
                       epsilon=float(args.get("epsilon", 1e-8)), **common)
    if rule == "lars_conf":
        return LARS(lr, momentum_beta=float(args.get("momentum_beta", 0.9)),
                    epsilon=float(args.get("epsilon", 1e-9)),
                    lars_coefficient=float(args.get("lars_coefficient", 1e-4)), **common)
    raise ValueError(f"function_config.train.model_update_conf: unsupported rule {rule!r}; flowtorch supports "
                     "naive_conf, momentum_conf, adam_conf, rmsprop_conf, lars_conf (or use flow.optimizer.*)")


def attach_legacy_optimizer(builder: JobBuilder, config: FunctionConfig) -> None:
    """A v0.1 train job's optimizer from ``func_config.train.primary_lr`` + ``model_update_conf`` (its losses
    come from ``losses.add_loss``); nothing when the body called ``minimize`` or the job is not a train job."""
    if not builder.is_train or builder.optimizers:
        return
    conf = config.get("train.model_update_conf")
    lr = config.get("train.primary_lr")
    if conf is None and lr is None:
        return
    builder.optimizers.append(optimizer_from_conf(conf or {"naive_conf": {}}, lr, config))
