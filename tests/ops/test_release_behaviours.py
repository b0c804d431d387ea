"""``FLOWTORCH_ONEFLOW_VERSION``: the release a program was written for, where OneFlow's releases behaved
differently (docs/releases.md). Each behaviour is tested both ways against a numpy reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import modes, releases
from flowtorch._src.errors import ArgumentError

ENV = "FLOWTORCH_ONEFLOW_VERSION"
rng = np.random.default_rng(37)


# --- the variable ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "version"), [
    ("0.2", (0, 2, 0)), ("0.3.4", (0, 3, 4)), ("v0.4.0", (0, 4, 0)), (" 0.1.11 ", (0, 1, 11)), ("0.1", (0, 1, 0)),
    ("auto", None), ("AUTO", None), ("", None)])
def test_a_release_is_major_minor_and_an_optional_patch(text: str, version: Any) -> None:
    assert releases.parse(text) == version


@pytest.mark.parametrize("text", ["0.9", "1.0", "0.0.9", "0.4.1", "0.2.x", "two", "0.3.4.1", "latest"])
def test_anything_else_is_refused_naming_the_variable_the_forms_and_the_value(text: str) -> None:
    with pytest.raises(ValueError) as info:
        releases.parse(text)
    message = str(info.value)
    assert ENV in message and "0.1.0 to 0.4.0" in message and repr(text) in message


def test_the_selected_release_is_read_on_each_question(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert releases.selected() is None and not releases.before((0, 4, 0))
    assert not releases.selected_at_least((0, 1, 0))  # the default is no release: flowtorch's own choices
    monkeypatch.setenv(ENV, "0.3")
    assert releases.selected() == (0, 3, 0)
    assert releases.before((0, 3, 1)) and not releases.before((0, 3, 0))
    assert releases.selected_at_least((0, 3, 0)) and not releases.selected_at_least((0, 3, 1))
    assert releases.describe() == "OneFlow 0.3.0"
    monkeypatch.setenv(ENV, "0.1.2")
    assert modes.oneflow_v01()  # every 0.1.x reads image sizes as v0.1.2's kernels did
    monkeypatch.setenv(ENV, "0.2")
    assert not modes.oneflow_v01()
    monkeypatch.setenv(ENV, "0.25")
    with pytest.raises(ValueError, match=ENV):
        releases.selected()


# --- conv2d_transpose: output_shape's channel ------------------------------------------------------------------
def _deconv_reference(x: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """A VALID transposed convolution, NCHW, filter (in, out, kh, kw): each input pixel scatters its filter."""
    n, _, h, wd = x.shape
    _, out_ch, kh, kw = w.shape
    out = np.zeros((n, out_ch, (h - 1) * stride + kh, (wd - 1) * stride + kw), np.float64)
    for i in range(h):
        for j in range(wd):
            patch = np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
            out[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += patch
    return out


def _deconv_job(out_channels: int, shapes: list[tuple[int, ...]] | None = None) -> Any:
    """A job of one conv2d_transpose whose output_shape asks for ``out_channels``; ``shapes`` gets its blob's shape."""
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 4, 3, 3)), w: tp.Numpy.Placeholder((4, 3, 2, 2), batch_axis=None)
            ) -> tp.Numpy:
        y = flow.nn.conv2d_transpose(x, w, output_shape=(2, out_channels, 6, 6), strides=2, padding="VALID")
        if shapes is not None:
            shapes.append(y.shape)
        return y
    return job


def test_conv2d_transpose_refuses_an_output_channel_that_is_not_the_filter_s_by_default(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    x, w = rng.standard_normal((2, 4, 3, 3)).astype(np.float32), rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    with pytest.raises(ArgumentError, match="filter"):
        _deconv_job(8)(x, w)
    flow.clear_default_session()
    monkeypatch.setenv(ENV, "0.3.4")  # v0.3.1 on asserted the channel
    with pytest.raises(ArgumentError, match="filter"):
        _deconv_job(8)(x, w)


@pytest.mark.parametrize("version", ["0.2", "0.1", "0.3.0"])
def test_before_0_3_1_the_filter_s_channel_wins_over_output_shape_s(monkeypatch: pytest.MonkeyPatch,
                                                                  version: str) -> None:
    monkeypatch.setenv(ENV, version)
    x, w = rng.standard_normal((2, 4, 3, 3)).astype(np.float32), rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    shapes: list[tuple[int, ...]] = []
    got = _deconv_job(8, shapes)(x, w)  # output_shape says 8 channels; the filter makes 3
    assert shapes == [(2, 3, 6, 6)] and got.shape == (2, 3, 6, 6)
    np.testing.assert_allclose(got, _deconv_reference(x, w, 2), rtol=1e-4, atol=1e-5)


def test_a_matching_output_channel_gives_the_same_values_under_every_release(monkeypatch: pytest.MonkeyPatch) -> None:
    x, w = rng.standard_normal((2, 4, 3, 3)).astype(np.float32), rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    for version in ("", "0.2", "0.4.0"):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        np.testing.assert_allclose(_deconv_job(3)(x, w), _deconv_reference(x, w, 2), rtol=1e-4, atol=1e-5)


# --- softmax over axis 0 ----------------------------------------------------------------------------------------
def _softmax_job() -> Any:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3, 4))) -> tp.Numpy:
        return flow.nn.softmax(x, axis=0)
    return job


def test_softmax_over_axis_0_from_0_3_3_and_refused_before(monkeypatch: pytest.MonkeyPatch) -> None:
    x = rng.standard_normal((3, 4)).astype(np.float32)
    e = np.exp(x - x.max(axis=0, keepdims=True))
    for version in ("", "0.3.3", "0.4.0"):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        np.testing.assert_allclose(_softmax_job()(x), e / e.sum(axis=0, keepdims=True), rtol=1e-5)
    for version in ("0.2", "0.3.2"):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        with pytest.raises(ArgumentError, match=r"axis >= 1.*0\.3\.3"):
            _softmax_job()(x)


# --- matmul of different ranks -----------------------------------------------------------------------------------
def _matmul_job() -> Any:
    @flow.global_function()
    def job(a: tp.Numpy.Placeholder((2, 3, 4)), b: tp.Numpy.Placeholder((4, 5), batch_axis=None)) -> tp.Numpy:
        return flow.matmul(a, b)
    return job


def test_matmul_broadcasts_a_2d_b_from_0_4_0_and_refuses_it_before(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    reference = np.einsum("bik,kj->bij", a.astype(np.float64), b)
    for version in ("", "0.4"):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        np.testing.assert_allclose(_matmul_job()(a, b), reference, rtol=1e-5, atol=1e-5)
    monkeypatch.setenv(ENV, "0.3.4")
    flow.clear_default_session()
    with pytest.raises(ArgumentError, match=r"differ in rank.*OneFlow 0\.3\.4"):  # (an AssertionError too)
        _matmul_job()(a, b)


# --- identity_n of one blob -------------------------------------------------------------------------------------
def _identity_n_job() -> Any:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        (y,) = flow.identity_n([x])
        return y
    return job


def test_identity_n_of_one_blob_from_0_3_1_and_refused_before(monkeypatch: pytest.MonkeyPatch) -> None:
    x = rng.standard_normal((2, 3)).astype(np.float32)
    for version in ("", "0.3.1"):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        np.testing.assert_array_equal(_identity_n_job()(x), x)
    monkeypatch.setenv(ENV, "0.2")
    flow.clear_default_session()
    with pytest.raises(ArgumentError, match="at least 2 blobs"):
        _identity_n_job()(x)


def test_a_malformed_version_stops_the_build_with_the_variable_s_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "0.2beta")
    x = rng.standard_normal((3, 4)).astype(np.float32)
    with pytest.raises(ValueError, match=ENV):
        _softmax_job()(x)


# --- "SAME" padding with an odd total ------------------------------------------------------------------------------
def _correlate(x: np.ndarray, w: np.ndarray, stride: int, pads: tuple[int, int]) -> np.ndarray:
    """NCHW cross-correlation of ``x`` padded by ``pads`` (before, after) on both spatial axes."""
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads, pads))
    kh, kw = w.shape[2:]
    oh, ow = (padded.shape[2] - kh) // stride + 1, (padded.shape[3] - kw) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = padded[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", window, w)
    return out


def _max_pool(x: np.ndarray, k: int, stride: int, pads: tuple[int, int]) -> np.ndarray:
    padded = np.pad(x, ((0, 0), (0, 0), pads, pads), constant_values=-np.inf)
    oh, ow = (padded.shape[2] - k) // stride + 1, (padded.shape[3] - k) // stride + 1
    return np.stack([np.stack([padded[:, :, i * stride:i * stride + k, j * stride:j * stride + k].max(axis=(2, 3))
                               for j in range(ow)], -1) for i in range(oh)], -2)


def _same_job() -> Any:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((1, 2, 4, 4)), w: tp.Numpy.Placeholder((3, 2, 3, 3), batch_axis=None)
            ) -> tuple[tp.Numpy, tp.Numpy]:
        conv = flow.nn.conv2d(x, w, strides=2, padding="SAME", data_format="NCHW")
        pool = flow.nn.max_pool2d(x, ksize=2, strides=3, padding="SAME", data_format="NCHW")
        return conv, pool
    return job


def test_same_padding_puts_the_odd_element_before_from_0_1_8_and_after_before(monkeypatch: pytest.MonkeyPatch
                                                                            ) -> None:
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    # conv: 4 → 2 with stride 2 and kernel 3 needs 1 padding element; pool: 4 → 2 with stride 3 and window 2, 1
    for version, pads in (("", (1, 0)), ("0.1.8", (1, 0)), ("0.4.0", (1, 0)), ("0.1", (0, 1)), ("0.1.7", (0, 1))):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        conv, pool = _same_job()(x, w)
        np.testing.assert_allclose(conv, _correlate(x, w, 2, pads), rtol=1e-4, atol=1e-5, err_msg=version)
        np.testing.assert_array_equal(pool, _max_pool(x, 2, 3, pads), err_msg=version)


# --- concat of one blob ------------------------------------------------------------------------------------------
def test_concat_of_one_blob_is_the_blob_from_0_1_3_and_refused_before(monkeypatch: pytest.MonkeyPatch) -> None:
    x = rng.standard_normal((2, 3)).astype(np.float32)

    def job_of_one() -> Any:
        @flow.global_function()
        def job(a: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            return flow.concat([a], axis=0)
        return job

    for version in ("", "0.1.3", "0.2"):
        monkeypatch.setenv(ENV, version)
        flow.clear_default_session()
        np.testing.assert_array_equal(job_of_one()(x), x)
    monkeypatch.setenv(ENV, "0.1.2")
    flow.clear_default_session()
    with pytest.raises(ArgumentError, match="at least 2 blobs"):
        job_of_one()(x)
