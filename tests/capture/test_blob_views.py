"""The placement properties of a lazy blob, as OneFlow's job-build inference reported them, in the consistent and
the mirrored view: ``split_axis``, ``parallel_conf``/``parallel_size``, ``disable_boxing``, ``distribute`` (and
``with_distribute``), ``batch_axis``, ``is_dynamic``, ``is_tensor_list``.

The expected values follow OneFlow's rules (docs/releases.md, "Blob properties across releases and views"): on
one device every op is placed split(0); a consistent input on N devices is split along its batch axis (v0.1–v0.3)
or axis 0 (v0.4.0); a mirrored blob is its device's part, split(0), and never boxed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import placement


def _build(job: Callable[..., Any], *arrays: Any) -> Any:
    return job(*arrays)


def _var(name: str, shape: tuple[int, ...], **kwargs: Any) -> Any:
    return flow.get_variable(name, shape=shape, initializer=flow.zeros_initializer(), **kwargs)


def _mirrored() -> Any:
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


def _views(blob: Any) -> dict[str, Any]:
    return {"split": blob.split_axis, "devices": blob.parallel_conf.device_name(), "size": blob.parallel_size,
            "no_boxing": blob.disable_boxing, "distribute": blob.distribute.sbp}


# --- one device --------------------------------------------------------------------------------------------------
def test_on_one_device_every_blob_is_split_along_axis_0_on_device_0_and_boxed() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> None:
        w = _var("w", (6, 3))
        seen["input"] = _views(x)
        seen["variable"] = _views(w)
        seen["elementwise"] = _views(flow.math.relu(x))
        seen["matmul"] = _views(flow.matmul(x, w))
        seen["reduce"] = _views(flow.math.reduce_sum(x, axis=1))

    _build(job, np.zeros((4, 6), np.float32))
    one_device = {"split": 0, "devices": ["0:0"], "size": 1, "no_boxing": False, "distribute": None}
    assert seen == dict.fromkeys(("input", "variable", "elementwise", "matmul", "reduce"), one_device)


# --- the consistent view on several devices ------------------------------------------------------------------
def test_the_asked_devices_are_every_blob_s_placement_and_a_scope_s_own_devices_win() -> None:
    flow.config.gpu_device_num(4)
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((8, 6))) -> None:
        seen["whole_job"] = (x.parallel_conf.device_name(), x.parallel_size)
        with flow.scope.placement("cpu", "0:0-1"):
            y = flow.math.relu(x)
        seen["scoped"] = (y.parallel_conf.device_name(), y.parallel_size, y.parallel_conf.device_tag())
        with flow.scope.placement("cpu", "0:3"):
            z = flow.math.relu(x)
        seen["one_device"] = (z.parallel_conf.device_name(), z.parallel_size, z.split_axis)

    _build(job, np.zeros((8, 6), np.float32))
    assert seen == {"whole_job": (["0:0-3"], 4), "scoped": (["0:0-1"], 2, "cpu"), "one_device": (["0:3"], 1, 0)}


def test_several_machines_name_their_devices_one_entry_each() -> None:
    flow.config.machine_num(2)
    flow.config.gpu_device_num(2)
    seen: list[Any] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((8, 2))) -> None:
        seen.extend([x.parallel_conf.device_name(), x.parallel_size])

    _build(job, np.zeros((8, 2), np.float32))
    assert seen == [["0:0-1", "1:0-1"], 4]


def test_consistent_inputs_are_split_along_their_batch_axis_even_unevenly() -> None:
    flow.config.gpu_device_num(4)
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(even: tp.Numpy.Placeholder((8, 3)), uneven: tp.Numpy.Placeholder((6, 3)),
            columns: tp.Numpy.Placeholder((2, 8), batch_axis=1), short: tp.Numpy.Placeholder((2, 3)),
            whole: tp.Numpy.Placeholder((8, 3), batch_axis=None)) -> None:
        seen.update(even=even.split_axis, uneven=uneven.split_axis, columns=columns.split_axis,
                    short=short.split_axis, whole=whole.split_axis)

    _build(job, *(np.zeros(s, np.float32) for s in ((8, 3), (6, 3), (2, 8), (2, 3), (8, 3))))
    # 6 rows over 4 devices: OneFlow's BalancedSplitter gave 2, 2, 1, 1; 2 rows cannot be split over 4 devices
    assert seen == {"even": 0, "uneven": 0, "columns": 1, "short": None, "whole": None}


def test_under_oneflow_0_4_every_consistent_input_is_split_along_axis_0(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWTORCH_ONEFLOW_VERSION", "0.4.0")
    flow.config.gpu_device_num(2)
    seen: list[Any] = []

    @flow.global_function()
    def job(whole: tp.Numpy.Placeholder((4, 3), batch_axis=None)) -> None:
        seen.append(whole.split_axis)

    _build(job, np.zeros((4, 3), np.float32))
    assert seen == [0]


def test_ops_outputs_follow_the_split_of_their_inputs_on_two_devices() -> None:
    flow.config.gpu_device_num(2)
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6)), whole: tp.Numpy.Placeholder((4, 6), batch_axis=None)) -> None:
        w = _var("w", (6, 3))
        columns = _var("c", (6, 4), distribute=flow.distribute.split(1))
        seen["elementwise"] = (x * 2.0 + 1.0).split_axis
        seen["matmul"] = flow.matmul(x, w).split_axis
        seen["tensor_parallel"] = flow.matmul(whole, columns).split_axis
        seen["reduce_other_axis"] = flow.math.reduce_mean(x, axis=1).split_axis
        seen["reduce_split_axis"] = flow.math.reduce_sum(x, axis=0).split_axis
        seen["cast_to_broadcast"] = flow.parallel_cast(x, distribute=flow.distribute.broadcast()).split_axis
        seen["cast_to_split_1"] = flow.parallel_cast(whole, distribute=flow.distribute.split(1)).split_axis
        seen["variable"] = w.split_axis

    _build(job, np.zeros((4, 6), np.float32), np.zeros((4, 6), np.float32))
    assert seen == {"elementwise": 0, "matmul": 0, "tensor_parallel": 1, "reduce_other_axis": 0,
                    "reduce_split_axis": None, "cast_to_broadcast": None, "cast_to_split_1": 1, "variable": None}


def test_distribute_ops_report_their_ops_placements() -> None:
    flow.config.gpu_device_num(2)
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 6))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0-1"):
            parts = flow.advanced.distribute_split(x, axis=1)
            joined = flow.advanced.distribute_concat(parts, axis=1)
            summed = flow.advanced.distribute_add(flow.advanced.distribute_clone(x))
        seen.update(parts=[p.split_axis for p in parts], joined=joined.split_axis, summed=summed.split_axis)
        seen["devices"] = [b.parallel_conf.device_name() for b in (*parts, joined)]
        return joined

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(_build(job, x), x)
    # split: part i whole on device i (broadcast); concat: the parts are the split; add: partial sums
    assert seen == {"parts": [None, None], "joined": 1, "summed": None,
                    "devices": [["0:0"], ["0:1"], ["0:0-1"]]}


def test_device_ids_expand_to_one_per_device() -> None:
    assert placement.expand_ids(("0:0-2", "1:1", "3")) == ["0:0", "0:1", "0:2", "1:1", "0:3"]
    with pytest.raises(ValueError, match="machine:device"):
        placement.expand_ids(("0:a",))


def test_ops_on_a_consistent_job_s_per_device_input_are_mirrored_parts() -> None:
    flow.config.gpu_device_num(2)
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.ListNumpy.Placeholder((4, 6))) -> None:
        seen["input"] = x.split_axis
        seen["relu"] = flow.math.relu(x).split_axis
        seen["total"] = flow.math.reduce_sum(x).split_axis  # each device's own sum: a mirrored op's part
        seen["variable"] = _var("w", (6, 2)).split_axis  # no mirrored input: consistent, whole

    _build(job, [np.zeros((4, 6), np.float32)])
    assert seen == {"input": 0, "relu": 0, "total": 0, "variable": None}


# --- the mirrored view -------------------------------------------------------------------------------------------
def test_a_mirrored_blob_is_its_device_part_never_boxed_on_the_whole_placement() -> None:
    flow.config.gpu_device_num(2)
    seen: dict[str, Any] = {}

    @flow.global_function(function_config=_mirrored())
    def job(x: tp.Numpy.Placeholder((4, 6))) -> None:
        seen["input"] = _views(x)
        seen["reduced"] = _views(flow.math.reduce_sum(x))
        seen["variable"] = _views(_var("w", (6, 2)))

    _build(job, np.zeros((4, 6), np.float32))
    part = {"split": 0, "devices": ["0:0-1"], "size": 2, "no_boxing": True, "distribute": None}
    assert seen == dict.fromkeys(("input", "reduced", "variable"), part)


def test_dynamic_and_tensor_list_inputs_say_so_and_pass_it_on_in_both_views() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function(function_config=_mirrored())
    def mirrored(x: tp.ListNumpy.Placeholder((4, 3)), y: tp.ListListNumpy.Placeholder((4,))) -> None:
        seen["mirrored"] = [(b.is_dynamic, b.is_tensor_list, b.batch_axis)
                            for b in (x, flow.math.relu(x), y, flow.identity(y))]

    @flow.global_function()
    def consistent(x: tp.Numpy.Placeholder((4, 3))) -> None:
        seen["consistent"] = [(b.is_dynamic, b.is_tensor_list, b.batch_axis) for b in (x, flow.math.relu(x))]

    _build(mirrored, [np.zeros((2, 3), np.float32)], [[np.zeros((1,), np.float32), np.zeros((3,), np.float32)]])
    _build(consistent, np.zeros((4, 3), np.float32))
    # OneFlow's MirroredTensorDef and MirroredTensorListDef were dynamic, the list one a tensor list too
    assert seen == {"mirrored": [(True, False, 0), (True, False, 0), (True, True, 0), (True, True, 0)],
                    "consistent": [(False, False, 0), (False, False, 0)]}


# --- with_distribute ---------------------------------------------------------------------------------------------
def test_with_distribute_gives_a_blob_of_the_same_lbn_that_carries_the_hint() -> None:
    seen: dict[str, Any] = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        split = x.with_distribute(flow.distribute.split(0))
        whole = x.with_broadcast_distribute()
        seen["names"] = (x.unique_name, split.unique_name, whole.unique_name)
        seen["lbns"] = {x.logical_blob_name, split.logical_blob_name, whole.logical_blob_name}
        seen["hints"] = (x.distribute.sbp, split.distribute.sbp, whole.distribute.sbp)
        seen["new_objects"] = split is not x and whole is not x
        seen["same_again"] = x.with_distribute(flow.distribute.auto()) is x
        return flow.math.relu(split) + whole

    x = np.array([[-1, 2, -3], [4, -5, 6], [0, 1, -1], [2, -2, 3]], np.float32)
    np.testing.assert_array_equal(_build(job, x), np.maximum(x, 0) + x)
    lbn = seen["lbns"].pop()
    assert not seen["lbns"] and lbn.startswith("Input_") and lbn.endswith("/out")
    assert seen["names"] == (lbn, lbn + ":S0", lbn + ":B")
    assert seen["hints"] == (None, "S(0)", "B")
    assert seen["new_objects"] and seen["same_again"]
