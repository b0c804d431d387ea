"""layers.dense: names, variable shapes, zero default initializers, >2-D inputs, activation, values, grads."""

import numpy as np
import pytest
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, run

import flowtorch as flow
import flowtorch.layers
import flowtorch.nn
from flowtorch._src import initializers

rng = np.random.default_rng(10)


def _vars(blobs):
    return {b.op_name: b for b in blobs if b.is_variable}


def test_unnamed_dense_takes_one_counter_value():
    x = rng.standard_normal((3, 5)).astype(np.float32)
    seen = []

    def body(a):
        out = flow.layers.dense(a, 4, activation=flow.nn.relu)
        seen.extend(a.builder.all_blobs[1:])
        return out
    n = next_id() + 1  # Input_n first
    y = make_job(body, [x])(x)
    assert lbns(seen) == [f"Dense_{n}-weight/out", f"Dense_{n}_matmul/out_0", f"Dense_{n}-bias/out",
                          f"Dense_{n}_bias_add/out_0", f"Dense_{n}_activation/out_0"]
    np.testing.assert_array_equal(y, np.zeros((3, 4)))  # zero default initializers
    v = _vars(seen)
    assert v[f"Dense_{n}-weight"].shape == (4, 5) and v[f"Dense_{n}-bias"].shape == (4,)


def test_named_dense_without_bias_or_activation():
    x = rng.standard_normal((2, 3)).astype(np.float32)
    seen = []

    def body(a):
        out = flow.layers.dense(a, 2, use_bias=False, name="fc1")
        seen.extend(a.builder.all_blobs[1:])
        return out
    make_job(body, [x])(x)
    assert lbns(seen) == ["fc1-weight/out", "fc1_matmul/out_0"]


def test_dense_values_and_input_gradient():
    x = rng.standard_normal((3, 5)).astype(np.float32)
    wv = rng.standard_normal((4, 5)).astype(np.float32)
    bv = rng.standard_normal((4,)).astype(np.float32)

    class Fixed:
        def __init__(self, v):
            self.v = v

        def make(self, shape, dtype, *args, **kwargs):
            import torch
            return torch.tensor(self.v, dtype=dtype)

    check_op(lambda a: flow.layers.dense(a, 4, activation=flow.math.tanh, kernel_initializer=Fixed(wv),
                                         bias_initializer=Fixed(bv), name="d"),
             lambda a: np.tanh(a @ wv.T + bv), x, rtol=1e-5, atol=1e-5)


def test_dense_flattens_and_restores_higher_rank_inputs():
    x = rng.standard_normal((2, 3, 5)).astype(np.float32)
    seen = []

    def body(a):
        out = flow.layers.dense(a, 4, kernel_initializer=initializers.ones_initializer(), name="fc")
        seen.extend(a.builder.all_blobs[1:])
        return out
    y = make_job(body, [x])(x)
    assert y.shape == (2, 3, 4)
    np.testing.assert_allclose(y, np.repeat(x.sum(-1, keepdims=True), 4, -1), rtol=1e-5, atol=1e-6)
    assert seen[0].op_name.startswith("Reshape_") and seen[0].shape == (6, 5)
    assert seen[-1].op_name.startswith("Reshape_") and seen[-1].shape == (2, 3, 4)
    assert _vars(seen)["fc-weight"].shape == (4, 5)


def test_dense_trains_its_variables():
    import flowtorch._src.optim.schedulers as schedulers
    from flowtorch._src.optim.sgd import SGD
    x = rng.standard_normal((8, 3)).astype(np.float32)
    t = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)

    def body(a, b):
        y = flow.layers.dense(a, 1, name="lin")
        loss = flow.math.reduce_mean(flow.math.square(y - b))
        SGD(schedulers.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss
    job = make_job(body, [x, t], job_type="train")
    losses = [float(job(x, t)[0]) for _ in range(30)]
    assert losses[-1] < 0.05 * losses[0]


def test_dense_argument_errors():
    x = np.zeros((2, 3), np.float32)
    with expect_error(ValueError, match=r"flow.layers.dense: argument 'units' must be a positive int; received 0"):
        run(lambda a: flow.layers.dense(a, 0), x)
    with expect_error(ValueError, match=r"flow.layers.dense: argument 'inputs' must be a blob of rank >= 2; "
                                        r"received Input_\d+/out \(3,\)"):
        run(lambda a: flow.layers.dense(a, 2), np.zeros(3, np.float32))
    with expect_error(TypeError, match=r"flow.layers.dense: argument 'inputs' must be a floating-point blob"):
        run(lambda a: flow.layers.dense(a, 2), np.zeros((2, 3), np.int32))


@pytest.mark.parametrize("activation", [flow.nn.relu, lambda blob: flow.math.sigmoid(blob)])
def test_activation_with_or_without_name_parameter(activation):
    x = np.ones((1, 2), np.float32)
    y = run(lambda a: flow.layers.dense(a, 2, activation=activation), x)
    assert y.shape == (1, 2)
