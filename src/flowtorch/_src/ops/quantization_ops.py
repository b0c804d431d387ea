"""OneFlow's quantization ops (v0.3.4 ``python/ops/quantize_ops.py``), registered as its user op types
``fake_quantization``, ``min_max_observer`` and ``moving_average_min_max_observer``
(``user/ops/*_op.cpp``), with kernels that compute what OneFlow's CPU kernels compute
(``user/kernels/{fake_quantization,min_max_observer,moving_average_min_max_observer}_kernel.cpp``):

* ``min_max_observer``: per layer (one ``(1,)`` scale) or per channel (one scale per index of axis 0).
  ``"symmetric"``: ``scale = max(|max|, |min|) / (2^(bit-1) - 1)``, ``zero_point = 0``; ``"affine"``:
  ``scale = (max - min) / (2^bit - 1)``, ``zero_point = -min / scale`` (not rounded, as in v0.3.4).
* ``fake_quantization``: ``clamp(round(x / scale), -(2^(bit-1) - 1), 2^(bit-1) - 1) * scale``
  (symmetric) or ``(clamp(round(x / scale + zp), 0, 2^bit - 1) - zp) * scale`` (affine), per channel when
  ``scale`` has more than one element; ``round`` is ``std::round`` (halves away from zero). Its gradient is
  OneFlow's: the output's gradient passed to ``in`` unchanged (an ``identity`` grad op), none to
  ``scale`` or ``zero_point``.
* ``moving_average_min_max_observer``: the observer over exponential moving averages kept in the
  variables it is given (see :mod:`flowtorch._src.quantization`, which makes them).

``quantization_formula`` is v0.4.0's attr: ``"google"`` (the default) is the v0.3.4 math above;
``"cambricon"`` is v0.4.0's power-of-two form (``scale`` holds the shift ``floor(log2(max|x|)) - (bit - 2)``;
``fake_quantization`` rounds ``x / 2^shift`` half to even and clamps to ``[-2^(bit-1), 2^(bit-1) - 1]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_choice, is_int
from flowtorch._src.ops.op_registry import AttrSpec, invalid, register
from flowtorch._src.ops.user_op_builder import user_op_builder

__all__ = ["check_attrs", "fake_quantization", "float_input", "min_max_observer", "moving_average_observer_op"]

SCHEMES = ("symmetric", "affine")
FORMULAS = ("google", "cambricon")
_FLOAT_DTYPES = (torch.float32, torch.float64)  # OneFlow registered these kernels for float and double only


# --- kernels ---------------------------------------------------------------------------------------------
def _round_half_away(t: torch.Tensor) -> torch.Tensor:
    """C's ``round``: halves away from zero (``torch.round`` rounds them to even). ``t - trunc(t)`` is exact."""
    whole = torch.trunc(t)
    return whole + torch.where((t - whole).abs() >= 0.5, torch.sign(t), torch.zeros_like(t))


def _per_channel(t: torch.Tensor, ndim: int) -> torch.Tensor:
    """A (C,) tensor shaped to broadcast along axis 0 of an ``ndim``-D tensor."""
    return t.reshape((-1,) + (1,) * (ndim - 1))


def fake_quantization_kernel(x: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, bit: int, scheme: str,
                             formula: str) -> torch.Tensor:
    if formula == "cambricon":  # v0.4.0: scale holds a power-of-two shift; only its first element is read
        upper = 2.0 ** (bit - 1) - 1
        step = torch.exp2(torch.trunc(scale.reshape(-1)[0]).double()).to(x.dtype)
        return torch.clamp(torch.round(x / step), -upper - 1, upper) * step
    if scale.numel() > 1:
        s, z = _per_channel(scale, x.dim()), _per_channel(zero_point, x.dim())
    else:
        s, z = scale.reshape(-1)[0], zero_point.reshape(-1)[0]
    if scheme == "symmetric":
        upper = 2.0 ** (bit - 1) - 1
        return torch.clamp(_round_half_away(x / s), -upper, upper) * s
    return (torch.clamp(_round_half_away(x / s + z), 0.0, 2.0 ** bit - 1) - z) * s


def _fake_quantization_grad(inputs: tuple[Any, ...], outputs: tuple[Any, ...], dys: tuple[torch.Tensor, ...],
                            *attrs: Any) -> tuple[Any, ...]:
    return dys[0], None, None  # straight through to `in` (OneFlow's identity grad op); scale, zero_point none


def _scale_zero_point(mx: torch.Tensor, mn: torch.Tensor, bit: int, scheme: str,
                      formula: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Scale and zero point from (per-channel) maxima and minima, in their dtype, as OneFlow's kernels."""
    if formula == "cambricon":
        return torch.floor(torch.log2(mx)) - (bit - 2), torch.zeros_like(mx)
    # divided by a tensor: CUDA would turn a division by a Python number into a product with its reciprocal
    if scheme == "symmetric":
        return mx / torch.full_like(mx, 2.0 ** (bit - 1) - 1), torch.zeros_like(mx)
    scale = (mx - mn) / torch.full_like(mx, 2.0 ** bit - 1)
    return scale, -mn / scale


def min_max_observer_kernel(x: torch.Tensor, bit: int, scheme: str, formula: str,
                            per_layer: bool) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():  # `in` takes no gradient (requires_grad false in min_max_observer_op.cpp)
        rows = x.reshape(1, -1) if per_layer else x.reshape(x.shape[0], -1)
        mx, mn = rows.amax(dim=1), rows.amin(dim=1)
        if scheme == "symmetric" or formula == "cambricon":
            mx = torch.maximum(mx.abs(), mn.abs())
        return _scale_zero_point(mx, mn, bit, scheme, formula)


def moving_average_min_max_observer_kernel(x: torch.Tensor, current_train_step: torch.Tensor,
                                           moving_max: torch.Tensor, moving_min: torch.Tensor, training: bool,
                                           stop_update_after_iters: int, bit: int, scheme: str, momentum: float,
                                           formula: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Updates ``moving_max``/``moving_min`` in place while training and ``current_train_step <=
    stop_update_after_iters``: a zero statistic takes the batch's value, else ``m * momentum + batch * (1 -
    momentum)``; symmetric (and cambricon) track ``max|x|`` in both. Branch-free, so a captured step replays it."""
    with torch.no_grad():
        if training:
            # OneFlow's attr is a float: momentum and (1 - momentum) are float32 numbers even for double data
            m32 = np.float32(momentum)
            m, rest = float(m32), float(np.float32(1.0) - m32)
            mx, mn = x.amax().reshape(1), x.amin().reshape(1)
            if scheme == "symmetric" or formula == "cambricon":
                mx = torch.maximum(mx.abs(), mn.abs())
            new_max = torch.where(moving_max == 0, mx, moving_max * m + mx * rest)
            if scheme == "symmetric" or formula == "cambricon":
                new_min = new_max
            else:
                new_min = torch.where(moving_min == 0, mn, moving_min * m + mn * rest)
            update = current_train_step.reshape(1) <= stop_update_after_iters
            moving_max.copy_(torch.where(update, new_max, moving_max))
            moving_min.copy_(torch.where(update, new_min, moving_min))
        return _scale_zero_point(moving_max, moving_min, bit, scheme, formula)


# the statistics change even when nothing reads the op's outputs: dead-code elimination must keep it
torch.fx.node.has_side_effect(moving_average_min_max_observer_kernel)


# --- checks, shared by the flow.quantization.* wrappers and user_op_builder --------------------------------
Problem = tuple[str, str, Any]  # (what, expected, received)


def _attr_problems(attrs: dict[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    bit = attrs.get("quantization_bit")
    if bit is not None and not 2 <= bit <= 8:
        out.append(("quantization_bit", "an int in [2, 8]", bit))
    if attrs.get("quantization_scheme", "symmetric") not in SCHEMES:
        out.append(("quantization_scheme", "'symmetric' or 'affine'", attrs["quantization_scheme"]))
    if attrs.get("quantization_formula", "google") not in FORMULAS:
        out.append(("quantization_formula", "'google' or 'cambricon'", attrs["quantization_formula"]))
    if attrs.get("stop_update_after_iters", 1) <= 0:
        out.append(("stop_update_after_iters", "a positive int", attrs["stop_update_after_iters"]))
    return out


def _desc(b: Blob) -> Desc:
    return Desc(f"{b.lbn} {b.shape} {b.dtype}")


def _float_problem(what: str, b: Blob) -> list[Problem]:
    if b.meta.dtype not in _FLOAT_DTYPES:
        return [(what, "a float32 or float64 blob", _desc(b))]
    return []


def _fake_quantization_problems(x: Blob, scale: Blob, zero_point: Blob, attrs: dict[str, Any]) -> list[Problem]:
    out = _float_problem("in", x)
    for what, b in (("scale", scale), ("zero_point", zero_point)):
        if b.meta.dtype != x.meta.dtype or b.meta.numel() < 1:
            out.append((what, f"a non-empty blob of in's dtype {x.dtype}", _desc(b)))
    n = scale.meta.numel()
    if n > 1:  # per channel: one scale and zero point per index of axis 0
        channels = x.shape[0] if x.ndim else 1
        for what, b in (("scale", scale), ("zero_point", zero_point)):
            if b.meta.numel() != channels:
                out.append((what, f"{channels} element(s), one per index of axis 0 of in {x.shape} (scale has {n} "
                                  "elements: per-channel quantization)", _desc(b)))
    return out + _attr_problems(attrs)


def _observer_problems(x: Blob, attrs: dict[str, Any]) -> list[Problem]:
    out = _float_problem("in", x)
    if attrs.get("quantization_formula") == "cambricon" and not attrs.get("per_layer_quantization", True):
        out.append(("per_layer_quantization", "True with quantization_formula 'cambricon' (per-channel "
                                              "cambricon quantization is not supported)", False))
    if x.ndim == 0 and not attrs.get("per_layer_quantization", True):
        out.append(("in", "a blob of rank >= 1 for per-channel quantization", _desc(x)))
    return out + _attr_problems(attrs)


def _moving_problems(inputs: dict[str, Any], attrs: dict[str, Any]) -> list[Problem]:
    x = inputs["in"][0]
    out = _float_problem("in", x)
    step = inputs["current_train_step"][0]
    if step.shape != (1,) or step.meta.dtype != torch.int64:
        out.append(("current_train_step", "a (1,) int64 blob", _desc(step)))
    for name in ("moving_max", "moving_min"):
        b = inputs[name][0]
        if b.shape != (1,) or b.meta.dtype != x.meta.dtype or not b.is_variable:
            out.append((name, f"a (1,) variable of in's dtype {x.dtype} (per-layer statistics)", _desc(b)))
    return out + _attr_problems(attrs)


def _raise_builder(problems: list[Problem]) -> None:
    if problems:
        what, expected, received = problems[0]
        kind = "input" if what in ("in", "scale", "zero_point", "current_train_step", "moving_max", "moving_min") \
            else "attr"
        raise invalid(f"{kind} {what!r}", expected, received)


def _raise_wrapper(op: str, problems: list[Problem]) -> None:
    if problems:
        what, expected, received = problems[0]
        raise arg_error(op, "input" if what == "in" else what, expected, received)


_COMMON_ATTRS = [AttrSpec("quantization_bit", "int32", 8), AttrSpec("quantization_scheme", "string", "symmetric"),
                 AttrSpec("quantization_formula", "string", "google")]  # (quantization_formula: v0.4.0)

register("fake_quantization", inputs=("in", "scale", "zero_point"), outputs=("out",), attrs=_COMMON_ATTRS,
         kernel=fake_quantization_kernel, grad=_fake_quantization_grad,
         check=lambda ins, attrs, outs: _raise_builder(
             _fake_quantization_problems(ins["in"][0], ins["scale"][0], ins["zero_point"][0], attrs)))
register("min_max_observer", inputs=("in",), outputs=("scale", "zero_point"),
         attrs=[*_COMMON_ATTRS, AttrSpec("per_layer_quantization", "bool", True)], kernel=min_max_observer_kernel,
         check=lambda ins, attrs, outs: _raise_builder(_observer_problems(ins["in"][0], attrs)))
register("moving_average_min_max_observer", inputs=("in", "current_train_step", "moving_max", "moving_min"),
         outputs=("scale", "zero_point"),
         attrs=[AttrSpec("training", "bool"), AttrSpec("stop_update_after_iters", "int64"), *_COMMON_ATTRS[:2],
                AttrSpec("momentum", "float", 0.95), _COMMON_ATTRS[2]],
         kernel=moving_average_min_max_observer_kernel,
         check=lambda ins, attrs, outs: _raise_builder(_moving_problems(ins, attrs)))


# --- flow.quantization.* -----------------------------------------------------------------------------------
def check_attrs(op: str, quantization_bit: Any, quantization_scheme: Any, quantization_formula: Any) -> int:
    """The wrappers' own argument checks, so errors name ``flow.quantization.<op>`` and the argument;
    returns the bit count as an int."""
    if not is_int(quantization_bit):
        raise arg_error(op, "quantization_bit", "an int in [2, 8]", quantization_bit)
    for arg, value, choices in (("quantization_scheme", quantization_scheme, SCHEMES),
                                ("quantization_formula", quantization_formula, FORMULAS)):
        check_choice(value, choices, op, arg)
    _raise_wrapper(op, _attr_problems({"quantization_bit": int(quantization_bit)}))
    return int(quantization_bit)


def float_input(x: Any, op: str) -> Blob:
    """``x`` as a float32/float64 blob, or the wrapper's error naming ``input``."""
    blob = check_blob(x, op, "input")
    _raise_wrapper(op, _float_problem("in", blob))
    return blob


def min_max_observer(input: Blob, quantization_bit: int = 8, quantization_scheme: str = "symmetric",
                     per_layer_quantization: bool = True, name: str | None = None, *,
                     quantization_formula: str = "google") -> tuple[Blob, Blob]:
    """``flow.quantization.min_max_observer``: ``(scale, zero_point)`` of ``input``, ``(1,)`` per layer or
    ``(input.shape[0],)`` per channel (``MinMaxObserver_<n>/scale_0``, ``/zero_point_0``; see the module
    docstring for the formulas). ``quantization_formula`` (v0.4.0) is keyword-only here."""
    op = "quantization.min_max_observer"
    bit = check_attrs(op, quantization_bit, quantization_scheme, quantization_formula)
    if not isinstance(per_layer_quantization, bool):
        raise arg_error(op, "per_layer_quantization", "a bool", per_layer_quantization)
    if quantization_formula == "cambricon" and not per_layer_quantization:  # v0.4.0's wrapper raised this
        raise NotImplementedError(f"flow.{op}: per-channel mode is not supported in cambricon scheme "
                                  "(per_layer_quantization=False with quantization_formula='cambricon')")
    x = float_input(input, op)
    if x.ndim == 0 and not per_layer_quantization:
        raise arg_error(op, "input", "a blob of rank >= 1 for per-channel quantization", _desc(x))
    scale, zero_point = (
        user_op_builder(name if name is not None else naming.unique_str("MinMaxObserver_"))
        .Op("min_max_observer").Input("in", [x]).Output("scale").Output("zero_point")
        .Attr("quantization_bit", bit).Attr("quantization_scheme", quantization_scheme)
        .Attr("quantization_formula", quantization_formula).Attr("per_layer_quantization", per_layer_quantization)
        .Build().InferAndTryRun().RemoteBlobList())
    return scale, zero_point


def moving_average_observer_op(x: Blob, current_train_step: Blob, moving_max: Blob, moving_min: Blob, *,
                               op_name: str, training: bool, stop_update_after_iters: int, quantization_bit: int,
                               quantization_scheme: str, momentum: float,
                               quantization_formula: str) -> tuple[Blob, Blob]:
    """The ``moving_average_min_max_observer`` op over the statistics variables it is given."""
    scale, zero_point = (
        user_op_builder(op_name).Op("moving_average_min_max_observer")
        .Input("in", [x]).Input("current_train_step", [current_train_step])
        .Input("moving_max", [moving_max]).Input("moving_min", [moving_min])
        .Output("scale").Output("zero_point")
        .Attr("training", training).Attr("stop_update_after_iters", stop_update_after_iters)
        .Attr("quantization_bit", quantization_bit).Attr("quantization_scheme", quantization_scheme)
        .Attr("momentum", momentum).Attr("quantization_formula", quantization_formula)
        .Build().InferAndTryRun().RemoteBlobList())
    return scale, zero_point


def fake_quantization(input: Blob, scale: Blob, zero_point: Blob, quantization_bit: int = 8,
                      quantization_scheme: str = "symmetric", name: str | None = None, *,
                      quantization_formula: str = "google") -> Blob:
    """``flow.quantization.fake_quantization``: ``input`` quantized with ``scale``/``zero_point`` and
    dequantized (``Fake_Quantization_<n>/out_0``); its gradient passes straight through to ``input``.
    ``quantization_formula`` (v0.4.0) is keyword-only here."""
    op = "quantization.fake_quantization"
    bit = check_attrs(op, quantization_bit, quantization_scheme, quantization_formula)
    x = check_blob(input, op, "input")
    s = check_blob(scale, op, "scale")
    z = check_blob(zero_point, op, "zero_point")
    _raise_wrapper(op, _fake_quantization_problems(x, s, z, {}))
    return (
        user_op_builder(name if name is not None else naming.unique_str("Fake_Quantization_"))
        .Op("fake_quantization").Input("in", [x]).Input("scale", [s]).Input("zero_point", [z]).Output("out")
        .Attr("quantization_bit", bit).Attr("quantization_scheme", quantization_scheme)
        .Attr("quantization_formula", quantization_formula)
        .Build().InferAndTryRun().SoleOutputBlob())
