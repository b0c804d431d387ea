"""``flow.function_config()`` / ``flow.FunctionConfig``: options are calls (``cfg.train.primary_lr(0.1)``).

OneFlow (``framework/function_util.py``) accepts only registered option names (an unknown one is an
AssertionError) and flag options called with no argument mean True. flowtorch records every option;
the ones that change numbers (data type, initializer, train.*) are used, backend flags are accepted and
ignored (CUDA/XLA/fusion switches have no meaning on the torch backend).
``train.num_gradient_accumulation_steps(n)`` (v0.4) makes each call of a train job n micro-steps with
one update (:mod:`flowtorch._src.step.accumulate`); ``enable_qat`` (alias ``enable_quantization_aware_training``)
and ``qat.*`` rewrite the job for quantization-aware training (:mod:`flowtorch._src.step.qat`).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from typing import Any

from flowtorch._src import dtypes, placement
from flowtorch._src.proto_confs import message_from_dict
from flowtorch.core.job import initializer_conf_pb2

# name → kind: "bool" flags default to True when called with no argument; "any" takes one value.
_BOOL_FLAGS = (
    "use_memory_allocation_algorithm_v2 enable_cudnn cudnn_conv_heuristic_search_algo "
    "enable_cudnn_fused_normalization_add_relu enable_fuse_add_to_output enable_fuse_cast_scale "
    "cudnn_conv_use_deterministic_algo_only enable_reused_mem enable_inplace enable_inplace_in_reduce_struct "
    "enable_nccl use_nccl_inter_node_communication use_boxing_v2 do_parallel_cast_before_widening_type_cast "
    "enable_all_reduce_group all_reduce_fp16 enable_non_distributed_optimizer disable_all_reduce_sequence "
    "prune_parallel_cast_ops prune_cast_to_static_shape_ops enable_float_compute_for_half_gemm "
    "enable_quantization_aware_training enable_qat qat.per_channel_weight_quantization qat.symmetric "
    "enable_auto_mixed_precision enable_keep_header_only enable_fuse_model_update_ops "
    "enable_gradients_stats_aggregation use_xla_jit use_tensorrt tensorrt.use_fp16 tensorrt.use_int8 "
    "allow_cpu_return_op static_mem_alloc_policy_white_list.policy_mem_size_first "
    "static_mem_alloc_policy_white_list.policy_time_line static_mem_alloc_algo_white_list.show enable_ssp "
    "static_mem_alloc_policy_white_list.policy_mutual_exclusion_first "
    "prune_amp_white_identity_ops "
    # the master's of early 2020 (before v0.1.0): cuDNN half-precision switches
    "cudnn_conv_enable_pseudo_half cudnn_conv_enable_true_half enable_cudnn_conv_pseudo_half "
    "enable_true_half_config_when_conv"
).split()
_VALUE_OPTIONS = (
    "default_data_type default_initializer_conf exp_run_conf cudnn_buf_limit_mbyte cudnn_conv_force_fwd_algo "
    "cudnn_conv_force_bwd_data_algo cudnn_conv_force_bwd_filter_algo all_reduce_group_num all_reduce_lazy_ratio "
    "all_reduce_group_min_mbyte all_reduce_group_size_warmup non_distributed_optimizer_group_size_mbyte "
    "qat.moving_min_max_momentum qat.moving_min_max_stop_update_after_iters qat.target_backend concurrency_width "
    "train.model_update_conf indexed_slices_optimizer_conf train.loss_scale_factor train.primary_lr "
    "train.num_gradient_accumulation_steps train.weight_l1 train.weight_l2 train.bias_l1 train.bias_l2 "
    "train.secondary_lr default_placement_scope tensorrt.int8_calibration default_logical_view "
    "default_distribute_strategy static_mem_alloc_policy_white_list.has static_mem_alloc_policy_white_list.add "
    "static_mem_alloc_policy_white_list.remove ssp_partition_strategy ssp_partition_scope_ids "
    "optimizer_placement_optimization_mode train.optimizer_placement_optimization_mode "
    "optimizer_placement_optimization_threshold train.optimizer_placement_optimization_threshold"
).split()
_DEFAULTS: dict[str, Any] = {**{n: False for n in _BOOL_FLAGS}, **{n: None for n in _VALUE_OPTIONS}}
_DEFAULTS.update(allow_cpu_return_op=True, enable_cudnn=True, concurrency_width=128,
                 default_data_type=dtypes.float32)
_DEFAULTS.update({"qat.symmetric": True, "qat.moving_min_max_momentum": 0.95, "qat.target_backend": ""})  # QatConfig's
_GROUPS = {n.split(".")[0] for n in _DEFAULTS if "." in n}
# Two names of one option (OneFlow's setters write one job-conf field, so the last call wins)
_ALIASES = {"enable_qat": "enable_quantization_aware_training"}


class _Setter:
    """``cfg.<group>`` (``cfg.train``) or ``cfg.<option>``: attribute access then a call."""

    def __init__(self, config: FunctionConfig, prefix: str) -> None:
        self._config = config
        self._prefix = prefix

    def __getattr__(self, name: str) -> Callable[..., None]:
        return self._config._setter(f"{self._prefix}.{name}")


class FunctionDesc:
    """Read-back view: ``cfg.function_desc.enable_inplace``."""

    def __init__(self, config: FunctionConfig) -> None:
        self._config = config

    def __getattr__(self, name: str) -> Any:
        if name not in _DEFAULTS:
            raise AttributeError(f"function config has no option {name!r}")
        return self._config.get(name)


class FunctionConfig:
    """A job's options, recorded by name. ``era`` is ``"late-2019"`` for a job of OneFlow's API of late 2019 (a
    bare ``@flow.function`` whose body sets its conf), whose update kernels clipped each variable on its own."""

    era = ""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self.function_desc = FunctionDesc(self)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _GROUPS:
            return _Setter(self, name)
        return self._setter(name)

    def _setter(self, name: str) -> Callable[..., None]:
        if name not in _DEFAULTS:
            raise AssertionError(f"function_config has no option {name!r} (OneFlow accepts only registered "
                                 "options; see docs/compat.md for the list)")

        def set_option(value: Any = None) -> None:
            self._values[_ALIASES.get(name, name)] = self._check(name, value)
        set_option.__name__ = name
        return set_option

    def _check(self, name: str, value: Any) -> Any:
        if name in _BOOL_FLAGS:
            if value is None:
                return True
            if not isinstance(value, bool):
                raise AssertionError(f"function_config.{name} takes a bool; received {value!r}")
            return value
        if value is None:
            raise AssertionError(f"function_config.{name} needs a value")
        if name == "default_data_type":
            return dtypes.to_dtype(value, what="function_config.default_data_type")
        if name in ("train.primary_lr", "train.secondary_lr", "train.loss_scale_factor", "train.weight_l1",
                    "train.weight_l2", "train.bias_l1", "train.bias_l2"):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise AssertionError(f"function_config.{name} takes a number; received {value!r}")
            return float(value)
        if name == "train.num_gradient_accumulation_steps":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise AssertionError(f"function_config.{name} takes a positive int; received {value!r}")
            return value
        if name.endswith("optimizer_placement_optimization_mode"):
            # where OneFlow placed optimizer state (ZeRO-like); the update's numbers are the same
            if value not in ("non_distributed", "distributed_split"):
                raise AssertionError(f"function_config.{name} takes 'non_distributed' or 'distributed_split'; "
                                     f"received {value!r}")
            return value
        if name in ("default_logical_view", "default_distribute_strategy"):
            # OneFlow asserts the type (function_util.py: set_default_distribute_strategy and friends).
            if not isinstance(value, placement.LogicalView):
                kinds = ("flow.scope.consistent_view() or flow.scope.mirrored_view()" if name == "default_logical_view"
                         else "flow.distribute.consistent_strategy() or flow.distribute.mirrored_strategy()")
                raise AssertionError(f"function_config.{name} takes {kinds}; received {type(value).__name__} "
                                     f"{value!r}")
            return value
        if name == "default_placement_scope":
            if not isinstance(value, contextlib.AbstractContextManager):
                raise AssertionError(f"function_config.{name} takes flow.scope.placement(device_tag, ids); "
                                     f"received {type(value).__name__} {value!r}")
            return value
        if name == "qat.moving_min_max_momentum":
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise AssertionError(f"function_config.{name} takes a number; received {value!r}")
            return float(value)
        if name == "qat.moving_min_max_stop_update_after_iters":  # v0.4.0's int64 field (v0.3.4's was a float)
            integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            if isinstance(value, bool) or not integral:
                raise AssertionError(f"function_config.{name} takes an int; received {value!r}")
            return int(value)
        if name == "qat.target_backend" and not isinstance(value, str):
            raise AssertionError(f"function_config.{name} takes a str ('', 'cambricon' or 'tensorrt7'); "
                                 f"received {value!r}")
        if name in ("train.model_update_conf", "default_initializer_conf") and not isinstance(value, dict):
            raise AssertionError(f"function_config.{name} takes a dict such as {{'naive_conf': {{}}}}; "
                                 f"received {value!r}")
        if name == "default_initializer_conf":  # OneFlow read it into JobConfigProto's InitializerConf at once
            message_from_dict(value, initializer_conf_pb2.InitializerConf(), f"function_config.{name}")
        return value

    def is_mirrored(self) -> bool:
        """Whether the job asks for OneFlow's mirrored view (the consistent view is the default)."""
        return getattr(self.get("default_logical_view"), "name", "consistent") == "mirrored"

    def get(self, name: str, default: Any = None) -> Any:
        name = _ALIASES.get(name, name)
        if name in self._values:
            return self._values[name]
        value = _DEFAULTS.get(name)
        return default if value is None else value

    def is_set(self, name: str) -> bool:
        return _ALIASES.get(name, name) in self._values

    @property
    def default_dtype(self) -> dtypes.DType:
        return self.get("default_data_type")

    def copy(self) -> FunctionConfig:
        new = FunctionConfig()
        new._values = copy.copy(self._values)
        new.era = self.era
        return new


def job_conf_options() -> frozenset[str]:
    """Every option name without a group (``default_data_type``)."""
    return frozenset(n for n in _DEFAULTS if "." not in n)


def job_conf_groups() -> frozenset[str]:
    """The groups of options (``train``, ``tensorrt`` …)."""
    return frozenset(_GROUPS)


def function_config() -> FunctionConfig:
    return FunctionConfig()
