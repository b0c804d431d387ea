"""Names of OneFlow's master before v0.1.0 (late 2019) that are another flowtorch name under an old spelling: each
behaves as the name it became."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_late_2019_cluster_settings_of_flow_config_are_flow_env_s() -> None:
    for name in ("machine", "ctrl_port", "data_port", "log_dir", "logtostderr", "logbuflevel"):
        assert getattr(flow.config, name) == getattr(flow.env, name), name


def test_late_2019_input_defs_and_strategies() -> None:
    assert isinstance(flow.input_blob_def((2, 3)), flow.FixedTensorDef)
    assert isinstance(flow.consistent_input_def((2,)), flow.FixedTensorDef)
    assert isinstance(flow.mirror_input_def((2,)), flow.MirroredTensorDef)
    assert flow.distribute.mirror_strategy is flow.distribute.mirrored_strategy
    flow.clear_default_session()

    @flow.function()
    def square(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        assert not flow.distribute.mirror_strategy_enabled()
        return flow.math.square(x)
    np.testing.assert_array_equal(square(np.array([1.0, -2.0, 3.0], np.float32)), [1.0, 4.0, 9.0])


def test_run_if_this_is_main_runs_nothing_from_an_imported_module() -> None:
    assert __name__ != "__main__"
    flow.unittest.run_if_this_is_main()  # returns: the caller is this test module, not the program


def test_env_disable_setting_freezes_later_env_settings() -> None:
    import flowtorch._src.flags as flags

    try:
        flow.env.disable_setting()
        with pytest.raises(AssertionError, match="disable_setting"):
            flow.env.ctrl_port(12345)
    finally:
        flags._env_frozen = False  # (process-wide in OneFlow too: undone so that later tests may set env)
