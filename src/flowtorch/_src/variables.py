"""``flow.get_variable`` (spec §6): a variable of the session's store (:mod:`flowtorch._src.variable_store`).

A variable is a leaf tensor that lives as long as the session. Jobs read it through a graph placeholder,
so the same tensor serves every job that names it, and updates made by one job are seen by the next.
Optimizer state (``<var>-momentum``, ``<var>-m`` …) and train-step counters live in the same store so
``flow.get_all_variables()`` and checkpoints see them, as in OneFlow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes, naming, regularizers
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.capture.context import current_builder
from flowtorch._src.initializers import initializer_from_conf, is_initializer_conf
from flowtorch._src.ops.hint_ops import distribution_strings
from flowtorch._src.ops.state_ops import ssp_read
from flowtorch._src.placement import Distribute
from flowtorch._src.regularizers import regularizer_from_conf
from flowtorch._src.variable_store import VariableStore


def get_variable(name: str, shape: Sequence[int] | None = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: bool | None = None, model_name: str | None = None,
                 random_seed: int | None = None, parallel_distribution: Any = None, distribute: Any = None,
                 reuse: bool = True) -> Blob:
    """``flow.get_variable``: the variable ``name`` (namespace-prefixed), created on first use.

    The parameter order is v0.4.0's. ``parallel_distribution`` (v0.4: a list of "B"/"S(k)" strings, or of
    ``flow.distribute`` objects) and ``distribute`` (older versions) describe how the variable is laid out
    over devices; they are checked and recorded on the variable, and change nothing on one device. A
    ``flow.distribute`` object in the ninth position (v0.3's ``distribute``) is taken as ``distribute``."""
    builder = current_builder("get_variable")
    if not isinstance(name, str) or not name:
        raise TypeError(f"flow.get_variable in job {builder.job_name!r}: name must be a non-empty str; "
                        f"received {name!r}")
    if isinstance(parallel_distribution, Distribute) and distribute is None:
        parallel_distribution, distribute = None, parallel_distribution
    if distribute is not None:
        if parallel_distribution is not None:
            raise ValueError(f"flow.get_variable({name!r}): give parallel_distribution or distribute, not both")
        parallel_distribution = [distribute]
    dist = tuple(distribution_strings(parallel_distribution, "get_variable", "parallel_distribution"))
    full = naming.scoped(name)
    trainable = True if trainable is None else bool(trainable)
    if full in builder.var_blobs and not reuse:
        raise ValueError(f"varaible '{full}' already exists, getting the same variable is not allowed when "
                         "param reuse is False")
    store: VariableStore = builder.session.variables
    dtype_ = dtypes.to_dtype(dtype, what=f"flow.get_variable({full!r}): dtype") if dtype is not None \
        else builder.default_dtype
    if full in store:
        var = store[full]
        if shape is not None and tuple(int(s) for s in shape) != var.shape:
            raise ValueError(f"flow.get_variable in job {builder.job_name!r}: variable {full!r} exists with "
                             f"shape {var.shape}; this call asks for shape {tuple(shape)}")
        if dtype is not None and dtype_.torch_dtype != var.tensor.dtype:
            raise ValueError(f"flow.get_variable in job {builder.job_name!r}: variable {full!r} exists with "
                             f"dtype {var.dtype}; this call asks for {dtype_}")
        if trainable and not var.trainable and var.tensor.is_floating_point():
            var.trainable = True
            var.tensor.requires_grad_(True)
    else:
        shape_t = _check_shape(shape, full, builder.job_name)
        if is_initializer_conf(initializer):  # OneFlow's initializers were InitializerConf messages
            initializer = initializer_from_conf(initializer)
        regularizer = regularizer_from_conf(regularizer)
        init = initializer if initializer is not None else _default_initializer(builder, full)
        value = _initial_value(init, shape_t, dtype_, random_seed, full)
        if regularizer is None and model_name in ("weight", "bias"):
            regularizer = _model_name_regularizer(builder, model_name)
        var = store.create(full, value, trainable=trainable, initializer=init, regularizer=regularizer)
        var.parallel_distribution = dist
    meta = torch.empty(var.shape, dtype=var.tensor.dtype, device="meta")
    blob = builder.read_variable(full, meta, trainable)
    if trainable and builder.is_train and builder.config.get("enable_ssp"):
        return ssp_read(builder, blob)
    return blob


def _model_name_regularizer(builder: JobBuilder, model_name: str) -> Any:
    """OneFlow's master before February 2020 added ``train.weight_l1/l2`` to the gradients of the variables
    made with ``model_name="weight"`` (the layers' kernels) and ``train.bias_l1/l2`` to the biases'
    (``job_completer/optimizer.cpp``, ``RegularizeDiff`` of the update kernels): their regularizer."""
    l1 = float(builder.config.get(f"train.{model_name}_l1") or 0.0)
    l2 = float(builder.config.get(f"train.{model_name}_l2") or 0.0)
    return regularizers.l1_l2(l1, l2) if l1 or l2 else None


def _check_shape(shape: Any, name: str, job: str) -> tuple[int, ...]:
    if not isinstance(shape, (list, tuple)) or not all(isinstance(s, (int, np.integer)) and s > 0 for s in shape):
        raise ValueError(f"flow.get_variable in job {job!r}: variable {name!r} needs shape as a list/tuple of "
                         f"positive ints; received {shape!r}")
    return tuple(int(s) for s in shape)


def _default_initializer(builder: JobBuilder, name: str) -> Any:
    conf = builder.config.get("default_initializer_conf")
    if conf is None:
        raise ValueError(f"flow.get_variable in job {builder.job_name!r}: variable {name!r} has no initializer "
                         "and the function config sets no default_initializer_conf")
    return initializer_from_conf(conf)


def _initial_value(init: Any, shape: tuple[int, ...], dtype: dtypes.DType, seed: int | None,
                   name: str) -> torch.Tensor:
    if not hasattr(init, "make"):
        raise TypeError(f"flow.get_variable({name!r}): initializer must be one of flow.*_initializer(...); "
                        f"received {init!r}")
    return init.make(shape, dtype.torch_dtype, seed=int(seed) if seed is not None else None)
