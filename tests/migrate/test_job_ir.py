"""flow.experimental.get_job_set(): each built job as OneFlow's Job message (op confs, blob descriptions)."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate import job_ir
from flowtorch.core.job import job_set_pb2


def _job(job_set: job_set_pb2.JobSet, name: str):
    return next(j for j in job_set.job if j.job_conf.job_name == name)


def _ops(job) -> dict[str, object]:
    return {op.name: op for op in job.net.op}


def _attr(op, name):
    value = op.user_conf.attr[name]
    field = value.WhichOneof("value")
    got = getattr(value, field)
    return list(got.val) if field.startswith("at_list") else list(got.dim) if field == "at_shape" else got


def _dense_job():
    @flow.global_function()
    def dense(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(5, 3), initializer=flow.random_uniform_initializer())
        b = flow.get_variable("b", shape=(5,), initializer=flow.random_uniform_initializer())
        y = flow.nn.relu(flow.nn.bias_add(flow.matmul(x, w, transpose_b=True), b))
        return flow.math.reduce_sum(flow.reshape(y, (2, 10)), axis=[1], keepdims=True)
    return dense


def test_a_predict_job_is_described_op_by_op_with_oneflows_argument_names_and_attributes() -> None:
    _dense_job()
    job = _job(flow.experimental.get_job_set(), "dense")
    assert job.job_conf.WhichOneof("job_type") == "predict_conf"
    ops = _ops(job)
    kinds = [op.WhichOneof("op_type") for op in job.net.op]
    assert kinds[:3] == ["input_conf", "variable_conf", "variable_conf"] and kinds[-1] == "return_conf"
    user = [op for op in job.net.op if op.WhichOneof("op_type") == "user_conf"]
    assert [op.user_conf.op_type_name for op in user] == ["matmul", "bias_add", "relu", "reshape", "reduce_sum"]
    matmul, bias_add, relu, reshape, reduce_sum = user
    x_lbn = next(op.name for op in job.net.op if op.HasField("input_conf")) + "/out"
    assert list(matmul.user_conf.input["a"].s) == [x_lbn] and list(matmul.user_conf.input["b"].s) == ["w/out"]
    assert _attr(matmul, "transpose_b") is True and _attr(matmul, "transpose_a") is False
    assert matmul.user_conf.attr["alpha"].WhichOneof("value") == "at_double"  # typed as OneFlow declared it
    assert list(bias_add.user_conf.input["a"].s) == list(matmul.user_conf.output["out"].s)
    assert list(bias_add.user_conf.input["b"].s) == ["b/out"] and _attr(bias_add, "axis") == 1
    assert bias_add.user_conf.attr["axis"].WhichOneof("value") == "at_int32"
    assert list(relu.user_conf.input["in"].s) == list(bias_add.user_conf.output["out"].s)
    assert _attr(reshape, "shape") == [2, 10]
    assert _attr(reduce_sum, "axis") == [1] and _attr(reduce_sum, "keepdims") is True
    assert list(reduce_sum.user_conf.input["input_tensor"].s) == list(reshape.user_conf.output["out"].s)
    ret = job.net.op[-1]
    assert getattr(ret.return_conf, "in") == reduce_sum.user_conf.output["output_tensor"].s[0]
    descs = job.helper.lbn2logical_blob_desc
    assert list(descs["w/out"].shape.dim) == [5, 3]
    assert list(descs[reshape.user_conf.output["out"].s[0]].shape.dim) == [2, 10]
    assert list(descs[f"{ret.name}/out"].shape.dim) == [2, 1]
    assert set(job.placement.placement_group[0].op_set.op_name) == set(ops)


def _evaluate(job, feeds: dict[str, np.ndarray], variables: dict[str, np.ndarray]) -> np.ndarray:
    """Run a job's op confs with numpy (the ops of the dense job): what a tool reading the IR would compute."""
    values: dict[str, np.ndarray] = {}
    for op in job.net.op:
        kind = op.WhichOneof("op_type")
        if kind == "input_conf":
            values[f"{op.name}/out"] = feeds[op.name]
        elif kind == "variable_conf":
            values[f"{op.name}/out"] = variables[op.name]
        elif kind == "return_conf":
            return values[getattr(op.return_conf, "in")]
        else:
            conf = op.user_conf
            arg = {name: values[lbns.s[0]] for name, lbns in conf.input.items()}
            kind = conf.op_type_name
            if kind == "matmul":
                a = arg["a"].T if _attr(op, "transpose_a") else arg["a"]
                b = arg["b"].T if _attr(op, "transpose_b") else arg["b"]
                out = a @ b
            elif kind == "bias_add":
                shape = [1] * arg["a"].ndim
                shape[_attr(op, "axis")] = -1
                out = arg["a"] + arg["b"].reshape(shape)
            elif kind == "relu":
                out = np.maximum(arg["in"], 0)
            elif kind == "reshape":
                out = arg["in"].reshape(_attr(op, "shape"))
            elif kind == "reduce_sum":
                out = arg["input_tensor"].sum(axis=tuple(_attr(op, "axis")), keepdims=_attr(op, "keepdims"))
            else:
                raise AssertionError(kind)
            (name, lbns), = conf.output.items()
            values[lbns.s[0]] = out
    raise AssertionError("no return op")


def test_the_ir_computes_what_the_job_computes() -> None:
    dense = _dense_job()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    got = dense(x)
    job = _job(flow.experimental.get_job_set(), "dense")
    feed = next(op.name for op in job.net.op if op.HasField("input_conf"))
    variables = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    np.testing.assert_allclose(_evaluate(job, {feed: x}, variables), got, rtol=1e-5, atol=1e-6)


def test_asymmetric_same_padding_becomes_a_pad_op_before_the_conv() -> None:
    """OneFlow padded an odd "SAME" padding with a pad op and gave the conv the common part (calc_conv_padding)."""
    @flow.global_function()
    def conv(x: tp.Numpy.Placeholder((1, 2, 6, 6))) -> tp.Numpy:
        w = flow.get_variable("cw", shape=(3, 2, 2, 2), initializer=flow.random_uniform_initializer())
        y = flow.nn.conv2d(x, w, strides=1, padding="SAME")
        return flow.nn.max_pool2d(y, ksize=2, strides=2, padding="VALID")
    job = _job(flow.experimental.get_job_set(), "conv")
    user = [op for op in job.net.op if op.HasField("user_conf")]
    assert [op.user_conf.op_type_name for op in user] == ["pad", "conv2d", "max_pool_2d"]
    pad, conv2d, pool = user
    assert _attr(pad, "padding_before") == [0, 0, 1, 1] and _attr(pad, "padding_after") == [0, 0, 0, 0]
    assert list(conv2d.user_conf.input["in"].s) == list(pad.user_conf.output["y"].s)
    assert _attr(conv2d, "padding_before") == [0, 0] and _attr(conv2d, "kernel_size") == [2, 2]
    assert _attr(conv2d, "filters") == 3 and _attr(conv2d, "data_format") == "channels_first"
    assert list(job.helper.lbn2logical_blob_desc[pad.user_conf.output["y"].s[0]].shape.dim) == [1, 2, 7, 7]
    assert _attr(pool, "padding") == "valid" and _attr(pool, "pool_size") == [2, 2]


def test_a_train_job_has_a_train_conf_and_user_op_builder_ops_keep_their_names() -> None:
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.get_variable("tw", shape=(3, 1), initializer=flow.ones_initializer())
        y = (flow.user_op_builder("my_relu").Op("relu").Input("in", [flow.matmul(x, w)]).Output("out")
             .Build().InferAndTryRun().RemoteBlobList()[0])
        loss = flow.math.reduce_mean(y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
        return loss
    job = _job(flow.experimental.get_job_set(), "train")
    assert job.job_conf.HasField("train_conf")
    relu = _ops(job)["my_relu"]
    assert relu.user_conf.op_type_name == "relu" and list(relu.user_conf.output["out"].s) == ["my_relu/out_0"]


@pytest.mark.parametrize(("value", "field", "expected"), [
    (3, "at_int32", 3), (True, "at_bool", True), (0.5, "at_double", 0.5), ([1, 2], "at_list_int32", [1, 2]),
    ((2, 3), "at_shape", [2, 3]), ("same", "at_string", "same")])
def test_attribute_values_take_the_declared_type(value, field: str, expected) -> None:
    attr = job_ir.attr_value(value, field)
    assert attr.WhichOneof("value") == field
    got = getattr(attr, field)
    assert (list(got.dim) if field == "at_shape" else list(got.val) if field.startswith("at_list") else got) \
        == expected


def test_schemas_hold_oneflows_registrations() -> None:
    table = job_ir.schemas()
    assert table["conv2d"]["inputs"][:2] == ["in", "weight"]
    assert table["conv2d"]["attrs"]["padding_before"] == "at_list_int32"
    assert table["broadcast_add"]["inputs"] == ["x", "y"] and table["broadcast_add"]["outputs"] == ["z"]
    assert table["abs"]["inputs"] == ["x"]  # a type registered through a macro and a sequence
