"""flow.experimental.register_user_op (a flowtorch extension): Python kernels as torch.library ops in the op
registry, built by calling them or through flow.user_op_builder; their registered gradients reach
watch_diff and the optimizer, and compiled steps give eager's numbers."""

import numpy as np
import pytest
import torch
from helpers.ops import check_op, expect_error, lbns, next_id, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import initializers
from flowtorch._src.ops import op_registry

rng = np.random.default_rng(8)


randn = randn_from(rng)


@flow.experimental.register_user_op("ft_scaled_tanh", inputs=["x"], outputs=["y"], attrs={"scale": 1.0})
def scaled_tanh(x, scale):
    return torch.tanh(x) * scale


@scaled_tanh.register_grad
def _scaled_tanh_grad(inputs, outputs, output_grads, scale):
    (y,), (dy,) = outputs, output_grads
    return (dy * (scale - y * y / scale),)


# straight-through rounding: the registered gradient is not the kernel's (which is zero almost everywhere)
@flow.experimental.register_user_op("ft_round_st", inputs=["in"], outputs=["out"])
def round_st(x):
    return torch.round(x)


@round_st.register_grad
def _round_st_grad(inputs, outputs, output_grads):
    return (output_grads[0],)


@flow.experimental.register_user_op("ft_mix", inputs=["a", "b"], outputs=["sum", "prod"],
                                    attrs={"k": ("int64",), "flip": False, "axes": [0]})
def mix(a, b, k, flip, axes):
    s = a + k * b
    return (torch.flip(s, axes) if flip else s.clone()), a * b


@mix.register_grad
def _mix_grad(inputs, outputs, output_grads, k, flip, axes):
    (a, b), (ds, dp) = inputs, output_grads
    if flip:
        ds = torch.flip(ds, axes)
    return ds + dp * b, k * ds + dp * a


@flow.experimental.register_user_op("ft_no_grad", inputs=["x"], outputs=["y"])
def no_grad_op(x):
    return x * 2


def test_the_op_joins_the_registry_as_a_torch_library_op():
    od = op_registry.lookup("ft_scaled_tanh")
    assert od.kernel is torch.ops.flowtorch_user.ft_scaled_tanh.default is scaled_tanh.torch_op
    assert [a.name for a in od.inputs] == ["x"] and [a.type for a in od.attrs] == ["float"]


def test_values_and_gradient_through_watch_diff():
    x = randn(3, 4)
    check_op(lambda a: scaled_tanh(a, scale=2.5), lambda a: 2.5 * np.tanh(a), x)
    check_op(lambda a: scaled_tanh(a), np.tanh, x)  # the attr's default


def test_registered_gradient_replaces_the_kernels():
    x = randn(6)
    grads = []

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((6,))) -> tp.Numpy:
        v = flow.get_variable("v", shape=(6,), initializer=initializers.zeros_initializer())
        p = a + v
        flow.watch_diff(p, lambda g: grads.append(np.array(g)))
        y = round_st(p)
        flow.losses.add_loss(flow.math.reduce_sum(y * 3.0))
        return y
    np.testing.assert_array_equal(job(x), np.round(x))
    np.testing.assert_array_equal(grads[0], np.full(6, 3.0, np.float32))


def test_names_and_the_builder_route():
    x = randn(2, 3)
    seen = []

    def body(a):
        seen.append(scaled_tanh(a, scale=0.5))
        seen.append(scaled_tanh(a, name="named"))
        seen.append(flow.user_op_builder("built").Op("ft_scaled_tanh").Input("x", [a]).Output("y").Attr("scale", 3)
                    .Build().InferAndTryRun().SoleOutputBlob())
        return seen[2]
    n = next_id() + 1
    np.testing.assert_allclose(run(body, x), 3 * np.tanh(x), rtol=1e-6)
    assert lbns(seen) == [f"ft_scaled_tanh_{n}/y_0", "named/y_0", "built/y_0"]


def test_two_inputs_two_outputs_attrs_and_gradients():
    a, b = randn(3, 2), randn(3, 2)
    for flip in (False, True):
        def s_ref(x, y, flip=flip):
            s = x + 4 * y
            return s[::-1] if flip else s
        check_op(lambda x, y, flip=flip: mix(x, y, k=4, flip=flip)[0], s_ref, a, b)
        check_op(lambda x, y, flip=flip: mix(x, y, k=4, flip=flip)[1], lambda x, y: x * y, a, b)


def test_an_optimizer_trains_through_the_op():
    x = randn(4, 3)
    target = randn(4, 2)

    @flow.global_function(type="train")
    def train(a: tp.Numpy.Placeholder((4, 3)), t: tp.Numpy.Placeholder((4, 2))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 2), initializer=initializers.constant_initializer(0.1))
        y = scaled_tanh(flow.matmul(a, w), scale=2.0)
        loss = flow.math.reduce_sum(flow.math.square(y - t))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0).minimize(loss)
        return loss

    w = np.full((3, 2), 0.1)
    x64, t64 = x.astype(np.float64), target.astype(np.float64)
    for _ in range(3):
        h = x64 @ w
        y = 2.0 * np.tanh(h)
        np.testing.assert_allclose(train(x, target), [np.sum((y - t64) ** 2)], rtol=1e-5)
        dy = 2 * (y - t64)
        w = w - 0.05 * x64.T @ (dy * 2.0 * (1 - np.tanh(h) ** 2))


def test_compiled_steps_match_eager(monkeypatch):
    x = randn(3, 4)

    def losses(mode):
        monkeypatch.setenv("FLOWTORCH_CAPTURE", mode)
        monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "aot_eager")
        flow.clear_default_session()

        @flow.global_function(type="train")
        def train(a: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
            w = flow.get_variable("w", shape=(4,), initializer=initializers.constant_initializer(0.3))
            loss = flow.math.reduce_sum(scaled_tanh(a * w, scale=1.5))
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
            return loss
        return [train(x) for _ in range(3)]
    np.testing.assert_allclose(losses("compile"), losses("eager"), rtol=1e-6)


def test_errors():
    with expect_error(RuntimeError, "no autograd formula"):
        @flow.global_function(type="train")
        def job(a: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
            v = flow.get_variable("v", shape=(2,), initializer=initializers.zeros_initializer())
            loss = no_grad_op(a + v)
            flow.losses.add_loss(loss)
            return loss
        job(randn(2))
    with expect_error(ValueError, "takes 2 input blob"):
        run(lambda a: mix(a, k=1), randn(2))
    with expect_error(ValueError, "attr 'k'.*has no default"):
        run(lambda a: mix(a, a), randn(2))
    with expect_error(TypeError, "attr 'scale'.*must be a float"):
        run(lambda a: scaled_tanh(a, scale="big"), randn(2))
    with pytest.raises(ValueError, match="already registered"):
        flow.experimental.register_user_op("ft_scaled_tanh", inputs=["x"], outputs=["y"])
    with pytest.raises(ValueError, match="already registered"):
        flow.experimental.register_user_op("relu")
    with pytest.raises(ValueError, match="cannot be passed to a Python kernel"):
        flow.experimental.register_user_op("ft_bad", attrs={"shapes": ("list_shape", [])})
    with pytest.raises(ValueError, match="give a default value"):
        flow.experimental.register_user_op("ft_bad", attrs={"thing": object()})
    with pytest.raises(ValueError, match="identifier"):
        flow.experimental.register_user_op("bad name")
