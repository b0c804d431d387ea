"""flow.user_op_builder over the op registry: names, output order, attrs, gradients, errors; the module
builders with flow.nn.Module / find_or_create_module; OneFlow's test ops and the ops without a wrapper
(split_like, square sums, dynamic_loss_scale_schedule) against numpy references written from v0.3.4's
op definitions."""

import logging
import warnings

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, randn_from, run, zero_var

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import errors, initializers
from flowtorch._src.ops import array_ops, math_ops, op_registry, unary_ops

rng = np.random.default_rng(5)


randn = randn_from(rng)


def build(name, op_type, inputs=(), outputs=(("out", 1),), attrs=()):
    b = flow.user_op_builder(name).Op(op_type)
    for arg, blobs in inputs:
        b = b.Input(arg, blobs)
    for arg, n in outputs:
        b = b.Output(arg, n)
    for key, value in attrs:
        b = b.Attr(key, value)
    return b.Build().InferAndTryRun()


# --- the registry ----------------------------------------------------------------------------------------
def test_registry_entries_use_the_kernels_of_the_flow_ops():
    assert op_registry.lookup("exp").kernel is unary_ops.exp.kernel
    assert op_registry.lookup("sigmoid").kernel is unary_ops.sigmoid.kernel
    assert op_registry.lookup("matmul").kernel is array_ops.matmul_kernel
    assert op_registry.lookup("add_n").kernel is math_ops.add_n_kernel
    names = op_registry.registered_names()
    for op_type in ("relu", "tanh", "reshape", "split_like", "square_sum", "multi_square_sum", "ccrelu",
                    "dynamic_loss_scale_schedule", "TestMultiInput", "cpu_only_relu_test"):
        assert op_type in names
    od = op_registry.lookup("exp")
    assert [a.name for a in od.inputs] == ["x"] and [a.name for a in od.outputs] == ["y"]


def test_unary_ops_by_type_name_match_numpy():
    x = randn(3, 4)
    for op_type, ref in (("exp", np.exp), ("tanh", np.tanh), ("square", np.square), ("abs", np.abs),
                         ("sigmoid_v2", lambda a: 1 / (1 + np.exp(-a)))):
        check_op(lambda a, t=op_type: build("u", t, [("x", [a])], [("y", 1)]).SoleOutputBlob(), ref, x, grad=False)


# --- values, names, gradients ----------------------------------------------------------------------------
def test_relu_values_name_and_gradient():
    x = randn(4, 5)
    seen = []

    def body(a):
        y = build("my_relu", "relu", [("in", [a])]).SoleOutputBlob()
        seen.append(y)
        return y
    check_op(body, lambda a: np.maximum(a, 0), x)
    assert lbns(seen[-1:]) == ["my_relu/out_0"] and seen[-1].shape == (4, 5)


def test_names_follow_the_namespace():
    seen = []

    def body(a):
        with flow.scope.namespace("ns"):
            seen.append(build("r", "relu", [("in", [a])]).SoleOutputBlob())
        return seen[0]
    run(body, randn(2))
    assert lbns(seen) == ["ns-r/out_0"]


def test_matmul_attrs_and_both_gradients():
    a, b = randn(3, 4), randn(5, 4)
    check_op(lambda x, y: build("mm", "matmul", [("a", [x]), ("b", [y])], attrs=[("transpose_b", True)])
             .SoleOutputBlob(), lambda x, y: x @ y.T, a, b)


def test_repeated_inputs_add_n_and_concat():
    xs = [randn(2, 3) for _ in range(3)]
    out = run(lambda *bs: build("s", "add_n", [("in", list(bs))]).SoleOutputBlob(), *xs)
    np.testing.assert_allclose(out, xs[0] + xs[1] + xs[2], rtol=1e-6)
    out = run(lambda *bs: build("c", "concat", [("in", list(bs))], attrs=[("axis", 1), ("max_dim_size", 9)])
              .SoleOutputBlob(), *xs)
    np.testing.assert_array_equal(out, np.concatenate(xs, axis=1))


def test_cast_reshape_and_transpose_attrs():
    x = randn(2, 3)
    out = run(lambda a: build("c", "cast", [("in", [a])], attrs=[("dtype", flow.int32)]).SoleOutputBlob(), x)
    assert out.dtype == np.int32
    out = run(lambda a: build("r", "reshape", [("in", [a])], attrs=[("shape", (3, 2))]).SoleOutputBlob(), x)
    np.testing.assert_array_equal(out, x.reshape(3, 2))
    out = run(lambda a: build("t", "transpose", [("input", [a])], [("output", 1)], [("perm", [1, 0])])
              .SoleOutputBlob(), x)
    np.testing.assert_array_equal(out, x.T)


def test_remote_blob_list_follows_the_output_calls():
    x = randn(2, 3)
    got = {}

    def body(a):
        op = (flow.user_op_builder("two").Op("TestMultiOutputOrder").Input("in", [a]).Output("out2").Output("out1")
              .Build().InferAndTryRun())
        got["list"], got["dict"] = op.RemoteBlobList(), op.RemoteBlobDict()
        return got["list"][1]
    out = run(body, x)
    np.testing.assert_array_equal(out, x)
    assert lbns(got["list"]) == ["two/out2_0", "two/out1_0"]
    assert got["list"][0].shape == (2, 6)
    assert list(got["dict"]) == ["out2", "out1"]


def test_legacy_attr_type_name_warns_and_is_ignored(caplog):
    x = randn(4)

    def body(a):
        b = flow.user_op_builder("r").Op("reshape").Input("in", [a]).Output("out").Attr("shape", [2, 2],
                                                                                         "AttrTypeShape")
        return b.Build().InferAndTryRun().SoleOutputBlob()
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        np.testing.assert_array_equal(run(body, x), x.reshape(2, 2))
    [record] = [r for r in caplog.records if "attr_type_name" in r.getMessage()]
    assert record.pathname == __file__  # the caller's line


def test_attr_before_op_is_checked_at_build():
    x = randn(4)
    out = run(lambda a: flow.user_op_builder("r").Attr("shape", [4, 1]).Input("in", [a]).Output("out").Op("reshape")
              .Build().InferAndTryRun().SoleOutputBlob(), x)
    assert out.shape == (4, 1)
    with expect_error(TypeError, "attr 'shape' of op type 'reshape'"):
        run(lambda a: flow.user_op_builder("r").Attr("shape", 4).Op("reshape"), x)


# --- errors ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, exc, match", [
    (lambda a: flow.user_op_builder("e").Op("rellu"), errors.UnknownOpError, "unknown op type 'rellu'.*'relu'"),
    (lambda a: flow.user_op_builder("e").Op("relu").Output("out").Build(), ValueError, "needs input 'in'"),
    (lambda a: flow.user_op_builder("e").Op("relu").Input("x", [a]), ValueError, "has no input 'x'; its inputs: 'in'"),
    (lambda a: flow.user_op_builder("e").Op("relu").Input("in", a), ValueError, "takes a list of blobs"),
    (lambda a: flow.user_op_builder("e").Op("relu").Input("in", [a]).Build(), ValueError, "output.*'out'.*not set"),
    (lambda a: flow.user_op_builder("e").Op("relu").Output("y"), ValueError, "has no output 'y'"),
    (lambda a: flow.user_op_builder("e").Op("add_n").Input("in", [a]), ValueError, "at least 2 blob"),
    (lambda a: flow.user_op_builder("e").Op("TestListDataTypeAndListShapeAndListStringAttr").Output("out", 2),
     ValueError, "exactly 3 blob"),
    (lambda a: flow.user_op_builder("e").Op("reshape").Attr("shap", [4]), ValueError, "has no attr 'shap'"),
    (lambda a: flow.user_op_builder("e").Op("reshape").Attr("shape", [4.0]), TypeError, "must be a shape"),
    (lambda a: flow.user_op_builder("e").Op("matmul").Attr("transpose_a", 1), TypeError, "must be a bool"),
    (lambda a: flow.user_op_builder("e").Op("TestRandomSource").Attr("seed", 0.5), TypeError, "must be an int64"),
    (lambda a: flow.user_op_builder("e").Op("test_user_op_attr_auto_type").Attr("int1", 2 ** 31), TypeError,
     "int32"),
    (lambda a: flow.user_op_builder("e").Op("TestDataTypeAttr").Attr("output_type", np.float32), TypeError,
     "OneFlow dtype"),
    (lambda a: flow.user_op_builder("e").Op("reshape").Input("in", [a]).Output("out").Build(), ValueError,
     "attr 'shape'.*has no default"),
    (lambda a: flow.user_op_builder("e").Attr("shape", [4], "AttrTypeShapes"), ValueError, "unknown attr type name"),
    (lambda a: flow.user_op_builder("e").Input("in", [a]).Output("out").Build(), ValueError, r"call \.Op"),
    (lambda a: flow.user_op_builder("").Op("relu"), ValueError, "non-empty str"),
    (lambda a: flow.user_op_module_builder("relu").Op("relu"), ValueError, "op type is fixed"),
])
def test_builder_errors_name_the_op_and_argument(make, exc, match):
    with expect_error(exc, match):
        run(make, randn(4))


def test_run_twice_outputs_before_run_and_duplicate_names_fail():
    def twice(a):
        op = flow.user_op_builder("r").Op("relu").Input("in", [a]).Output("out").Build()
        op.InferAndTryRun()
        op.InferAndTryRun()
    with expect_error(RuntimeError, "already called"):
        run(twice, randn(2))
    with expect_error(RuntimeError, "call InferAndTryRun"):
        run(lambda a: flow.user_op_builder("r").Op("relu").Input("in", [a]).Output("out").Build().RemoteBlobList(),
            randn(2))

    def dup(a):
        build("same", "relu", [("in", [a])])
        return build("same", "relu", [("in", [a])]).SoleOutputBlob()
    with expect_error(ValueError, "op named 'same' already exists"):
        run(dup, randn(2))
    with expect_error(ValueError, "exactly one output"):
        run(lambda a: build("two", "TestMultiOutputOrder", [("in", [a])], [("out1", 1), ("out2", 1)])
            .SoleOutputBlob(), randn(2))
    with pytest.raises(RuntimeError, match="inside a @flow.global_function"):
        flow.user_op_builder("outside")


def test_op_checks_from_oneflows_infer_functions():
    with expect_error(ValueError, "TestReshape.*rank 2"):
        run(lambda a: build("r", "TestReshape", [("in", [a])], attrs=[("shape", [8])]), randn(2, 4))
    with expect_error(ValueError, "TestMultiInput.*input 'x2'"):
        run(lambda a, b: build("m", "TestMultiInput", [("x1", [a]), ("x2", [b])], [("y", 1)]), randn(2), randn(3))
    with expect_error(ValueError, "string_list"):
        run(lambda a: build("l", "TestListDataTypeAndListShapeAndListStringAttr", [("in", [a])], [("out", 3)],
                            [("out_shapes", [(1,)] * 3), ("out_types", [flow.float] * 3), ("string_list", [])]),
            randn(2))
    with expect_error(ValueError, "float32 blob"):
        run(lambda a: build("c", "cpu_only_relu_test", [("in", [a])]), np.ones(2, np.int32))


# --- modules ---------------------------------------------------------------------------------------------
class Scale(flow.nn.Module):
    """One ``add_n`` per call of x with itself twice, named Scale_<call>."""

    def __init__(self):
        super().__init__()
        self.builder = flow.user_op_module_builder("add_n")
        self.builder.InputSize("in", 3).Output("out")
        self.builder.user_op_module.InitOpKernel()

    def forward(self, x):
        return (self.builder.OpName(f"Scale_{self.call_seq_no}").Input("in", [x, x, x]).Build().InferAndTryRun()
                .SoleOutputBlob())


def test_module_builder_module_and_find_or_create_module():
    x = randn(2, 2)
    seen = []

    def body(a):
        with flow.scope.namespace("job"):
            m = flow.find_or_create_module("scale", Scale)
            seen.append(m(a))
            seen.append(m(seen[0]))
            assert flow.find_or_create_module("scale", Scale, reuse=True) is m and m.call_seq_no == 2
        return seen[1]
    np.testing.assert_allclose(run(body, x), 9 * x, rtol=1e-6)
    assert lbns(seen) == ["job-Scale_0/out_0", "job-Scale_1/out_0"]
    with expect_error(ValueError, "duplicated module name 'scale'"):
        run(lambda a: (flow.find_or_create_module("scale", Scale), flow.find_or_create_module("scale", Scale)), x)
    with expect_error(ValueError, "must return a flow.nn.Module"):
        run(lambda a: flow.find_or_create_module("other", lambda: 3), x)
    with expect_error(ValueError, "declared by InputSize"):
        run(lambda a: flow.user_op_module_builder("add_n").InputSize("in", 2).Output("out").Build(), x)


def test_modules_belong_to_their_job_and_session():
    """Each job keeps its own modules (a second job gets a fresh one, counting calls from 0), and a cleared
    session forgets them: the same program builds the same op names again."""
    x = randn(2, 2)
    made = []

    def define():
        @flow.global_function()
        def first(a: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
            m = flow.find_or_create_module("shared", Scale)
            made.append(m)
            return m(m(a))

        @flow.global_function()
        def second(a: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
            m = flow.find_or_create_module("shared", Scale)
            made.append(m)
            return m(a)

        return first, second

    for _ in range(2):
        first, second = define()
        np.testing.assert_allclose(first(x), 9 * x, rtol=1e-6)
        np.testing.assert_allclose(second(x), 3 * x, rtol=1e-6)
        flow.clear_default_session()
    assert len({id(m) for m in made}) == 4  # one module per job per session
    assert [m.call_seq_no for m in made] == [2, 1, 2, 1]


# --- split_like, square sums -----------------------------------------------------------------------------
def test_split_like_values_and_gradient():
    x = randn(5, 3)
    like0, like1 = np.zeros(2, np.float32), np.zeros(3, np.float32)

    def body(a, l0, l1):
        y0, y1 = build("sl", "split_like", [("in", [a]), ("like", [l0, l1])], [("out", 2)], [("axis", 0)]) \
            .RemoteBlobList()
        assert lbns([y0, y1]) == ["sl/out_0", "sl/out_1"] and y1.shape == (3, 3)
        return y1

    # only the second slice reaches the loss: the first gets zeros
    check_op(body, lambda a, l0, l1: a[2:], x, like0, like1)
    like_low = np.zeros((1,), np.float32)
    with expect_error(ValueError, "add up to 5"):
        run(lambda a, l0, l1: build("sl", "split_like", [("in", [a]), ("like", [l0, l1])], [("out", 2)],
                                    [("axis", 0)]), x, like_low, like1)
    with expect_error(ValueError, r"Output\('out', n\)"):
        run(lambda a, l0, l1: build("sl", "split_like", [("in", [a]), ("like", [l0, l1])], [("out", 3)],
                                    [("axis", 0)]), x, like0, like1)


def test_square_sum_and_multi_square_sum():
    x, y = randn(3, 4), randn(5)
    seen = []

    def body(a):
        seen.append(flow.experimental.square_sum(a))
        return seen[0]
    n = next_id() + 1
    out = run(body, x)
    np.testing.assert_allclose(out, [np.sum(x.astype(np.float64) ** 2)], rtol=1e-5)
    assert lbns(seen) == [f"SquareSum_{n}/y_0"] and seen[0].shape == (1,)
    check_op(lambda a, b: build("m", "multi_square_sum", [("x", [a, b, a])], [("y", 1)]).SoleOutputBlob(),
             lambda a, b: np.array([2 * np.sum(a ** 2) + np.sum(b ** 2)]), x, y)
    with expect_error(ValueError, "one dtype"):
        run(lambda a, b: build("m", "multi_square_sum", [("x", [a, b])], [("y", 1)]), x, np.ones(2, np.int32))


# --- dynamic_loss_scale_schedule -------------------------------------------------------------------------
def schedule_ref(not_finite, scale, counter, period, multiplier):
    """dynamic_loss_scale_schedule_kernel.cpp, step by step."""
    if not_finite == 0:
        counter += 1
        if counter >= period:
            scale, counter = min(scale * multiplier, float(np.finfo(np.float32).max)), 0
        return scale, counter
    return max(scale / multiplier, 1.0), 0


@pytest.mark.parametrize("not_finite, scale, counter, period, multiplier", [
    (1, 100.0, 1, 1, 2.0), (0, 100.0, 1, 1, 2.0), (0, 100.0, 1, 10, 2.0), (3, 1.5, 4, 10, 2.0),
    (0, 3e38, 4, 5, 2.0),
])
def test_dynamic_loss_scale_schedule_updates_the_variables(not_finite, scale, counter, period, multiplier):
    def variables():
        c = flow.get_variable("good_step_counter", shape=(1,), dtype=flow.int64,
                              initializer=flow.constant_initializer(counter, dtype=flow.int64))
        s = flow.get_variable("loss_scale", shape=(1,), dtype=flow.float,
                              initializer=flow.constant_initializer(scale, dtype=flow.float))
        return c, s

    @flow.global_function()
    def schedule(n: tp.Numpy.Placeholder((1,), dtype=flow.int64)):
        c, s = variables()
        op = (flow.user_op_builder("sched").Op("dynamic_loss_scale_schedule").Input("count_not_finite", [n])
              .Input("loss_scale", [s]).Input("good_step_counter", [c]).Attr("increment_period", period)
              .Attr("multiplier", multiplier).Build().InferAndTryRun())
        assert op.RemoteBlobList() == ()

    @flow.global_function()
    def fetch():
        return variables()

    flow.train.CheckPoint().init()
    want_scale, want_counter = scale, counter
    for _ in range(2):
        schedule(np.array([not_finite], np.int64))
        want_scale, want_counter = schedule_ref(not_finite, float(np.float32(want_scale)), want_counter, period,
                                                multiplier)
        got_counter, got_scale = fetch().get()
        assert got_counter.numpy()[0] == want_counter
        assert got_scale.numpy()[0] == np.float32(want_scale)


def test_dynamic_loss_scale_schedule_checks_its_inputs():
    with expect_error(ValueError, "'loss_scale' must be a \\(1,\\) blob of dtype float32"):
        run(lambda n, s, c: build("d", "dynamic_loss_scale_schedule",
                                  [("count_not_finite", [n]), ("loss_scale", [s]), ("good_step_counter", [c])], ()),
            np.zeros(1, np.int64), np.ones(1, np.float64), np.zeros(1, np.int64))


# --- OneFlow's test ops ----------------------------------------------------------------------------------
def mt19937_uniform(seed, n):
    """std::uniform_real_distribution<float>(0, nextafter(1, 2)) over std::mt19937(seed), one 32-bit word per
    float, written with numpy's legacy MT19937 (same init_genrand seeding)."""
    words = np.random.RandomState(seed).randint(0, 2 ** 32, size=n, dtype=np.uint64)
    return (words.astype(np.float32) / np.float32(2 ** 32)) * np.nextafter(np.float32(1), np.float32(2))


def test_random_source_continues_its_stream_every_call():
    @flow.global_function()
    def job() -> tp.Numpy:
        a = build("r1", "TestRandomSource", outputs=[("out", 1)], attrs=[("seed", 3)]).SoleOutputBlob()
        b = build("r2", "TestRandomSource", outputs=[("out", 1)], attrs=[("seed", 3)]).SoleOutputBlob()
        return flow.concat([a, b])

    stream = mt19937_uniform(3, 20)
    first, second = job(), job()
    np.testing.assert_array_equal(first, np.concatenate([stream[:5], stream[:5]]))
    np.testing.assert_array_equal(second, np.concatenate([stream[5:10], stream[5:10]]))


def test_sources_static_dynamic_and_split_over_the_placement():
    seen = []

    @flow.global_function()
    def job() -> tp.ListNumpy:
        with flow.scope.placement("cpu", "0:0-2"):
            fixed = build("f", "TestSourceMultiGpuFixedOutNum", outputs=[("out", 1)], attrs=[("out_num", 10)])
        seen.append(fixed.SoleOutputBlob())
        seen.append(build("d", "TestDynamicSource", outputs=[("out", 1)]).SoleOutputBlob())
        seen.append(build("s", "TestSource", outputs=[("out", 1)]).SoleOutputBlob())
        return seen[1]
    out = job()
    np.testing.assert_array_equal(out[0], [0.0, 1.0, 2.0])
    assert seen[1].shape == (5,) and seen[1].is_dynamic and not seen[2].is_dynamic
    assert [b.batch_axis for b in seen] == [0, 0, 0]

    @flow.global_function()
    def values():
        with flow.scope.placement("cpu", "0:0-2"):
            fixed = build("f", "TestSourceMultiGpuFixedOutNum", outputs=[("out", 1)], attrs=[("out_num", 10)])
        return fixed.SoleOutputBlob(), build("s", "TestSource", outputs=[("out", 1)]).SoleOutputBlob()
    fixed, source = values().get()
    np.testing.assert_array_equal(fixed.numpy(), [0, 1, 2, 3, 0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(source.numpy(), np.arange(5.0))


def test_multi_input_gradient_comes_from_its_grad_op():
    x1, x2 = randn(3, 2), randn(3, 2)
    grads = {}

    def body(a, b):
        v1, v2 = zero_var("v1", a.shape), zero_var("v2", b.shape)
        p, q = a + v1, b + v2
        flow.watch_diff(p, lambda g: grads.__setitem__("x1", np.array(g)))
        flow.watch_diff(q, lambda g: grads.__setitem__("x2", np.array(g)))
        y = build("mi", "TestMultiInput", [("x1", [p]), ("x2", [q])], [("y", 1)]).SoleOutputBlob()
        flow.losses.add_loss(flow.math.reduce_sum(y * 3.0))
        return y
    y = make_job(body, [x1, x2], job_type="train")(x1, x2)
    np.testing.assert_array_equal(y, x1)
    np.testing.assert_array_equal(grads["x1"], np.ones_like(x1))  # not 3: the grad op ignores dy
    np.testing.assert_array_equal(grads["x2"], np.full_like(x2, 2.0))


def test_ccrelu_and_its_grad_op_match_relu():
    x = randn(4, 3)
    check_op(lambda a: build("cc", "ccrelu", [("in", [a])]).SoleOutputBlob(), lambda a: np.maximum(a, 0), x)
    dy = randn(4, 3)
    out = run(lambda y, d: build("g", "ccrelu_grad", [("y", [y]), ("dy", [d])], [("dx", 1)]).SoleOutputBlob(),
              np.maximum(x, 0), dy)
    np.testing.assert_array_equal(out, np.where(x > 0, dy, 0))


def test_attr_ops_give_the_declared_shapes_and_dtypes():
    x = randn(2, 2)
    out = run(lambda a: build("t", "TestDataTypeAttr", [("in", [a])], attrs=[("output_type", flow.int8)])
              .SoleOutputBlob(), x)
    assert out.dtype == np.int8 and out.shape == (2, 2)

    @flow.global_function()
    def lists(a: tp.Numpy.Placeholder((2, 2))):
        return build("l", "TestListDataTypeAndListShapeAndListStringAttr", [("in", [a])], [("out", 3)],
                     [("out_shapes", [(1,), (2, 3), [4]]), ("out_types", [flow.double, flow.int64, flow.uint8]),
                      ("string_list", ["s"])]).RemoteBlobList()
    outs = [o.numpy() for o in lists(x).get()]
    assert [o.shape for o in outs] == [(1,), (2, 3), (4,)]
    assert [o.dtype for o in outs] == [np.float64, np.int64, np.uint8]
    out = run(lambda a: build("a", "test_user_op_attr_auto_type", [("in", [a])], attrs=[("int1", 1), ("int2", 2)])
              .SoleOutputBlob(), x)
    assert out.shape == (2, 2) and out.dtype == np.float32


def test_cpu_only_op_output_is_placed_on_the_cpu():
    tags = []

    def body(a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # "gpu" placement without CUDA
            with flow.scope.placement("gpu", "0:0"):
                y = build("c", "cpu_only_relu_test", [("in", [a])]).SoleOutputBlob()
        tags.append(y.parallel_conf.device_tag())
        return y
    x = randn(3)
    np.testing.assert_array_equal(run(body, x), np.maximum(x, 0))
    assert tags == ["cpu"]


def test_user_op_in_a_train_job_with_an_optimizer():
    x = randn(4, 3)

    @flow.global_function(type="train")
    def train(a: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 2), initializer=initializers.constant_initializer(0.5))
        y = build("mm", "matmul", [("a", [a]), ("b", [w])]).SoleOutputBlob()
        loss = flow.math.reduce_sum(build("sq", "square", [("x", [y])], [("y", 1)]).SoleOutputBlob())
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0).minimize(loss)
        return loss

    w = np.full((3, 2), 0.5)
    for _ in range(2):
        loss = train(x)
        y = x.astype(np.float64) @ w
        np.testing.assert_allclose(loss, [np.sum(y ** 2)], rtol=1e-5)
        w = w - 0.01 * (x.T @ (2 * y))
