"""Identities that only mattered to OneFlow's scheduler or its multi-device placement: ``flow.identity_n``
(``ops/array_ops.py``, user op ``tuple_identity``) and ``flow.parallel_cast`` (``framework/ops.py``, user op
``parallel_cast``). On flowtorch's one device both pass their inputs on unchanged, forward and backward.
``flow.sleep_identity`` (v0.1.2, ``ops/identity.py``) passes its input on after a pause.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch

from flowtorch._src import releases
from flowtorch._src.capture.blob import Blob
from flowtorch._src.ops import array_ops
from flowtorch._src.ops._checks import arg_error, check_blobs, is_number
from flowtorch._src.ops._record import apply, check_blob
from flowtorch._src.placement import Distribute


def tuple_identity_kernel(inputs: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(t.view_as(t) if isinstance(t, torch.Tensor) else array_ops.tensor_list_identity_kernel(t)
                 for t in inputs)


def identity_n(inputs: Sequence[Blob], name: str | None = None) -> list[Blob]:
    """``flow.identity_n(inputs, name=None)``: one identity per input, as a list
    (``IdentityN_<n>/out_<i>``). As v0.1.2's ``tuple_identity`` (a system op), it passes tensor lists on."""
    blobs = check_blobs(inputs, "identity_n", "inputs")
    if len(blobs) < 2 and releases.before(releases.IDENTITY_N_TAKES_ONE):
        raise arg_error("identity_n", "inputs", f"at least 2 blobs under {releases.describe()} ({releases.ENV}): "
                        "v0.1.0-v0.2.0's array_ops.py asserted len(inputs) > 1", f"{len(blobs)} blob")
    outputs = tuple(f"out_{i}" for i in range(len(blobs)))
    dynamic = [b.is_dynamic for b in blobs]  # each output is its input (tuple_identity_op.cpp)
    if any(b.is_tensor_list for b in blobs):
        out = apply(tuple_identity_kernel, blobs, op_type="tuple_identity", prefix="IdentityN", name=name,
                    outputs=outputs, meta=tuple(b.meta for b in blobs), dynamic=dynamic,
                    tensor_lists=tuple(b.is_tensor_list for b in blobs))
    else:
        out = apply(tuple_identity_kernel, blobs, op_type="tuple_identity", prefix="IdentityN", name=name,
                    outputs=outputs, dynamic=dynamic)
    return list(out) if isinstance(out, tuple) else [out]


def _sbp_string(dist: Any, arg: str) -> str:
    """OneFlow's ``distribute_to_str``: None → "", split(k) → "S(k)", broadcast() → "B"."""
    if dist is None:
        return ""
    if isinstance(dist, Distribute) and dist.sbp is not None:
        return dist.sbp
    raise arg_error("parallel_cast", arg, "None, flow.distribute.split(axis) or flow.distribute.broadcast() "
                    "(unsupported distribute)", dist)


def parallel_cast_kernel(x: torch.Tensor, sbp: str, grad_sbp: str) -> torch.Tensor:
    return x.view_as(x)


def parallel_cast(input: Blob, name: str | None = None, distribute: Any = None,
                  gradient_distribute: Any = None) -> Blob:
    """``flow.parallel_cast(input, name=None, distribute=None, gradient_distribute=None)``: fixes the blob's
    (and its gradient's) distribution across devices in OneFlow; on one device an identity
    (``ParallelCast_<n>/out_0``). The distributions are checked as OneFlow did and otherwise recorded."""
    x = check_blob(input, "parallel_cast", "input")
    sbp = _sbp_string(distribute, "distribute")
    grad_sbp = _sbp_string(gradient_distribute, "gradient_distribute")
    return apply(parallel_cast_kernel, x, sbp, grad_sbp, op_type="parallel_cast", prefix="ParallelCast", name=name)


def cast_to_current_logical_view(x: Blob) -> Blob:
    """``flow.cast_to_current_logical_view(x)``: OneFlow inserts an identity when ``x`` was made in the other
    (mirrored/consistent) view (``advanced/distribute_ops.py``); on one device both views hold the same
    values, so ``x`` is returned as it is."""
    return check_blob(x, "cast_to_current_logical_view", "x")


def sleep_kernel(x: torch.Tensor, seconds: float) -> torch.Tensor:
    time.sleep(seconds)
    return x.view_as(x)


def sleep_identity(x: Blob, seconds: float, name: str | None = None) -> Blob:
    """``flow.sleep_identity(x, seconds, name=None)`` (v0.1.2; ``Sleep_<n>/out``): ``x`` unchanged, after the
    host sleeps ``seconds`` each time the step runs the op (a test aid for slow ops; v0.1.2's Python built a
    ``sleep_conf`` that its op set did not have). In a replayed CUDA graph the host pause is not repeated."""
    x = check_blob(x, "sleep_identity", "x")
    if not is_number(seconds) or seconds < 0:
        raise arg_error("sleep_identity", "seconds", "a number >= 0", seconds)
    return apply(sleep_kernel, x, float(seconds), op_type="sleep", prefix="Sleep", name=name, outputs=("out",))
