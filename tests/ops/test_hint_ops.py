"""Pass-through hint ops (amp_white_identity, hierarchical_parallel_cast, profiler.nvtx_*), scope attributes
(experimental.scope.config) and get_variable's parallel_distribution, on one device."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, run

import flowtorch as flow
import flowtorch.experimental
import flowtorch.profiler
from flowtorch._src import experimental_scope, initializers
from flowtorch._src.session import default_session

rng = np.random.default_rng(2)


def test_pass_through_ops_values_grads_and_names():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    check_op(lambda a: flow.amp_white_identity(a) * 2.0, lambda a: a * 2.0, x)
    check_op(lambda a: flow.hierarchical_parallel_cast(a, parallel_distribution=["S(0)", "B"], grad_mode="manual",
                                                       grad_parallel_distribution=["S(0)", "B"]),
             lambda a: a, x)
    check_op(lambda a: flow.profiler.nvtx_end(flow.profiler.nvtx_start(a, mark_prefix="layer"), "layer"),
             lambda a: a, x)
    seen = []

    def body(a):
        seen.append(flow.amp_white_identity(a))
        seen.append(flow.hierarchical_parallel_cast(seen[-1], ["B"]))
        seen.append(flow.profiler.nvtx_start(seen[-1], mark_prefix="p"))
        seen.append(flow.profiler.nvtx_end(seen[-1], mark_prefix="p", name="done"))
        return seen[-1]
    n = next_id()
    np.testing.assert_array_equal(make_job(body, [x])(x), x)
    assert lbns(seen) == [f"AmpWhiteIdentity_{n + 1}/out_0", f"HierarchicalParallelCast_{n + 2}/out_0",
                          f"NvtxStart_{n + 3}/out_0", "done/out_0"]


def test_pass_through_op_argument_checks():
    x = np.zeros((2,), np.float32)
    with expect_error(ValueError, match="grad_mode' must be None or one of 'restore', 'identity', 'manual'"):
        run(lambda a: flow.hierarchical_parallel_cast(a, ["B"], grad_mode="auto"), x)
    with expect_error(ValueError, match="parallel_distribution' must be a list of"):
        run(lambda a: flow.hierarchical_parallel_cast(a, ["X(0)"]), x)
    with expect_error(ValueError, match="mark_prefix' must be a str"):
        run(lambda a: flow.profiler.nvtx_start(a, mark_prefix=3), x)
    with expect_error(TypeError, match="must be a blob"):
        run(lambda a: flow.amp_white_identity(np.zeros(2)), x)


def test_scope_config_accepts_oneflow_attributes_and_nests():
    assert experimental_scope.current_attrs()["checkpointing"] is False
    x = np.ones((2,), np.float32)
    inside = []

    def body(a):
        with flow.experimental.scope.config(checkpointing=True):
            with flow.experimental.scope.config(pipeline_stage_id_hint=1):
                inside.append(experimental_scope.current_attrs())
                y = flow.math.relu(a)
        return y
    np.testing.assert_array_equal(make_job(body, [x])(x), x)
    assert inside[0]["checkpointing"] is True and inside[0]["pipeline_stage_id_hint"] == 1
    assert experimental_scope.current_attrs() == experimental_scope.ATTR_DEFAULTS
    with pytest.raises(AssertionError, match="unknown scope attribute 'no_such_attr'"):
        with flow.experimental.scope.config(no_such_attr=1):
            pass
    with pytest.raises(TypeError, match="checkpointing takes a bool"):
        with flow.experimental.scope.config(checkpointing=1):
            pass


def test_get_variable_records_parallel_distribution():
    x = np.ones((2,), np.float32)

    def body(a):
        ones = initializers.ones_initializer()
        w = flow.get_variable("w", shape=(2,), initializer=ones, parallel_distribution=["B", "S(0)"])
        v = flow.get_variable("v", (2,), flow.float32, ones, None, True, None, None, flow.distribute.split(0))
        u = flow.get_variable("u", shape=(2,), initializer=ones, parallel_distribution="S(0),B")
        t = flow.get_variable("t", shape=(2,), initializer=ones, distribute=flow.distribute.broadcast())
        return a + w + v + u + t
    np.testing.assert_array_equal(make_job(body, [x])(x), x * 5)
    store = default_session().variables
    assert store["w"].parallel_distribution == ("B", "S(0)")
    assert store["v"].parallel_distribution == ("S(0)",)  # v0.3's positional distribute
    assert store["u"].parallel_distribution == ("S(0)", "B")
    assert store["t"].parallel_distribution == ("B",)
    flow.clear_default_session()
    with expect_error(ValueError, match="give parallel_distribution or distribute, not both"):
        run(lambda a: a + flow.get_variable("w", shape=(2,), initializer=initializers.ones_initializer(),
                                            parallel_distribution=["B"], distribute=flow.distribute.broadcast()), x)
    with expect_error(ValueError, match="get_variable: argument 'parallel_distribution'"):
        run(lambda a: a + flow.get_variable("w", shape=(2,), initializer=initializers.ones_initializer(),
                                            parallel_distribution=[1]), x)
