"""Objects whose form OneFlow changed after v0.1.2, usable both ways: ``flow.dtypes`` (a list, then a function),
``blob.parallel_conf.device_name`` (a repeated field, then a method), ``flow.placement.current_scope()`` (v0.1.2's
placement scope) and the error of a lazy-only API called outside a job (NotImplementedError, then RuntimeError)."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import NotInJobError
from flowtorch._src.placement import ParallelConf


def test_dtypes_is_a_list_and_a_function() -> None:
    numeric = [flow.char, flow.float32, flow.float64, flow.float16, flow.int8, flow.int32, flow.int64, flow.uint8]
    assert isinstance(flow.dtypes, list) and list(flow.dtypes) == numeric
    assert flow.float in flow.dtypes and flow.double in flow.dtypes and flow.tensor_buffer not in flow.dtypes
    every = flow.dtypes()
    assert type(every) is list and every[:8] == numeric and every[8:] == [flow.record, flow.tensor_buffer]
    every.append(flow.float)  # each call gives a new list
    assert len(flow.dtypes()) == 10


def test_parallel_conf_device_name_iterates_and_calls() -> None:
    seen = {}

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"):
            y = flow.math.relu(x)
        conf = y.parallel_conf
        seen["tag"] = conf.device_tag()
        seen["v012"] = list(conf.device_name)  # v0.1.2: a repeated field of "machine:tag:devices"
        seen["v034"] = conf.device_name()  # v0.2.0 on: a method of "machine:devices"
        seen["repr"] = repr(conf)
        return y

    np.testing.assert_array_equal(job(np.array([-1.0, 2.0], np.float32)), [0.0, 2.0])
    assert seen == {"tag": "cpu", "v012": ["0:cpu:0"], "v034": ["0:0"],
                    "repr": 'device_tag: "cpu"\ndevice_name: "0:0"'}


def test_placement_conf_of_several_devices() -> None:
    conf = flow.placement.current_scope().default_parallel_conf
    assert conf.device_tag() in ("cpu", "gpu")
    many = ParallelConf("gpu", ("0:0-3", "1:2"))
    assert list(many.device_name) == ["0:gpu:0-3", "1:gpu:2"] and many.device_name() == ["0:0-3", "1:2"]


def test_placement_current_scope_answers_as_v012() -> None:
    seen = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        with flow.scope.placement("cpu", ["0:0-3", "1:1"]):
            scope = flow.placement.current_scope()
            seen.extend([scope.default_device_tag, scope.parallel_size, scope.machine_id2device_id_list,
                         list(scope.default_parallel_conf.device_name), scope.is_physical_placement])
        return x

    job(np.ones(1, np.float32))
    assert seen == ["cpu", 5, {0: [0, 1, 2, 3], 1: [1]}, ["0:cpu:0-3", "1:cpu:1"], False]


def test_default_placement_scope_of_the_function_config() -> None:
    # the tag the session would not pick by itself, so the scope shows (CPU session: "gpu"; CUDA: "cpu")
    other = "cpu" if flow.placement.current_scope().default_device_tag == "gpu" else "gpu"
    tags = []
    config = flow.FunctionConfig()
    config.default_placement_scope(flow.fixed_placement(other, "0:0"))

    @flow.global_function(function_config=config)
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        tags.append(flow.placement.current_scope().default_device_tag)
        return x

    @flow.global_function(function_config=config)  # the same scope object, entered at each build
    def job2(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        tags.append(flow.placement.current_scope().default_device_tag)
        return x

    job(np.ones(1, np.float32))
    job2(np.ones(1, np.float32))
    assert tags == [other, other]
    assert flow.placement.current_scope().default_device_tag != other  # left once the body is built


def test_lazy_only_apis_outside_a_job_raise_both_error_types() -> None:
    with pytest.raises(NotImplementedError, match=r"flow.losses.add_loss can only be used inside a "
                                                  r"@flow.global_function body"):
        flow.losses.add_loss(None)
    with pytest.raises(RuntimeError, match="flow.nn.relu can only be used inside"):
        flow.nn.relu(np.ones(1))
    assert issubclass(NotInJobError, RuntimeError) and issubclass(NotInJobError, NotImplementedError)
