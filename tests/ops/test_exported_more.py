"""More of OneFlow's exported names (issue 28): ``advanced.distribute_*``, ``dynamic_reshape``, ``sleep_identity``,
``eager_nccl_all_reduce``, ``distributed_partial_fc_sample``, ``layers.layer_norm_grad``/``_param_grad``,
``nn.torch_conv2d_transpose``, ``is_deprecated``, ``eager_fixed_placement``, ``experimental.custom_op_module``
and the names that are refused with a reason, each against numpy or OneFlow's documented rules."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Tuple

import numpy as np
import pytest
from helpers.ops import forward_and_grad, randn_from, run

import flowtorch as flow
import flowtorch.typing as tp

randn = randn_from(np.random.default_rng(2828))


# --- advanced.distribute_* ---------------------------------------------------------------------------------------
def test_distribute_split_cuts_as_balanced_splitter_and_concat_add_clone_join_back() -> None:
    x = randn(7, 2)
    names: list[str] = []

    def body(a: Any) -> Any:
        with flow.scope.placement("cpu", "0:0-2"):
            parts = flow.advanced.distribute_split(a)
            names.extend(p.logical_blob_name for p in parts)
            whole = flow.advanced.distribute_concat(parts)
            clones = flow.advanced.distribute_clone(a)
            summed = flow.advanced.distribute_add(clones)
            with pytest.raises(ValueError, match="one blob per device"):
                flow.advanced.distribute_add(clones[:2])
        return (*parts, whole, summed)
    got = run(body, x, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy])
    for part, ref in zip(got[:3], np.array_split(x, 3)):  # 3, 2, 2 rows: the first 7 % 3 parts get one more
        np.testing.assert_array_equal(part, ref)
    np.testing.assert_array_equal(got[3], x)
    np.testing.assert_allclose(got[4], 3 * x, rtol=1e-6)
    assert [n.split("/")[1] for n in names] == ["out_0", "out_1", "out_2"]
    assert names[0].startswith("DistributeSplit_")


def test_distribute_concat_outside_a_placement_takes_its_blobs_and_map_applies_per_part() -> None:
    x = randn(6, 3)

    def body(a: Any) -> Any:
        with flow.scope.placement("cpu", "0:0"):  # OneFlow's own test: two blobs made on one device
            u, v = a + 1, a * 2
        joined = flow.advanced.distribute_concat([u, v], axis=1)
        with flow.scope.placement("cpu", "0:0-1"):
            mapped = flow.advanced.distribute_map(a, lambda part: part - flow.math.reduce_mean(part))
        return joined, mapped
    joined, mapped = run(body, x, ret=Tuple[tp.Numpy, tp.Numpy])
    np.testing.assert_allclose(joined, np.concatenate([x + 1, x * 2], axis=1), rtol=1e-6)
    ref = np.concatenate([p - p.mean() for p in np.split(x, 2)])
    np.testing.assert_allclose(mapped, ref, rtol=1e-5, atol=1e-6)


def test_distribute_split_gradient_flows_back_through_concat() -> None:
    x = randn(4, 3)

    def fn(a: Any) -> Any:
        with flow.scope.placement("cpu", "0:0-1"):
            lo, hi = flow.advanced.distribute_split(a)
            return flow.advanced.distribute_concat([lo * 2, hi * 3])
    y, grad, w = forward_and_grad(fn, x)
    np.testing.assert_allclose(y, np.concatenate([x[:2] * 2, x[2:] * 3]), rtol=1e-6)
    np.testing.assert_allclose(grad, np.concatenate([w[:2] * 2, w[2:] * 3]), rtol=1e-6)


# --- dynamic_reshape, sleep_identity, eager_nccl_all_reduce --------------------------------------------------------
def test_dynamic_reshape_keeps_minus_one_for_the_run_time_size() -> None:
    x = randn(1, 4, 4, 4)
    out = run(lambda a: flow.dynamic_reshape(a, (-1, 8, 4)), x)
    np.testing.assert_array_equal(out, x.reshape(-1, 8, 4))
    mask = np.array([[1, 0, 1], [0, 0, 1]], np.int32)
    # a dynamic blob (argwhere's rows) reshaped by its real size: 3 coordinates of 2 → 6 values
    got = run(lambda m: flow.dynamic_reshape(flow.argwhere(m), (-1,)), mask, ret=tp.ListNumpy)
    np.testing.assert_array_equal(got[0], np.argwhere(mask).reshape(-1))

    def bad(a: Any) -> Any:
        with pytest.raises(ValueError, match="shape"):
            flow.dynamic_reshape(a, (5, -1))  # 64 elements are no multiple of 5
        with pytest.raises(ValueError, match="at most one -1"):
            flow.dynamic_reshape(a, (-1, -1))
        return a
    run(bad, x)


def test_sleep_identity_passes_the_value_and_its_gradient_after_a_pause() -> None:
    x = randn(2, 3)
    job_runs: list[float] = []

    def body(a: Any) -> Any:
        return flow.sleep_identity(a, 0.05)
    y, grad, w = forward_and_grad(lambda a: flow.sleep_identity(a, 0.0) * 2, x)
    np.testing.assert_allclose(grad, 2 * w, rtol=1e-6)
    start = time.perf_counter()
    out = run(body, x)
    job_runs.append(time.perf_counter() - start)
    np.testing.assert_array_equal(out, x)
    assert job_runs[0] >= 0.05


def test_eager_nccl_all_reduce_of_a_consistent_blob_is_its_value() -> None:
    x = randn(5)
    conf = 'device_tag: "cpu" device_name: "0:0-3"'
    np.testing.assert_array_equal(run(lambda a: flow.eager_nccl_all_reduce(a, parallel_conf=conf), x), x)

    def bad(a: Any) -> Any:
        with pytest.raises(ValueError, match="parallel_conf"):
            flow.eager_nccl_all_reduce(a, parallel_conf="gpu 0:0")
        return a
    run(bad, x)


# --- distributed_partial_fc_sample ---------------------------------------------------------------------------------
@pytest.mark.parametrize("devices, classes, num_sample", [(1, 10, 6), (2, 8, 6)])
def test_partial_fc_sample_takes_the_labels_classes_first_then_distinct_others(devices: int, classes: int,
                                                                              num_sample: int) -> None:
    weight = randn(classes, 3)
    label = np.array([3, 1, 3, 6], np.int32)

    def body(w: Any, lab: Any) -> Any:
        with flow.scope.placement("cpu", f"0:0-{devices - 1}"):
            return flow.distributed_partial_fc_sample(w, lab, num_sample)
    mapped, sampled, rows = run(body, weight, label, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    assert sampled.shape == (num_sample,) and rows.shape == (num_sample, 3)
    np.testing.assert_array_equal(sampled[mapped], label)  # each label's index among the sampled classes
    np.testing.assert_array_equal(rows, weight[sampled])
    per, share = num_sample // devices, classes // devices
    for d in range(devices):  # each device samples from its own classes: its positives ascending, then others
        mine = sampled[d * per:(d + 1) * per]
        assert ((mine >= d * share) & (mine < (d + 1) * share)).all()
        positives = sorted({int(v) for v in label if d * share <= v < (d + 1) * share})
        assert list(mine[:len(positives)]) == positives
        assert len(set(mine.tolist())) == per


def test_partial_fc_sample_sums_the_sampled_rows_gradients_into_weight() -> None:
    weight = randn(6, 2)
    label = np.array([4, 0], np.int32)
    y, grad, w = forward_and_grad(lambda a, lab: flow.distributed_partial_fc_sample(a, lab, 4)[2], weight, label)
    expected = np.zeros_like(weight)
    for row, wrow in zip(y, w):
        expected[int(np.flatnonzero((weight == row).all(axis=1))[0])] += wrow
    np.testing.assert_allclose(grad, expected, rtol=1e-6)


def test_partial_fc_sample_refusals() -> None:
    def body(w: Any, lab: Any) -> Any:
        with pytest.raises(ValueError, match="num_sample"):
            flow.distributed_partial_fc_sample(w, lab, 7)  # more than the 6 classes
        with flow.scope.placement("cpu", "0:0-1"), pytest.raises(ValueError, match="num_sample"):
            flow.distributed_partial_fc_sample(w, lab, 3)  # not a multiple of the 2 devices
        with pytest.raises(ValueError, match="label"):
            flow.distributed_partial_fc_sample(w, w, 2)
        return w
    run(body, randn(6, 2), np.array([1], np.int32))


# --- layer_norm_grad, layer_norm_param_grad ------------------------------------------------------------------------
def _np_layer_norm(x: np.ndarray, axis: int, eps: float = 1e-5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes)
    inv = 1.0 / np.sqrt(x.var(axis=axes) + eps)
    shape = x.shape[:axis] + (1,) * len(axes)
    return (x - mean.reshape(shape)) * inv.reshape(shape), mean, inv


def test_layer_norm_grad_is_the_backward_of_normalization() -> None:
    x, dy = randn(3, 2, 4).astype(np.float64), randn(3, 2, 4).astype(np.float64)
    _, mean, inv = _np_layer_norm(x, 1)
    got = run(lambda d, a, m, v: flow.layers.layer_norm_grad(d, a, m, v, begin_norm_axis=1), dy, x, mean, inv)
    # reference: dy · d normalized / dx by central differences (mean and variance moving with x)
    ref, eps = np.zeros_like(x), 1e-6
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        ref[i] = ((_np_layer_norm(hi, 1)[0] - _np_layer_norm(lo, 1)[0]) * dy).sum() / (2 * eps)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_layer_norm_param_grad_sums_over_the_leading_axes() -> None:
    dy, norm, gamma = randn(4, 3, 5), randn(4, 3, 5), randn(5)
    names: list[str] = []

    def body(d: Any, n: Any, g: Any) -> Any:
        outs = flow.layers.layer_norm_param_grad(d, n, g)  # begin_params_axis=-1: gamma over the last axis
        names.extend(o.logical_blob_name for o in outs)
        return outs
    nd, bd, gd = run(body, dy, norm, gamma, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    np.testing.assert_allclose(nd, dy * gamma, rtol=1e-6)
    np.testing.assert_allclose(bd, dy.sum(axis=(0, 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gd, (dy * norm).sum(axis=(0, 1)), rtol=1e-5, atol=1e-6)
    assert names == ["LayerNormParamGrad/normalized_diff_0", "LayerNormParamGrad/beta_diff_0",
                     "LayerNormParamGrad/gamma_diff_0"]


# --- nn.torch_conv2d_transpose --------------------------------------------------------------------------------------
def _np_conv_transpose(x: np.ndarray, w: np.ndarray, stride: int, pad: int, out_pad: int) -> np.ndarray:
    n, _, h, wid = x.shape
    _, co, kh, kw = w.shape
    full = np.zeros((n, co, (h - 1) * stride + kh + out_pad, (wid - 1) * stride + kw + out_pad))
    for i in range(h):
        for j in range(wid):  # each input pixel scatters kernel × value into the output
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += \
                np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    oh = (h - 1) * stride - 2 * pad + kh + out_pad
    ow = (wid - 1) * stride - 2 * pad + kw + out_pad
    return full[:, :, pad:pad + oh, pad:pad + ow]


@pytest.mark.parametrize("stride, pad, out_pad", [(1, 0, 0), (2, 1, 1), (3, 1, 2)])
def test_torch_conv2d_transpose_sizes_and_values_as_pytorch(stride: int, pad: int, out_pad: int) -> None:
    x, w = randn(2, 3, 4, 5), randn(3, 2, 3, 3)
    got = run(lambda a, f: flow.nn.torch_conv2d_transpose(a, f, output_padding=[out_pad] * 2, strides=stride,
                                                           padding_needed=[2 * pad, 2 * pad]), x, w)
    np.testing.assert_allclose(got, _np_conv_transpose(x, w, stride, pad, out_pad), rtol=1e-4, atol=1e-5)


def test_torch_conv2d_transpose_channels_last_and_refusals() -> None:
    x, w = randn(1, 3, 3, 2), randn(2, 3, 3, 4)  # NHWC: filter (in, kh, kw, out)
    got = run(lambda a, f: flow.nn.torch_conv2d_transpose(input=a, filters=f, strides=2, padding_needed=[2, 2],
                                                           data_format="NHWC"), x, w)
    ref = _np_conv_transpose(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2), 2, 1, 0).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)

    def bad(a: Any, f: Any) -> Any:
        with pytest.raises(ValueError, match="even"):
            flow.nn.torch_conv2d_transpose(a, f, strides=1, padding_needed=[1, 0], data_format="NHWC")
        return a
    run(bad, x, w)


# --- is_deprecated, eager_fixed_placement, custom_op_module, refused names ------------------------------------------
def test_is_deprecated_tells_the_deprecated_spelling_from_the_current_one() -> None:
    deprecated = [flow.name_scope, flow.experimental.name_scope, flow.deprecated.variable_scope,
                  flow.distribute.mirrored_strategy, flow.distribute.consistent_strategy,
                  flow.distribute.mirrored_strategy_enabled, flow.distribute.consistent_strategy_enabled,
                  flow.fixed_placement, flow.device_prior_placement, flow.scope.current_scope,
                  flow.env.grpc_use_no_signal]
    assert all(flow.is_deprecated(f) for f in deprecated)
    current = [flow.scope.namespace, flow.scope.mirrored_view_enabled, flow.current_scope, flow.scope.placement,
               flow.global_function, [1], np.zeros(2)]
    assert not any(flow.is_deprecated(f) for f in current)
    assert flow.distribute.mirrored_strategy_enabled() is flow.scope.mirrored_view_enabled()


def test_eager_fixed_placement_is_a_placement_scope() -> None:
    tags: list[Any] = []

    def body(a: Any) -> Any:
        with flow.eager_fixed_placement("cpu", "0:0-1"):
            tags.append(flow.current_scope().device_parallel_desc_symbol.machine_device_ids)
        return a
    run(body, randn(2))
    assert tags == [("0:0-1",)]


def test_custom_op_module_loads_python_parts_and_refuses_the_cpp_ones(tmp_path: Path) -> None:
    (tmp_path / "my_op").mkdir()
    (tmp_path / "my_op" / "my_op_py_api.py").write_text("def answer():\n    return 42\n")
    module = flow.experimental.custom_op_module("my_op", str(tmp_path)).py_api()
    assert module.api is not None and module.api.answer() == 42
    with pytest.raises(NotImplementedError, match="register_user_op"):
        module.cpp_def()
    with pytest.raises(FileNotFoundError, match="my_op_py_kernel.py"):
        module.py_kernel()


def test_names_without_meaning_here_say_why() -> None:
    def body(a: Any) -> Any:
        with pytest.raises(NotImplementedError, match="header"):
            flow.experimental.dynamic_binary_split(a)
        with pytest.raises(NotImplementedError, match="header"):
            flow.experimental.dynamic_binary_concat([a], a)
        return a
    run(body, randn(2))


# --- v0.1's dtypes: OneFlow's DataType enum values ------------------------------------------------------------------
def test_data_type_enum_values_are_accepted_wherever_a_dtype_goes() -> None:
    from flowtorch.core.common import data_type_pb2 as data_type_util

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((3,), dtype=data_type_util.kFloat)) -> tp.Numpy:  # v0.1.2 wrote dtypes so
        return flow.cast(x, dtype=data_type_util.kInt32)
    out = job(np.array([0.0, 1.5, -2.0], np.float32))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [0, 1, -2])
    assert [flow.float32.oneflow_proto_dtype, flow.int8.oneflow_proto_dtype, flow.float16.oneflow_proto_dtype] == \
        [data_type_util.kFloat, data_type_util.kInt8, data_type_util.kFloat16]
    with pytest.raises(TypeError, match="dtype"):
        flow.FixedTensorDef((2,), dtype=99)


# --- the normalization user op ----------------------------------------------------------------------------------
def _normalization(x: Any, mm: Any, mv: Any, training: bool, outputs: tuple[str, ...]) -> Any:
    g = flow.get_variable("g", (3,), initializer=flow.constant_initializer(2.0))
    b = flow.get_variable("b", (3,), initializer=flow.constant_initializer(0.5))
    op = (flow.user_op_builder("bn").Op("normalization").Input("x", [x]).Input("moving_mean", [mm])
          .Input("moving_variance", [mv]).Input("gamma", [g]).Input("beta", [b]))
    for name in outputs:
        op = op.Output(name)
    return (op.Attr("axis", 1).Attr("epsilon", 1e-3).Attr("training", training).Attr("momentum", 0.9)
            .Build().InferAndTryRun().RemoteBlobList())


def test_normalization_user_op_trains_with_batch_statistics_and_moves_the_moving_ones() -> None:
    x = randn(4, 3, 2, 2) + 1.0

    @flow.global_function(type="train")
    def train(a: tp.Numpy.Placeholder((4, 3, 2, 2))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        mm = flow.get_variable("mm", (3,), initializer=flow.zeros_initializer(), trainable=False)
        mv = flow.get_variable("mv", (3,), initializer=flow.ones_initializer(), trainable=False)
        y, mean, inv = _normalization(a, mm, mv, True, ("y", "mean", "inv_variance"))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(flow.math.reduce_mean(y))
        return y, mean, inv
    y, mean, inv = train(x)
    mu, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mu.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-3) * 2.0 + 0.5
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5)
    np.testing.assert_allclose(inv, 1 / np.sqrt(var + 1e-3), rtol=1e-4)
    variables = flow.get_all_variables()
    n = x.size // 3  # the moving variance takes the unbiased batch variance, as cuDNN's update
    np.testing.assert_allclose(variables["mm"].numpy(), 0.1 * mu, rtol=1e-5)
    np.testing.assert_allclose(variables["mv"].numpy(), 0.9 + 0.1 * var * n / (n - 1), rtol=1e-5)


def test_normalization_user_op_infers_with_the_moving_statistics_and_only_the_outputs_asked() -> None:
    x = randn(2, 3, 4)

    @flow.global_function()
    def infer(a: tp.Numpy.Placeholder((2, 3, 4))) -> tp.Numpy:
        mm = flow.get_variable("mm", (3,), initializer=flow.constant_initializer(0.25), trainable=False)
        mv = flow.get_variable("mv", (3,), initializer=flow.constant_initializer(4.0), trainable=False)
        (y,) = _normalization(a, mm, mv, False, ("y",))  # mean and inv_variance are optional outputs
        return y
    np.testing.assert_allclose(infer(x), (x - 0.25) / np.sqrt(4.0 + 1e-3) * 2.0 + 0.5, rtol=1e-5)


# --- ctc_loss (v0.4.0) ------------------------------------------------------------------------------------------
def _np_ctc(log_probs: np.ndarray, target: np.ndarray, t_len: int, blank: int) -> float:
    """-log p(target | x) by the forward recursion over the blank-extended target (Graves et al., 2006)."""
    ext = [blank]
    for c in target:
        ext += [int(c), blank]
    alpha = np.full(len(ext), -np.inf)
    alpha[0] = log_probs[0, ext[0]]
    if len(ext) > 1:
        alpha[1] = log_probs[0, ext[1]]
    for t in range(1, t_len):
        prev = alpha.copy()
        for s in range(len(ext)):
            terms = [prev[s]] + ([prev[s - 1]] if s >= 1 else [])
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                terms.append(prev[s - 2])
            alpha[s] = np.logaddexp.reduce(terms) + log_probs[t, ext[s]]
    ends = [alpha[-1]] + ([alpha[-2]] if len(ext) > 1 else [])
    return float(-np.logaddexp.reduce(ends))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_ctc_loss_matches_the_forward_recursion(reduction: str) -> None:
    logits = randn(6, 2, 4).astype(np.float64)
    log_probs = (logits - np.log(np.exp(logits).sum(-1, keepdims=True))).astype(np.float32)
    targets = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
    in_len, tg_len = np.array([6, 5], np.int32), np.array([3, 2], np.int32)
    per = np.array([_np_ctc(log_probs[:, b].astype(np.float64), targets[b, :tg_len[b]], in_len[b], 0)
                    for b in range(2)])
    ref = {"none": per, "sum": per.sum(), "mean": (per / tg_len).mean()}[reduction]
    got = run(lambda lp, t, il, tl: flow.ctc_loss(lp, t, il, tl, reduction=reduction), log_probs, targets, in_len,
              tg_len)
    np.testing.assert_allclose(np.asarray(got).reshape(np.shape(ref)), ref, rtol=1e-5)


def test_ctc_loss_zero_infinity_and_gradient() -> None:
    log_probs = np.log(np.full((2, 1, 3), 1 / 3, np.float32))
    targets = np.array([[1, 1]], np.int32)  # two equal labels need 3 steps: impossible in 2, an infinite loss
    lengths = (np.array([2], np.int32), np.array([2], np.int32))
    got = run(lambda lp, t, il, tl: flow.ctc_loss(lp, t, il, tl, reduction="none", zero_infinity=True), log_probs,
              targets, *lengths)
    np.testing.assert_array_equal(got, [0.0])
    # gradient through log_softmax (OneFlow's kernel, like PyTorch's, assumes normalised log_probs) against central
    # differences of the numpy recursion
    x = randn(4, 1, 3) * 0.5
    tg, ln = np.array([[2, 1]], np.int32), (np.array([4], np.int32), np.array([2], np.int32))

    def np_loss(z: np.ndarray) -> float:
        lp = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return _np_ctc(lp[:, 0], tg[0], 4, 0)
    def job(z: Any, t: Any, il: Any, tl: Any) -> Any:
        return flow.ctc_loss(flow.nn.logsoftmax(z), t, il, tl, reduction="none")
    y, grad, w = forward_and_grad(job, x, tg, *ln)
    np.testing.assert_allclose(y, [np_loss(x.astype(np.float64))], rtol=1e-5)
    ref, eps = np.zeros_like(x, dtype=np.float64), 1e-5
    for i in np.ndindex(x.shape):
        hi, lo = x.astype(np.float64), x.astype(np.float64)
        hi[i] += eps
        lo[i] -= eps
        ref[i] = (np_loss(hi) - np_loss(lo)) * w[0] / (2 * eps)
    np.testing.assert_allclose(grad, ref, rtol=1e-3, atol=1e-4)


def test_squeeze_of_a_dynamic_blob_keeps_its_run_time_length() -> None:
    # Mask R-CNN's idiom: the indices of the set entries, squeezed to one axis
    mask = np.array([0, 1, 0, 1, 1, 0], np.int32)
    got = run(lambda m: flow.squeeze(flow.argwhere(m), axis=[1]), mask, ret=tp.ListNumpy)
    np.testing.assert_array_equal(got[0], np.flatnonzero(mask))


def test_dim0_dynamic_to_fixed_pads_to_the_bound_and_masks_the_real_rows() -> None:
    mask = np.array([[0, 1], [1, 1], [0, 0]], np.int32)
    names: list[str] = []

    def body(m: Any) -> Any:
        rows = flow.argwhere(m)  # dynamic: 3 of at most 6 rows
        outs = flow.dim0_dynamic_to_fixed([rows, flow.cast(rows, dtype=flow.float32)])
        names.extend(o.logical_blob_name.split("/")[1] for o in outs)
        with pytest.raises(ValueError, match="dynamic"):
            flow.dim0_dynamic_to_fixed([m])
        return outs
    fixed, as_float, valid = run(body, mask, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    want = np.zeros((6, 2), np.int32)
    want[:3] = np.argwhere(mask)
    np.testing.assert_array_equal(fixed, want)
    np.testing.assert_array_equal(as_float, want.astype(np.float32))
    np.testing.assert_array_equal(valid, [1, 1, 1, 0, 0, 0])
    assert valid.dtype == np.int32 and names == ["out_0", "out_1", "mask"]


# --- v0.4.0's small lazy names -----------------------------------------------------------------------------------
def test_v040_process_and_build_queries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    assert (flow.distributed.get_rank(), flow.distributed.get_world_size()) == (1, 3)
    monkeypatch.delenv("RANK")
    monkeypatch.delenv("WORLD_SIZE")
    assert (flow.distributed.get_rank(), flow.distributed.get_world_size()) == (0, 1)
    assert not flow.unittest.env.has_world_size()
    monkeypatch.setenv("ONEFLOW_TEST_WORLD_SIZE", "4")
    assert flow.unittest.env.has_world_size() and flow.unittest.env.world_size() == 4
    monkeypatch.setenv("ONEFLOW_TEST_WORLD_SIZE", "four")
    with pytest.raises(ValueError, match="must be a number"):
        flow.unittest.env.has_world_size()
    import torch

    assert flow.sysconfig.with_cuda() == torch.backends.cuda.is_built()
    assert (flow.sysconfig.with_xla(), flow.sysconfig.has_rpc_backend_grpc(),
            flow.sysconfig.has_rpc_backend_local()) == (False, False, True)


def test_v040_refused_and_recorded_names() -> None:
    flow.profiler.range_push("step")  # an NVTX range on CUDA, nothing on the CPU
    flow.profiler.range_pop()
    with pytest.raises(ValueError, match="range_name"):
        flow.profiler.range_push(3)
    assert flow.env.init_bootstrap_confs(["127.0.0.1"], 8080, 1) is not None
    with pytest.raises(NotImplementedError, match="flowtorch"):
        flow.deprecated.delete_worker_by_bootstrap()
    with pytest.raises(NotImplementedError, match="one process per device"):
        flow.deprecated.delete_worker_of_multi_process("/tmp/run")


# --- v0.4.0's diag, expand and 2-D pads ---------------------------------------------------------------------------
@pytest.mark.parametrize("diagonal", [0, 1, -2])
def test_diag_builds_and_reads_diagonals(diagonal: int) -> None:
    v, m = randn(3), randn(4, 5)
    got_v, got_m = run(lambda a, b: (flow.diag(a, diagonal), flow.diag(b, diagonal)), v, m,
                       ret=Tuple[tp.Numpy, tp.Numpy])
    np.testing.assert_array_equal(got_v, np.diag(v, diagonal))
    np.testing.assert_array_equal(got_m, np.diag(m, diagonal))
    y, grad, w = forward_and_grad(lambda a: flow.diag(a, diagonal), m)
    np.testing.assert_allclose(grad, _diag_grad(w, m.shape, diagonal), rtol=1e-6)


def _diag_grad(w: np.ndarray, shape: tuple[int, ...], diagonal: int) -> np.ndarray:
    g = np.zeros(shape, np.float32)
    rows = np.arange(len(w)) + max(-diagonal, 0)
    g[rows, rows + diagonal] = w
    return g


def test_expand_repeats_size_one_axes_and_adds_leading_ones() -> None:
    x = randn(3, 1)
    got = run(lambda a: flow.expand(a, (2, -1, 4)), x)
    np.testing.assert_array_equal(got, np.broadcast_to(x, (2, 3, 4)))
    y, grad, w = forward_and_grad(lambda a: flow.expand(a, (2, 3, 4)), x)
    np.testing.assert_allclose(grad, w.sum(axis=(0, 2))[:, None], rtol=1e-5)

    def bad(a: Any) -> Any:
        with pytest.raises(ValueError, match="expand_size"):
            flow.expand(a, (5, 4))  # axis 0 has 3, not 1
        with pytest.raises(ValueError, match="expand_size"):
            flow.expand(a, (-1, 3, 1))  # a new leading axis cannot be -1
        return a
    run(bad, x)


def test_v040_pads_take_left_right_top_bottom() -> None:
    x = randn(1, 2, 3, 4)
    pads = (2, 1, 0, 2)  # left, right, top, bottom
    np_width = ((0, 0), (0, 0), (0, 2), (2, 1))
    rep, const, zero = run(lambda a: (flow.replication_pad2d(a, list(pads)), flow.constant_pad2d(a, pads, 1.5),
                                      flow.zero_pad2d(a, 1)), x, ret=Tuple[tp.Numpy, tp.Numpy, tp.Numpy])
    np.testing.assert_array_equal(rep, np.pad(x, np_width, mode="edge"))
    np.testing.assert_array_equal(const, np.pad(x, np_width, constant_values=1.5))
    np.testing.assert_array_equal(zero, np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))))
    y, grad, w = forward_and_grad(lambda a: flow.replication_pad2d(a, list(pads)), x)
    ref = np.zeros_like(x)  # each output takes its nearest edge element: gradients add up there
    rows = np.clip(np.arange(-0, 3 + 2), 0, 2)
    cols = np.clip(np.arange(-2, 4 + 1), 0, 3)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            ref[:, :, r, c] += w[:, :, i, j]
    np.testing.assert_allclose(grad, ref, rtol=1e-5)

    def bad(a: Any) -> Any:
        with pytest.raises(ValueError, match="padding"):
            flow.replication_pad2d(a, (4, 0, 0, 0))  # not below W = 4
        return a
    run(bad, x)


def test_v040_load_save_and_renamed_names(tmp_path: Path) -> None:
    @flow.global_function()
    def job() -> tp.Numpy:
        return flow.get_variable("v", (3,), initializer=flow.constant_initializer(2.5))
    np.testing.assert_array_equal(job(), [2.5] * 3)
    flow.save(flow.get_all_variables(), str(tmp_path / "snap"))  # v0.4.0: (obj, save_dir)
    loaded = flow.load(str(tmp_path / "snap"))
    np.testing.assert_array_equal(loaded["v"].numpy(), [2.5] * 3)
    assert flow.deprecated.nn.Module is flow.nn.Module
    assert flow.quantization.moving_average_min_max_observer is not flow.quantization.moving_average_min_maxObserver


def test_v040_observer_takes_the_formula_before_momentum() -> None:
    x = randn(2, 4) * 3

    @flow.global_function(type="train")
    def job(a: tp.Numpy.Placeholder((2, 4))) -> Tuple[tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", (2, 4), initializer=flow.zeros_initializer())
        scale, zero_point = flow.quantization.moving_average_min_max_observer(a + w, 8, "affine", "google", 0.9)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0])).minimize(flow.math.reduce_sum(w))
        return scale, zero_point
    scale, zero_point = job(x)
    # the first train step starts the moving statistics at the batch's min and max (v0.3.4's affine math)
    lo, hi = x.min(), x.max()
    np.testing.assert_allclose(scale, [(hi - lo) / 255], rtol=1e-5)
    np.testing.assert_allclose(zero_point, [-lo / ((hi - lo) / 255)], rtol=1e-4)
