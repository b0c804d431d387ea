"""``flow.quantization.*`` (OneFlow v0.3.4 ``python/ops/quantize_ops.py``) against numpy references written
from OneFlow's CPU kernels (``user/kernels/{min_max_observer,fake_quantization,
moving_average_min_max_observer}_kernel.cpp``, and v0.4.0's for the ``"cambricon"`` formula)."""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np
import pytest
from helpers.ops import expect_error, forward_and_grad, make_job, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import ArgumentError

randn = randn_from(np.random.default_rng(2021))
Pair = Tuple[tp.Numpy, tp.Numpy]


# --- numpy references ------------------------------------------------------------------------------------
def np_round_half_away(v: np.ndarray) -> np.ndarray:
    """C's round (halves away from zero), exact for float32 values: |v| + 0.5 is exact in float64."""
    return np.copysign(np.floor(np.abs(v.astype(np.float64)) + 0.5), v).astype(v.dtype)


def np_observer(x: np.ndarray, bit: int, scheme: str, per_layer: bool = True,
                formula: str = "google") -> tuple[np.ndarray, np.ndarray]:
    rows = x.reshape(1, -1) if per_layer else x.reshape(x.shape[0], -1)
    scales, zero_points = [], []
    for row in rows:  # in the data's dtype, as the kernel computes in T
        hi, lo = row.max(), row.min()
        if formula == "cambricon":
            scales.append(np.floor(np.log2(max(abs(hi), abs(lo)))) - (bit - 2))
            zero_points.append(0)
        elif scheme == "symmetric":
            scales.append(max(abs(hi), abs(lo)) / x.dtype.type(2 ** (bit - 1) - 1))
            zero_points.append(0)
        else:
            scale = (hi - lo) / x.dtype.type(2 ** bit - 1)
            scales.append(scale)
            zero_points.append(-lo / scale)
    return np.array(scales, x.dtype), np.array(zero_points, x.dtype)


def np_fake_quant(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, bit: int, scheme: str,
                  formula: str = "google") -> np.ndarray:
    if formula == "cambricon":
        step = x.dtype.type(2.0 ** int(scale.reshape(-1)[0]))
        upper = 2 ** (bit - 1) - 1
        return np.clip(np.round(x / step), -upper - 1, upper) * step  # np.round: halves to even (nearbyint)
    shape = (-1,) + (1,) * (x.ndim - 1)
    s, z = (scale.reshape(shape), zero_point.reshape(shape)) if scale.size > 1 else (scale[0], zero_point[0])
    if scheme == "symmetric":
        upper = 2 ** (bit - 1) - 1
        return np.clip(np_round_half_away(x / s), -upper, upper) * s
    return (np.clip(np_round_half_away(x / s + z), 0, 2 ** bit - 1) - z) * s


class NpMovingObserver:
    """The moving-average observer's state and update, as the kernel keeps them (float32 momentum)."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype
        self.moving_max = dtype(0)
        self.moving_min = dtype(0)

    def step(self, x: np.ndarray, bit: int, scheme: str, momentum: float, update: bool = True,
             formula: str = "google") -> tuple[np.ndarray, np.ndarray]:
        t = self.dtype
        m = t(np.float32(momentum))
        rest = t(np.float32(1) - np.float32(momentum))
        if update:
            symmetric = scheme == "symmetric" or formula == "cambricon"
            hi = max(abs(x.max()), abs(x.min())) if symmetric else x.max()
            self.moving_max = hi if self.moving_max == 0 else t(self.moving_max * m + hi * rest)
            if symmetric:
                self.moving_min = self.moving_max
            else:
                lo = x.min()
                self.moving_min = lo if self.moving_min == 0 else t(self.moving_min * m + lo * rest)
        if formula == "cambricon":
            return np.array([np.floor(np.log2(self.moving_max)) - (bit - 2)], t), np.zeros(1, t)
        if scheme == "symmetric":
            return np.array([self.moving_max / t(2 ** (bit - 1) - 1)], t), np.zeros(1, t)
        scale = (self.moving_max - self.moving_min) / t(2 ** bit - 1)
        return np.array([scale], t), np.array([-self.moving_min / scale], t)


def _flow_dtype(dtype: Any) -> Any:
    return flow.float32 if dtype == np.float32 else flow.float64


# --- min_max_observer ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bit", [8, 2])
@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_min_max_observer_matches_the_kernel_math(dtype: Any, bit: int, scheme: str, per_layer: bool) -> None:
    x = randn(5, 3, 4, dtype=dtype)
    got = run(lambda b: flow.quantization.min_max_observer(b, bit, scheme, per_layer), x, ret=Pair)
    want = np_observer(x, bit, scheme, per_layer)
    for g, w in zip(got, want):
        assert g.dtype == dtype and g.shape == ((1,) if per_layer else (5,))
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)


def test_min_max_observer_names_and_keyword_arguments() -> None:
    names: list[str] = []

    def body(b: Any) -> Any:
        s, z = flow.quantization.min_max_observer(b)
        named = flow.quantization.min_max_observer(b, quantization_bit=4, quantization_scheme="affine",
                                                   per_layer_quantization=False, name="obs")
        names.extend([s.logical_blob_name, z.logical_blob_name, named[0].logical_blob_name])
        return named
    x = randn(3, 6)
    got = run(body, x, ret=Pair)
    assert names[0].startswith("MinMaxObserver_") and names[0].endswith("/scale_0")
    assert names[1].endswith("/zero_point_0") and names[2] == "obs/scale_0"
    for g, w in zip(got, np_observer(x, 4, "affine", per_layer=False)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


# --- fake_quantization -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bit", [8, 3])
@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
@pytest.mark.parametrize("per_layer", [True, False])
def test_fake_quantization_after_the_observer(dtype: Any, bit: int, scheme: str, per_layer: bool) -> None:
    x = randn(4, 3, 5, dtype=dtype)

    def body(b: Any) -> Any:
        s, z = flow.quantization.min_max_observer(b, bit, scheme, per_layer)
        return flow.quantization.fake_quantization(b, s, z, bit, scheme)
    got = run(body, x)
    scale, zero_point = np_observer(x, bit, scheme, per_layer)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, np_fake_quant(x, scale, zero_point, bit, scheme), rtol=1e-6, atol=1e-7)
    # at most 2^bit levels per channel (fewer when rounding clamps)
    for row in got.reshape(1 if per_layer else 4, -1):
        assert len(np.unique(row)) <= 2 ** bit


def test_fake_quantization_rounds_halves_away_from_zero_and_clamps() -> None:
    # x / 0.5 lands exactly on halves: std::round gives 1, -1, 2, -2, 3; round-to-even would give 0, 0, 2, -2, 2
    x = np.array([0.25, -0.25, 0.75, -0.75, 1.25, 7.0, -7.0], np.float32)
    scale, zero = np.array([0.5], np.float32), np.array([0.0], np.float32)
    sym = run(lambda b, s, z: flow.quantization.fake_quantization(b, s, z, 3, "symmetric"), x, scale, zero)
    np.testing.assert_array_equal(sym, [0.5, -0.5, 1.0, -1.0, 1.5, 1.5, -1.5])  # levels -3..3 (not -4)
    zp = np.array([1.0], np.float32)  # affine: (clamp(round(x / s + 1), 0, 7) - 1) * s, halves at 0.5 and 2.5
    aff = run(lambda b, s, z: flow.quantization.fake_quantization(b, s, z, 3, "affine"), x, scale, zp)
    np.testing.assert_array_equal(aff, np_fake_quant(x, scale, zp, 3, "affine"))
    np.testing.assert_array_equal(aff, [0.5, 0.0, 1.0, -0.5, 1.5, 3.0, -0.5])


def test_fake_quantization_gradient_passes_straight_through() -> None:
    # OneFlow's grad op is an identity of the output's gradient, clamped or not; scale and zero point
    # (computed from the same input) take none, so nothing reaches the input through them either
    x = randn(4, 6) * 3.0
    for scheme in ("symmetric", "affine"):
        def fq(b: Any, scheme: str = scheme) -> Any:
            s, z = flow.quantization.min_max_observer(b, 2, scheme, False)
            return flow.quantization.fake_quantization(b, s, z, 2, scheme)
        y, grad, w = forward_and_grad(fq, x)
        scale, zero_point = np_observer(x, 2, scheme, per_layer=False)
        np.testing.assert_allclose(y, np_fake_quant(x, scale, zero_point, 2, scheme), rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(grad, w)
        flow.clear_default_session()
    # fed scales small enough that most values clamp: their gradient still passes (torch's fake_quantize_*
    # would zero it there)
    scale, zero_point = np.array([0.1], np.float32), np.array([3.0], np.float32)
    y, grad, w = forward_and_grad(lambda b, s, z: flow.quantization.fake_quantization(b, s, z, 3, "affine"),
                                  x, scale, zero_point)
    want = np_fake_quant(x, scale, zero_point, 3, "affine")
    assert np.mean(np.abs(want - x) > 0.1) > 0.5  # mostly clamped
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(grad, w)


def test_quantization_aware_training_updates_weights_with_the_straight_through_gradient() -> None:
    # a fake-quantized weight in a train job: watch_diff of the weight's input and the SGD step both see the
    # loss's gradient unchanged (reduce_mean: 1/n each)
    x = randn(3, 4)
    init = randn(3, 4)
    diffs: list[np.ndarray] = []

    def body(b: Any) -> Any:
        w = flow.get_variable("w", shape=(3, 4), initializer=flow.constant_initializer(0.0))
        wq_in = w + b
        flow.watch_diff(wq_in, lambda g: diffs.append(np.array(g)))
        s, z = flow.quantization.min_max_observer(wq_in, 4, "symmetric", False)
        out = flow.quantization.fake_quantization(wq_in, s, z, 4, "symmetric")
        loss = flow.math.reduce_mean(out)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.5]), momentum=0).minimize(loss)
        return out
    job = make_job(body, [x], job_type="train")
    flow.load_variables({"w": init})
    out = job(x)
    scale, zero_point = np_observer(init + x, 4, "symmetric", per_layer=False)
    np.testing.assert_allclose(out, np_fake_quant(init + x, scale, zero_point, 4, "symmetric"), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(diffs[0], np.full((3, 4), 1 / 12, np.float32), rtol=1e-6)
    np.testing.assert_allclose(flow.get_all_variables()["w"].numpy(), init - 0.5 / 12, rtol=1e-6, atol=1e-7)


# --- moving_average_min_maxObserver ----------------------------------------------------------------------
def _observer_train_job(shape: tuple[int, ...], dtype: Any, bit: int, scheme: str, momentum: float,
                        name: str | None = "obs", formula: str = "google") -> Any:
    def body(b: Any) -> Any:
        v = flow.get_variable("v", shape=shape, dtype=_flow_dtype(dtype), initializer=flow.zeros_initializer())
        kw = {} if formula == "google" else {"quantization_formula": formula}
        s, z = flow.quantization.moving_average_min_maxObserver(b, bit, scheme, momentum, name=name, **kw)
        loss = flow.math.reduce_mean(b + v)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return s, z
    return make_job(body, [np.zeros(shape, dtype)], job_type="train", ret=Pair, name="observe_train")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bit", [8, 2])
@pytest.mark.parametrize("scheme", ["symmetric", "affine"])
def test_moving_average_observer_tracks_the_moving_statistics(dtype: Any, bit: int, scheme: str) -> None:
    job = _observer_train_job((6, 5), dtype, bit, scheme, 0.9)
    ref = NpMovingObserver(np.dtype(dtype).type)
    for step in range(6):
        x = (randn(6, 5, dtype=dtype) * (1.0 + step)).astype(dtype)
        scale, zero_point = job(x)
        want_scale, want_zero = ref.step(x, bit, scheme, 0.9)
        assert scale.shape == zero_point.shape == (1,) and scale.dtype == dtype
        np.testing.assert_allclose(scale, want_scale, rtol=1e-6)
        np.testing.assert_allclose(zero_point, want_zero, rtol=1e-5)
    variables = flow.get_all_variables()
    np.testing.assert_allclose(variables["obs-moving_max"].numpy(), [ref.moving_max], rtol=1e-6)
    np.testing.assert_allclose(variables["obs-moving_min"].numpy(), [ref.moving_min], rtol=1e-6)
    np.testing.assert_array_equal(variables["obs-current_train_step"].numpy(), [0])  # nothing advances it
    assert variables["obs-current_train_step"].numpy().dtype == np.int64


def test_moving_average_observer_names_its_op_and_variables_as_oneflow() -> None:
    names: list[str] = []

    def body(b: Any) -> Any:
        s, z = flow.quantization.moving_average_min_maxObserver(b)
        with flow.scope.namespace("block"):
            s2, _ = flow.quantization.moving_average_min_maxObserver(b, name="act")
        names.extend([s.logical_blob_name, z.logical_blob_name, s2.logical_blob_name])
        return s
    run(body, randn(2, 3))
    op = names[0].split("/")[0]
    assert op.startswith("MovingAverageMinMaxObserver_") and names[1] == f"{op}/zero_point_0"
    assert names[2] == "block-act/scale_0"
    assert {f"{op}-moving_max", f"{op}-moving_min", f"{op}-current_train_step", "block-act-moving_max",
            "block-act-current_train_step"} <= set(flow.get_all_variables())


def test_moving_average_observer_only_reads_its_statistics_outside_training() -> None:
    # a predict job shares the train job's variables (same op name) and never updates them
    @flow.global_function(type="predict")
    def observe(x: tp.Numpy.Placeholder((6, 5))) -> Pair:
        return flow.quantization.moving_average_min_maxObserver(x, 8, "affine", 0.9, name="obs")
    train = _observer_train_job((6, 5), np.float32, 8, "affine", 0.9)
    fresh = observe(randn(6, 5))  # nothing observed yet: zero statistics, scale 0 and a 0/0 zero point
    np.testing.assert_array_equal(fresh[0], [0.0])
    assert np.isnan(fresh[1][0])
    ref = NpMovingObserver(np.float32)
    for _ in range(3):
        x = randn(6, 5)
        trained = train(x)
        np.testing.assert_allclose(trained, ref.step(x, 8, "affine", 0.9), rtol=1e-5)
    for _ in range(2):
        got = observe(randn(6, 5) * 100.0)
        np.testing.assert_allclose(got, ref.step(np.zeros(1, np.float32), 8, "affine", 0.9, update=False), rtol=1e-5)
    # the train job goes on from where it was: the predict calls changed nothing
    x = randn(6, 5)
    np.testing.assert_allclose(train(x), ref.step(x, 8, "affine", 0.9), rtol=1e-5)


def test_moving_average_observer_stops_updating_after_its_iteration_count() -> None:
    # the wrapper fixes stop_update_after_iters = 1 and its step variable stays 0; a snapshot value of 2
    # freezes the statistics, 1 lets them move again
    job = _observer_train_job((4, 4), np.float32, 8, "symmetric", 0.5)
    ref = NpMovingObserver(np.float32)
    x = randn(4, 4)
    np.testing.assert_allclose(job(x), ref.step(x, 8, "symmetric", 0.5), rtol=1e-6)
    flow.load_variables({"obs-current_train_step": np.array([2], np.int64)})
    for _ in range(2):
        x = randn(4, 4) * 10.0
        np.testing.assert_allclose(job(x), ref.step(x, 8, "symmetric", 0.5, update=False), rtol=1e-6)
    flow.load_variables({"obs-current_train_step": np.array([1], np.int64)})
    x = randn(4, 4) * 10.0
    np.testing.assert_allclose(job(x), ref.step(x, 8, "symmetric", 0.5), rtol=1e-6)


@pytest.mark.parametrize("step, updates", [(3, True), (4, False)])
def test_moving_average_op_built_directly_compares_the_step_with_its_attr(step: int, updates: bool) -> None:
    # the op type through flow.user_op_builder, with its own stop_update_after_iters (updates while step <= 3)
    def body(b: Any) -> Any:
        zeros = flow.zeros_initializer
        counter = flow.get_variable("counter", shape=(1,), dtype=flow.int64, initializer=zeros(flow.int64),
                                    trainable=False)
        hi = flow.get_variable("hi", shape=(1,), initializer=zeros(), trainable=False)
        lo = flow.get_variable("lo", shape=(1,), initializer=zeros(), trainable=False)
        v = flow.get_variable("v", shape=(5,), initializer=zeros())
        s, z = (flow.user_op_builder("mamo").Op("moving_average_min_max_observer").Input("in", [b])
                .Input("current_train_step", [counter]).Input("moving_max", [hi]).Input("moving_min", [lo])
                .Output("scale").Output("zero_point").Attr("training", True).Attr("stop_update_after_iters", 3)
                .Attr("quantization_scheme", "affine").Attr("momentum", 0.5).Build().InferAndTryRun()
                .RemoteBlobList())
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(
            flow.math.reduce_sum(b + v))
        return s, z
    job = make_job(body, [np.zeros(5, np.float32)], job_type="train", ret=Pair)
    flow.load_variables({"counter": np.array([step], np.int64), "hi": np.array([2.0], np.float32),
                         "lo": np.array([-1.0], np.float32)})
    x = np.array([4.0, 1.0, -3.0, 0.5, 2.0], np.float32)
    ref = NpMovingObserver(np.float32)
    ref.moving_max, ref.moving_min = np.float32(2.0), np.float32(-1.0)
    np.testing.assert_allclose(job(x), ref.step(x, 8, "affine", 0.5, update=updates), rtol=1e-6)
    assert flow.get_all_variables()["hi"].numpy()[0] == (3.0 if updates else 2.0)


# --- the "cambricon" formula (v0.4.0) --------------------------------------------------------------------
@pytest.mark.parametrize("bit", [8, 4])
def test_cambricon_formula_uses_power_of_two_shifts(bit: int) -> None:
    x = randn(5, 7) * 3.0

    def body(b: Any) -> Any:
        s, z = flow.quantization.min_max_observer(b, bit, quantization_formula="cambricon")
        return s, z, flow.quantization.fake_quantization(b, s, z, bit, quantization_formula="cambricon")
    shift, zero, out = run(body, x, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    want_shift, _ = np_observer(x, bit, "symmetric", formula="cambricon")
    np.testing.assert_array_equal(shift, want_shift)
    np.testing.assert_array_equal(zero, [0.0])
    np.testing.assert_allclose(out, np_fake_quant(x, shift, zero, bit, "symmetric", "cambricon"), rtol=1e-6)
    # halves go to even here, and the lower bound is -2^(bit-1)
    halves = np.array([0.5, 1.5, 2.5, -2.5, -100.0], np.float32)
    got = run(lambda b, s, z: flow.quantization.fake_quantization(b, s, z, 3, quantization_formula="cambricon"),
              halves, np.array([0.0], np.float32), np.array([0.0], np.float32))
    np.testing.assert_array_equal(got, [0.0, 2.0, 2.0, -2.0, -4.0])


def test_cambricon_moving_average_observer() -> None:
    job = _observer_train_job((3, 8), np.float32, 8, "affine", 0.8, formula="cambricon")
    ref = NpMovingObserver(np.float32)
    for step in range(4):
        x = randn(3, 8) * (2.0 ** step)
        np.testing.assert_allclose(job(x), ref.step(x, 8, "affine", 0.8, formula="cambricon"), rtol=1e-6)


# --- the op types through flow.user_op_builder, and refusals -----------------------------------------------
def test_user_op_builder_fake_quantization_is_the_wrapper_with_its_gradient() -> None:
    x = randn(3, 5)

    def built(b: Any) -> Any:
        s, z = (flow.user_op_builder("mm").Op("min_max_observer").Input("in", [b]).Output("scale")
                .Output("zero_point").Attr("quantization_scheme", "affine").Build().InferAndTryRun()
                .RemoteBlobList())
        return (flow.user_op_builder("fq").Op("fake_quantization").Input("in", [b]).Input("scale", [s])
                .Input("zero_point", [z]).Output("out").Attr("quantization_scheme", "affine").Build()
                .InferAndTryRun().SoleOutputBlob())
    y, grad, w = forward_and_grad(built, x)
    scale, zero_point = np_observer(x, 8, "affine")
    np.testing.assert_allclose(y, np_fake_quant(x, scale, zero_point, 8, "affine"), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(grad, w)


def test_refusals_name_the_op_and_the_argument() -> None:
    x = randn(4, 3)
    q = flow.quantization

    def body(b: Any, i: Any) -> Any:
        s, z = q.min_max_observer(b)
        with pytest.raises(ArgumentError, match=r"min_max_observer: argument 'quantization_bit' must be an int in"):
            q.min_max_observer(b, 9)
        with pytest.raises(ArgumentError, match="'quantization_scheme' must be one of 'symmetric', 'affine'"):
            q.min_max_observer(b, 8, "asymmetric")
        with pytest.raises(ArgumentError, match="'quantization_formula'"):
            q.fake_quantization(b, s, z, quantization_formula="tflite")
        with pytest.raises(ArgumentError, match="'input' must be a float32 or float64 blob"):
            q.min_max_observer(i)
        with pytest.raises(NotImplementedError, match="per-channel mode is not supported in cambricon"):
            q.min_max_observer(b, per_layer_quantization=False, quantization_formula="cambricon")
        per_channel, _ = q.min_max_observer(b, per_layer_quantization=False)  # 4 scales
        with pytest.raises(ArgumentError, match=r"'zero_point' must be 4 element\(s\), one per index of axis 0"):
            q.fake_quantization(b, per_channel, z)
        with pytest.raises(ArgumentError, match="'momentum' must be a number"):
            q.moving_average_min_maxObserver(b, momentum="fast")
        with pytest.raises(ArgumentError, match=r"'mm'.*attr 'quantization_bit' must be an int in \[2, 8\]"):
            (flow.user_op_builder("mm").Op("min_max_observer").Input("in", [b]).Output("scale")
             .Output("zero_point").Attr("quantization_bit", 1).Build())
        return s
    run(body, x, np.zeros((4, 3), np.int32))
    with pytest.raises(RuntimeError, match="inside a @flow.global_function"):
        q.min_max_observer(None)
    with expect_error(ArgumentError, match="moving_max.*variable"):
        def direct(b: Any) -> Any:  # the moving statistics must be variables (they are updated in place)
            step = flow.get_variable("step", shape=(1,), dtype=flow.int64, initializer=flow.zeros_initializer(
                flow.int64), trainable=False)
            stat = flow.constant(0.0, shape=(1,))
            return (flow.user_op_builder("m").Op("moving_average_min_max_observer").Input("in", [b])
                    .Input("current_train_step", [step]).Input("moving_max", [stat]).Input("moving_min", [stat])
                    .Output("scale").Output("zero_point").Attr("training", True)
                    .Attr("stop_update_after_iters", 1).Build().InferAndTryRun().RemoteBlobList()[0])
        run(direct, x)


def test_moving_statistics_survive_a_replayed_cuda_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    # the update is branch-free and in place, so a captured step (emulated without CUDA) replays it
    from flowtorch._src.step import graphed
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    monkeypatch.setenv("FLOWTORCH_CAPTURE", "cuda_graph")
    flow.clear_default_session()
    job = _observer_train_job((4, 6), np.float32, 8, "affine", 0.75)
    ref = NpMovingObserver(np.float32)
    for step in range(7):  # warm-up calls, the capture, then replays
        x = randn(4, 6) * (1.0 + step)
        np.testing.assert_allclose(job(x), ref.step(x, 8, "affine", 0.75), rtol=1e-5)
    np.testing.assert_allclose(flow.get_all_variables()["obs-moving_min"].numpy(), [ref.moving_min], rtol=1e-6)
