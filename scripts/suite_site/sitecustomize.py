"""TensorFlow's missing CPU kernels, for the reference side of OneFlow's test suites (scripts/oneflow_suite.py
puts this folder on PYTHONPATH, so every suite process imports it at start-up).

OneFlow compared its ops with GPU TensorFlow. TensorFlow's CPU build lacks two kernels the suites' references
need: channels-first pooling (``MaxPoolGrad``/``AvgPool`` support only NHWC on the CPU) and dilated
``Conv2DBackpropInput``. When ``tensorflow`` is imported in a process without a GPU, the references are
computed by TensorFlow's own CPU kernels in an equivalent form instead: channels-first pooling as
transpose → channels-last pooling → transpose back, and a dilated 2-D convolution as an undilated one with the
filter dilated by zeros (every product of a zero tap is an exact 0.0, so the sums are the dilated ones).
Gradients flow through both forms. Only the reference changes; the tests, and what flowtorch computes, do not.
``FLOWTORCH_SUITE_TF_SHIMS=0`` turns this off.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import os
import sys
from types import ModuleType
from typing import Any

_POOLS = ("max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool",
          "avg_pool", "max_pool_v2", "avg_pool_v2")


def _channels_first_pool(tf: ModuleType, pool: Any) -> Any:
    @functools.wraps(pool)
    def wrapped(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None = None,
                name: str | None = None) -> Any:
        if not data_format or not data_format.startswith("NC"):
            return pool(input, ksize, strides, padding, data_format=data_format, name=name)
        rank = len(input.shape)
        last = data_format[0] + data_format[2:] + "C"  # NCHW -> NHWC, NCDHW -> NDHWC, NCW -> NWC
        to_last = [0, *range(2, rank), 1]
        to_first = [0, rank - 1, *range(1, rank - 1)]

        def spatial(v: Any) -> Any:  # a per-dimension list in channels-first order, moved to channels-last
            if isinstance(v, (list, tuple)) and len(v) == rank:
                return [v[i] for i in to_last]
            return v

        y = pool(tf.transpose(input, to_last), spatial(ksize), spatial(strides), padding, data_format=last,
                 name=name)
        return tf.transpose(y, to_first)

    return wrapped


def _dilate(tf: ModuleType, filters: Any, rate: int, axis: int) -> Any:
    """``filters`` with ``rate - 1`` zero taps between neighbours along ``axis`` (0: height, 1: width)."""
    if rate == 1:
        return filters
    k = filters.shape[axis]
    zeros = tf.zeros_like(filters)
    stacked = tf.stack([filters] + [zeros] * (rate - 1), axis=axis + 1)  # k, rate, ...
    shape = tf.concat([tf.shape(filters)[:axis], [k * rate], tf.shape(filters)[axis + 1:]], 0)
    spread = tf.reshape(stacked, shape)
    return tf.gather(spread, tf.range((k - 1) * rate + 1), axis=axis)


def _undilated_conv2d(tf: ModuleType, conv2d: Any) -> Any:
    @functools.wraps(conv2d)
    def wrapped(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NHWC",
                dilations: Any = None, name: str | None = None) -> Any:
        rates = [1, 1]
        if dilations is not None:
            d = [dilations] * 4 if isinstance(dilations, int) else list(dilations)
            if len(d) == 2:
                rates = d
            elif len(d) == 4:
                rates = [d[1], d[2]] if data_format == "NHWC" else [d[2], d[3]]
            else:
                rates = [d[0], d[0]]
        if rates == [1, 1]:
            return conv2d(input, filters, strides, padding, data_format=data_format, dilations=dilations, name=name)
        dilated = _dilate(tf, _dilate(tf, filters, int(rates[0]), 0), int(rates[1]), 1)
        return conv2d(input, dilated, strides, padding, data_format=data_format, dilations=1, name=name)

    return wrapped


def _patch(tf: ModuleType) -> None:
    if tf.config.list_physical_devices("GPU"):
        return
    nn = tf.nn
    for name in _POOLS:
        if hasattr(nn, name):
            setattr(nn, name, _channels_first_pool(tf, getattr(nn, name)))
    nn.conv2d = _undilated_conv2d(tf, nn.conv2d)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches ``tensorflow`` right after it is first imported."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "tensorflow":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        real_exec = loader.exec_module  # type: ignore[union-attr]

        def exec_module(module: ModuleType) -> None:
            real_exec(module)
            _patch(module)

        loader.exec_module = exec_module  # type: ignore[method-assign,union-attr]
        return spec


if os.environ.get("FLOWTORCH_SUITE_TF_SHIMS", "1") != "0" and "tensorflow" not in sys.modules:
    sys.meta_path.insert(0, _PatchOnImport())
