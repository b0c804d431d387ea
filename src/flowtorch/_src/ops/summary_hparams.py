"""``flow.summary``'s host-side records (OneFlow v0.3.4 ``python/summary/summary_hparams.py``): ``text`` and
``hparams`` build a TensorBoard ``Summary`` message, which a job writes with ``flow.summary.pb`` (fed as the int8
bytes of ``str(summary)``, its text format, as OneFlow's programs fed it). ``Hparam`` (also ``HParam``, its class
name), ``IntegerRange``, ``RealRange``, ``ValueSet`` and ``Metric`` describe the keys of ``hparams``' dict.

The messages are TensorBoard's own (``tensorboard.compat.proto``, the text and hparams plugins' metadata), so
TensorBoard shows them. Where OneFlow's records were its own: a metric's value, which OneFlow kept in a field of
the session-start record that only its own viewer read, is written as a scalar of the metric's name, which is
where TensorBoard's hparams dashboard reads metrics; a bool hyperparameter is written as a bool (OneFlow's check
for numbers came first, so it wrote 1.0 or 0.0).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from flowtorch._src.ops.summary_ops import tensorboard

__all__ = ["HParam", "IntegerRange", "Metric", "RealRange", "ValueSet", "hparams", "text"]


def text(text: list[str] | tuple[str, ...], tag: str | None = None) -> Any:
    """``flow.summary.text(["a", "b"], tag="text")``: a ``Summary`` holding the strings as one text record
    (TensorBoard's text plugin; OneFlow's tag is ``"text"`` unless ``tag`` is a str)."""
    if not isinstance(text, (list, tuple)) or not text or not all(isinstance(t, str) for t in text):
        raise TypeError(f"flow.summary.text: text must be a non-empty list or tuple of str; received {text!r}")
    summary_pb2 = tensorboard("tensorboard.compat.proto.summary_pb2", "flow.summary.text")
    tensor_pb2 = tensorboard("tensorboard.compat.proto.tensor_pb2", "flow.summary.text")
    shape_pb2 = tensorboard("tensorboard.compat.proto.tensor_shape_pb2", "flow.summary.text")
    types_pb2 = tensorboard("tensorboard.compat.proto.types_pb2", "flow.summary.text")
    text_metadata = tensorboard("tensorboard.plugins.text.metadata", "flow.summary.text")
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        tensor_shape=shape_pb2.TensorShapeProto(dim=[shape_pb2.TensorShapeProto.Dim(size=len(text))]),
        string_val=[t.encode("utf-8") for t in text])
    summary = summary_pb2.Summary()
    summary.value.add(tag=tag if isinstance(tag, str) else "text",
                      metadata=text_metadata.create_summary_metadata(display_name="", description=""),
                      tensor=tensor)
    return summary


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def hparams(hparams: Mapping[Any, Any]) -> Any:
    """``flow.summary.hparams({Hparam("lr", RealRange(1e-3, 1e-1)): 0.01, "dropout": 0.5, Metric("loss"): 0.3})``:
    a ``Summary`` with TensorBoard's session-start record of the hyperparameters (keys: ``Hparam`` or str;
    values: str, bool, int or float) and one scalar per ``Metric`` key (int or float)."""
    if not isinstance(hparams, Mapping):
        raise TypeError(f"flow.summary.hparams: hparams must be a dict; received {type(hparams).__name__} {hparams!r}")
    params: dict[str, Any] = {}
    metrics: dict[str, float] = {}
    for key, raw in hparams.items():
        name = key.name if isinstance(key, (HParam, Metric)) else key
        if not isinstance(name, str):
            raise TypeError(f"flow.summary.hparams: a key must be a str, an Hparam or a Metric; received {key!r}")
        if name in params or name in metrics:
            raise ValueError(f"flow.summary.hparams: the name {name!r} appears twice")
        value = _plain(raw)
        if isinstance(key, Metric):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"flow.summary.hparams: metric {name!r} must be an int or float; received {raw!r}")
            metrics[name] = float(value)
        elif isinstance(value, (str, bool, int, float)):
            params[name] = value
        else:
            raise TypeError(f"flow.summary.hparams: hyperparameter {name!r} must be a str, bool, int or float; "
                            f"received {raw!r}")
    summary_pb2 = tensorboard("tensorboard.compat.proto.summary_pb2", "flow.summary.hparams")
    plugin_data_pb2 = tensorboard("tensorboard.plugins.hparams.plugin_data_pb2", "flow.summary.hparams")
    metadata = tensorboard("tensorboard.plugins.hparams.metadata", "flow.summary.hparams")
    # OneFlow's group name: the hash of the hyperparameters' sorted, compact JSON
    group = hashlib.sha256(json.dumps(params, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
    start = plugin_data_pb2.SessionStartInfo(group_name=group, start_time_secs=time.time())
    for name in sorted(params):
        value = params[name]
        if isinstance(value, str):
            start.hparams[name].string_value = value
        elif isinstance(value, bool):
            start.hparams[name].bool_value = value
        else:
            start.hparams[name].number_value = value
    summary = summary_pb2.Summary()
    summary.value.add(tag=metadata.SESSION_START_INFO_TAG, tensor=metadata.NULL_TENSOR,
                      metadata=metadata.create_summary_metadata(
                          plugin_data_pb2.HParamsPluginData(session_start_info=start)))
    for name, value in metrics.items():
        summary.value.add(tag=name, simple_value=value)
    return summary


class IntegerRange:
    """``flow.summary.IntegerRange(min_value, max_value)``: the ints of a hyperparameter, both ends included."""

    def __init__(self, min_value: int, max_value: int) -> None:
        for arg, v in (("max_value", max_value), ("min_value", min_value)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"flow.summary.IntegerRange: {arg} must be an int; received {v!r}")
        if min_value > max_value:
            raise ValueError(f"flow.summary.IntegerRange: min_value {min_value!r} is above max_value {max_value!r}")
        self._min, self._max = min_value, max_value

    @property
    def min_value(self) -> int:
        return self._min

    @property
    def max_value(self) -> int:
        return self._max

    def __repr__(self) -> str:
        return f"IntegerRange({self._min!r}, {self._max!r})"


class RealRange:
    """``flow.summary.RealRange(min_value, max_value)``: the floats of a hyperparameter, both ends included."""

    def __init__(self, min_value: float, max_value: float) -> None:
        for arg, v in (("max_value", max_value), ("min_value", min_value)):
            if not isinstance(v, float):
                raise TypeError(f"flow.summary.RealRange: {arg} must be a float; received {v!r}")
        if min_value > max_value:
            raise ValueError(f"flow.summary.RealRange: min_value {min_value!r} is above max_value {max_value!r}")
        self._min, self._max = min_value, max_value

    @property
    def min_value(self) -> float:
        return self._min

    @property
    def max_value(self) -> float:
        return self._max

    def __repr__(self) -> str:
        return f"RealRange({self._min!r}, {self._max!r})"


class ValueSet:
    """``flow.summary.ValueSet(values, dtype=None)``: the values (all of ``dtype``: int, float, bool or str;
    by default the first value's type) a hyperparameter takes, kept sorted."""

    def __init__(self, values: Iterable[Any], dtype: type | None = None) -> None:
        items = list(values)
        if dtype is None and items:
            dtype = type(items[0])
        if dtype not in (int, float, bool, str):
            raise ValueError(f"flow.summary.ValueSet: dtype must be int, float, bool or str; received {dtype!r}")
        for v in items:
            if not isinstance(v, dtype):
                raise TypeError(f"flow.summary.ValueSet: every value must be a {dtype.__name__}; received {v!r}")
        self._dtype: type = dtype
        self._values = sorted(items)

    @property
    def dtype(self) -> type:
        return self._dtype

    @property
    def values(self) -> list[Any]:
        return list(self._values)

    def __repr__(self) -> str:
        return f"ValueSet({self._values!r}, dtype={self._dtype.__name__})"


class HParam:
    """``flow.summary.Hparam(name, dtype=None)``: a hyperparameter's name and its domain (an ``IntegerRange``,
    ``RealRange`` or ``ValueSet``), as a key of ``flow.summary.hparams``' dict."""

    def __init__(self, name: str, dtype: IntegerRange | RealRange | ValueSet | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"flow.summary.Hparam: name must be a non-empty str; received {name!r}")
        if not isinstance(dtype, (IntegerRange, RealRange, ValueSet, type(None))):
            raise ValueError(f"flow.summary.Hparam: dtype must be an IntegerRange, RealRange or ValueSet; "
                             f"received {dtype!r}")
        self._name, self._dtype = name, dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> IntegerRange | RealRange | ValueSet | None:
        return self._dtype

    def __repr__(self) -> str:
        return f"Hparam({self._name!r}, {self._dtype!r})"


class Metric:
    """``flow.summary.Metric(name, dtype=float)``: a metric (int or float) as a key of ``flow.summary.hparams``'
    dict; its value is written as the scalar ``name``."""

    def __init__(self, name: str, dtype: type | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"flow.summary.Metric: name must be a non-empty str; received {name!r}")
        dtype = float if dtype is None else dtype
        if dtype not in (int, float):
            raise ValueError(f"flow.summary.Metric: dtype must be int or float; received {dtype!r}")
        self._name, self._dtype = name, dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> type:
        return self._dtype

    def __repr__(self) -> str:
        return f"Metric({self._name!r}, {self._dtype.__name__})"
