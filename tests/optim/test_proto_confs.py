"""OneFlow's conf messages where OneFlow took them: ``InitializerConf`` for ``get_variable``, the layers'
``kernel_initializer`` and ``data.decode_random``, ``RegularizerConf`` for ``get_variable`` and
``kernel_regularizer``.

The expected numbers are numpy's, written here from what OneFlow v0.4.0's model IO did with each conf
(``python/ops/initializer_util.py``: a ``numpy.random.default_rng(random_seed)`` stream, float conf fields
held as float32) and from the regularized SGD step (``w - lr * (g + l1 * sign(w) + l2 * w)``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import ArgumentError
from flowtorch.core.job import initializer_conf_pb2 as ic
from flowtorch.core.job import regularizer_conf_pb2 as rc

SHAPE = (5, 7)


def variable_value(initializer, shape=SHAPE, dtype=flow.float32, seed=None) -> np.ndarray:
    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.get_variable("v", shape=shape, dtype=dtype, initializer=initializer, random_seed=seed)

    return job()


def f32(x: float) -> float:
    return float(np.float32(x))


def test_random_normal_conf_draws_oneflows_stream() -> None:
    conf = ic.InitializerConf(random_normal_conf=ic.RandomNormalInitializerConf(mean=0.3, std=1.7))
    got = variable_value(conf, seed=11)
    want = np.random.default_rng(11).normal(f32(0.3), f32(1.7), size=math.prod(SHAPE)).reshape(SHAPE)
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_random_uniform_conf_defaults_and_closed_interval() -> None:
    conf = ic.InitializerConf()
    conf.random_uniform_conf.max = 4.0  # min keeps its default 0
    got = variable_value(conf, seed=3)
    want = np.random.default_rng(3).uniform(0.0, np.nextafter(4.0, np.inf), size=math.prod(SHAPE))
    np.testing.assert_array_equal(got, want.reshape(SHAPE).astype(np.float32))


def test_variance_scaling_conf_fan_in_uniform() -> None:
    conf = ic.InitializerConf(variance_scaling_conf=ic.VarianceScalingInitializerConf(
        scale=2.0, variance_norm=ic.kFanIn, distribution=ic.kRandomUniform, data_format=""))
    got = variable_value(conf, seed=5)
    limit = math.sqrt(3.0 * 2.0 / SHAPE[1])  # fan_in of a (5, 7) weight: 7
    want = np.random.default_rng(5).uniform(-limit, limit, size=math.prod(SHAPE)).reshape(SHAPE)
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_constant_confs_float_and_int() -> None:
    np.testing.assert_array_equal(variable_value(ic.InitializerConf(constant_conf=ic.ConstantInitializerConf(
        value=2.5))), np.full(SHAPE, 2.5, np.float32))
    flow.clear_default_session()
    got = variable_value(ic.InitializerConf(constant_int_conf=ic.ConstantIntInitializerConf(value=-4)),
                         dtype=flow.int32)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.full(SHAPE, -4, np.int32))


def test_layers_take_initializer_conf_messages() -> None:
    kernel = ic.InitializerConf(constant_conf=ic.ConstantInitializerConf(value=0.25))
    bias = ic.InitializerConf(constant_conf=ic.ConstantInitializerConf(value=-1.0))
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    @flow.global_function(type="predict")
    def job(inp: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        return flow.layers.dense(inp, 2, kernel_initializer=kernel, bias_initializer=bias, name="fc")

    np.testing.assert_allclose(job(x), x @ np.full((4, 2), 0.25, np.float32) - 1.0, rtol=1e-6)


def test_decode_random_takes_an_initializer_conf() -> None:
    conf = ic.InitializerConf(constant_conf=ic.ConstantInitializerConf(value=7.0))

    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.data.decode_random(shape=(3,), dtype=flow.float32, batch_size=2, initializer=conf)

    np.testing.assert_array_equal(job(), np.full((2, 3), 7.0, np.float32))


@pytest.mark.parametrize("conf, match", [
    (ic.InitializerConf(), "sets none of its 'type' fields"),
    (ic.InitializerConf(xavier_conf=ic.XavierInitializerConf(variance_norm=ic.kFanIn, data_format="NCHW")),
     "xavier_conf has no initializer"),
    (ic.InitializerConf(variance_scaling_conf=ic.VarianceScalingInitializerConf(scale=1.0)),
     "lacks its required field"),
])
def test_initializer_confs_oneflow_could_not_run_are_refused(conf, match) -> None:
    with pytest.raises(ArgumentError, match=match):
        variable_value(conf)


def test_regularizer_conf_adds_l1_and_l2_to_the_gradient() -> None:
    x = np.array([1.0, -2.0, 0.5], np.float32)
    w0 = np.array([0.4, -0.3, 0.0], np.float32)
    lr, l1, l2 = 0.1, 0.02, 0.5
    reg = rc.RegularizerConf(l1_l2_conf=rc.L1L2RegularizerConf(l1=l1, l2=l2))

    @flow.global_function(type="train")
    def train(inp: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.zeros_initializer(), regularizer=reg)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0).minimize(
            flow.math.reduce_sum(w * inp))
        return w

    flow.load_variables({"w": w0})
    train(x)
    got = flow.get_all_variables()["w"].numpy()
    # loss = sum(w * x), one element: the gradient is x; OneFlow held l1, l2 in float fields
    want = w0 - lr * (x + f32(l1) * np.sign(w0) + f32(l2) * w0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_kernel_regularizer_conf_on_a_layer_and_an_unset_factor_is_zero() -> None:
    x = np.array([[1.0, 2.0]], np.float32)
    reg = rc.RegularizerConf()
    reg.l1_l2_conf.l2 = 0.5  # l1 keeps its default 0
    lr = 0.1

    @flow.global_function(type="train")
    def train(inp: tp.Numpy.Placeholder((1, 2))) -> tp.Numpy:
        out = flow.layers.dense(inp, 1, use_bias=False, kernel_initializer=flow.ones_initializer(),
                                kernel_regularizer=reg, name="fc")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0).minimize(out)
        return out

    train(x)
    (kernel,) = [v.numpy() for k, v in flow.get_all_variables().items() if k.startswith("fc")]
    w0 = np.ones((1, 2), np.float32)
    np.testing.assert_allclose(kernel, w0 - lr * (x + 0.5 * w0), rtol=1e-6)


def test_an_empty_regularizer_conf_is_refused() -> None:
    @flow.global_function(type="predict")
    def job() -> tp.Numpy:
        return flow.get_variable("w", shape=(2,), initializer=flow.zeros_initializer(),
                                 regularizer=rc.RegularizerConf())

    with pytest.raises(ArgumentError, match="RegularizerConf sets none"):
        job()


def test_default_initializer_conf_dict_is_read_through_the_schema() -> None:
    config = flow.FunctionConfig()
    config.default_initializer_conf({"random_normal_conf": {"mean": 1.0, "std": 0.5}})

    @flow.global_function(type="predict", function_config=config)
    def job() -> tp.Numpy:
        return flow.get_variable("v", shape=SHAPE, random_seed=21)

    want = np.random.default_rng(21).normal(1.0, 0.5, size=math.prod(SHAPE)).reshape(SHAPE)
    np.testing.assert_array_equal(job(), want.astype(np.float32))


@pytest.mark.parametrize("conf, match", [
    ({"random_normal_conf": {"stddev": 0.5}}, "RandomNormalInitializerConf has no field 'stddev'"),
    ({"constant_conf": {"value": "big"}}, r"ConstantInitializerConf\.value: cannot take 'big'"),
    ({"variance_scaling_conf": {"variance_norm": "kFanSideways"}}, "VarianceNorm has no value 'kFanSideways'"),
    ({"no_such_conf": {}}, "InitializerConf has no field 'no_such_conf'"),
])
def test_a_misspelt_initializer_conf_dict_is_an_error_at_once(conf, match) -> None:
    with pytest.raises(ArgumentError, match=match):
        flow.FunctionConfig().default_initializer_conf(conf)


def test_initializer_conf_dict_enum_names_and_numbers_agree() -> None:
    by_name = {"variance_scaling_conf": {"scale": 1.0, "variance_norm": "kAverage",
                                         "distribution": "kRandomNormal", "data_format": "channels_last"}}
    by_number = {"variance_scaling_conf": {"scale": 1.0, "variance_norm": ic.kAverage,
                                           "distribution": ic.kRandomNormal, "data_format": "channels_last"}}
    a = variable_value(ic.InitializerConf(variance_scaling_conf=ic.VarianceScalingInitializerConf(
        **by_name["variance_scaling_conf"])), shape=(6, 4), seed=2)
    flow.clear_default_session()
    config = flow.FunctionConfig()
    config.default_initializer_conf(by_number)

    @flow.global_function(type="predict", function_config=config)
    def job() -> tp.Numpy:
        return flow.get_variable("v", shape=(6, 4), random_seed=2)

    # fan_avg of a (6, 4) weight: (4 + 6) / 2; random_normal: std sqrt(scale / fan)
    want = np.random.default_rng(2).normal(0.0, math.sqrt(1.0 / 5.0), size=24).reshape(6, 4)
    np.testing.assert_array_equal(a, want.astype(np.float32))
    np.testing.assert_array_equal(job(), a)
