"""Ops that change variables or keep state from step to step (OneFlow v0.3.4):

* ``flow.assign(ref, value)`` (``ops/assign_op.py``, user op ``assign``): copies ``value`` into the variable
  ``ref`` when the step runs; returns nothing.
  ``flow.experimental.eager_assign_121(ref, value)`` is the same in eager mode and returns ``ref``.
* ``flow.experimental.ssp_variable_proxy(var, buffer_size=1)`` → ``(ref, value)``
  (``experimental/ssp_variable_proxy_op.py``): ``ref`` is the variable itself (to assign to or update),
  ``value`` a stale copy of it. OneFlow's proxy hands out the variable through a ring of ``buffer_size``
  registers, so the value read in step t is the variable as it was at the start of step t − buffer_size + 1
  (the initial value in the first steps). Its gradient goes to the variable unchanged.
* ``function_config.enable_ssp(True)`` in a train job: OneFlow's ``AddSspVariableProxy`` pass
  (``core/job_rewriter/add_ssp_variable_proxy.cpp``) reads every trainable variable through such a proxy,
  with ``buffer_size = ssp_num_stages - ssp_stage_id`` from the variable's
  ``flow.experimental.scope.config``; the forward pass sees the stale value and the optimizer updates the
  variable (:func:`ssp_read`, called by ``get_variable``).
* ``flow.categorical_ordinal_encode(table, size, input_tensor)`` and ``flow.layers.categorical_ordinal_encoder``
  (``ops/categorical_ordinal_encode_op.py``): a hash table kept in two variables that gives each new key
  (a precomputed hash, int32/int64) the next ordinal 1, 2, …, in order of first appearance; key 0 always
  encodes to 0. ``table`` holds (key, ordinal) pairs placed by linear probing from ``key mod capacity`` (the
  key read as unsigned 64-bit), as OneFlow's CPU kernel (``categorical_ordinal_encode_kernel_util.cpp``)
  places them; ``size`` counts the keys.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import torch

from flowtorch._src import errors, experimental_scope
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import JobBuilder
from flowtorch._src.modes import eager_execution_enabled
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_int
from flowtorch._src.ops._record import apply
from flowtorch._src.runtime import graph_capture

_INDEX_DTYPES = (torch.int32, torch.int64)


def _check_variable(x: Any, op: str, arg: str) -> Blob:
    x = check_blob(x, op, arg)
    if not x.is_variable:
        raise arg_error(op, arg, "a variable blob (from flow.get_variable, or the ref of "
                        "flow.experimental.ssp_variable_proxy)", Desc(f"{x.lbn}, made by an op"))
    return x


def _host_state(op: str) -> None:
    """A kernel whose state lives on the host cannot be replayed from a CUDA graph or a compiled graph:
    refusing makes the step run eagerly (see ``step/graphed.py`` and ``step/compile.py``)."""
    if graph_capture.capturing() or torch.compiler.is_compiling():
        raise errors.CaptureError(f"flow.{op} keeps state on the host from step to step")


# --- assign ---------------------------------------------------------------------------------------------
def assign_kernel(ref: torch.Tensor, value: torch.Tensor) -> None:
    with torch.no_grad():
        ref.copy_(value)


torch.fx.node.has_side_effect(assign_kernel)


def assign(ref: Blob, value: Blob, dtype: Any = None, name: str | None = None) -> None:
    """``flow.assign(ref, value)``: the variable ``ref`` takes ``value`` (same shape and dtype) when the job
    runs (``Assign_<n>``; no output)."""
    ref = _check_variable(ref, "assign", "ref")
    value = check_blob(value, "assign", "value")
    if value.shape != ref.shape or value.meta.dtype != ref.meta.dtype:
        raise arg_error("assign", "value", f"a blob of ref's shape {ref.shape} and dtype {ref.dtype}",
                        Desc(f"{value.lbn} {value.shape} {value.dtype}"))
    apply(assign_kernel, ref, value, op_type="assign", prefix="Assign", name=name, outputs=(), meta=())


def eager_assign_121(ref: Blob, value: Blob) -> Blob:
    """``flow.experimental.eager_assign_121(ref, value)``: eager mode's assign (OneFlow copied each device's
    part to the same device); returns ``ref``."""
    if not eager_execution_enabled():
        raise AssertionError("flow.experimental.eager_assign_121 needs eager execution (flow.enable_eager_execution())")
    assign(ref, value)
    return ref


# --- ssp_variable_proxy ----------------------------------------------------------------------------------
def _make_ssp_value_kernel(buffer_size: int) -> Any:
    ring: collections.deque[torch.Tensor] = collections.deque(maxlen=buffer_size)

    def ssp_variable_value(var: torch.Tensor) -> torch.Tensor:
        _host_state("experimental.ssp_variable_proxy")
        now = var.detach().clone()
        if not ring:
            ring.extend([now] * buffer_size)
        else:
            ring.append(now)
        stale = ring[0]
        # the stale numbers, with the variable's gradient path
        return stale + (var - var.detach()) if var.requires_grad else stale.clone()
    return ssp_variable_value


def ssp_variable_proxy(var: Blob, buffer_size: int = 1, name: str | None = None) -> tuple[Blob, Blob]:
    """``flow.experimental.ssp_variable_proxy(var, buffer_size=1)`` → ``(ref, value)``: ``ref`` is ``var``;
    ``value`` (``SspVariableProxy_<n>/value_0``) is ``var`` as it was ``buffer_size - 1`` steps before."""
    var = _check_variable(var, "experimental.ssp_variable_proxy", "var")
    n = check_int(buffer_size, "experimental.ssp_variable_proxy", "buffer_size")
    value = apply(_make_ssp_value_kernel(n), var, op_type="ssp_variable_proxy", prefix="SspVariableProxy", name=name,
                  outputs=("value_0",), meta=torch.empty(var.shape, dtype=var.meta.dtype, device="meta"))
    return var, value


def ssp_read(builder: JobBuilder, var: Blob) -> Blob:
    """The value a train job with ``enable_ssp`` reads for the trainable variable ``var``: one proxy per
    variable and job (``<var>_ssp_variable_proxy/value_0``)."""
    proxies = builder.ssp_proxies
    if var.op_name in proxies:
        return proxies[var.op_name]
    attrs = experimental_scope.current_attrs()
    stages, stage = attrs["ssp_num_stages"], attrs["ssp_stage_id"]
    if not (isinstance(stages, int) and isinstance(stage, int) and 0 <= stage < stages):
        raise ValueError(f"job {builder.job_name!r} enables ssp, so variable {var.op_name!r} must be created inside "
                         "flow.experimental.scope.config(ssp_num_stages=k, ssp_stage_id=i) with 0 <= i < k; "
                         f"here ssp_num_stages={stages}, ssp_stage_id={stage}")
    value = apply(_make_ssp_value_kernel(stages - stage), var, op_type="ssp_variable_proxy",
                  op_name=f"{var.op_name}_ssp_variable_proxy", outputs=("value_0",),
                  meta=torch.empty(var.shape, dtype=var.meta.dtype, device="meta"))
    proxies[var.op_name] = value
    return value


# --- categorical ordinal encoding ----------------------------------------------------------------------
def _probe_existing(keys: np.ndarray, vals: np.ndarray, uniq: np.ndarray, home: np.ndarray,
                    out: np.ndarray) -> np.ndarray:
    """Look the unique non-zero keys up (all at once); their ordinals go to ``out``. Returns the positions
    in ``uniq`` of the keys not in the table."""
    cap = keys.shape[0]
    pending = np.nonzero(uniq != 0)[0]
    pos = home[pending]
    missing = []
    for _ in range(cap):
        if pending.size == 0:
            break
        k = keys[pos]
        hit = k == uniq[pending]
        out[pending[hit]] = vals[pos[hit]]
        empty = k == 0
        missing.append(pending[empty])
        rest = ~(hit | empty)
        pending, pos = pending[rest], (pos[rest] + 1) % cap
    if pending.size:
        raise RuntimeError(f"flow.categorical_ordinal_encode: the table of capacity {cap} is full")
    return np.concatenate(missing) if missing else np.zeros(0, np.int64)


def categorical_ordinal_encode_kernel(table: torch.Tensor, size: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    _host_state("categorical_ordinal_encode")
    on_host = table.device.type == "cpu"
    t = table.detach().numpy() if on_host else table.detach().cpu().numpy()
    s = size.detach().numpy() if on_host else size.detach().cpu().numpy()
    keys, vals = t[0::2], t[1::2]
    cap = keys.shape[0]
    h = x.detach().reshape(-1).cpu().numpy()
    uniq, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    # OneFlow's kernel casts the key to size_t: a negative key wraps to 2**64 + key
    home = (uniq.astype(np.uint64) % np.uint64(cap)).astype(np.int64)
    out = np.zeros(uniq.shape, dtype=t.dtype)
    missing = _probe_existing(keys, vals, uniq, home, out)
    count = int(s[0])
    for j in missing[np.argsort(first[missing], kind="stable")].tolist():  # new keys in order of appearance
        key, p = uniq[j], int(home[j])
        for _ in range(cap):
            if keys[p] == 0:
                count += 1
                keys[p], vals[p], out[j] = key, count, count
                break
            p = (p + 1) % cap
        else:
            raise RuntimeError(f"flow.categorical_ordinal_encode: the table of capacity {cap} is full")
    s[0] = count
    if not on_host:
        with torch.no_grad():
            table.copy_(torch.from_numpy(t))
            size.copy_(torch.from_numpy(s))
    return torch.from_numpy(out[inverse].reshape(tuple(x.shape))).to(x.device)


torch.fx.node.has_side_effect(categorical_ordinal_encode_kernel)


def categorical_ordinal_encode(table: Blob, size: Blob, input_tensor: Blob, hash_precomputed: bool = True,
                               name: str | None = None) -> Blob:
    """``flow.categorical_ordinal_encode(table, size, input_tensor)``: each key's ordinal from the hash
    table in the variables ``table`` (shape (2·capacity,)) and ``size`` (shape (1,)), both of the input's
    dtype (``CategoricalOrdinalEncode_<n>/out_0``)."""
    op = "categorical_ordinal_encode"
    if hash_precomputed is not True:
        raise arg_error(op, "hash_precomputed", "True (OneFlow supports precomputed hashes only)", hash_precomputed)
    x = check_blob(input_tensor, op, "input_tensor")
    if x.meta.dtype not in _INDEX_DTYPES:
        raise arg_error(op, "input_tensor", "an int32 or int64 blob", Desc(f"{x.lbn} of dtype {x.dtype}"))
    table = _check_variable(table, op, "table")
    size = _check_variable(size, op, "size")
    if table.meta.dtype != x.meta.dtype or table.ndim != 1 or table.shape[0] % 2 or table.shape[0] == 0:
        raise arg_error(op, "table", f"a variable of shape (2·capacity,) and dtype {x.dtype}",
                        Desc(f"{table.lbn} {table.shape} {table.dtype}"))
    if size.meta.dtype != x.meta.dtype or size.shape != (1,):
        raise arg_error(op, "size", f"a variable of shape (1,) and dtype {x.dtype}",
                        Desc(f"{size.lbn} {size.shape} {size.dtype}"))
    return apply(categorical_ordinal_encode_kernel, table, size, x, op_type="CategoricalOrdinalEncode", name=name,
                 meta=torch.empty(x.shape, dtype=x.meta.dtype, device="meta"))
