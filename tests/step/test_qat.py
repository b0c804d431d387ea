"""function_config.enable_qat(True): OneFlow's quantization-aware-training rewrite of a train or predict job
(step/qat.py), checked against a hand-written torch model that fake-quantizes the same blobs with OneFlow's
formulas (v0.3.4 kernels for the default backend, v0.4.0's power-of-two ones for cambricon)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.session import default_session
from flowtorch._src.step import graphed

BATCH, SHAPE = 2, (2, 3, 5, 5)
LR, MOMENTUM, STOP = 0.1, 0.9, 1
STEPS = 4  # the statistics move at steps 0 and 1 (the counter is <= STOP), then stay


@pytest.fixture(autouse=True)
def full_precision(monkeypatch: pytest.MonkeyPatch) -> None:
    """On CUDA, convolutions in float32 (not TF32): the references compare rounding-sensitive numbers."""
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)


def qat_config(per_channel: bool = False, symmetric: bool = True, backend: str = "",
               stop: int | None = STOP) -> Any:
    cfg = flow.FunctionConfig()
    cfg.enable_qat(True)
    cfg.qat.per_channel_weight_quantization(per_channel)
    cfg.qat.symmetric(symmetric)
    cfg.qat.moving_min_max_momentum(MOMENTUM)
    if stop is not None:
        cfg.qat.moving_min_max_stop_update_after_iters(stop)
    cfg.qat.target_backend(backend)
    return cfg


def body(x: Any, names: list[str], fc_scope: bool = True) -> Any:
    """conv2d (bias, relu) → reshape → dense; ``fc_scope=False`` builds the dense layer outside QAT."""
    init = flow.random_normal_initializer(stddev=0.3, seed=1)
    y = flow.layers.conv2d(x, 4, 3, 1, "SAME", activation=flow.nn.relu, kernel_initializer=init,
                           bias_initializer=flow.random_normal_initializer(stddev=0.01, seed=2), name="conv1")
    y = flow.reshape(y, (BATCH, -1))
    names += [x.logical_blob_name, y.logical_blob_name]
    with flow.experimental.scope.config(quantization_aware_training=fc_scope):
        return flow.layers.dense(y, 3, kernel_initializer=init,
                                 bias_initializer=flow.random_normal_initializer(stddev=0.1, seed=3), name="fc")


def train_job(cfg: Any, names: list[str], fc_scope: bool = True) -> Any:
    @flow.global_function(type="train", function_config=cfg)
    def train(x: tp.Numpy.Placeholder(SHAPE)) -> tp.Numpy:
        y = body(x, names, fc_scope)
        loss = flow.math.reduce_mean(y * y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(loss)
        return loss
    return train


def variables() -> dict[str, np.ndarray]:
    return {k: v.numpy() for k, v in flow.get_all_variables().items()}


# --- the reference: OneFlow's math, written out -------------------------------------------------------------
def c_round(t: torch.Tensor) -> torch.Tensor:
    """C's round (halves away from zero), exact: in float64."""
    d = t.double()
    return (torch.sign(d) * torch.floor(d.abs() + 0.5)).to(t.dtype)


def along0(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return t.reshape((-1,) + (1,) * (like.dim() - 1)) if t.numel() > 1 else t.reshape(())


@dataclass
class Quant:
    symmetric: bool = True
    per_channel: bool = False
    cambricon: bool = False

    def fake(self, x: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor) -> torch.Tensor:
        """Quantize and dequantize, the gradient passed straight through to ``x``."""
        with torch.no_grad():
            if self.cambricon:  # scale is a shift: 2^shift steps, halves to even, [-128, 127]
                step = 2.0 ** torch.trunc(scale.reshape(-1)[0])
                q = torch.clamp(torch.round(x / step), -128, 127) * step
            else:
                s, z = along0(scale, x), along0(zero_point, x)
                if self.symmetric:
                    q = torch.clamp(c_round(x / s), -127, 127) * s
                else:
                    q = (torch.clamp(c_round(x / s + z), 0, 255) - z) * s
        return x + (q - x).detach()

    def from_max_min(self, mx: torch.Tensor, mn: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.cambricon:
            return torch.floor(torch.log2(mx)) - 6, torch.zeros_like(mx)
        if self.symmetric:
            return mx / torch.full_like(mx, 127.0), torch.zeros_like(mx)
        scale = (mx - mn) / torch.full_like(mx, 255.0)
        return scale, -mn / scale

    def weight(self, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """min_max_observer."""
        rows = w.detach().reshape(w.shape[0] if self.per_channel else 1, -1)
        mx, mn = rows.max(dim=1).values, rows.min(dim=1).values
        if self.symmetric or self.cambricon:
            mx = torch.maximum(mx.abs(), mn.abs())
        return self.from_max_min(mx, mn)


@dataclass
class Moving:
    """moving_average_min_max_observer's statistics."""

    quant: Quant
    max: torch.Tensor = field(default_factory=lambda: torch.zeros(1))
    min: torch.Tensor = field(default_factory=lambda: torch.zeros(1))

    def __call__(self, x: torch.Tensor, step: int, training: bool) -> tuple[torch.Tensor, torch.Tensor]:
        if training and step <= STOP:
            m = float(np.float32(MOMENTUM))
            rest = float(np.float32(1) - np.float32(MOMENTUM))
            mx, mn = x.detach().max().reshape(1), x.detach().min().reshape(1)
            both = self.quant.symmetric or self.quant.cambricon
            if both:
                mx = torch.maximum(mx.abs(), mn.abs())
            self.max = mx if self.max.item() == 0 else self.max * m + mx * rest
            self.min = self.max if both else (mn if self.min.item() == 0 else self.min * m + mn * rest)
        return self.quant.from_max_min(self.max, self.min)


@dataclass
class Reference:
    """The job's model in torch with the fake quantization OneFlow's pass inserts for ``backend``."""

    quant: Quant
    params: dict[str, torch.Tensor]
    backend: str = ""
    fc_quantized: bool = True
    observers: dict[str, Moving] = field(default_factory=dict)

    def moving(self, key: str, x: torch.Tensor, step: int, training: bool) -> torch.Tensor:
        observer = self.observers.setdefault(key, Moving(self.quant))
        return self.quant.fake(x, *observer(x, step, training))

    def forward(self, x: torch.Tensor, step: int, training: bool) -> torch.Tensor:
        q, p = self.quant, self.params
        w, b, fw, fb = p["conv1-weight"], p["conv1-bias"], p["fc-weight"], p["fc-bias"]
        xq = self.moving("in", x, step, training)
        in_scale = self.observers["in"].quant.from_max_min(self.observers["in"].max, self.observers["in"].min)[0]
        w_scale, w_zero = q.weight(w)
        wq = q.fake(w, w_scale, w_zero)
        # the bias: the product of the conv's input and weight scales, a zero zero-point per weight scale
        bq = q.fake(b, in_scale * w_scale, torch.zeros(w_scale.numel()))
        r = torch.relu(F.conv2d(xq, wq, bq, padding=1))
        if self.backend != "cambricon":  # the output of the conv chain (conv, bias_add, relu)
            r = self.moving("relu", r, step, training)
        flat = r.reshape(BATCH, -1)
        if not self.fc_quantized:
            return flat @ fw.t() + fb
        if self.backend == "cambricon":  # every input of matmul, the reshaped activations too
            flat = self.moving("flat", flat, step, training)
        mm = flat @ q.fake(fw, *q.weight(fw)).t()
        if self.backend != "cambricon":
            mm = self.moving("matmul", mm, step, training)
        return mm + fb

    def train_step(self, x: torch.Tensor, step: int) -> float:
        leaves = {k: v.clone().requires_grad_(True) for k, v in self.params.items()}
        self.params = leaves
        y = self.forward(x, step, training=True)
        loss = (y * y).mean()
        grads = torch.autograd.grad(loss, list(leaves.values()))
        self.params = {k: (v - LR * g).detach() for (k, v), g in zip(leaves.items(), grads)}
        return float(loss.detach())


def observer_vars(lbn: str) -> list[str]:
    base = lbn.replace("/", "-") + "-fake-quant-observer-fake-quant-moving-"
    return [base + "max", base + "min"]


def check_statistics(ref: Reference, found: dict[str, np.ndarray], lbns: dict[str, str]) -> None:
    for key, lbn in lbns.items():
        vmax, vmin = observer_vars(lbn)
        np.testing.assert_allclose(found[vmax], ref.observers[key].max.numpy(), rtol=1e-5, err_msg=vmax)
        np.testing.assert_allclose(found[vmin], ref.observers[key].min.numpy(), rtol=1e-5, atol=1e-7, err_msg=vmin)


PARAMS = ("conv1-weight", "conv1-bias", "fc-weight", "fc-bias")


def run_and_compare(cfg: Any, quant: Quant, backend: str = "", fc_scope: bool = True) -> tuple[Reference, list[str]]:
    names: list[str] = []
    job = train_job(cfg, names, fc_scope)
    start = variables()
    ref = Reference(quant, {k: torch.from_numpy(start[k]) for k in PARAMS}, backend, fc_quantized=fc_scope)
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    for step in range(STEPS):
        got = float(job(x)[0])
        want = ref.train_step(torch.from_numpy(x), step)
        assert got == pytest.approx(want, rel=1e-4), f"step {step}"
    found = variables()
    for k in PARAMS:
        np.testing.assert_allclose(found[k], ref.params[k].numpy(), rtol=1e-4, atol=1e-6, err_msg=k)
    assert found["System-Train-TrainStep-train"][0] == STEPS
    return ref, names


# --- (1) numbers -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("symmetric", [True, False])
def test_train_job_matches_oneflows_fake_quantization(per_channel: bool, symmetric: bool) -> None:
    ref, names = run_and_compare(qat_config(per_channel, symmetric), Quant(symmetric, per_channel))
    check_statistics(ref, variables(), {"in": names[0], "relu": "conv1-activation/out_0", "matmul": "fc_matmul/out_0"})


def test_statistics_stop_moving_after_the_set_step() -> None:
    names: list[str] = []
    job = train_job(qat_config(), names)
    x = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
    seen = []
    for step in range(STEPS):
        job(x * (1 + step))
        seen.append(variables()[observer_vars(names[0])[0]].copy())
    top = np.abs(x).max()
    np.testing.assert_allclose(seen[0], [top], rtol=1e-6)  # a zero statistic takes the first batch's value
    np.testing.assert_allclose(seen[1], [top * MOMENTUM + 2 * top * (1 - MOMENTUM)], rtol=1e-6)
    np.testing.assert_array_equal(seen[1], seen[2])  # the counter is past STOP: no more updates
    np.testing.assert_array_equal(seen[2], seen[3])


def test_cambricon_quantizes_the_inputs_of_conv_and_matmul_with_powers_of_two() -> None:
    ref, names = run_and_compare(qat_config(backend="cambricon"), Quant(cambricon=True), "cambricon")
    check_statistics(ref, variables(), {"in": names[0], "flat": names[1]})
    assert not any(k.startswith(("conv1-activation", "fc_matmul")) for k in variables())


# --- (2) the variables it makes --------------------------------------------------------------------------------
@pytest.mark.parametrize("per_channel", [False, True])
def test_created_variables_have_oneflows_names(per_channel: bool, tmp_path: Path) -> None:
    names: list[str] = []
    job = train_job(qat_config(per_channel), names)
    before = set(variables())  # built: QAT ran, nothing trained yet
    plain = {"conv1-weight", "conv1-bias", "fc-weight", "fc-bias", "System-Train-TrainStep-train"}
    made = before - plain
    wanted = {*observer_vars(names[0]), *observer_vars("conv1-activation/out_0"), *observer_vars("fc_matmul/out_0"),
              "conv1-bias-out-fake-quant-zp"}
    assert made == wanted
    found = variables()
    for name in made:
        assert found[name].dtype == np.float32 and not found[name].any(), name
        assert found[name].shape == ((4,) if name.endswith("-zp") and per_channel else (1,)), name
        assert not default_session().variables[name].trainable, name
    job(np.ones(SHAPE, np.float32))
    flow.checkpoint.save(str(tmp_path / "snap"))
    assert wanted <= {p.name for p in (tmp_path / "snap").iterdir()}


def test_tensorrt7_quantizes_conv2d_only() -> None:
    names: list[str] = []
    train_job(qat_config(backend="tensorrt7"), names)
    made = {k for k in variables() if "fake-quant" in k}
    assert made == {*observer_vars(names[0]), *observer_vars("conv1-activation/out_0"), "conv1-bias-out-fake-quant-zp"}


def test_a_conv_chain_with_batch_norm_quantizes_after_the_relu_and_not_the_norms_inputs() -> None:
    names: list[str] = []

    @flow.global_function(type="train", function_config=qat_config())
    def train(x: tp.Numpy.Placeholder(SHAPE)) -> tp.Numpy:
        names.append(x.logical_blob_name)
        y = flow.layers.conv2d(x, 4, 3, 1, "SAME", name="c1")
        y = flow.nn.relu(flow.layers.batch_normalization(y, axis=1, name="bn1"), name="r1")
        loss = flow.math.reduce_mean(y)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(loss)
        return loss

    train(np.ones(SHAPE, np.float32))
    made = {k for k in variables() if "fake-quant" in k}
    assert made == {*observer_vars(names[0]), "c1-bias-out-fake-quant-zp", *observer_vars("r1/out_0")}


# --- (3) scopes --------------------------------------------------------------------------------------------------
def test_a_scope_without_quantization_aware_training_is_left_alone() -> None:
    ref, names = run_and_compare(qat_config(), Quant(), fc_scope=False)
    found = variables()
    assert not any(k.startswith("fc") and "fake-quant" in k for k in found)
    check_statistics(ref, found, {"in": names[0], "relu": "conv1-activation/out_0"})


def test_oneflows_example_conv_in_a_scope_without_qat() -> None:
    names: list[str] = []

    @flow.global_function(type="train", function_config=qat_config())
    def train(x: tp.Numpy.Placeholder(SHAPE)) -> tp.Numpy:
        names.append(x.logical_blob_name)
        y = flow.layers.conv2d(x, 4, 3, 1, "SAME", name="c1")
        with flow.experimental.scope.config(quantization_aware_training=False):
            z = flow.layers.conv2d(y, 4, 3, 1, "SAME", name="c2")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0).minimize(z)
        return z

    train(np.ones(SHAPE, np.float32))
    made = {k for k in variables() if "fake-quant" in k}
    # c1's output (its chain ends at c1-bias_add) feeds c2, so it is quantized; c2's weight, bias and output are not
    assert made == {*observer_vars(names[0]), "c1-bias-out-fake-quant-zp", *observer_vars("c1-bias_add/out_0")}


# --- (4) predict jobs ----------------------------------------------------------------------------------------------
def test_predict_job_reads_the_statistics_and_updates_nothing() -> None:
    names: list[str] = []
    cfg = qat_config()
    train = train_job(cfg, names)

    @flow.global_function(type="predict", function_config=qat_config())
    def predict(x: tp.Numpy.Placeholder(SHAPE)) -> tp.Numpy:
        return body(x, names)

    rng = np.random.default_rng(2)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    start = variables()
    ref = Reference(Quant(), {k: torch.from_numpy(start[k]) for k in PARAMS})
    for step in range(2):
        train(x)
        ref.train_step(torch.from_numpy(x), step)
    # the predict job's own input statistics (its input blob has another name) and zero train-step counter
    in_max, in_min = observer_vars(names[2])
    step_var = names[2].replace("/", "-") + "-fake-quant-observer-fake-train-step"
    found = variables()
    assert found[step_var].dtype == np.int64 and found[step_var].shape == (1,) and found[step_var][0] == 0
    assert not any(k.endswith("-fake-train-step") and names[0].split("/")[0] in k for k in found)
    flow.load_variables({in_max: np.array([2.5], np.float32), in_min: np.array([2.5], np.float32)})
    ref.observers["in"] = Moving(Quant(), torch.tensor([2.5]), torch.tensor([2.5]))
    before = variables()
    y = x * 3
    got = predict(y)
    with torch.no_grad():
        want = ref.forward(torch.from_numpy(y), step=0, training=False)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-6)
    after = variables()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=k)


# --- (5) off -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["unset", "alias off"])
def test_without_qat_nothing_changes(how: str) -> None:
    cfg = flow.FunctionConfig()
    if how == "alias off":  # OneFlow's two setters write one field: the last call wins
        cfg.enable_qat(True)
        cfg.enable_quantization_aware_training(False)
    names: list[str] = []
    job = train_job(cfg, names)
    start = variables()
    params = {k: torch.from_numpy(start[k]).clone().requires_grad_(True) for k in PARAMS}
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    for _ in range(2):
        got = float(job(x)[0])
        y = torch.relu(F.conv2d(torch.from_numpy(x), params["conv1-weight"], params["conv1-bias"], padding=1))
        y = y.reshape(BATCH, -1) @ params["fc-weight"].t() + params["fc-bias"]
        loss = (y * y).mean()
        grads = torch.autograd.grad(loss, list(params.values()))
        params = {k: (v - LR * g).detach().requires_grad_(True) for (k, v), g in zip(params.items(), grads)}
        assert got == pytest.approx(float(loss.detach()), rel=1e-5)
    assert not any("fake" in k for k in variables())


# --- errors and notices --------------------------------------------------------------------------------------------
def test_moving_average_observers_need_stop_update_after_iters() -> None:
    job = train_job(qat_config(stop=None), [])
    with pytest.raises(ValueError, match="moving_min_max_stop_update_after_iters"):
        job(np.ones(SHAPE, np.float32))


def test_an_unknown_backend_is_refused() -> None:
    job = train_job(qat_config(backend="tpu"), [])
    with pytest.raises(NotImplementedError, match="target_backend"):
        job(np.ones(SHAPE, np.float32))


def test_mixed_precision_leaves_the_job_unquantized(caplog: pytest.LogCaptureFixture) -> None:
    cfg = qat_config()
    cfg.enable_auto_mixed_precision(True)
    job = train_job(cfg, [])
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        job(np.ones(SHAPE, np.float32))
    assert not any("fake" in k for k in variables())
    assert any("auto mixed precision" in r.getMessage() for r in caplog.records)


def test_one_info_line_per_job(caplog: pytest.LogCaptureFixture) -> None:
    job = train_job(qat_config(), [])
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        job(np.ones(SHAPE, np.float32))
        job(np.ones(SHAPE, np.float32))
    lines = [r.getMessage() for r in caplog.records if "quantization-aware training" in r.getMessage()]
    assert len(lines) == 1 and "2 op(s) (conv2d ×1, matmul ×1)" in lines[0] and "6 fake_quantization" in lines[0]


# --- returns, watches, captured steps ------------------------------------------------------------------------------
def test_a_returned_and_watched_int8_output_is_the_fake_quantized_one() -> None:
    """OneFlow's pass quantizes an int8 op's output on every edge, its Return and ForeignWatch ops included."""
    seen: list[np.ndarray] = []
    names: list[str] = []

    @flow.global_function(type="predict", function_config=qat_config())
    def predict(x: tp.Numpy.Placeholder((2, 4))) -> tp.Numpy:
        names.append(x.logical_blob_name)
        w = flow.get_variable("w", shape=(4, 3), initializer=flow.random_normal_initializer(seed=4))
        m = flow.matmul(x, w)
        names.append(m.logical_blob_name)
        flow.watch(m, lambda v: seen.append(v.numpy()))
        return m

    flow.get_all_variables()  # builds the job: its observers' statistics exist now
    x_max, x_min = observer_vars(names[0])
    m_max, m_min = observer_vars(names[1])
    flow.load_variables({x_max: np.array([1.5], np.float32), x_min: np.array([1.5], np.float32),
                         m_max: np.array([2.0], np.float32), m_min: np.array([2.0], np.float32)})
    w = torch.from_numpy(variables()["w"])
    x = np.random.default_rng(5).standard_normal((2, 4)).astype(np.float32)
    got = predict(x)
    q = Quant()
    s = torch.tensor([1.0])
    want = q.fake(torch.from_numpy(x), 1.5 * s / 127, 0 * s) @ q.fake(w, *q.weight(w))
    want = q.fake(want, 2.0 * s / 127, 0 * s)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(seen[0], got)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU emulation of CUDA graphs")
def test_a_captured_step_keeps_the_statistics_and_the_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The observers run from the whole-step graph as eagerly: the counter read on the device stops them."""

    def run(mode: str) -> tuple[list[float], dict[str, np.ndarray]]:
        flow.clear_default_session()
        monkeypatch.setenv("FLOWTORCH_CAPTURE", mode)
        names: list[str] = []
        # warm-up calls 0-2 run eagerly, 3-5 from the graph: the statistics move at 3 and 4, not at 5
        job = train_job(qat_config(symmetric=False, per_channel=True, stop=4), names)
        rng = np.random.default_rng(6)
        losses = [float(job(rng.standard_normal(SHAPE).astype(np.float32) * (1 + i))[0]) for i in range(6)]
        graphed_step = default_session().jobs["train"].step.graphed
        assert (graphed_step is not None and bool(graphed_step.graphs) and not graphed_step.disabled) == \
            (mode == "cuda_graph")
        found = variables()
        return losses, {k.replace(names[0].split("/")[0], "Input"): v for k, v in found.items()}

    eager = run("eager")
    monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
    captured = run("cuda_graph")
    assert captured[0] == eager[0]
    assert captured[1].keys() == eager[1].keys()
    for k, v in eager[1].items():
        np.testing.assert_array_equal(captured[1][k], v, err_msg=k)


def test_eager_jobs_are_not_rewritten(caplog: pytest.LogCaptureFixture) -> None:
    """OneFlow's eager mode ran no job passes: the numbers are the plain model's."""
    flow.enable_eager_execution(True)
    try:
        job = train_job(qat_config(), [])
        with caplog.at_level(logging.INFO, logger="flowtorch"):
            job(np.ones(SHAPE, np.float32))
            job(np.ones(SHAPE, np.float32))
    finally:
        flow.enable_eager_execution(False)
    assert not any("fake" in k for k in variables())
    assert sum("eager job: enable_qat is ignored" in r.getMessage() for r in caplog.records) <= 1
