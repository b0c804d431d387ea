"""flowtorch.export of predict jobs: the module, torch.export, the generated file without flowtorch, the names."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate.export_codegen import python_name
from flowtorch._src.session import default_session

RNG = np.random.default_rng(7)


def mlp_job():
    seen = []

    @flow.global_function(type="predict")
    def mlp(x: tp.Numpy.Placeholder((6, 20))) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3)
        h = flow.layers.dense(x, 32, activation=flow.nn.relu, kernel_initializer=init, bias_initializer=init,
                              name="dense1")
        flow.watch(h, seen.append)  # a tap: gone from the export
        h = flow.layers.dense(h, 16, activation=flow.math.tanh, kernel_initializer=init, name="dense2")
        return flow.nn.softmax(flow.layers.dense(h, 10, kernel_initializer=init, name="out"))
    return mlp, seen


def lenet_job():
    @flow.global_function(type="predict")
    def lenet(images: tp.Numpy.Placeholder((4, 1, 28, 28))) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.2)
        c1 = flow.layers.conv2d(images, 6, 5, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                                name="conv1")
        p1 = flow.nn.max_pool2d(c1, 3, 2, "SAME", "NCHW", name="pool1")  # odd window, padded with -inf
        b1 = flow.layers.batch_normalization(p1, axis=1, name="bn1")
        c2 = flow.layers.conv2d(b1, 16, 5, activation=flow.nn.relu, kernel_initializer=init, name="conv2")
        p2 = flow.nn.avg_pool2d(c2, 3, 2, "SAME", "NCHW", name="pool2")  # uneven padding: a ones tensor
        flat = flow.reshape(p2, (p2.shape[0], -1))
        h = flow.layers.dense(flat, 32, activation=flow.nn.relu, kernel_initializer=init, name="fc1")
        return flow.nn.softmax(flow.layers.dense(h, 10, kernel_initializer=init, name="fc2"))
    return lenet


def _set_bn_statistics() -> None:
    """Moving statistics far from (0, 1), so an export that ignored them would be caught."""
    flow.load_variables({"bn1-moving_mean": RNG.standard_normal(6).astype(np.float32),
                         "bn1-moving_variance": RNG.uniform(0.5, 2.0, 6).astype(np.float32),
                         "bn1-gamma": RNG.uniform(0.5, 1.5, 6).astype(np.float32),
                         "bn1-beta": RNG.standard_normal(6).astype(np.float32)})


def _run(module: torch.nn.Module, *arrays: np.ndarray) -> np.ndarray:
    device = next(iter(module.state_dict().values())).device  # the session's device
    with torch.no_grad():
        return module(*(torch.from_numpy(a).to(device) for a in arrays)).cpu().numpy()


def _built_lenet(x: np.ndarray):
    """The LeNet job, built by a first call, with batch-norm statistics set afterwards."""
    job = lenet_job()
    job(x)
    _set_bn_statistics()
    return job


def test_mlp_export_gives_the_jobs_outputs_and_a_numpy_reference():
    job, seen = mlp_job()
    x = RNG.standard_normal((6, 20)).astype(np.float32)
    expected = job(x)
    module = flow.export(job)
    assert isinstance(module, torch.nn.Module)
    np.testing.assert_allclose(_run(module, x), expected, rtol=1e-6, atol=1e-7)
    # independent reference: the same network in numpy from the job's variables
    v = {k: b.numpy() for k, b in flow.get_all_variables().items()}
    h = np.maximum(x @ v["dense1-weight"].T + v["dense1-bias"], 0)
    h = np.tanh(h @ v["dense2-weight"].T + v["dense2-bias"])
    logits = h @ v["out-weight"].T + v["out-bias"]
    probs = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(_run(module, x), probs / probs.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert len(seen) == 1  # only the job's own call fed the watch
    assert "value_tap" not in module.source and "flowtorch" not in module.source.split('"""', 2)[2]
    assert {name for name, _ in module.named_parameters()} == {
        "dense1_weight", "dense1_bias", "dense2_weight", "dense2_bias", "out_weight", "out_bias"}


def test_lenet_with_batch_norm_in_inference_matches_the_job():
    x = RNG.standard_normal((4, 1, 28, 28)).astype(np.float32)
    job = _built_lenet(x)
    expected = job(x)
    module = flow.export(job)
    np.testing.assert_allclose(_run(module, x), expected, rtol=1e-5, atol=1e-6)
    buffers = dict(module.named_buffers())
    assert set(buffers) == {"bn1_moving_mean", "bn1_moving_variance"}  # not trainable: buffers
    np.testing.assert_array_equal(buffers["bn1_moving_mean"].cpu().numpy(),
                                  flow.get_all_variables()["bn1-moving_mean"].numpy())
    assert "torch.nn.functional.batch_norm" in module.source and "-inf" in module.source


def test_torch_export_runs_on_the_predict_module():
    x = RNG.standard_normal((4, 1, 28, 28)).astype(np.float32)
    job = _built_lenet(x)
    expected = job(x)
    module = flow.export(job).cpu().eval()
    program = torch.export.export(module, (torch.from_numpy(x),))
    out = program.module()(torch.from_numpy(x))
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_generated_file_runs_where_flowtorch_cannot_be_imported(tmp_path):
    x = RNG.standard_normal((4, 1, 28, 28)).astype(np.float32)
    job = _built_lenet(x)
    expected = job(x)
    flow.export(job, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["model.py", "model.safetensors",
                                                                     "oneflow_names.json"]
    torch.save(torch.from_numpy(x), tmp_path / "x.pt")
    device = default_session().device
    runner = tmp_path / "runner.py"
    runner.write_text(textwrap.dedent(f"""
        import sys
        sys.modules["flowtorch"] = None  # any `import flowtorch` now fails, installed or not
        try:
            import flowtorch
        except ImportError:
            pass
        else:
            raise SystemExit("flowtorch is importable")
        sys.path.insert(0, {str(tmp_path / 'out')!r})
        import torch
        import model
        assert not [m for m in sys.modules if m.startswith("flowtorch") and sys.modules[m] is not None]
        net = model.load(device={device!r})  # the job's device: the same kernels as the job's
        with torch.no_grad():
            y = net(torch.load({str(tmp_path / 'x.pt')!r}).to({device!r}))
        torch.save(y.cpu(), {str(tmp_path / 'y.pt')!r})
    """))
    # -I: isolated mode (no PYTHONPATH, no user site, no current directory on sys.path)
    done = subprocess.run([sys.executable, "-I", str(runner)], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(torch.load(tmp_path / "y.pt").numpy(), expected, rtol=1e-5, atol=1e-6)


def test_name_mapping_round_trips(tmp_path):
    job, _ = mlp_job()
    module = flow.export(job, tmp_path, weights="torch")
    names = module.oneflow_names
    assert names == json.loads((tmp_path / "oneflow_names.json").read_text())
    assert set(names) == set(module.state_dict())
    assert sorted(names.values()) == sorted(n for n in flow.get_all_variables())
    variables = flow.get_all_variables()
    saved = torch.load(tmp_path / "model.pt")
    for attr, oneflow_name in names.items():  # attribute → OneFlow name → the same values, both ways
        np.testing.assert_array_equal(saved[attr].numpy(), variables[oneflow_name].numpy())
    back = {oneflow_name: saved[attr].numpy() for attr, oneflow_name in names.items()}
    flow.load_variables(back)  # the OneFlow names are the session's own
    assert {v: k for k, v in names.items()}["dense1-weight"] == "dense1_weight"


def test_python_names_are_valid_unique_and_never_shadow():
    taken: set[str] = set()
    assert python_name("dense1-weight", taken) == "dense1_weight"
    assert python_name("dense1_weight", taken) == "dense1_weight_2"
    assert python_name("Conv2D_3-bias/out", taken) == "Conv2D_3_bias_out"
    assert python_name("3d-kernel", taken) == "v_3d_kernel"
    assert python_name("lambda", taken) == "lambda_"
    assert python_name("forward", taken, reserved=("forward",)) == "forward_"
    assert all(name.isidentifier() for name in taken)


def test_export_refuses_what_is_not_a_job():
    with pytest.raises(TypeError, match="job must be a job made by @flow.global_function"):
        flow.export(lambda x: x)
    job, _ = mlp_job()
    with pytest.raises(ValueError, match="weights must be one of"):
        flow.export(job, weights="onnx")
