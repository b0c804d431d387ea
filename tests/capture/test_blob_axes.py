"""``blob.batch_axis`` and ``blob.split_axis`` as OneFlow inferred them while a job was built: inputs say
theirs, variables and constants have none, and each op's rule (``ops/batch_axes.py``) gives its outputs'
(the default: the first input that has one); the split axis is where the blob's parts lie over the job's
devices (every blob split along axis 0 on one device; the consistent view's plan on several)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.dist import collectives
from flowtorch._src.step import distributed


def _build(job: Callable[..., Any], *shapes: tuple[int, ...], dtypes: tuple[Any, ...] = ()) -> None:
    """Call ``job`` once with zeros, which builds it (its body runs once)."""
    arrays = [np.zeros(s, dtype=dtypes[i] if i < len(dtypes) else np.float32) for i, s in enumerate(shapes)]
    job(*arrays)


def _zeros_var(name: str, shape: tuple[int, ...], **kwargs: Any) -> Any:
    return flow.get_variable(name, shape=shape, initializer=flow.zeros_initializer(), **kwargs)


# --- inputs, variables, constants ----------------------------------------------------------------------
def test_inputs_have_the_batch_axis_they_declare_and_none_when_told_so() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((4, 6)), b: tp.Numpy.Placeholder((4, 6), batch_axis=1),
            c: tp.Numpy.Placeholder((4, 6), batch_axis=-1), d: tp.Numpy.Placeholder((4, 6), batch_axis=None)) -> None:
        seen.update(a=a.batch_axis, b=b.batch_axis, c=c.batch_axis, d=d.batch_axis)

    _build(job, (4, 6), (4, 6), (4, 6), (4, 6))
    assert seen == {"a": 0, "b": 1, "c": 1, "d": None}  # a negative axis counts from the end


def test_a_v01_fixed_tensor_def_without_batch_axis_has_none_equal_to_the_invalid_constant() -> None:
    seen: list[Any] = []

    @flow.global_function()
    def job(x=flow.FixedTensorDef((2, 5), batch_axis=None)) -> None:
        seen.append(x.batch_axis)

    _build(job, (2, 5))
    assert seen == [None] and seen[0] == flow.INVALID_BATCH_AXIS


def test_variables_constants_and_ranges_have_no_batch_axis() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> None:
        seen["variable"] = _zeros_var("w", (6, 3)).batch_axis
        seen["constant"] = flow.constant(1.0, shape=(4,)).batch_axis
        seen["range"] = flow.range(5).batch_axis
        seen["zeros_like"] = flow.zeros_like(x).batch_axis  # constant_like follows its like

    _build(job, (4, 6))
    assert seen == {"variable": None, "constant": None, "range": None, "zeros_like": 0}


# --- the default: the first input that has one ---------------------------------------------------------
def test_by_default_an_op_takes_the_first_input_batch_axis_that_has_a_value() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6)), y: tp.Numpy.Placeholder((4, 6), batch_axis=1)) -> None:
        w = _zeros_var("w", (4, 6))
        seen["relu"] = flow.nn.relu(y).batch_axis
        seen["var_first"] = (w + x).batch_axis  # the variable has none: x's
        seen["x_first"] = (x * y).batch_axis  # both have one: the first's
        seen["concat"] = flow.concat([w, y], axis=0).batch_axis
        seen["reshape"] = flow.reshape(x, (2, 12)).batch_axis  # OneFlow keeps the axis number
        seen["reshape_lost"] = flow.reshape(y, (24,)).batch_axis  # ... which a rank-1 blob does not have

    _build(job, (4, 6), (4, 6))
    assert seen == {"relu": 1, "var_first": 0, "x_first": 0, "concat": 1, "reshape": 0, "reshape_lost": None}


# --- reductions ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", [flow.math.reduce_sum, flow.math.reduce_max, flow.math.reduce_min,
                                    flow.math.reduce_prod, flow.math.reduce_mean, flow.math.reduce_std,
                                    flow.math.reduce_variance, flow.math.reduce_logsumexp,
                                    flow.math.reduce_euclidean_norm])
def test_a_reduction_over_the_batch_axis_loses_it_and_over_another_or_with_keepdims_keeps_it(reduce) -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> None:
        seen["all"] = reduce(x).batch_axis
        seen["batch"] = reduce(x, axis=0).batch_axis
        seen["other"] = reduce(x, axis=1).batch_axis
        seen["keepdims"] = reduce(x, axis=0, keepdims=True).batch_axis

    _build(job, (4, 6))
    assert seen == {"all": None, "batch": None, "other": 0, "keepdims": 0}


def test_reduce_any_and_all_follow_the_reduce_rule() -> None:
    seen: list[Any] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((10,), dtype=flow.int8)) -> None:
        seen.extend([flow.math.reduce_any(x).batch_axis, flow.math.reduce_all(x).batch_axis,
                     flow.math.reduce_any(x, keepdims=True).batch_axis])

    _build(job, (10,), dtypes=(np.int8,))
    assert seen == [None, None, 0]


# --- ops with their own rules --------------------------------------------------------------------------
def test_matmul_keeps_a_rows_batch_axis_or_b_columns_and_batch_matmul_a_then_b() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6)), xt: tp.Numpy.Placeholder((6, 4), batch_axis=1),
            cols: tp.Numpy.Placeholder((6, 4), batch_axis=1), b3: tp.Numpy.Placeholder((2, 6, 3))) -> None:
        w = _zeros_var("w", (6, 3))
        v = _zeros_var("v", (3, 6))
        seen["rows"] = flow.matmul(x, w).batch_axis
        seen["transposed_rows"] = flow.matmul(xt, w, transpose_a=True).batch_axis
        seen["b_columns"] = flow.matmul(v, cols).batch_axis
        seen["contracted"] = flow.matmul(cols, v, transpose_a=True, transpose_b=True).batch_axis  # a's rows: 4
        seen["a_columns"] = flow.matmul(flow.transpose(x, [1, 0]), _zeros_var("u", (4, 2))).batch_axis
        seen["batched"] = flow.matmul(_zeros_var("a3", (2, 4, 6)), b3).batch_axis

    _build(job, (4, 6), (6, 4), (6, 4), (2, 6, 3))
    assert seen == {"rows": 0, "transposed_rows": 0, "b_columns": 1, "contracted": 0, "a_columns": None,
                    "batched": 0}


def test_transpose_moves_the_batch_axis_by_perm_unless_told_not_to() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6)), y: tp.Numpy.Placeholder((4, 5, 6))) -> None:
        seen["swap"] = flow.transpose(x, [1, 0]).batch_axis
        seen["non_change"] = flow.transpose(x, [1, 0], batch_axis_non_change=True).batch_axis
        seen["perm_of_axis"] = flow.transpose(y, [2, 0, 1]).batch_axis  # OneFlow's formula: perm[batch_axis]

    _build(job, (4, 6), (4, 5, 6))
    assert seen == {"swap": 1, "non_change": 0, "perm_of_axis": 2}


def test_squeeze_expand_dims_and_flatten_move_or_drop_the_batch_axis() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 1, 6), batch_axis=2), y: tp.Numpy.Placeholder((1, 6)),
            z: tp.Numpy.Placeholder((4, 2, 3), batch_axis=2)) -> None:
        seen["squeeze_before"] = flow.squeeze(x, axis=[1]).batch_axis
        seen["squeeze_it"] = flow.squeeze(y, axis=[0]).batch_axis
        seen["expand_before"] = flow.expand_dims(x, 0).batch_axis
        seen["expand_after"] = flow.expand_dims(x, 3).batch_axis
        seen["flatten_inside"] = flow.flatten(z, start_dim=1).batch_axis
        seen["flatten_after"] = flow.flatten(z, start_dim=0, end_dim=1).batch_axis

    _build(job, (4, 1, 6), (1, 6), (4, 2, 3))
    assert seen == {"squeeze_before": 1, "squeeze_it": None, "expand_before": 3, "expand_after": 2,
                    "flatten_inside": 1, "flatten_after": 1}


def test_gather_takes_the_indices_batch_axis_past_the_gather_axis() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(ids: tp.Numpy.Placeholder((4,), dtype=flow.int32), x: tp.Numpy.Placeholder((4, 6))) -> None:
        seen["rows"] = flow.gather(_zeros_var("table", (10, 3)), ids).batch_axis
        seen["columns"] = flow.gather(_zeros_var("cols", (3, 10)), ids, axis=1).batch_axis
        seen["params_only"] = flow.gather(x, flow.constant(0, shape=(2,), dtype=flow.int32)).batch_axis

    _build(job, (4,), (4, 6), dtypes=(np.int32,))
    assert seen == {"rows": 0, "columns": 1, "params_only": None}


def test_argmax_loses_a_batch_axis_that_is_the_last_and_like_ops_follow_their_like() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6)), y: tp.Numpy.Placeholder((4, 6), batch_axis=1),
            like: tp.Numpy.Placeholder((6, 4), batch_axis=1)) -> None:
        seen["argmax"] = flow.math.argmax(x).batch_axis
        seen["argmax_last"] = flow.math.argmax(y).batch_axis
        seen["reshape_like"] = flow.reshape_like(x, like).batch_axis
        row = flow.constant(1.0, shape=(4,))
        seen["broadcast_like"] = flow.broadcast_like(row, like, broadcast_axes=[0]).batch_axis

    _build(job, (4, 6), (4, 6), (6, 4))
    assert seen == {"argmax": 0, "argmax_last": None, "reshape_like": 1, "broadcast_like": 1}


def test_the_softmax_cross_entropy_loss_takes_the_labels_batch_axis() -> None:
    seen: list[Any] = []

    @flow.global_function()
    def job(labels: tp.Numpy.Placeholder((4,), dtype=flow.int32),
            logits: tp.Numpy.Placeholder((4, 5), batch_axis=None)) -> None:
        seen.append(flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits).batch_axis)

    _build(job, (4,), (4, 5), dtypes=(np.int32,))
    assert seen == [0]


def test_eager_blobs_have_the_same_batch_axes() -> None:
    flow.enable_eager_execution(True)
    seen: list[Any] = []
    try:
        @flow.global_function()
        def job(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
            total = flow.math.reduce_sum(x)
            rows = flow.math.reduce_sum(x, axis=1)
            seen.extend([x.batch_axis, total.batch_axis, rows.batch_axis])
            return rows

        _build(job, (4, 6))
    finally:
        flow.enable_eager_execution(False)
    assert seen == [0, None, 0]


# --- split axes ----------------------------------------------------------------------------------------
def test_the_invalid_axis_constants_are_none_as_blobs_report_them() -> None:
    import flowtorch.oneflow_api as oneflow_api

    assert flow.INVALID_BATCH_AXIS is None and flow.INVALID_SPLIT_AXIS is None
    assert oneflow_api.INVALID_BATCH_AXIS is None and oneflow_api.INVALID_SPLIT_AXIS is None


def test_on_one_device_every_blob_is_split_along_axis_0() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> None:
        seen.update(x=x.split_axis, total=flow.math.reduce_sum(x).split_axis,
                    variable=_zeros_var("w", (6, 3)).split_axis)

    _build(job, (4, 6))
    assert seen == {"x": 0, "total": 0, "variable": 0}


def test_on_the_devices_the_program_asked_for_blobs_lie_where_the_consistent_plan_puts_them() -> None:
    flow.config.gpu_device_num(2)  # one process here: the blobs report the plan for two devices
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6)), whole: tp.Numpy.Placeholder((4, 6), batch_axis=None)) -> None:
        w = _zeros_var("w", (6, 4), distribute=flow.distribute.split(1))
        seen["x"] = x.split_axis
        seen["whole"] = whole.split_axis
        seen["total"] = flow.math.reduce_sum(x).split_axis  # a sum over the split axis: whole on every device
        seen["rows"] = flow.math.reduce_sum(x, axis=1).split_axis
        seen["moved"] = flow.transpose(x, [1, 0]).split_axis
        seen["variable"] = _zeros_var("v", (6, 3)).split_axis
        seen["split_variable"] = w.split_axis
        seen["columns"] = flow.matmul(whole, w).split_axis

    _build(job, (4, 6), (4, 6))
    assert seen == {"x": 0, "whole": None, "total": None, "rows": 0, "moved": 1, "variable": None,
                    "split_variable": 1, "columns": 1}


def test_the_devices_are_the_processes_under_the_launcher_else_the_ones_asked_for(monkeypatch) -> None:
    assert distributed.asked_devices({"gpu_device_num": 4, "cpu_device_num": 1, "machine_num": 2}) == 8
    assert distributed.asked_devices({"gpu_device_num": 0, "cpu_device_num": 3, "machine_num": 1}) == 3
    monkeypatch.setattr(collectives, "world_size", lambda: 2)
    assert distributed.asked_devices({"gpu_device_num": 4, "cpu_device_num": 1, "machine_num": 1}) == 2


def test_a_mirrored_blob_is_its_device_part_split_along_axis_0() -> None:
    flow.config.gpu_device_num(2)
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    seen: list[Any] = []

    @flow.global_function(function_config=config)
    def job(x: tp.Numpy.Placeholder((4, 6))) -> None:
        seen.extend([x.split_axis, flow.math.reduce_sum(x).split_axis])

    _build(job, (4, 6))
    assert seen == [0, 0]
