"""Convolutions and pooling: ``flow.nn.conv1d/2d/3d``, ``conv2d_transpose``, ``compat_conv2d``,
``max_pool1d/2d/3d``, ``avg_pool1d/2d/3d`` (OneFlow ``ops/nn_ops.py``, ``user/kernels/pool_cpu_kernel.cpp``).

Padding (v0.3.4 ``calc_conv_padding``/``calc_pool_padding``, ``core/operator/operator_util.cpp``):

* ``"VALID"``: none.
* ``"SAME"``: output size ceil(in / stride); the total padding ``(out−1)·stride + (k−1)·dilation + 1 − in``
  is split with the odd element **before** the data. OneFlow v0.1.8–v0.4 map "SAME" to ONNX's
  ``"SAME_LOWER"``, unlike TensorFlow (and OneFlow v0.1.0–v0.1.7), whose extra element goes after. The other
  side is available as ``"SAME_UPPER"`` (TensorFlow's), and ``nn.compat_conv2d`` uses it, as in OneFlow.
  ``FLOWTORCH_ONEFLOW_VERSION`` before 0.1.8 makes "SAME" the v0.1.0–v0.1.7 kernels' ``"SAME_UPPER"``
  (``operator_util.cpp``'s ``GetWindowedOutputSize``: ``padding_before = padding_needed / 2``).
* explicit: one (before, after) pair (or int) per axis of the input, 0 for batch and channels.

Max pooling ignores padding; average pooling divides by the number of real (unpadded) elements in the
window (OneFlow's CPU kernel). Symmetric padding is passed to torch's kernels; asymmetric padding pads
the input first (``-inf`` for max, zeros plus a count mask for average). NHWC/NDHWC inputs are moved to
channels-first views (torch's channels_last memory format), so no copy is made for 2-D convolutions.

Names (v0.1.x): ``Conv2d_<n>/out_0`` (also for ``conv2d_transpose``, which v0.1.x named ``Conv2d_``),
``MaxPool2D_<n>/y_0``, ``AvgPool2D_<n>/y_0``; flowtorch never adds OneFlow v0.3.4's extra ``Pad_<n>`` op.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from flowtorch._src import releases
from flowtorch._src.capture.blob import Blob
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops._checks import Desc, arg_error, check_float_blob, int_tuple, is_int
from flowtorch._src.ops._record import apply

Pads = tuple[tuple[int, int], ...]

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
_FORMATS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


# --- padding arithmetic (build time) -----------------------------------------------------------------------
def same_pads(in_size: int, kernel: int, dilation: int, stride: int, lower: bool) -> tuple[int, int]:
    """(before, after) for SAME padding of one axis; ``lower`` puts the odd element before."""
    eff = (kernel - 1) * dilation + 1
    out = (in_size + stride - 1) // stride
    needed = max(0, (out - 1) * stride + eff - in_size)
    small, large = needed // 2, needed - needed // 2
    return (large, small) if lower else (small, large)


def resolve_padding(padding: Any, spatial: tuple[int, ...], kernel: tuple[int, ...], dilation: tuple[int, ...],
                    stride: tuple[int, ...], channels_first: bool, op: str, *, same_default: str = "SAME_LOWER",
                    ) -> Pads:
    nd = len(spatial)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "SAME":
            mode = same_default
            if mode == "SAME_LOWER" and releases.before(releases.SAME_PADS_BEFORE):
                mode = "SAME_UPPER"  # v0.1.0-v0.1.7 passed "same" to the kernels, which padded after (operator_util)
        if mode == "VALID":
            return tuple((0, 0) for _ in range(nd))
        if mode in ("SAME_LOWER", "SAME_UPPER"):
            return tuple(same_pads(spatial[i], kernel[i], dilation[i], stride[i], mode == "SAME_LOWER")
                         for i in range(nd))
        raise arg_error(op, "padding", '"SAME", "VALID", "SAME_LOWER", "SAME_UPPER" or a list of pads', padding)
    if isinstance(padding, (list, tuple)) and len(padding) == nd + 2:
        pads = []
        for p in padding:
            if isinstance(p, int) and not isinstance(p, bool) and p >= 0:
                pads.append((p, p))
            elif isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, int) and v >= 0 for v in p):
                pads.append((int(p[0]), int(p[1])))
            else:
                raise arg_error(op, "padding", f"{nd + 2} non-negative ints or (before, after) pairs", padding)
        first = 2 if channels_first else 1
        for i, p in enumerate(pads):
            if not first <= i < first + nd and p != (0, 0):
                raise arg_error(op, "padding", "(0, 0) for the batch and channel axes", padding)
        return tuple(pads[first:first + nd])
    raise arg_error(op, "padding", f'"SAME", "VALID" or a list of {nd + 2} pads (one per input axis)', padding)


def _flat_pads(pads: Pads) -> list[int]:
    flat: list[int] = []
    for before, after in reversed(pads):
        flat += [before, after]
    return flat


def _data_format(data_format: Any, nd: int, op: str) -> bool:
    """True for channels-first."""
    first, last = _FORMATS[nd]
    if not isinstance(data_format, str) or data_format.upper() not in (first, last, "NCHW_VECT_C"):
        raise arg_error(op, "data_format", f'"{first}" or "{last}"', data_format)
    return data_format.upper() != last


# --- kernels -------------------------------------------------------------------------------------------------
def conv_kernel(x: torch.Tensor, w: torch.Tensor, stride: tuple[int, ...], dilation: tuple[int, ...], groups: int,
                pads: Pads, channels_last: bool, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``bias`` is only passed by the graph fusion of conv + bias_add (step/fuse.py)."""
    nd = x.dim() - 2
    if channels_last:
        x, w = x.movedim(-1, 1), w.movedim(-1, 1)
    if all(b == a for b, a in pads):
        out = _CONV[nd](x, w, bias, stride, tuple(b for b, _ in pads), dilation, groups)
    else:
        out = _CONV[nd](F.pad(x, _flat_pads(pads)), w, bias, stride, 0, dilation, groups)
    return out.movedim(1, -1) if channels_last else out


def max_pool_kernel(x: torch.Tensor, kernel: tuple[int, ...], stride: tuple[int, ...], pads: Pads,
                    channels_last: bool) -> torch.Tensor:
    nd = x.dim() - 2
    if channels_last:
        x = x.movedim(-1, 1)
    if all(b == a and 2 * b <= k for (b, a), k in zip(pads, kernel)):
        out = _MAX[nd](x, kernel, stride, tuple(b for b, _ in pads))
    else:
        out = _MAX[nd](F.pad(x, _flat_pads(pads), value=float("-inf")), kernel, stride)
    return out.movedim(1, -1) if channels_last else out


def avg_pool_kernel(x: torch.Tensor, kernel: tuple[int, ...], stride: tuple[int, ...], pads: Pads,
                    channels_last: bool) -> torch.Tensor:
    nd = x.dim() - 2
    if channels_last:
        x = x.movedim(-1, 1)
    if all(b == a and 2 * b <= k for (b, a), k in zip(pads, kernel)):
        out = _AVG[nd](x, kernel, stride, tuple(b for b, _ in pads), count_include_pad=False)
    else:
        flat = _flat_pads(pads)
        ones = torch.ones((1, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
        window_mean = _AVG[nd](F.pad(x, flat), kernel, stride)
        real_share = _AVG[nd](F.pad(ones, flat), kernel, stride)
        out = window_mean / real_share
    return out.movedim(1, -1) if channels_last else out


# --- wrappers --------------------------------------------------------------------------------------------------
def _conv(nd: int, input: Blob, filters: Blob, strides: Any, padding: Any, data_format: str, dilations: Any,
          groups: int, name: str | None, *, same_default: str = "SAME_LOWER", api: str | None = None) -> Blob:
    op = api or f"nn.conv{nd}d"
    x = check_float_blob(input, op, "input")
    w = check_float_blob(filters, op, "filters")
    if x.ndim != nd + 2 or w.ndim != nd + 2:
        raise arg_error(op, "input/filters", f"blobs of rank {nd + 2}", Desc(f"input {x.shape}, filters {w.shape}"))
    first = _data_format(data_format, nd, op)
    stride = int_tuple(strides, nd, op, "strides")
    dilation = int_tuple(1 if dilations is None else dilations, nd, op, "dilations")
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise arg_error(op, "groups", "a positive int", groups)
    kernel = tuple(w.shape[2:]) if first else tuple(w.shape[1:-1])
    spatial = tuple(x.shape[2:]) if first else tuple(x.shape[1:-1])
    in_ch = x.shape[1] if first else x.shape[-1]
    w_in = w.shape[1] if first else w.shape[-1]
    if w.shape[0] % groups or in_ch % groups or w_in != in_ch // groups:
        raise arg_error(op, "filters", f"shape (out, in/groups={in_ch // groups if in_ch % groups == 0 else '?'}, "
                        f"{'k…' if first else 'k…, in/groups'}) with out and in divisible by groups={groups} "
                        f"(input {x.shape}, {data_format})", w.shape)
    pads = resolve_padding(padding, spatial, kernel, dilation, stride, first, op, same_default=same_default)
    for i in range(nd):
        eff = (kernel[i] - 1) * dilation[i] + 1
        if spatial[i] + pads[i][0] + pads[i][1] < eff:
            raise ArgumentError(f"flow.{op}: the padded input axis {i} ({spatial[i]} + {pads[i]}) is smaller than "
                                  f"the dilated kernel ({eff}); input {x.shape}, filters {w.shape}")
    # OneFlow's conv attributes (nn_ops.py conv2d); "padding_after" is the job IR's own (an asymmetric "SAME"
    # padding, which OneFlow applied with a pad op before the conv)
    attrs = {"filters": w.shape[0], "padding_before": [b for b, _ in pads], "padding_after": [a for _, a in pads],
             "data_format": "channels_first" if first else "channels_last", "kernel_size": list(kernel),
             "strides": list(stride), "dilation_rate": list(dilation), "groups": groups}
    return apply(conv_kernel, x, w, stride, dilation, groups, pads, not first, op_type=f"conv{nd}d",
                 prefix=f"Conv{nd}d", name=name, attrs=attrs)


def conv1d(input: Blob, filters: Blob, strides: Any, padding: Any, data_format: str = "NCW",
           dilations: Any = None, groups: int = 1, name: str | None = None) -> Blob:
    """``flow.nn.conv1d`` (``Conv1d_<n>/out_0``)."""
    return _conv(1, input, filters, strides, padding, data_format, dilations, groups, name)


def conv2d(input: Blob, filters: Blob, strides: Any, padding: Any, data_format: str = "NCHW",
           dilations: Any = None, groups: int = 1, name: str | None = None) -> Blob:
    """``flow.nn.conv2d(input, filters, strides, padding, data_format="NCHW", dilations=None, groups=1)``:
    filters are (out, in/groups, kh, kw) for NCHW and (out, kh, kw, in/groups) for NHWC
    (``Conv2d_<n>/out_0``). See the module docstring for "SAME"."""
    return _conv(2, input, filters, strides, padding, data_format, dilations, groups, name)


def conv3d(input: Blob, filters: Blob, strides: Any, padding: Any, data_format: str = "NCDHW",
           dilations: Any = None, groups: int = 1, name: str | None = None) -> Blob:
    """``flow.nn.conv3d`` (``Conv3d_<n>/out_0``)."""
    return _conv(3, input, filters, strides, padding, data_format, dilations, groups, name)


def compat_conv2d(input: Blob, filters: Blob, strides: Any, padding: Any, data_format: str = "NCHW",
                  dilations: Any = None, groups: int = 1, name: str | None = None) -> Blob:
    """``flow.nn.compat_conv2d``: conv2d with TensorFlow's "SAME" (odd padding element after the data)."""
    return _conv(2, input, filters, strides, padding, data_format, dilations, groups, name,
                 same_default="SAME_UPPER", api="nn.compat_conv2d")


def _pool(kind: str, nd: int, input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str,
          ceil_mode: bool, name: str | None) -> Blob:
    op = f"nn.{kind}_pool{nd}d"
    x = check_float_blob(input, op, "input")
    if x.ndim != nd + 2:
        raise arg_error(op, "input", f"a blob of rank {nd + 2}", Desc(f"{x.lbn} {x.shape}"))
    first = _data_format(data_format, nd, op)
    kernel = int_tuple(ksize, nd, op, "ksize")
    stride = int_tuple(strides, nd, op, "strides")
    spatial = tuple(x.shape[2:]) if first else tuple(x.shape[1:-1])
    pads = resolve_padding(padding, spatial, kernel, (1,) * nd, stride, first, op)
    fixed = []
    for i in range(nd):
        before, after = pads[i]
        span = spatial[i] + before + after - kernel[i]
        if span < 0:
            raise ArgumentError(f"flow.{op}: window {kernel[i]} is larger than the padded input axis {i} "
                                  f"({spatial[i]} + {pads[i]}); input {x.shape}")
        if ceil_mode and not isinstance(padding, str):
            out = (span + stride[i] + stride[i] - 1) // stride[i]
            after += max(0, (out - 1) * stride[i] + kernel[i] - (spatial[i] + before + after))
        fixed.append((before, after))
    kernel_fn = max_pool_kernel if kind == "max" else avg_pool_kernel
    prefix = "MaxPool" if kind == "max" else "AvgPool"
    # OneFlow's pool attributes (nn_ops.py calc_pool_padding: a string padding is typed, its pads left 0)
    typed = isinstance(padding, str)
    kind_of_padding = ("same_lower" if padding.upper() == "SAME" else padding.lower()) if typed else "customized"
    attrs = {"data_format": "channels_first" if first else "channels_last", "pool_size": list(kernel),
             "strides": list(stride), "padding": kind_of_padding,
             "padding_before": [0 if typed else b for b, _ in fixed],
             "padding_after": [0 if typed else a for _, a in fixed], "ceil_mode": bool(ceil_mode)}
    return apply(kernel_fn, x, kernel, stride, tuple(fixed), not first, op_type=f"{kind}_pool_{nd}d",
                 prefix=f"{prefix}{nd}D", name=name, outputs=("y_0",), attrs=attrs)


def max_pool1d(input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC",
               name: str | None = None) -> Blob:
    """``flow.nn.max_pool1d`` (OneFlow raised NotImplementedError; flowtorch runs it) (``MaxPool1D_<n>/y_0``)."""
    return _pool("max", 1, input, ksize, strides, padding, data_format, False, name)


def avg_pool1d(input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str = "NCW",
               name: str | None = None) -> Blob:
    """``flow.nn.avg_pool1d`` (``AvgPool1D_<n>/y_0``)."""
    return _pool("avg", 1, input, ksize, strides, padding, data_format, False, name)


def max_pool2d(input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str = "NCHW",
               ceil_mode: bool = False, name: str | None = None) -> Blob:
    """``flow.nn.max_pool2d(input, ksize, strides, padding, data_format="NCHW")`` (``MaxPool2D_<n>/y_0``)."""
    return _pool("max", 2, input, ksize, strides, padding, data_format, ceil_mode, name)


def avg_pool2d(input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str = "NCHW",
               ceil_mode: bool = False, name: str | None = None) -> Blob:
    """``flow.nn.avg_pool2d``: mean over the real elements of each window (``AvgPool2D_<n>/y_0``)."""
    return _pool("avg", 2, input, ksize, strides, padding, data_format, ceil_mode, name)


def max_pool3d(input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str = "NCDHW",
               ceil_mode: bool = False, name: str | None = None) -> Blob:
    """``flow.nn.max_pool3d`` (``MaxPool3D_<n>/y_0``)."""
    return _pool("max", 3, input, ksize, strides, padding, data_format, ceil_mode, name)


def avg_pool3d(input: Blob, ksize: Any, strides: Any, padding: Any, data_format: str = "NCDHW",
               ceil_mode: bool = False, name: str | None = None) -> Blob:
    """``flow.nn.avg_pool3d`` (``AvgPool3D_<n>/y_0``)."""
    return _pool("avg", 3, input, ksize, strides, padding, data_format, ceil_mode, name)


# --- transposed convolution ----------------------------------------------------------------------------------------
def conv_transpose_kernel(x: torch.Tensor, w: torch.Tensor, stride: tuple[int, ...], dilation: tuple[int, ...],
                          left: tuple[int, ...], out_size: tuple[int, ...], channels_last: bool) -> torch.Tensor:
    nd = x.dim() - 2
    if channels_last:
        x, w = x.movedim(-1, 1), w.movedim(-1, 1)
    full = [(x.shape[2 + i] - 1) * stride[i] + (w.shape[2 + i] - 1) * dilation[i] + 1 for i in range(nd)]
    extra = [out_size[i] - (full[i] - 2 * left[i]) for i in range(nd)]
    if all(0 <= e < max(s, d) for e, s, d in zip(extra, stride, dilation)):
        out = _CONV_T[nd](x, w, None, stride, left, tuple(extra), 1, dilation)
    else:  # crop ``left`` in front and pad/crop the end to ``out_size`` (F.pad crops for negative pads)
        y = _CONV_T[nd](x, w, None, stride, 0, 0, 1, dilation)
        flat: list[int] = []
        for i in reversed(range(nd)):
            flat += [-left[i], out_size[i] - (full[i] - left[i])]
        out = F.pad(y, flat)
    return out.movedim(1, -1) if channels_last else out


def _transpose_operands(op: str, value: Blob | None, filter: Blob | None, input: Blob | None,
                        filters: Blob | None) -> tuple[Blob, Blob]:
    """The value and filter of a transposed convolution, each given once under either of its names, rank 4."""
    if (value is None) == (input is None):
        raise ArgumentError(f"flow.{op}: pass exactly one of value= and input=")
    if (filter is None) == (filters is None):
        raise ArgumentError(f"flow.{op}: pass exactly one of filter= and filters=")
    x = check_float_blob(value if value is not None else input, op, "value")
    w = check_float_blob(filter if filter is not None else filters, op, "filter")
    if x.ndim != 4 or w.ndim != 4:
        raise arg_error(op, "value/filter", "blobs of rank 4", Desc(f"value {x.shape}, filter {w.shape}"))
    return x, w


def conv2d_transpose(value: Blob | None = None, filter: Blob | None = None,
                     output_shape: Any = None, strides: Any = None, padding: str = "VALID", data_format: str = "NCHW",
                     name: str | None = None, input: Blob | None = None, filters: Blob | None = None,
                     dilations: Any = None) -> Blob:
    """``flow.nn.conv2d_transpose(value, filter, output_shape, strides, padding="VALID", data_format="NCHW")``
    (``input=``/``filters=`` are aliases). Filters are (in, out, kh, kw) for NCHW, (in, kh, kw, out) for NHWC.
    "SAME" crops the odd padding element at the end, as OneFlow's ``pad_grad`` did (``Conv2d_<n>/out_0``).
    ``output_shape``'s channel must be the filter's, as v0.3.1+ asserted (``nn_ops.py``); under
    ``FLOWTORCH_ONEFLOW_VERSION`` older than 0.3.1 it is ignored and the filter's channel wins, as OneFlow 0.2's
    ``conv2d_transpose`` took ``channels`` from the filter alone."""
    op = "nn.conv2d_transpose"
    x, w = _transpose_operands(op, value, filter, input, filters)
    first = _data_format(data_format, 2, op)
    if not isinstance(output_shape, (list, tuple)) or len(output_shape) != 4 or output_shape[0] != x.shape[0]:
        raise arg_error(op, "output_shape", f"4 ints starting with the batch size {x.shape[0]}", output_shape)
    stride = int_tuple(strides, 2, op, "strides")
    dilation = int_tuple(1 if dilations is None else dilations, 2, op, "dilations")
    in_spatial = tuple(x.shape[2:]) if first else tuple(x.shape[1:3])
    kernel = tuple(w.shape[2:]) if first else tuple(w.shape[1:3])
    channels = w.shape[1] if first else w.shape[3]
    out_channels = output_shape[1] if first else output_shape[3]
    in_ch = x.shape[1] if first else x.shape[3]
    if out_channels != channels and releases.before(releases.CONV_TRANSPOSE_CHECKS_CHANNELS):
        out_channels = channels  # OneFlow 0.2's nn_ops.py read the filter's channels and never output_shape's
    if w.shape[0] != in_ch or out_channels != channels:
        raise arg_error(op, "filter", f"shape ({in_ch}, {out_channels}, kh, kw) for NCHW / ({in_ch}, kh, kw, "
                        f"{out_channels}) for NHWC (input {x.shape}, output_shape {list(output_shape)})", w.shape)
    out_spatial = tuple(int(v) for v in (output_shape[2:] if first else output_shape[1:3]))
    mode = padding.upper() if isinstance(padding, str) else padding
    left = []
    for i in range(2):
        eff = (kernel[i] - 1) * dilation[i] + 1
        if mode == "VALID":
            ok = (out_spatial[i] + stride[i] - eff) // stride[i] == in_spatial[i]
            left.append(0)
        elif mode == "SAME":
            ok = (out_spatial[i] + stride[i] - 1) // stride[i] == in_spatial[i]
            left.append(max(0, (in_spatial[i] - 1) * stride[i] + eff - out_spatial[i]) // 2)
        else:
            raise arg_error(op, "padding", '"SAME" or "VALID"', padding)
        if not ok:
            raise arg_error(op, "output_shape", f"a size on axis {i} that a {mode} convolution with kernel "
                            f"{kernel[i]}, stride {stride[i]} maps back to {in_spatial[i]}", list(output_shape))
    return apply(conv_transpose_kernel, x, w, stride, dilation, tuple(left), out_spatial, not first,
                 op_type="deconv2d", prefix="Conv2d", name=name)  # (v0.1's prefix for OneFlow's deconv2d op)


def _two_counts(value: Any, op: str, arg: str) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(is_int(v) and v >= 0 for v in value):
        raise arg_error(op, arg, "a list/tuple of 2 ints >= 0", value)
    return int(value[0]), int(value[1])


def torch_conv2d_transpose(value: Blob | None = None, filter: Blob | None = None, output_padding: Any = None,
                           strides: Any = None, padding_needed: Any = None, data_format: str = "NCHW",
                           name: str | None = None, input: Blob | None = None, filters: Blob | None = None,
                           dilations: Any = None) -> Blob:
    """``flow.nn.torch_conv2d_transpose(value, filter, output_padding, strides, padding_needed, data_format="NCHW")``:
    a transposed convolution sized as PyTorch's ``conv_transpose2d`` (``ops/nn_ops.py``): ``padding_needed`` holds
    twice each axis's padding (even numbers), and the output is ``(in - 1) * stride - padding_needed + dilation *
    (kernel - 1) + 1 + output_padding`` (``Deconv2d_<n>/out_0``). Filters as in ``conv2d_transpose``."""
    op = "nn.torch_conv2d_transpose"
    x, w = _transpose_operands(op, value, filter, input, filters)
    first = _data_format(data_format, 2, op)
    stride = int_tuple(strides, 2, op, "strides")
    dilation = int_tuple(1 if dilations is None else dilations, 2, op, "dilations")
    if not first and dilation != (1, 1):
        raise arg_error(op, "dilations", "1 with data_format NHWC (as OneFlow asserts)", dilations)
    needed = _two_counts(padding_needed, op, "padding_needed")
    if any(p % 2 for p in needed):
        raise arg_error(op, "padding_needed", "even numbers >= 0 (twice each axis's padding)", padding_needed)
    extra = (0, 0) if output_padding is None else _two_counts(output_padding, op, "output_padding")
    in_spatial = tuple(x.shape[2:]) if first else tuple(x.shape[1:3])
    kernel = tuple(w.shape[2:]) if first else tuple(w.shape[1:3])
    in_ch = x.shape[1] if first else x.shape[3]
    if w.shape[0] != in_ch:
        raise arg_error(op, "filter", f"{in_ch} input channels on axis 0 (the value's channels)", w.shape)
    left = tuple(p // 2 for p in needed)
    out_spatial = tuple((in_spatial[i] - 1) * stride[i] - 2 * left[i] + dilation[i] * (kernel[i] - 1) + 1 + extra[i]
                        for i in range(2))
    if any(s <= 0 for s in out_spatial):
        raise arg_error(op, "padding_needed", f"a padding that leaves a positive output size (got {out_spatial})",
                        padding_needed)
    return apply(conv_transpose_kernel, x, w, stride, dilation, left, out_spatial, not first,
                 op_type="deconv2d", prefix="Deconv2d", name=name)
