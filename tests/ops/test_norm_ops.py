"""flow.nn.InstanceNorm1d/2d/3d and flow.nn.GroupNorm: values and input gradients against numpy, the
affine variables (per channel for instance norm, per group for GroupNorm, as OneFlow made them), gradients
reaching gamma and beta, and argument errors."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, make_job, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp

rng = np.random.default_rng(3)


randn = randn_from(rng)


def np_rows_norm(x, rows, eps):
    """Normalise each (n, row) slice of x viewed as (N, rows, -1) by its mean and biased variance."""
    flat = x.reshape(x.shape[0], rows, -1)
    mu = flat.mean(axis=2, keepdims=True)
    var = ((flat - mu) ** 2).mean(axis=2, keepdims=True)
    return ((flat - mu) / np.sqrt(var + eps)).reshape(x.shape)


@pytest.mark.parametrize("shape,layer", [((2, 3, 7), "InstanceNorm1d"), ((2, 3, 4, 5), "InstanceNorm2d"),
                                         ((2, 2, 3, 2, 4), "InstanceNorm3d")])
@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm_values_and_grad(shape, layer, affine):
    x = randn(*shape)
    fn = getattr(flow.nn, layer)
    check_op(lambda a: fn(a, eps=1e-3, affine=affine), lambda a: np_rows_norm(a, shape[1], 1e-3), x,
             grad_rtol=1e-3, grad_atol=1e-3)


@pytest.mark.parametrize("groups", [1, 2, 6])
@pytest.mark.parametrize("shape", [(2, 6, 5), (2, 6, 3, 4)])
def test_group_norm_values_and_grad(shape, groups):
    x = randn(*shape)
    check_op(lambda a: flow.nn.GroupNorm(a, num_groups=groups, eps=1e-5), lambda a: np_rows_norm(a, groups, 1e-5),
             x, grad_rtol=1e-3, grad_atol=1e-3)


def test_affine_variables_are_per_channel_or_per_group():
    x = randn(2, 6, 4, 4)

    def body(a):
        flow.nn.InstanceNorm2d(a, name="inorm")
        return flow.nn.GroupNorm(a, num_groups=3, name="gnorm")
    make_job(body, [x])(x)
    variables = flow.get_all_variables()
    assert variables["inorm_gamma"].numpy().shape == (1, 6, 1)
    assert variables["gnorm_gamma"].numpy().shape == (1, 3, 1)  # one per group: OneFlow's GroupNorm
    np.testing.assert_array_equal(variables["gnorm_gamma"].numpy(), np.ones((1, 3, 1), np.float32))
    np.testing.assert_array_equal(variables["gnorm_beta"].numpy(), np.zeros((1, 3, 1), np.float32))
    assert "inorm_beta" in variables


def test_affine_parameters_get_gradients_and_apply():
    # one SGD step (lr 1) on loss = sum(y * w): d gamma = sum over rows of normalized * w, d beta = sum of w
    x, w = randn(2, 2, 5), randn(2, 2, 5)
    normalized = np_rows_norm(x.astype(np.float64), 2, 1e-5)

    @flow.global_function(type="train")
    def step(a: tp.Numpy.Placeholder(x.shape), wb: tp.Numpy.Placeholder(w.shape)) -> tp.Numpy:
        y = flow.nn.InstanceNorm1d(a, name="norm")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1.0]), momentum=0).minimize(
            flow.math.reduce_sum(y * wb))
        return y
    step(x, w)
    variables = flow.get_all_variables()
    d_gamma = (normalized * w).sum(axis=(0, 2)).reshape(1, 2, 1)
    d_beta = w.astype(np.float64).sum(axis=(0, 2)).reshape(1, 2, 1)
    np.testing.assert_allclose(variables["norm_gamma"].numpy(), 1.0 - d_gamma, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(variables["norm_beta"].numpy(), -d_beta, rtol=1e-4, atol=1e-5)
    # the updated parameters are used by the next step
    y2 = step(x, w)
    np.testing.assert_allclose(y2, normalized * (1.0 - d_gamma) - d_beta, rtol=1e-4, atol=1e-4)


def test_default_names():
    x = randn(2, 4, 3)
    made = []

    def body(a):
        made.append(flow.nn.InstanceNorm1d(a))
        made.append(flow.nn.GroupNorm(a, num_groups=2))
        return made[0]
    make_job(body, [x])(x)
    names = sorted(flow.get_all_variables())
    assert any(n.startswith("InstanceNorm1D_") and n.endswith("_gamma") for n in names)
    assert any(n.startswith("GroupNorm_") and n.endswith("_beta") for n in names)


@pytest.mark.parametrize("fn,shape,match", [
    (lambda a: flow.nn.InstanceNorm1d(a), (2, 3), r"flow.nn.InstanceNorm1d: argument 'x' must be a 3-D blob"),
    (lambda a: flow.nn.InstanceNorm2d(a), (2, 3, 4), r"flow.nn.InstanceNorm2d: argument 'x' must be a 4-D blob"),
    (lambda a: flow.nn.InstanceNorm3d(a), (2, 3, 4, 4), r"flow.nn.InstanceNorm3d: argument 'x' must be a 5-D"),
    (lambda a: flow.nn.GroupNorm(a, num_groups=4), (2, 6, 3),
     r"flow.nn.GroupNorm: argument 'num_groups' must be a positive divisor of the 6 channels"),
    (lambda a: flow.nn.GroupNorm(a, num_groups=2), (2, 6), r"flow.nn.GroupNorm: argument 'x' must be a blob of rank"),
    (lambda a: flow.nn.InstanceNorm1d(a, eps=-1.0), (2, 3, 4), r"argument 'eps' must be a non-negative number"),
    (lambda a: flow.nn.InstanceNorm1d(a, affine=1), (2, 3, 4), r"argument 'affine' must be a bool"),
])
def test_argument_errors(fn, shape, match):
    with expect_error(ValueError, match=match):
        run(fn, randn(*shape))
