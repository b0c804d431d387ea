"""``flow.layers``: dense, conv1d/2d/3d, batch_normalization(_relu/_add_relu), layer_norm, upsample_2d, prelu,
affine_channel.

A layer makes its variables with :func:`flowtorch._src.variables.get_variable` and builds ops with the
``flow.nn`` / ``flow`` wrappers, so names come out as OneFlow v0.1.x made them (spec §4, §10). An unnamed
layer takes ONE counter value ``N`` for its prefix:

* ``dense``: ``Dense_N-weight/out`` ``(units, in)`` used with ``transpose_b``, ``Dense_N_matmul/out_0``,
  ``Dense_N-bias/out``, ``Dense_N_bias_add/out_0``, ``Dense_N_activation/out_0``; named
  ``fc1-weight``, ``fc1_matmul``, ``fc1_bias_add``. Inputs of rank > 2 are reshaped to 2-D and back.
  Default initializers: zeros.
* ``conv2d``: ``Conv2D_N-weight/out``, the convolution ``Conv2d_M/out_0`` with its own number (named:
  ``conv1``), ``Conv2D_N-bias/out``, ``Conv2D_N-bias_add/out_0``, ``Conv2D_N-activation/…``. Default
  kernel initializer: ``xavier_uniform_initializer(data_format)`` (v0.3.4; v0.1.x used zeros), bias zeros.
* ``batch_normalization``: ``BatchNorm_N-{beta,gamma,moving_mean,moving_variance}/out`` and the op
  ``BatchNorm_N/y_0`` (plus ``mean_0``/``inv_variance_0`` when training). In train jobs (and
  ``training=True``, ``trainable=True``) it normalises with batch statistics and updates the moving
  statistics in place during the step as OneFlow's cuDNN kernel does:
  ``moving = momentum·moving + (1 − momentum)·batch`` with the unbiased batch variance. Predict jobs use
  the moving statistics and never update them.
* ``layer_norm``: ``LayerNorm_N-beta``/``-gamma`` and ``LayerNorm_N/y_0`` (+ ``mean_0``,
  ``inv_variance_0``, ``normalized_0``).
* ``prelu``: ``PRelu_N-alpha`` and ``PRelu_N/y_0``; ``upsample_2d``: ``Upsample2D_N/y_0``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from flowtorch._src import dtypes, initializers, naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import array_ops, batch_norm, conv_ops, nn_ops, state_ops
from flowtorch._src.ops._checks import (
    Desc,
    arg_error,
    check_blob,
    check_choice,
    check_float_blob,
    check_int,
    int_tuple,
    norm_axis,
)
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.fused_ops import layer_norm_kernel
from flowtorch._src.variables import get_variable

__all__ = ["affine_channel", "batch_normalization", "batch_normalization_add_relu", "batch_normalization_relu",
           "categorical_ordinal_encoder", "conv1d", "conv2d", "conv3d", "dense", "layer_norm", "prelu", "upsample",
           "upsample_2d"]




def _activate(activation: Callable[..., Blob] | None, out: Blob, name: str, op: str) -> Blob:
    if activation is None:
        return out
    if not callable(activation):
        raise arg_error(op, "activation", "a callable such as flow.nn.relu, or None", activation)
    try:
        accepts_name = "name" in inspect.signature(activation).parameters
    except (TypeError, ValueError):
        accepts_name = True
    return activation(out, name=name) if accepts_name else activation(out)


def _positive_int(value: Any, op: str, arg: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise arg_error(op, arg, "a positive int", value)
    return value


# --- dense -------------------------------------------------------------------------------------------------
def dense(inputs: Blob, units: int, activation: Callable[..., Blob] | None = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None, kernel_regularizer: Any = None,
          bias_regularizer: Any = None, trainable: bool = True, name: str | None = None,
          model_distribute: Any = None) -> Blob:
    """``flow.layers.dense``: activation(inputs · weightᵀ + bias) with weight ``(units, in)``."""
    op = "layers.dense"
    x = check_float_blob(inputs, op, "inputs")
    units = _positive_int(units, op, "units")
    if x.ndim < 2:
        raise arg_error(op, "inputs", "a blob of rank >= 2", Desc(f"{x.lbn} {x.shape}"))
    in_shape = x.shape
    prefix = name if name is not None else naming.unique_str("Dense_")
    if x.ndim > 2:
        x = array_ops.reshape(x, (-1, in_shape[-1]))
    # model_distribute lays the weight out over the devices (OneFlow's layers.py: split(0) splits the output
    # units, and the bias with them); on several processes the matmul then runs tensor-parallel (dist/sbp.py)
    weight = get_variable(f"{prefix}-weight", shape=(units, x.shape[1]), dtype=x.dtype,
                          initializer=kernel_initializer if kernel_initializer is not None
                          else initializers.constant_initializer(0),
                          regularizer=kernel_regularizer, trainable=trainable, model_name="weight",
                          distribute=model_distribute if getattr(model_distribute, "sbp", None) else None)
    out = array_ops.matmul(x, weight, transpose_b=True, name=f"{prefix}_matmul")
    if use_bias:
        bias = get_variable(f"{prefix}-bias", shape=(units,), dtype=x.dtype,
                            initializer=bias_initializer if bias_initializer is not None
                            else initializers.constant_initializer(0),
                            regularizer=bias_regularizer, trainable=trainable, model_name="bias",
                            distribute=model_distribute if getattr(model_distribute, "sbp", None) == "S(0)"
                            else None)
        out = nn_ops.bias_add(out, bias, name=f"{prefix}_bias_add")
    out = _activate(activation, out, f"{prefix}_activation", op)
    if len(in_shape) > 2:
        out = array_ops.reshape(out, in_shape[:-1] + (units,))
    return out


# --- convolutions -------------------------------------------------------------------------------------------
_CONV_FORMATS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _conv_layer(nd: int, inputs: Blob, filters: int, kernel_size: Any, strides: Any, padding: Any, data_format: str,
                dilation_rate: Any, groups: int, activation: Any, use_bias: bool, kernel_initializer: Any,
                bias_initializer: Any, kernel_regularizer: Any, bias_regularizer: Any, trainable: bool,
                name: str | None, weight_name: str | None, bias_name: str | None) -> Blob:
    op = f"layers.conv{nd}d"
    x = check_float_blob(inputs, op, "inputs")
    filters = _positive_int(filters, op, "filters")
    kernel = int_tuple(kernel_size, nd, op, "kernel_size")
    first_fmt, last_fmt = _CONV_FORMATS[nd]
    if not isinstance(data_format, str) or data_format.upper() not in (first_fmt, last_fmt):
        raise arg_error(op, "data_format", f'"{first_fmt}" or "{last_fmt}"', data_format)
    if x.ndim != nd + 2:
        raise arg_error(op, "inputs", f"a blob of rank {nd + 2}", Desc(f"{x.lbn} {x.shape}"))
    groups = _positive_int(groups, op, "groups")
    channels_first = data_format.upper() == first_fmt
    in_ch = x.shape[1] if channels_first else x.shape[-1]
    if filters % groups or in_ch % groups:
        raise ArgumentError(f"flow.{op}: filters ({filters}) and input channels ({in_ch}) must be divisible by "
                              f"groups ({groups})")
    weight_shape = ((filters, in_ch // groups) + kernel if channels_first
                    else (filters,) + kernel + (in_ch // groups,))
    prefix = name if name is not None else naming.unique_str(f"Conv{nd}D_")
    init = kernel_initializer if kernel_initializer is not None else initializers.xavier_uniform_initializer(
        data_format=data_format.upper())
    weight = get_variable(weight_name or f"{prefix}-weight", shape=weight_shape, dtype=x.dtype, initializer=init,
                          regularizer=kernel_regularizer, trainable=trainable, model_name="weight")
    conv = {1: conv_ops.conv1d, 2: conv_ops.conv2d, 3: conv_ops.conv3d}[nd]
    out = conv(x, weight, strides, padding, data_format.upper(), dilation_rate, groups=groups, name=name)
    if use_bias:
        bias = get_variable(bias_name or f"{prefix}-bias", shape=(filters,), dtype=x.dtype,
                            initializer=bias_initializer if bias_initializer is not None
                            else initializers.constant_initializer(0),
                            regularizer=bias_regularizer, trainable=trainable, model_name="bias")
        out = nn_ops.bias_add(out, bias, data_format.upper(), name=f"{prefix}-bias_add")
    return _activate(activation, out, f"{prefix}-activation", op)


def conv1d(inputs: Blob, filters: int, kernel_size: Any = 1, strides: Any = 1, padding: Any = "VALID",
           data_format: str = "NCW", dilation_rate: Any = None, groups: int = 1, activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None, trainable: bool = True,
           name: str | None = None, weight_name: str | None = None, bias_name: str | None = None) -> Blob:
    """``flow.layers.conv1d`` (``Conv1D_N-weight`` …, op ``Conv1d_M``)."""
    return _conv_layer(1, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, groups,
                       activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                       bias_regularizer, trainable, name, weight_name, bias_name)


def conv2d(inputs: Blob, filters: int, kernel_size: Any = 1, strides: Any = 1, padding: Any = "VALID",
           data_format: str = "NCHW", dilation_rate: Any = None, groups: int = 1, activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None, trainable: bool = True,
           name: str | None = None, weight_name: str | None = None, bias_name: str | None = None) -> Blob:
    """``flow.layers.conv2d``: weight ``(filters, in/groups, kh, kw)`` (NCHW) or ``(filters, kh, kw, in/groups)``
    (NHWC); "SAME"/"VALID"/explicit padding as ``flow.nn.conv2d``."""
    return _conv_layer(2, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, groups,
                       activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                       bias_regularizer, trainable, name, weight_name, bias_name)


def conv3d(inputs: Blob, filters: int, kernel_size: Any = 1, strides: Any = 1, padding: Any = "VALID",
           data_format: str = "NCDHW", dilation_rate: Any = None, groups: int = 1, activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None, trainable: bool = True,
           name: str | None = None, weight_name: str | None = None, bias_name: str | None = None) -> Blob:
    """``flow.layers.conv3d`` (``Conv3D_N-weight`` …, op ``Conv3d_M``)."""
    return _conv_layer(3, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, groups,
                       activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                       bias_regularizer, trainable, name, weight_name, bias_name)


# --- batch normalization --------------------------------------------------------------------------------------
def _batch_norm(inputs: Blob, addend: Blob | None, axis: int, momentum: float, epsilon: float, center: bool,
                scale: bool, beta_initializer: Any, gamma_initializer: Any, beta_regularizer: Any,
                gamma_regularizer: Any, moving_mean_initializer: Any, moving_variance_initializer: Any,
                trainable: bool, training: bool, name: str | None, relu: bool, op: str) -> Blob:
    x = check_float_blob(inputs, op, "inputs")
    ax = norm_axis(axis, x.ndim, op)
    if addend is not None:
        addend = check_blob(addend, op, "addend")
        if addend.shape != x.shape:
            raise arg_error(op, "addend", f"the shape of inputs {x.shape}", Desc(f"{addend.lbn} {addend.shape}"))
    for arg, v in (("momentum", momentum), ("epsilon", epsilon)):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise arg_error(op, arg, "a number", v)
    builder = current_builder(op)
    params_shape = (x.shape[ax],)
    params_dtype = dtypes.float32 if x.meta.dtype == torch.float16 else x.dtype
    training = bool(training) and builder.is_train and bool(trainable)
    prefix = name if name is not None else naming.unique_str("BatchNorm_")
    if center:
        beta = get_variable(f"{prefix}-beta", shape=params_shape, dtype=params_dtype,
                            initializer=beta_initializer or initializers.zeros_initializer(),
                            regularizer=beta_regularizer, trainable=trainable)
    else:
        beta = array_ops.constant(0.0, dtype=params_dtype, shape=params_shape)
    if scale:
        gamma = get_variable(f"{prefix}-gamma", shape=params_shape, dtype=params_dtype,
                             initializer=gamma_initializer or initializers.ones_initializer(),
                             regularizer=gamma_regularizer, trainable=trainable)
    else:
        gamma = array_ops.constant(1.0, dtype=params_dtype, shape=params_shape)
    moving_mean = get_variable(f"{prefix}-moving_mean", shape=params_shape, dtype=params_dtype,
                               initializer=moving_mean_initializer or initializers.zeros_initializer(), trainable=False)
    moving_variance = get_variable(f"{prefix}-moving_variance", shape=params_shape, dtype=params_dtype,
                                   initializer=moving_variance_initializer or initializers.ones_initializer(),
                                   trainable=False)
    op_type = "normalization_add_relu" if relu else "normalization"  # OneFlow's fused op, or its plain one
    named = {"x": [x], "moving_mean": [moving_mean], "moving_variance": [moving_variance], "gamma": [gamma],
             "beta": [beta], **({"addend": [addend]} if addend is not None else {})}
    attrs = {"axis": ax, "epsilon": float(epsilon), "training": training, "momentum": float(momentum)}
    if training:
        y, _, _ = apply(batch_norm.bn_train_kernel, x, gamma, beta, moving_mean, moving_variance, addend, ax,
                        float(momentum), float(epsilon), relu, op_type=op_type, op_name=naming.scoped(prefix),
                        outputs=("y_0", "mean_0", "inv_variance_0"), inputs=named, attrs=attrs)
        return y
    return apply(batch_norm.bn_infer_kernel, x, gamma, beta, moving_mean, moving_variance, addend, ax, float(epsilon),
                 relu, op_type=op_type, op_name=naming.scoped(prefix), outputs=("y_0",), inputs=named, attrs=attrs)


def batch_normalization(inputs: Blob, axis: int = -1, momentum: float = 0.99, epsilon: float = 0.001,
                        center: bool = True, scale: bool = True, beta_initializer: Any = None,
                        gamma_initializer: Any = None, beta_regularizer: Any = None, gamma_regularizer: Any = None,
                        moving_mean_initializer: Any = None, moving_variance_initializer: Any = None,
                        trainable: bool = True, training: bool = True, name: str | None = None) -> Blob:
    """``flow.layers.batch_normalization`` over ``axis`` (default -1; pass 1 for NCHW)."""
    return _batch_norm(inputs, None, axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer,
                       beta_regularizer, gamma_regularizer, moving_mean_initializer, moving_variance_initializer,
                       trainable, training, name, False, "layers.batch_normalization")


def batch_normalization_relu(inputs: Blob, axis: int = -1, momentum: float = 0.99, epsilon: float = 0.001,
                             center: bool = True, scale: bool = True, beta_initializer: Any = None,
                             gamma_initializer: Any = None, beta_regularizer: Any = None,
                             gamma_regularizer: Any = None, moving_mean_initializer: Any = None,
                             moving_variance_initializer: Any = None, trainable: bool = True, training: bool = True,
                             name: str | None = None) -> Blob:
    """``flow.layers.batch_normalization_relu``: relu(batch_normalization(inputs)) as one op."""
    return _batch_norm(inputs, None, axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer,
                       beta_regularizer, gamma_regularizer, moving_mean_initializer, moving_variance_initializer,
                       trainable, training, name, True, "layers.batch_normalization_relu")


def batch_normalization_add_relu(inputs: Blob, addend: Blob | None = None, axis: int = -1, momentum: float = 0.99,
                                 epsilon: float = 0.001, center: bool = True, scale: bool = True,
                                 beta_initializer: Any = None, gamma_initializer: Any = None,
                                 beta_regularizer: Any = None, gamma_regularizer: Any = None,
                                 moving_mean_initializer: Any = None, moving_variance_initializer: Any = None,
                                 trainable: bool = True, training: bool = True, name: str | None = None) -> Blob:
    """``flow.layers.batch_normalization_add_relu``: relu(batch_normalization(inputs) + addend) as one op."""
    return _batch_norm(inputs, addend, axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer,
                       beta_regularizer, gamma_regularizer, moving_mean_initializer, moving_variance_initializer,
                       trainable, training, name, True, "layers.batch_normalization_add_relu")


# --- layer norm ------------------------------------------------------------------------------------------------
def layer_norm(inputs: Blob, center: bool = True, scale: bool = True, trainable: bool = True,
               begin_norm_axis: int = 1, begin_params_axis: int = -1, epsilon: float = 1e-5,
               name: str | None = None) -> Blob:
    """``flow.layers.layer_norm``: normalise over axes ``begin_norm_axis..``; beta/gamma have shape
    ``inputs.shape[begin_params_axis:]``."""
    op = "layers.layer_norm"
    x = check_float_blob(inputs, op, "inputs")
    bna = norm_axis(begin_norm_axis, x.ndim, op, "begin_norm_axis")
    bpa = norm_axis(begin_params_axis, x.ndim, op, "begin_params_axis")
    if not isinstance(epsilon, (int, float)) or isinstance(epsilon, bool):
        raise arg_error(op, "epsilon", "a number", epsilon)
    prefix = name if name is not None else naming.unique_str("LayerNorm_")
    if not center and not scale:
        trainable = False
    param_shape = x.shape[bpa:]
    beta = gamma = None
    if center:
        beta = get_variable(f"{prefix}-beta", shape=param_shape, dtype=x.dtype,
                            initializer=initializers.constant_initializer(0.0), trainable=trainable, model_name="beta")
    if scale:
        gamma = get_variable(f"{prefix}-gamma", shape=param_shape, dtype=x.dtype,
                             initializer=initializers.constant_initializer(1.0), trainable=trainable,
                             model_name="gamma")
    outputs = ("y_0", "mean_0", "inv_variance_0") + (("normalized_0",) if scale else ())
    blobs = apply(layer_norm_kernel, x, beta, gamma, bna, float(epsilon), op_type="layer_norm",
                  op_name=naming.scoped(prefix), outputs=outputs)
    return blobs[0]


# --- upsample, prelu -----------------------------------------------------------------------------------------------
def upsample_kernel(x: torch.Tensor, scale: tuple[int, int], mode: str) -> torch.Tensor:
    if mode == "bilinear":
        return F.interpolate(x, scale_factor=scale, mode="bilinear", align_corners=False)
    return F.interpolate(x, scale_factor=scale, mode="nearest")


def upsample(x: Blob, size: Any = (2, 2), data_format: str = "NCHW", interpolation: str = "nearest",
             name: str | None = None) -> Blob:
    """``flow.layers.upsample_2d``: integer-factor nearest or bilinear (half-pixel, OneFlow's kernel)
    upsampling (``Upsample2D_<n>/y_0``; NHWC goes through two ``Transpose`` ops, as in OneFlow)."""
    op = "layers.upsample_2d"
    x = check_float_blob(x, op, "x")
    scale = int_tuple(size, 2, op, "size")
    check_choice(interpolation, ("nearest", "bilinear"), op, "interpolation")
    if not isinstance(data_format, str) or data_format.upper() not in ("NCHW", "NHWC"):
        raise arg_error(op, "data_format", '"NCHW" or "NHWC"', data_format)
    if x.ndim != 4:
        raise arg_error(op, "x", "a blob of rank 4", Desc(f"{x.lbn} {x.shape}"))
    nhwc = data_format.upper() == "NHWC"
    if nhwc:
        x = array_ops.transpose(x, [0, 3, 1, 2])
    out = apply(upsample_kernel, x, scale, interpolation, op_type="upsample", prefix="Upsample2D", name=name,
                outputs=("y_0",))
    if nhwc:
        out = array_ops.transpose(out, [0, 2, 3, 1])
    return out


upsample_2d = upsample


def prelu_kernel(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x, x * alpha)


def prelu(inputs: Blob, alpha_initializer: Any = None, alpha_regularizer: Any = None, shared_axes: Any = None,
          trainable: bool = True, name: str | None = None, model_distribute: Any = None) -> Blob:
    """``flow.layers.prelu``: x if x > 0 else alpha·x with a learned ``alpha`` of shape ``inputs.shape[1:]``
    (``shared_axes`` set to 1); default initializer zeros (``PRelu_N-alpha``, ``PRelu_N/y_0``)."""
    op = "layers.prelu"
    x = check_float_blob(inputs, op, "inputs")
    if x.ndim < 2:
        raise arg_error(op, "inputs", "a blob of rank >= 2", Desc(f"{x.lbn} {x.shape}"))
    alpha_shape = list(x.shape[1:])
    for a in shared_axes or ():
        if not isinstance(a, int) or not 1 <= a < x.ndim:
            raise arg_error(op, "shared_axes", f"axes in [1, {x.ndim})", shared_axes)
        alpha_shape[a - 1] = 1
    prefix = name if name is not None else naming.unique_str("PRelu_")
    alpha = get_variable(f"{prefix}-alpha", shape=tuple(alpha_shape), dtype=x.dtype,
                         initializer=alpha_initializer if alpha_initializer is not None
                         else initializers.constant_initializer(0),
                         regularizer=alpha_regularizer, trainable=trainable)
    return apply(prelu_kernel, x, alpha, op_type="prelu", op_name=naming.scoped(prefix), outputs=("y_0",))


def categorical_ordinal_encoder(input_tensor: Blob, capacity: int, hash_precomputed: bool = True,
                                name: str = "CategoricalOrdinalEncoder") -> Blob:
    """``flow.layers.categorical_ordinal_encoder(input_tensor, capacity)``: creates the non-trainable
    variables ``<name>-Table`` (2·capacity,) and ``<name>-Size`` (1,) and encodes with them
    (``<name>-Encode/out_0``)."""
    current_builder("layers.categorical_ordinal_encoder")
    x = check_blob(input_tensor, "layers.categorical_ordinal_encoder", "input_tensor")
    capacity = check_int(capacity, "layers.categorical_ordinal_encoder", "capacity")
    dtype = dtypes.from_torch(x.meta.dtype)
    with naming.namespace(name):
        zero = initializers.constant_initializer(0, dtype=dtype)
        table = get_variable("Table", shape=(capacity * 2,), dtype=dtype, initializer=zero, trainable=False,
                             reuse=False)
        size = get_variable("Size", shape=(1,), dtype=dtype, initializer=zero, trainable=False, reuse=False)
        return state_ops.categorical_ordinal_encode(table, size, x, hash_precomputed, name="Encode")


# --- affine channel (v0.1.2's detection layers) -----------------------------------------------------------------
def affine_channel(inputs: Blob, axis: int, use_bias: bool = True, scale_initializer: Any = None,
                   bias_initializer: Any = None, activation: Callable[..., Blob] | None = None, trainable: bool = True,
                   name: str | None = None, model_distribute: Any = None) -> Blob:
    """``flow.layers.affine_channel`` (also ``flow.detection.affine_channel``, v0.1.2's
    ``ops/detection.py``): ``activation(inputs · scale + bias)`` with a per-channel ``scale`` of shape
    ``[1, …, C, …, 1]`` (``C = inputs.shape[axis]``) and a ``bias`` (C,), both initialized to zeros unless
    given (``AffineChannel_N-scale``, ``AffineChannel_N-bias``, ``AffineChannel_N_bias_add/out_0``). As in
    OneFlow the bias goes through ``nn.bias_add``, which adds along axis 1: with ``use_bias`` the channel
    axis should be 1."""
    op = "layers.affine_channel"
    x = check_float_blob(inputs, op, "inputs")
    ax = norm_axis(axis, x.ndim, op)
    if activation is not None and not callable(activation):
        raise arg_error(op, "activation", "a callable such as flow.nn.relu, or None", activation)
    prefix = name if name is not None else naming.unique_str("AffineChannel_")
    scale_shape = tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim))
    zeros = initializers.constant_initializer(0)
    scale = get_variable(f"{prefix}-scale", shape=scale_shape, dtype=x.dtype,
                         initializer=scale_initializer if scale_initializer is not None else zeros,
                         trainable=trainable, model_name="scale", distribute=model_distribute)
    out = x * scale
    if use_bias:
        bias = get_variable(f"{prefix}-bias", shape=(x.shape[ax],), dtype=x.dtype,
                            initializer=bias_initializer if bias_initializer is not None else zeros,
                            trainable=trainable, model_name="bias", distribute=model_distribute)
        out = nn_ops.bias_add(out, bias, name=f"{prefix}_bias_add")
    return activation(out) if activation is not None else out
