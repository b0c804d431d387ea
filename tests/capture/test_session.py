"""Session lifecycle, flow.config flags and function_config options (spec §2, §5)."""

from __future__ import annotations

import logging
import re

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_clear_default_session_drops_jobs_and_old_jobs_refuse_calls() -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x

    job(np.ones(1, np.float32))
    flow.clear_default_session()
    with pytest.raises(AssertionError, match=r"job 'job'.*clear_default_session"):
        job(np.ones(1, np.float32))


def test_config_flags_only_before_start(caplog: pytest.LogCaptureFixture) -> None:
    from flowtorch._src.session import default_session

    assert flow.config.gpu_device_num(1) is True
    assert flow.config.enable_legacy_model_io(True) is True

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        return x

    job(np.ones(1, np.float32))
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert flow.config.enable_legacy_model_io(False) is False
    assert [r.getMessage() for r in caplog.records] == ["Nothing happened because the session is running"]
    assert default_session().config["enable_legacy_model_io"] is True
    flow.clear_default_session()
    assert default_session().config["enable_legacy_model_io"] is False


def test_config_flag_type_errors() -> None:
    with pytest.raises(TypeError, match="gpu_device_num: expected int"):
        flow.config.gpu_device_num("1")
    assert flow.config.cpu_thread_num(2) is True  # runtime-tuning flags are accepted


@pytest.mark.parametrize(("setter", "value", "error", "message"), [
    ("gpu_device_num", -1, ValueError, r"flow.config.gpu_device_num: expected an int >= 0; received -1"),
    ("cpu_device_num", 0, ValueError, r"flow.config.cpu_device_num: expected an int >= 1; received 0"),
    ("machine_num", 0, ValueError, r"flow.config.machine_num: expected an int >= 1; received 0"),
    ("machine_num", True, TypeError, r"flow.config.machine_num: expected int; received bool True"),
])
def test_config_counts_out_of_range_are_refused_and_nothing_is_recorded(setter, value, error, message) -> None:
    from flowtorch._src.session import default_session

    before = dict(default_session().config)
    with pytest.raises(error, match=f"^{message}$"):
        getattr(flow.config, setter)(value)
    assert default_session().config == before
    assert flow.config.gpu_device_num(0) is True  # OneFlow's CPU-only value stays valid


@pytest.mark.parametrize(("option", "value", "expected"), [
    ("default_logical_view", "banana", "flow.scope.consistent_view() or flow.scope.mirrored_view(); received str"),
    ("default_distribute_strategy", "mirrored",
     "flow.distribute.consistent_strategy() or flow.distribute.mirrored_strategy(); received str 'mirrored'"),
    ("default_placement_scope", 42, "flow.scope.placement(device_tag, ids); received int 42"),
])
def test_function_config_refuses_values_of_the_wrong_kind(option: str, value: object, expected: str) -> None:
    cfg = flow.function_config()
    with pytest.raises(AssertionError, match=re.escape(f"function_config.{option} takes {expected}")):
        getattr(cfg, option)(value)
    assert not cfg.is_set(option)
    cfg.default_logical_view(flow.scope.mirrored_view())
    cfg.default_distribute_strategy(flow.distribute.consistent_strategy())
    cfg.default_placement_scope(flow.scope.placement("cpu", "0:0"))
    assert cfg.function_desc.default_logical_view == flow.scope.mirrored_view()


def test_function_config_options_are_recorded_and_copied_at_decoration() -> None:
    cfg = flow.function_config()
    cfg.enable_inplace()
    cfg.train.primary_lr(0.1)
    cfg.default_logical_view(flow.scope.consistent_view())
    assert cfg.function_desc.enable_inplace is True
    assert cfg.function_desc.use_xla_jit is False
    seen = {}

    @flow.global_function(function_config=cfg)
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        seen["desc"] = flow.current_global_function_desc().enable_inplace
        seen["trainable"] = flow.current_global_function_desc().IsTrainable()
        return x

    cfg.enable_inplace(False)  # later edits don't reach the decorated job
    job(np.ones(1, np.float32))
    assert seen == {"desc": True, "trainable": False}


def test_unknown_function_config_option_and_bad_values() -> None:
    cfg = flow.function_config()
    with pytest.raises(AssertionError, match="no option 'enable_magic'"):
        cfg.enable_magic(True)
    with pytest.raises(AssertionError, match="takes a bool"):
        cfg.enable_inplace(3)
    with pytest.raises(AssertionError, match="train.primary_lr takes a number"):
        cfg.train.primary_lr("fast")


def test_positional_function_config_is_accepted_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    cfg = flow.FunctionConfig()
    cfg.default_data_type(flow.float)

    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        @flow.global_function(cfg)
        def job(x=flow.FixedTensorDef((2,))):
            return x

    assert any("flow.global_function(func_config) is deprecated" in r.getMessage() for r in caplog.records)
    np.testing.assert_array_equal(job(np.ones(2, np.float32)).get().numpy(), [1, 1])


def test_sync_default_session_is_a_barrier_after_none_jobs() -> None:
    seen: list[np.ndarray] = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,))) -> None:
        flow.watch(x * 2.0, lambda b: seen.append(b.numpy()))

    for i in range(5):
        job(np.full(3, i, np.float32))
    flow.sync_default_session()
    assert [s[0] for s in seen] == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_scope_placement_and_current_scope() -> None:
    tags = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        with flow.scope.placement("cpu", "0:0"):
            tags.append(flow.current_scope().device_parallel_desc_symbol.device_tag)
            y = x + 1.0
        return y

    np.testing.assert_array_equal(job(np.ones(1, np.float32)), [2.0])
    assert tags == ["cpu"]
    with pytest.raises(ValueError, match="device_tag"):
        with flow.scope.placement("tpu", "0:0"):
            pass
    with pytest.raises(ValueError, match="bad device id"):
        with flow.scope.placement("cpu", "zero"):
            pass


def test_name_scope_prefixes_op_names() -> None:
    names = []

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
        with flow.scope.namespace("backbone"):
            with flow.name_scope("branch"):
                y = flow.nn.relu(x, name="act")
        names.append(y.logical_blob_name)
        return y

    job(np.ones(1, np.float32))
    assert names == ["backbone-branch-act/out_0"]


def test_ops_outside_a_job_body_are_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="flow.nn.relu can only be used inside a @flow.global_function body"):
        flow.nn.relu(np.ones(1))


def test_unittest_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert flow.unittest.env.device_num() == 1
    monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", "2")
    assert flow.unittest.env.device_num() == 2
    skip = flow.unittest.skip_unless_1n1d()
    assert getattr(skip(lambda: None), "__unittest_skip__", False) is True
    assert issubclass(flow.unittest.TestCase, __import__("unittest").TestCase)
