"""flow.onnx.export: a job's graph with a snapshot's weights as an ONNX model, run by onnxruntime (or, without
it, by onnx's reference evaluator) and compared with the job's own outputs and a numpy reference."""

from __future__ import annotations

import logging
import os
import sys

import numpy as np
import pytest
import torch
from helpers.snapshots import hand_write

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import SnapshotError

RNG = np.random.default_rng(11)
X_SHAPE = (2, 3, 6, 6)


@pytest.fixture
def onnx():
    return pytest.importorskip("onnx")


def run_onnx(path: str, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The model's outputs: onnxruntime when installed, else onnx's own (pure Python) reference evaluator."""
    try:
        import onnxruntime
    except ImportError:
        from onnx.reference import ReferenceEvaluator
        return list(ReferenceEvaluator(path).run(None, feeds))
    return list(onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds))


def conv_net():
    @flow.global_function(type="predict")
    def conv_net(x: tp.Numpy.Placeholder(X_SHAPE)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3)
        c = flow.layers.conv2d(x, 4, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                               bias_initializer=init, name="conv")
        flat = flow.reshape(c, (X_SHAPE[0], -1))
        return flow.layers.dense(flat, 5, activation=flow.nn.relu, kernel_initializer=init, bias_initializer=init,
                                 name="fc")
    return conv_net


def mlp():
    @flow.global_function(type="predict")
    def mlp(x: tp.Numpy.Placeholder((4, 7))) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.4)
        h = flow.layers.dense(x, 6, activation=flow.nn.relu, kernel_initializer=init, bias_initializer=init,
                              name="h")
        return flow.layers.dense(h, 3, kernel_initializer=init, bias_initializer=init, name="out")
    return mlp


def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0)


def conv_net_numpy(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    """conv 3x3 SAME + relu, flatten, dense + relu; OneFlow's dense weight is (units, in)."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))  # n c h w i j
    c = relu(np.einsum("nchwij,ocij->nohw", windows, w["conv-weight"]) + w["conv-bias"][None, :, None, None])
    return relu(c.reshape(x.shape[0], -1) @ w["fc-weight"].T + w["fc-bias"])


def mlp_numpy(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    return relu(x @ w["h-weight"].T + w["h-bias"]) @ w["out-weight"].T + w["out-bias"]


def saved(tmp_path, name: str = "snapshot") -> tuple[str, dict[str, np.ndarray]]:
    """Save the session's variables; return the directory and the saved values."""
    path = str(tmp_path / name)
    flow.checkpoint.save(path)
    return path, {k: v.numpy() for k, v in flow.checkpoint.get(path).items()}


def test_conv_dense_relu_matches_the_job_and_numpy(onnx, tmp_path):
    job = conv_net()
    x = RNG.standard_normal(X_SHAPE).astype(np.float32)
    expected = job(x)
    snapshot, weights = saved(tmp_path)
    out = str(tmp_path / "model.onnx")
    assert flow.onnx.export(job, snapshot, out) is None
    model = onnx.load(out)
    onnx.checker.check_model(model)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [10]  # OneFlow's default
    assert [i.name for i in model.graph.input] == ["x"]  # weights are initializers, not inputs
    assert [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim] == list(X_SHAPE)
    (got,) = run_onnx(out, {"x": x})
    np.testing.assert_allclose(got, conv_net_numpy(x, weights), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got, expected, rtol=5e-3, atol=5e-3)  # (on CUDA the job's conv may use TF32)


def test_weights_come_from_the_snapshot_not_the_session(onnx, tmp_path):
    job = mlp()
    x = RNG.standard_normal((4, 7)).astype(np.float32)
    job(x)
    snapshot, weights = saved(tmp_path)
    flow.load_variables({k: v + 1 for k, v in weights.items()})  # the session moves on after the save
    out = str(tmp_path / "mlp.onnx")
    flow.onnx.export(job, snapshot, out)
    (got,) = run_onnx(out, {"x": x})
    np.testing.assert_allclose(got, mlp_numpy(x, weights), rtol=1e-5, atol=1e-5)
    assert not np.allclose(got, job(x))


def test_legacy_snapshot_without_meta_files(onnx, tmp_path):
    job = mlp()
    x = RNG.standard_normal((4, 7)).astype(np.float32)
    weights = {k: RNG.standard_normal(v.shape).astype(np.float32) for k, v in flow.get_all_variables().items()}
    for name, value in weights.items():
        hand_write(tmp_path / "legacy", name, value, meta=None)
    out = str(tmp_path / "mlp.onnx")
    flow.onnx.export(job, str(tmp_path / "legacy"), out)
    (got,) = run_onnx(out, {"x": x})
    np.testing.assert_allclose(got, mlp_numpy(x, weights), rtol=1e-5, atol=1e-5)


def test_several_returns_and_their_names(onnx, tmp_path):
    @flow.global_function(type="predict")
    def two(x: tp.Numpy.Placeholder((3, 4))) -> tuple[tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(4,), initializer=flow.random_uniform_initializer())
        y = flow.math.relu(x * w)
        return y, flow.math.reduce_sum(y, axis=1)

    x = RNG.standard_normal((3, 4)).astype(np.float32)
    expected = two(x)
    snapshot, weights = saved(tmp_path)
    out = str(tmp_path / "two.onnx")
    flow.onnx.export(two, snapshot, out)
    names = [o.name for o in onnx.load(out).graph.output]
    assert len(names) == len(set(names)) == 2
    got = run_onnx(out, {"x": x})
    reference = relu(x * weights["w"])
    for value, job_value, numpy_value in zip(got, expected, (reference, reference.sum(axis=1))):
        np.testing.assert_allclose(value, job_value, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(value, numpy_value, rtol=1e-5, atol=1e-6)


def test_shape_override_declares_a_free_batch(onnx, tmp_path, caplog):
    job = mlp()
    snapshot, weights = saved(tmp_path)
    out = str(tmp_path / "mlp.onnx")
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        flow.onnx.export(job, snapshot, out, shape_override={"x": [-1, 7], "Input_0/out": [1, 7]})
    assert "'Input_0/out', which are not its inputs ('x')" in caplog.text
    dims = onnx.load(out).graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and not dims[0].HasField("dim_value") and dims[1].dim_value == 7
    x = RNG.standard_normal((9, 7)).astype(np.float32)  # a batch the job never saw
    (got,) = run_onnx(out, {"x": x})
    np.testing.assert_allclose(got, mlp_numpy(x, weights), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"shape_override\['x'\].*expected 2 dimensions"):
        flow.onnx.export(job, snapshot, out, shape_override={"x": [4]})


def test_opset_extra_opset_and_continue_on_error(onnx, tmp_path, caplog):
    job = mlp()
    snapshot, weights = saved(tmp_path)
    out = str(tmp_path / "mlp.onnx")
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        flow.onnx.export(job, snapshot, out, opset=13, extra_opset=[onnx.helper.make_opsetid("com.example", 2)],
                         continue_on_error=True)
    assert "continue_on_error has no effect" in caplog.text
    imports = {o.domain or "ai.onnx": o.version for o in onnx.load(out).opset_import}
    assert imports["ai.onnx"] == 13 and imports["com.example"] == 2
    x = RNG.standard_normal((4, 7)).astype(np.float32)
    (got,) = run_onnx(out, {"x": x})
    np.testing.assert_allclose(got, mlp_numpy(x, weights), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="invalid extra_opset"):
        flow.onnx.export(job, snapshot, out, extra_opset="com.example")
    with pytest.raises(ValueError, match="invalid extra_opset entry"):
        flow.onnx.export(job, snapshot, out, extra_opset=[("com.example", 2)])
    with pytest.raises(ValueError, match="opset must be"):
        flow.onnx.export(job, snapshot, out, opset="10")


def test_external_data_keeps_large_tensors_beside_the_model(onnx, tmp_path):
    @flow.global_function(type="predict")
    def add_vars() -> tp.Numpy:
        a = flow.get_variable("a", shape=(600,), initializer=flow.random_uniform_initializer())
        b = flow.get_variable("b", shape=(600,), initializer=flow.random_uniform_initializer())
        return flow.math.add_n([a, b])

    expected = add_vars()
    snapshot, weights = saved(tmp_path)
    out = str(tmp_path / "big" / "add.onnx")
    os.makedirs(os.path.dirname(out))
    for _ in range(2):  # a second export replaces the first's data file
        flow.onnx.export(add_vars, snapshot, out, external_data=True)
    model = onnx.load(out, load_external_data=False)
    external = [t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    assert external  # (torch may have folded a + b into one constant)
    lengths = [int(e.value) for t in external for e in t.external_data if e.key == "length"]
    assert os.path.getsize(out + ".data") == sum(lengths) >= 600 * 4
    assert not model.graph.input
    (got,) = run_onnx(out, {})
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got, weights["a"] + weights["b"], rtol=1e-6)


def test_unknown_job_and_bad_directories(onnx, tmp_path):
    job = mlp()
    snapshot, _ = saved(tmp_path)
    out = str(tmp_path / "m.onnx")

    def not_a_job():
        pass

    with pytest.raises(ValueError, match='^Cannot find job "not_a_job" in jobset$'):
        flow.onnx.export(not_a_job, snapshot, out)
    with pytest.raises(SnapshotError, match="doesn't exist") as info:
        flow.onnx.export(job, str(tmp_path / "missing"), out)
    assert isinstance(info.value, AssertionError)  # OneFlow asserted os.path.isdir(model_save_dir)
    (tmp_path / "file").write_text("")
    with pytest.raises(SnapshotError, match="is not a directory"):
        flow.onnx.export(job, str(tmp_path / "file"), out)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SnapshotError, match="variable 'h-weight' is not in snapshot directory"):
        flow.onnx.export(job, str(tmp_path / "empty"), out)
    hand_write(tmp_path / "wrong", "h-weight", np.zeros((2, 2), np.float32), meta=None)
    with pytest.raises(SnapshotError, match="truncated|larger"):
        flow.onnx.export(job, str(tmp_path / "wrong"), out)
    assert not os.path.exists(out)
    flow.clear_default_session()
    with pytest.raises(ValueError, match='^Cannot find job "mlp" in jobset .*closed'):
        flow.onnx.export(job, snapshot, out)


def test_found_by_name_as_in_oneflows_job_set(onnx, tmp_path):
    job = mlp()
    snapshot, weights = saved(tmp_path)

    def mlp_stand_in():
        pass

    mlp_stand_in.__name__ = "mlp"
    out = str(tmp_path / "m.onnx")
    flow.onnx.export(mlp_stand_in, snapshot, out)
    x = RNG.standard_normal((4, 7)).astype(np.float32)
    np.testing.assert_allclose(run_onnx(out, {"x": x})[0], job(x), rtol=1e-5, atol=1e-5)


def test_without_onnx_the_error_names_the_extra(monkeypatch, tmp_path):
    job = mlp()
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(ImportError,
                       match=r'needs .onnx., which is not installed: pip install "flowtorch-oneflow\[onnx\]"'):
        flow.onnx.export(job, str(tmp_path), str(tmp_path / "m.onnx"))


def test_an_op_newer_than_opset_10_takes_torchs_default_opset(onnx, tmp_path, caplog):
    @flow.global_function(type="predict")
    def rounded(x: tp.Numpy.Placeholder((3, 5))) -> tp.Numpy:
        return flow.math.round(x)  # ONNX Round came with opset 11

    x = (RNG.integers(-20, 20, (3, 5)) + RNG.uniform(-0.4, 0.4, (3, 5))).astype(np.float32)  # no .5 ties
    expected = rounded(x)
    snapshot = str(tmp_path)  # no variables: any directory
    out = str(tmp_path / "round.onnx")
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        flow.onnx.export(rounded, snapshot, out)
    assert "needs an opset newer than OneFlow's default 10" in caplog.text
    assert [o.version for o in onnx.load(out).opset_import if o.domain in ("", "ai.onnx")][0] >= 11
    np.testing.assert_array_equal(run_onnx(out, {"x": x})[0], expected)
    np.testing.assert_array_equal(expected, np.round(x))
    with pytest.raises(torch.onnx.errors.UnsupportedOperatorError):
        flow.onnx.export(rounded, snapshot, out, opset=10)  # an opset asked for is kept


def test_a_train_job_exports_its_returned_loss(onnx, tmp_path):
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((6, 4)), y: tp.Numpy.Placeholder((6, 3))) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.5)
        pred = flow.layers.dense(x, 3, kernel_initializer=init, bias_initializer=init, name="lin")
        loss = flow.math.reduce_mean(flow.math.square(pred - y), axis=1)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss

    x, y = RNG.standard_normal((6, 4)).astype(np.float32), RNG.standard_normal((6, 3)).astype(np.float32)
    train(x, y)
    snapshot, weights = saved(tmp_path)
    out = str(tmp_path / "train.onnx")
    flow.onnx.export(train, snapshot, out)
    expected = train(x, y)  # its forward runs on the saved variables, then it updates them
    (got,) = run_onnx(out, {"x": x, "y": y})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    reference = np.mean(np.square(x @ weights["lin-weight"].T + weights["lin-bias"] - y), axis=1)
    np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-6)


def test_channels_last_conv(onnx, tmp_path):
    @flow.global_function(type="predict")
    def nhwc(x: tp.Numpy.Placeholder((2, 5, 6, 2))) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3)
        return flow.layers.conv2d(x, 4, 3, padding="VALID", data_format="NHWC", kernel_initializer=init,
                                  bias_initializer=init, name="c")

    x = RNG.standard_normal((2, 5, 6, 2)).astype(np.float32)
    expected = nhwc(x)
    snapshot, w = saved(tmp_path)
    out = str(tmp_path / "nhwc.onnx")
    flow.onnx.export(nhwc, snapshot, out)  # the kernel moves the channel axis with a negative dim
    onnx.checker.check_model(onnx.load(out), full_check=True)
    (got,) = run_onnx(out, {"x": x})
    windows = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))  # n h w c i j
    reference = np.einsum("nhwcij,oijc->nhwo", windows, w["c-weight"]) + w["c-bias"]  # OneFlow's NHWC weight: OHWI
    np.testing.assert_allclose(got, reference, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got, expected, rtol=5e-3, atol=5e-3)  # (on CUDA the job's conv may use TF32)
