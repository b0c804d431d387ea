"""Initializers: statistics, fans, seeds, and the exact numbers of OneFlow's model IO v2."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from flowtorch._src import dtypes
from flowtorch._src import initializers as I
from flowtorch._src.errors import ArgumentError

SAMPLES = (100_000,)


def sample(init: I.Initializer, shape=SAMPLES, seed: int = 0) -> np.ndarray:
    return init.make(shape, torch.float32, seed=seed).numpy()


def f32(x: float) -> float:
    return float(np.float32(x))


# ------------------------------------------------------------------------------------ statistics
def test_random_uniform_statistics():
    x = sample(I.random_uniform_initializer(-2.0, 3.0))
    assert x.dtype == np.float32 and x.min() >= -2.0 and x.max() <= 3.0
    assert x.mean() == pytest.approx(0.5, abs=0.03)
    assert x.std() == pytest.approx(5 / math.sqrt(12), rel=0.02)


def test_random_normal_statistics():
    x = sample(I.random_normal_initializer(mean=1.0, stddev=2.0))
    assert x.mean() == pytest.approx(1.0, abs=0.03)
    assert x.std() == pytest.approx(2.0, rel=0.02)


def test_truncated_normal_stays_within_two_sigma():
    x = sample(I.truncated_normal_initializer(mean=0.5, stddev=2.0))
    assert np.all(np.abs(x - 0.5) < 4.0)
    assert x.mean() == pytest.approx(0.5, abs=0.03)
    assert x.std() == pytest.approx(0.8796 * 2.0, rel=0.02)
    y = sample(I.truncated_normal(0.1))
    assert np.all(np.abs(y) < 0.2) and y.std() == pytest.approx(0.088, rel=0.02)


def test_xavier_uniform_dense_bounds_from_fans():
    init = I.xavier_uniform_initializer()
    shape = (300, 200)  # dense weight (units, in): fan_in 200, fan_out 300
    bound = math.sqrt(6.0 / (200 + 300))
    x = sample(init, shape)
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.99 * bound
    assert x.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    assert I.glorot_uniform_initializer is I.xavier_uniform_initializer


def test_xavier_conv_fans_follow_oneflow_model_io_v2():
    # OneFlow's IO-v2 GenInitialFan never takes its channels-first branch:
    # NCHW (out, in, kh, kw) -> fan_in = in*kh*kw, fan_out = out * in * kh.
    nchw = I.xavier_uniform_initializer("NCHW")
    assert nchw.fan((64, 32, 3, 3)) == (288 + 64 * 32 * 3) / 2
    nhwc = I.xavier_uniform_initializer("NHWC")
    assert nhwc.fan((64, 3, 3, 32)) == (288 + 64 * 3 * 3) / 2
    x = sample(nchw, (64, 32, 3, 3))
    bound = math.sqrt(6.0 / (288 + 6144))
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.98 * bound


def test_xavier_normal_std():
    x = sample(I.xavier_normal_initializer(), (400, 600))
    assert x.std() == pytest.approx(math.sqrt(2.0 / 1000), rel=0.02)


def test_variance_scaling_truncated_normal_hits_target_std():
    x = sample(I.variance_scaling_initializer(2.0, "fan_in", "truncated_normal"), (100, 400))
    assert x.std() == pytest.approx(math.sqrt(2.0 / 400), rel=0.03)
    assert np.abs(x).max() < 2 * math.sqrt(2.0 / 400) / 0.87962566103423978


def test_variance_scaling_fan_out_uniform():
    x = sample(I.variance_scaling_initializer(3.0, "fan_out", "random_uniform"), (250, 400))
    limit = math.sqrt(3.0 * 3.0 / 250)
    assert np.abs(x).max() <= limit and np.abs(x).max() > 0.99 * limit


@pytest.mark.parametrize(
    ("kwargs", "shape", "fan"),
    [
        ({}, (64, 32, 3, 3), 288),
        ({"mode": "fan_out"}, (64, 32, 3, 3), 64 * 9),
        ({"mode": "fan_out", "data_format": "NHWC"}, (64, 3, 3, 32), 64 * 9),
        ({"mode": "fan_avg"}, (100, 50), 75),
    ],
)
def test_kaiming_normal_std(kwargs, shape, fan):
    init = I.kaiming_initializer(shape, **kwargs)
    assert isinstance(init, I.RandomNormalInitializer)
    assert init.stddev == pytest.approx(f32(math.sqrt(2.0 / fan)))
    x = sample(init, shape)
    assert x.std() == pytest.approx(math.sqrt(2.0 / fan), rel=0.05)


def test_kaiming_uniform_bound_and_gains():
    init = I.kaiming_initializer((100, 50), distribution="random_uniform", nonlinearity="tanh")
    assert isinstance(init, I.RandomUniformInitializer)
    bound = math.sqrt(3.0) * (5.0 / 3) / math.sqrt(50)
    assert init.maxval == pytest.approx(f32(bound)) and init.minval == pytest.approx(f32(-bound))
    leaky = I.kaiming_initializer((100, 50), negative_slope=1.0)
    assert isinstance(leaky, I.RandomNormalInitializer)
    assert leaky.stddev == pytest.approx(f32(1.0 / math.sqrt(50)))


def test_int_uniform_excludes_maxval():
    x = I.random_uniform_initializer(0, 5, dtype=dtypes.int32).make((10_000,), torch.int32, seed=1)
    assert x.dtype == torch.int32 and set(x.unique().tolist()) == {0, 1, 2, 3, 4}


# ---------------------------------------------------------------------------------- constants
def test_constant_zeros_ones_and_int_dtypes():
    assert I.constant_initializer(2.5).make((2, 3), torch.float32).tolist() == [[2.5] * 3] * 2
    assert I.zeros_initializer().make((2,), torch.float64).tolist() == [0.0, 0.0]
    assert I.ones_initializer().make((3,), dtypes.float32).tolist() == [1.0] * 3
    ints = I.constant_initializer(3, dtype=dtypes.int32).make((2,), torch.int32)
    assert ints.dtype == torch.int32 and ints.tolist() == [3, 3]
    assert repr(I.constant_initializer(3, dtype=dtypes.int32)) == "constant_initializer(value=3, dtype=flow.int32)"
    assert repr(I.zeros_initializer()) == "zeros_initializer()"
    with pytest.raises(NotImplementedError, match="float16"):
        I.constant_initializer(1.0, dtype=dtypes.float16)


def test_empty_initializer_has_shape_and_dtype():
    x = I.empty_initializer().make((4, 5), torch.float64)
    assert x.shape == (4, 5) and x.dtype == torch.float64


# --------------------------------------------------------------------------------------- seeds
def test_seeds_make_values_repeatable():
    init = I.random_normal_initializer()
    assert torch.equal(init.make((50,), seed=7), init.make((50,), seed=7))
    assert not torch.equal(init.make((50,), seed=7), init.make((50,), seed=8))
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    assert torch.equal(init.make((50,), generator=g1), init.make((50,), generator=g2))
    torch.manual_seed(11)
    a = init.make((50,))
    torch.manual_seed(11)
    assert torch.equal(a, init.make((50,)))
    seeded = I.random_normal_initializer(seed=5)
    assert torch.equal(seeded.make((20,)), seeded.make((20,)))


def _oneflow_truncated(rng, mean, std, length):
    """OneFlow's RngTruncatedNormal (model IO v2) restated with a python list."""
    data: list[float] = []
    while len(data) < length:
        data.extend(v for v in rng.normal(mean, std, size=length - len(data)) if abs(v - mean) < 2 * std)
    return np.array(data)


def _uniform_stream(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(f32(-0.1), np.nextafter(f32(0.1), np.inf), size=n)


@pytest.mark.parametrize(
    ("init", "seed", "oneflow_values"),
    [
        (I.random_normal_initializer(0.5, 0.1), 42, lambda n: np.random.default_rng(42).normal(f32(0.5), f32(0.1), n)),
        (I.random_uniform_initializer(-0.1, 0.1), 3, lambda n: _uniform_stream(3, n)),
        (I.truncated_normal(0.2), 9, lambda n: _oneflow_truncated(np.random.default_rng(9), 0.0, f32(0.2), n)),
        # xavier on a (5, 7) dense weight: limit sqrt(3 / fan_avg) with fan_avg = (7 + 5) / 2
        (I.xavier_uniform_initializer(), 1, lambda n: np.random.default_rng(1).uniform(-(0.5**0.5), 0.5**0.5, n)),
    ],
)
def test_seeded_values_equal_oneflow_model_io_v2_stream(init, seed, oneflow_values):
    got = init.make((5, 7), torch.float32, seed=seed).numpy()
    np.testing.assert_array_equal(got, oneflow_values(35).astype(np.float32).reshape(5, 7))


def test_slices_follow_oneflow_model_io():
    assert I._slice_lengths((2, 3), 4) == [6]
    assert I._slice_lengths((10_000_000,), 4) == [8_388_608, 1_611_392]
    assert I._slice_lengths((3, 5_000_000), 4) == [5_000_000] * 3
    assert I._slice_lengths((), 4) == [1]
    assert I._slice_lengths((0, 3), 4) == []


def test_large_truncated_variable_is_drawn_slice_by_slice():
    # float64: 32 MiB slices of 4_194_304 values; each slice restarts OneFlow's redraw loop
    n = 4_500_000
    got = I.truncated_normal(1.0).make((n,), torch.float64, seed=5).numpy()
    rng = np.random.default_rng(5)
    want = np.concatenate(
        [_oneflow_truncated(rng, 0.0, 1.0, 4_194_304), _oneflow_truncated(rng, 0.0, 1.0, n - 4_194_304)]
    )
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------------------------- confs
def test_initializer_from_conf():
    assert I.initializer_from_conf({"constant_conf": {"value": 0}}).make((2,)).tolist() == [0.0, 0.0]
    tn = I.initializer_from_conf({"truncated_normal_conf": {}})
    assert isinstance(tn, I.TruncatedNormalInitializer)
    assert tn.stddev == f32(0.05)  # the proto default
    vs = I.initializer_from_conf(
        {
            "variance_scaling_conf": {
                "scale": 2.0,
                "variance_norm": "kFanOut",
                "distribution": 1,
                "data_format": "channels_first",
            }
        }
    )
    assert isinstance(vs, I.VarianceScalingInitializer)
    assert (vs.mode, vs.distribution, vs.data_format) == ("fan_out", "random_normal", "channels_first")
    init = I.zeros_initializer()
    assert I.initializer_from_conf(init) is init
    with pytest.raises(ArgumentError, match="xavier_conf"):
        I.initializer_from_conf({"xavier_conf": {}})


def test_reprs():
    assert repr(I.random_normal_initializer()) == "random_normal_initializer(mean=0.0, stddev=1.0)"
    assert repr(I.xavier_uniform_initializer("NCHW")) == "xavier_uniform_initializer(data_format='NCHW')"
    assert "truncated_normal" in repr(I.variance_scaling_initializer())


# ---------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: I.truncated_normal(0.0), "stddev"),
        (lambda: I.random_normal_initializer(stddev=-1.0), "stddev"),
        (lambda: I.variance_scaling_initializer(mode="fan_x"), "mode"),
        (lambda: I.variance_scaling_initializer(distribution="cauchy"), "distribution"),
        (lambda: I.xavier_uniform_initializer("CHW"), "data_format"),
        (lambda: I.kaiming_initializer((5,)), "shape"),
        (lambda: I.kaiming_initializer((5, 5), nonlinearity="gelu"), "nonlinearity"),
        (lambda: I.kaiming_initializer((5, 5, 3, 3), data_format="NCDHW"), "data_format"),
        (lambda: I.variance_scaling_initializer().make((), seed=0), "scalar"),
    ],
)
def test_bad_arguments(make, match):
    with pytest.raises(ArgumentError, match=match):
        make()


def test_uniform_with_minval_above_maxval_gives_zeros_and_warns_once(caplog, monkeypatch):
    """OneFlow v0.1.2 accepted ``random_uniform_initializer(2)`` (maxval 1) and never drew from it (its kernel
    checks min <= max, and only ``check_point.init()`` ran it): the variable starts at zeros, with one warning."""
    monkeypatch.setattr(I, "_warned_reversed_range", False)
    with caplog.at_level("WARNING", logger="flowtorch"):
        init = I.random_uniform_initializer(2)
        I.random_uniform_initializer(5, 3, dtype=dtypes.int32)
    assert [r.getMessage() for r in caplog.records] == [
        "random_uniform_initializer(minval=2, maxval=1): minval > maxval draws nothing in OneFlow (its kernel "
        "checks min <= max); the variable starts at zeros"]
    np.testing.assert_array_equal(init.make((2, 3), torch.float32, seed=0).numpy(), np.zeros((2, 3), np.float32))
    ints = I.random_uniform_initializer(5, 3, dtype=dtypes.int32).make((4,), torch.int32, seed=1)
    assert ints.dtype == torch.int32 and ints.tolist() == [0, 0, 0, 0]
    # equal bounds still draw: every value is the bound
    np.testing.assert_array_equal(sample(I.random_uniform_initializer(1.5, 1.5), (5,)), np.full(5, 1.5, np.float32))
