"""Element-wise unary ops and activations: numpy values, finite-difference gradients, OneFlow names."""

import math

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, run

import flowtorch as flow
import flowtorch.nn

rng = np.random.default_rng(1)
_erf = np.vectorize(math.erf)
_lgamma = np.vectorize(math.lgamma)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# (op, numpy reference, input range)
CASES = [
    (flow.math.abs, np.abs, (0.2, 2)), (flow.math.acos, np.arccos, (-0.8, 0.8)),
    (flow.math.acosh, np.arccosh, (1.2, 3)), (flow.math.asin, np.arcsin, (-0.8, 0.8)),
    (flow.math.asinh, np.arcsinh, (-2, 2)), (flow.math.atan, np.arctan, (-2, 2)),
    (flow.math.atanh, np.arctanh, (-0.8, 0.8)), (flow.math.cos, np.cos, (-2, 2)),
    (flow.math.cosh, np.cosh, (-2, 2)), (flow.math.erf, _erf, (-2, 2)),
    (flow.math.erfc, lambda x: 1 - _erf(x), (-2, 2)), (flow.math.exp, np.exp, (-2, 2)),
    (flow.math.expm1, np.expm1, (-2, 2)), (flow.math.lgamma, _lgamma, (0.5, 3)),
    (flow.math.log, np.log, (0.2, 3)), (flow.math.log1p, np.log1p, (-0.5, 2)),
    (flow.math.log_sigmoid, lambda x: np.log(sigmoid(x)), (-3, 3)), (flow.math.negative, np.negative, (-2, 2)),
    (flow.math.reciprocal, np.reciprocal, (0.5, 2)), (flow.math.reciprocal_no_nan, np.reciprocal, (0.5, 2)),
    (flow.math.rsqrt, lambda x: 1 / np.sqrt(x), (0.5, 2)), (flow.math.sigmoid_v2, sigmoid, (-3, 3)),
    (flow.math.sin, np.sin, (-2, 2)), (flow.math.sinh, np.sinh, (-2, 2)),
    (flow.math.softplus, lambda x: np.log1p(np.exp(x)), (-3, 3)), (flow.math.sqrt, np.sqrt, (0.5, 2)),
    (flow.math.square, np.square, (-2, 2)), (flow.math.tan, np.tan, (-1, 1)), (flow.math.tanh_v2, np.tanh, (-2, 2)),
    (flow.math.sigmoid, sigmoid, (-3, 3)), (flow.math.tanh, np.tanh, (-2, 2)),
    (flow.math.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), (-3, 3)),
    (flow.math.relu, lambda x: np.maximum(x, 0), (0.1, 2)),
    (flow.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x), (-2, 2)),
    (lambda x: flow.nn.leaky_relu(x, alpha=0.1), lambda x: np.where(x > 0, x, 0.1 * x), (-2, 2)),
    (flow.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x)), (-2, 2)),
    (flow.nn.hardtanh, lambda x: np.clip(x, -1, 1), (-0.9, 0.9)),
    (flow.nn.relu6, lambda x: np.clip(x, 0, 6), (0.1, 5.9)),
    (flow.nn.hardsigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1), (-2.9, 2.9)),
    (flow.nn.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6, (-2.9, 2.9)),
    (flow.nn.swish, lambda x: x * sigmoid(x), (-3, 3)),
    (flow.nn.mish, lambda x: x * np.tanh(np.log1p(np.exp(x))), (-3, 3)),
]


@pytest.mark.parametrize("op,ref,domain", CASES, ids=[getattr(c[0], "__name__", str(i)) for i, c in enumerate(CASES)])
def test_unary_value_and_gradient(op, ref, domain):
    x = rng.uniform(*domain, size=(3, 4)).astype(np.float32)
    check_op(op, ref, x, rtol=1e-5, atol=2e-6, grad_rtol=2e-3, grad_atol=2e-4)


def test_piecewise_ops_without_gradient():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.4, 3.7], np.float32)
    np.testing.assert_array_equal(run(flow.math.round, x), np.round(x))  # half to even, like nearbyint
    np.testing.assert_array_equal(run(flow.math.rint, x), np.rint(x))
    np.testing.assert_array_equal(run(flow.math.floor, x), np.floor(x))
    np.testing.assert_array_equal(run(flow.math.ceil, x), np.ceil(x))
    np.testing.assert_array_equal(run(flow.math.sign, x), np.sign(x))
    np.testing.assert_array_equal(run(flow.math.reciprocal_no_nan, np.array([0, 2], np.float32)), [0, 0.5])


def test_unary_names():
    x = rng.standard_normal((2, 2)).astype(np.float32)
    seen = []

    def body(a):
        outs = [flow.math.exp(a), flow.math.tanh(a), flow.math.sigmoid(a), flow.nn.relu(a), flow.math.gelu(a),
                flow.nn.leaky_relu(a), flow.nn.elu(a), flow.nn.hardtanh(a), flow.nn.relu6(a), flow.math.exp(a, "e")]
        seen.extend(outs)
        return outs[0]
    n = next_id() + 1
    make_job(body, [x])(x)
    assert lbns(seen) == [f"exp_{n}/y_0", f"TanH_{n + 1}/out_0", f"Sigmoid_{n + 2}/out_0", f"Relu_{n + 3}/out_0",
                          f"Gelu_{n + 4}/out_0", f"LeakyRelu_{n + 5}/y_0", f"Elu_{n + 6}/out_0",
                          f"Hardtanh_{n + 7}/out_0", f"Relu6_{n + 8}/out_0", "e/y_0"]


def test_logsoftmax_and_swish_composite_names():
    x = rng.standard_normal((2, 3)).astype(np.float32)
    seen = []

    def body(a):
        seen.extend([flow.nn.logsoftmax(a), flow.nn.swish(a, name="sw")])
        return seen[0]
    n = next_id() + 1
    y = make_job(body, [x])(x)
    np.testing.assert_allclose(y, x - np.log(np.exp(x).sum(-1, keepdims=True)), rtol=1e-5, atol=1e-6)
    assert lbns(seen)[0] == f"logsoftmax{n}_log/y_0"
    assert seen[1].op_name.startswith("ElementWiseMul_")


def test_float_only_ops_reject_int_blobs():
    with expect_error(TypeError, match=r"flow.math.exp: argument 'x' must be a floating-point blob; received "
                                       r"Input_\d+/out of dtype oneflow.int32"):
        run(flow.math.exp, np.array([1, 2], np.int32))
    with expect_error(ValueError, match=r"flow.nn.hardtanh: max_val should be larger than min_val"):
        run(lambda a: flow.nn.hardtanh(a, 1.0, -1.0), np.zeros(2, np.float32))
    np.testing.assert_array_equal(run(flow.math.abs, np.array([-3, 2], np.int32)), [3, 2])


def test_softplus_is_oneflows_float32_formula_at_the_extremes():
    # OneFlow computed log(1 + exp(x)) in float32 (SoftplusFunctor): 0 once exp(x) vanishes next to 1, inf once it
    # overflows, and within rounding of numpy's float32 formula in between (what OneFlow's tests compared with)
    x = np.array([-100, -20, -10, -9.5, 0, 3, 20, 30, 88, 100], np.float32)
    with np.errstate(over="ignore"):
        expected = np.log(np.float32(1) + np.exp(x))
    got = run(flow.math.softplus, x)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0)
    assert got[0] == 0 and got[1] == 0 and np.isinf(got[-1])
