"""batch_normalization (moving statistics updated in train jobs only), layer_norm, prelu, upsample_2d."""

import numpy as np
from helpers.ops import check_op, expect_error, lbns, make_job, next_id, run

import flowtorch as flow
import flowtorch.layers
import flowtorch.nn
import flowtorch.typing as tp

rng = np.random.default_rng(12)


def test_batch_norm_train_updates_moving_stats_predict_does_not():
    x1 = rng.standard_normal((8, 3, 2, 2)).astype(np.float32) * 2 + 1
    x2 = rng.standard_normal((8, 3, 2, 2)).astype(np.float32)
    stats = []

    def train_body(a):
        y = flow.layers.batch_normalization(a, axis=1, momentum=0.9, epsilon=1e-3, name="bn")
        flow.losses.add_loss(flow.math.reduce_sum(y))
        return y

    def predict_body(a):
        y = flow.layers.batch_normalization(a, axis=1, momentum=0.9, epsilon=1e-3, name="bn")
        flow.watch(flow.get_variable("bn-moving_mean"), lambda v: stats.append(("mean", np.array(v))))
        flow.watch(flow.get_variable("bn-moving_variance"), lambda v: stats.append(("var", np.array(v))))
        return y
    train = make_job(train_body, [x1], job_type="train", name="bn_train")
    predict = make_job(predict_body, [x1], name="bn_predict")
    p0 = predict(x1)
    np.testing.assert_allclose(p0, x1 / np.sqrt(1 + 1e-3), rtol=1e-5, atol=1e-6)  # moving stats 0 / 1
    y = train(x1)
    mean = x1.mean(axis=(0, 2, 3))
    var = x1.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, (x1 - mean.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-3),
                               rtol=1e-4, atol=1e-4)
    m1 = 0.1 * mean
    v1 = 0.9 + 0.1 * x1.var(axis=(0, 2, 3), ddof=1)  # unbiased batch variance, as cuDNN / OneFlow GPU
    stats.clear()
    p1 = predict(x2)
    got = dict(stats)
    np.testing.assert_allclose(got["mean"], m1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["var"], v1, rtol=1e-5)
    np.testing.assert_allclose(p1, (x2 - m1.reshape(1, 3, 1, 1)) / np.sqrt(v1.reshape(1, 3, 1, 1) + 1e-3),
                               rtol=1e-4, atol=1e-5)
    stats.clear()
    predict(x2)  # predict jobs never update
    np.testing.assert_allclose(dict(stats)["mean"], m1, rtol=1e-5, atol=1e-6)


def test_batch_norm_names_variables_and_training_outputs():
    x = rng.standard_normal((4, 5)).astype(np.float32)
    seen = []

    def body(a):
        y = flow.layers.batch_normalization(a)
        flow.losses.add_loss(flow.math.reduce_sum(y))
        seen.extend(a.builder.all_blobs[1:])
        return y
    n = next_id() + 1
    make_job(body, [x], job_type="train")(x)
    names = lbns(seen)
    assert names[:4] == [f"BatchNorm_{n}-beta/out", f"BatchNorm_{n}-gamma/out", f"BatchNorm_{n}-moving_mean/out",
                         f"BatchNorm_{n}-moving_variance/out"]
    assert names[4:7] == [f"BatchNorm_{n}/y_0", f"BatchNorm_{n}/mean_0", f"BatchNorm_{n}/inv_variance_0"]
    assert all(b.shape == (5,) for b in seen[:4])


def test_batch_norm_gradients_and_relu_variants():
    x = rng.standard_normal((6, 3)).astype(np.float32)

    def ref(a):
        return (a - a.mean(0)) / np.sqrt(a.var(0) + 1e-3)
    check_op(lambda a: flow.layers.batch_normalization(a, name="bn1"), ref, x, rtol=1e-4, atol=1e-4,
             grad_rtol=5e-3, grad_atol=5e-4)
    flow.clear_default_session()
    check_op(lambda a: flow.layers.batch_normalization_relu(a, name="bn2"), lambda a: np.maximum(ref(a), 0), x,
             rtol=1e-4, atol=1e-4, grad_rtol=5e-3, grad_atol=5e-4)
    # predict jobs normalise with the moving statistics (initially 0 and 1)
    add = rng.standard_normal((6, 3)).astype(np.float32)
    check_op(lambda a, b: flow.layers.batch_normalization_add_relu(a, b, name="bn3"),
             lambda a, b: np.maximum(a / np.sqrt(1 + 1e-3) + b, 0), x, add, rtol=1e-4, atol=1e-4, grad=False)


def test_batch_norm_without_center_scale_and_not_training():
    x = rng.standard_normal((4, 3)).astype(np.float32)
    seen = []

    def body(a):
        y = flow.layers.batch_normalization(a, center=False, scale=False, training=False, name="bn")
        flow.losses.add_loss(flow.math.reduce_sum(y))
        seen.extend(a.builder.all_blobs[1:])
        return y
    y = make_job(body, [x], job_type="train")(x)
    np.testing.assert_allclose(y, x / np.sqrt(1 + 1e-3), rtol=1e-5)
    ops = [b.op_name for b in seen]
    assert "bn-beta" not in ops and "bn-moving_mean" in ops
    assert [b.blob_name for b in seen if b.op_name == "bn"] == ["y_0"]


def test_layer_norm_values_names_and_grad():
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)

    def ref(a):
        m = a.mean(axis=(1, 2), keepdims=True)
        v = a.var(axis=(1, 2), keepdims=True)
        return (a - m) / np.sqrt(v + 1e-5)
    check_op(lambda a: flow.layers.layer_norm(a, name="ln"), ref, x, rtol=1e-4, atol=1e-4, grad_rtol=5e-3,
             grad_atol=5e-4)
    flow.clear_default_session()
    seen = []

    def body(a):
        y = flow.layers.layer_norm(a, begin_norm_axis=-1)
        seen.extend(a.builder.all_blobs[1:])
        return y
    n = next_id() + 1
    make_job(body, [x])(x)
    assert lbns(seen) == [f"LayerNorm_{n}-beta/out", f"LayerNorm_{n}-gamma/out", f"LayerNorm_{n}/y_0",
                          f"LayerNorm_{n}/mean_0", f"LayerNorm_{n}/inv_variance_0", f"LayerNorm_{n}/normalized_0"]
    assert seen[0].shape == (4,) and seen[3].shape == (2, 3)


def test_prelu():
    x = rng.standard_normal((3, 2, 4)).astype(np.float32)
    alpha = np.array([[0.1], [0.3]], np.float32)

    class Fixed:
        def make(self, shape, dtype, *args, **kwargs):
            import torch
            return torch.tensor(alpha, dtype=dtype)
    check_op(lambda a: flow.layers.prelu(a, alpha_initializer=Fixed(), shared_axes=[2], name="pr"),
             lambda a: np.where(a > 0, a, a * alpha), x)
    flow.clear_default_session()
    seen = []

    def body(a):
        y = flow.layers.prelu(a)
        seen.extend(a.builder.all_blobs[1:])
        return y
    n = next_id() + 1
    y = make_job(body, [x])(x)
    np.testing.assert_allclose(y, np.maximum(x, 0))  # default alpha 0
    assert lbns(seen) == [f"PRelu_{n}-alpha/out", f"PRelu_{n}/y_0"] and seen[0].shape == (2, 4)


def test_upsample_2d_nearest_bilinear_nhwc():
    x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    y = run(lambda a: flow.layers.upsample_2d(a, size=(2, 3)), x)
    np.testing.assert_array_equal(y, x.repeat(2, axis=2).repeat(3, axis=3))
    yb = run(lambda a: flow.layers.upsample_2d(a, interpolation="bilinear"), x)

    def bilinear_1d(v, axis):  # half-pixel centres, edge-clamped (OneFlow's upsample kernel)
        n = v.shape[axis]
        src = np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, None)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        frac = src - lo
        a, b = np.take(v, lo, axis), np.take(v, hi, axis)
        shape = [1] * v.ndim
        shape[axis] = -1
        return a + (b - a) * frac.reshape(shape)
    np.testing.assert_allclose(yb, bilinear_1d(bilinear_1d(x.astype(np.float64), 2), 3), rtol=1e-5, atol=1e-6)
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    yh = run(lambda a: flow.layers.upsample_2d(a, 2, data_format="NHWC"), xh)
    np.testing.assert_array_equal(yh, xh.repeat(2, axis=1).repeat(2, axis=2))
    with expect_error(ValueError, match=r"flow.layers.upsample_2d: argument 'interpolation' must be one of "
                                        r"'nearest', 'bilinear'; received 'cubic'"):
        run(lambda a: flow.layers.upsample_2d(a, interpolation="cubic"), x)


def test_layer_returns_are_numpy_annotated():
    x = np.ones((2, 2), np.float32)
    job = make_job(lambda a: flow.layers.layer_norm(a, name="l"), [x], ret=tp.Numpy)
    assert job(x).shape == (2, 2)
