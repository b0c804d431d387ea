"""The optimizer classes an export writes into ``model.py`` (``export_optim_rules``) apply OneFlow's update
rules: each is checked against the rule written out in numpy here, and an exported train job whose momentum SGD
follows a cosine schedule down to a rate of 0 goes on in plain PyTorch (no flowtorch) with the job's losses
and variables."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate import export_optim_rules as rules
from flowtorch._src.session import default_session

RTOL, ATOL = 1e-5, 1e-6  # float32 updates against float64 references


def rule_classes() -> dict:
    """The generated classes, executed as model.py executes them (torch, math and _f32 in scope)."""
    scope: dict = {"torch": torch, "math": math}
    exec("def _f32(x):\n    return float(np.float32(x))\n", {"np": np}, scope)  # the export's float32 rounding
    exec(rules.BASE + "".join(rules.CLASSES.values()), scope)
    return scope


def run(cls: str, grads: list[np.ndarray], rates: list[float], w0: np.ndarray, **kwargs):
    """``w0`` updated by the generated ``cls`` with ``grads[i]`` at rate ``rates[i]``; (weights, state)."""
    p = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    opt = rule_classes()[cls]([p], lr=rates[0], **kwargs)
    for g, lr in zip(grads, rates):
        opt.param_groups[0]["lr"] = lr
        p.grad = torch.from_numpy(g.copy())
        opt.step()
    return p.detach().numpy(), opt.state[p]


@pytest.fixture
def problem():
    rng = np.random.default_rng(11)
    w0 = rng.standard_normal((5, 3)).astype(np.float32)
    grads = [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(5)]
    return w0, grads


RATES = [0.1, 0.05, 0.02, 0.0, 0.0]  # down to 0, as a cosine schedule ends


def test_sgd_momentum_keeps_moving_at_rate_zero(problem):
    w0, grads = problem
    got, state = run("OneFlowSGD", grads, RATES, w0, momentum=0.9, weight_decay=0.01)
    w, v = w0.astype(np.float64), np.zeros_like(w0, dtype=np.float64)
    for g, lr in zip(grads, RATES):
        v = 0.9 * v - lr * g
        w = w + v - lr * 0.01 * w
    np.testing.assert_allclose(got, w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(state["momentum"].numpy(), v, rtol=RTOL, atol=ATOL)
    # the last two steps had rate 0, and the weights still moved by the momentum
    before, _ = run("OneFlowSGD", grads[:3], RATES[:3], w0, momentum=0.9, weight_decay=0.01)
    assert not np.allclose(got, before)


def test_sgd_without_momentum_and_clipping(problem):
    w0, grads = problem
    got, state = run("OneFlowSGD", grads, RATES, w0, clip_norm=0.5)
    w = w0.astype(np.float64)
    for g, lr in zip(grads, RATES):
        factor = min(1.0 / np.linalg.norm(g), 1.0 / 0.5)  # OneFlow's formula: no final * clip_norm
        w = w - lr * factor * g
    np.testing.assert_allclose(got, w, rtol=RTOL, atol=ATOL)
    assert state == {}


@pytest.mark.parametrize("bias_correction", [False, True])
def test_adam(problem, bias_correction):
    w0, grads = problem
    b1, b2, eps, wd = 0.9, 0.99, 1e-3, 0.05
    got, state = run("OneFlowAdam", grads, RATES, w0, betas=(b1, b2), eps=eps, weight_decay=wd,
                     bias_correction=bias_correction)
    w, m, v = w0.astype(np.float64), np.zeros(w0.shape), np.zeros(w0.shape)
    for t, (g, lr) in enumerate(zip(grads, RATES), start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) if bias_correction else lr
        w = w - lr_t * (m / (np.sqrt(v) + eps) + wd * w)  # epsilon before any correction
    np.testing.assert_allclose(got, w, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(state["exp_avg_sq"].numpy(), v, rtol=RTOL, atol=1e-7)
    assert state["step"] == len(grads)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_has_epsilon_inside_the_root(problem, centered):
    w0, grads = problem
    d, eps = 0.9, 0.01
    got, _ = run("OneFlowRMSProp", grads, RATES, w0, decay_rate=d, eps=eps, centered=centered)
    w, ms, mg = w0.astype(np.float64), np.zeros(w0.shape), np.zeros(w0.shape)
    for g, lr in zip(grads, RATES):
        ms = d * ms + (1 - d) * g * g
        mg = d * mg + (1 - d) * g
        w = w - lr * g / np.sqrt((ms - mg * mg if centered else ms) + eps)
    np.testing.assert_allclose(got, w, rtol=RTOL, atol=ATOL)


def test_lamb(problem):
    w0, grads = problem
    b1, b2, eps, wd = 0.9, 0.999, 1e-6, 0.01
    got, _ = run("OneFlowLAMB", grads, RATES, w0, betas=(b1, b2), eps=eps, weight_decay=wd)
    w, m, v = w0.astype(np.float64), np.zeros(w0.shape), np.zeros(w0.shape)
    for t, (g, lr) in enumerate(zip(grads, RATES), start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        # OneFlow v0.3.4 multiplies beta_t by beta before its first use: step t corrects with beta ** (t + 1)
        u = (m / (1 - b1 ** (t + 1))) / np.sqrt(v / (1 - b2 ** (t + 1)) + eps)
        trust = np.linalg.norm(w) / np.linalg.norm(u)
        w = w - lr * trust * (u + wd * w)
    np.testing.assert_allclose(got, w, rtol=RTOL, atol=ATOL)


def test_lars(problem):
    w0, grads = problem
    beta, eps, coef, wd = 0.9, 1e-9, 0.01, 0.02
    rates = [1.0, 0.5, 0.5, 0.0, 0.2]
    got, _ = run("OneFlowLARS", grads, rates, w0, momentum=beta, eps=eps, lars_coefficient=coef, weight_decay=wd)
    w, v = w0.astype(np.float64), np.zeros(w0.shape)
    for t, (g, lr) in enumerate(zip(grads, rates), start=1):
        scale = 1.0 + wd if t > 1 else 1.0  # the weight-decay term of the norm from the second step on
        local = lr * coef * np.linalg.norm(w) / (np.linalg.norm(g) * scale + eps)
        v = beta * v - local * (g + wd * w)
        w = w + v
    np.testing.assert_allclose(got, w, rtol=RTOL, atol=ATOL)


def test_lazy_rows_leave_the_rows_without_gradient_alone(problem):
    w0, grads = problem
    for g in grads[1:]:
        g[1] = 0.0  # row 1 is in the first batch only
    p = torch.nn.Parameter(torch.from_numpy(w0.copy()))
    opt = rule_classes()["OneFlowAdam"]([{"params": [p], "lazy_rows": True}], lr=0.1, bias_correction=True)
    for g in grads:
        p.grad = torch.from_numpy(g.copy())
        opt.step()
        np.testing.assert_array_equal(p.grad.numpy(), g)  # the gradient is read, not changed
    got, moment = p.detach().numpy(), opt.state[p]["exp_avg"].numpy()
    dense, dense_state = run("OneFlowAdam", grads, [0.1] * len(grads), w0, bias_correction=True)
    first, first_state = run("OneFlowAdam", grads[:1], [0.1], w0, bias_correction=True)
    # row 1 (and its moment) stays as the first step left it; a dense update would have gone on moving it
    np.testing.assert_array_equal(got[1], first[1])
    np.testing.assert_array_equal(moment[1], first_state["exp_avg"][1].numpy())
    assert not np.allclose(dense[1], first[1])
    rows = [0, 2, 3, 4]  # the rows of every batch: as the dense update
    np.testing.assert_allclose(got[rows], dense[rows], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(moment[rows], dense_state["exp_avg"][rows].numpy(), rtol=1e-6, atol=1e-7)
    assert opt.state[p]["step"] == len(grads)


# -- a job, exported at or before a rate of 0, continued without flowtorch --------------------------------------

BATCH, FEATURES, CLASSES, DECAY_STEPS, AFTER = 6, 5, 3, 4, 5


def cosine_momentum_job():
    @flow.global_function(type="train")
    def cosine_job(x: tp.Numpy.Placeholder((BATCH, FEATURES)),
                   labels: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.4, seed=3)
        h = flow.layers.dense(x, 8, activation=flow.math.tanh, kernel_initializer=init, name="h")
        logits = flow.layers.dense(h, CLASSES, kernel_initializer=init, name="out")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        # rate 0.2 at step 0, exactly 0 from step DECAY_STEPS on: momentum alone moves the weights then
        flow.optimizer.SGD(flow.optimizer.CosineScheduler(0.2, DECAY_STEPS), momentum=0.9).minimize(loss)
        return loss
    return cosine_job


RUNNER = """
import json, sys
sys.modules["flowtorch"] = None  # the export must not need it
sys.path.insert(0, sys.argv[1])
import torch
import model
net, optimizer, scheduler = model.load_training(device=sys.argv[3])
losses = []
for x, y in torch.load(sys.argv[2]):
    optimizer.zero_grad()
    loss = net.loss(x.to(sys.argv[3]), y.to(sys.argv[3]))
    losses.append(loss.detach().cpu())
    net.objective_from(loss).backward()
    optimizer.step()
    scheduler.step()
torch.save({"losses": torch.stack(losses), "state": {k: v.cpu() for k, v in net.state_dict().items()},
            "optimizer": type(optimizer).__name__, "lr": optimizer.param_groups[0]["lr"]}, sys.argv[4])
"""


@pytest.mark.parametrize("before", [2, DECAY_STEPS + 2], ids=["rate-reaches-0-after-export", "exported-at-rate-0"])
def test_exported_momentum_sgd_continues_through_rate_zero_without_flowtorch(tmp_path: Path, before: int):
    job = cosine_momentum_job()
    rng = np.random.default_rng(7)
    batches = [(rng.standard_normal((BATCH, FEATURES)).astype(np.float32),
                rng.integers(0, CLASSES, BATCH).astype(np.int32)) for _ in range(before + AFTER)]
    for x, y in batches[:before]:
        job(x, y)
    out = tmp_path / "export"
    flow.export(job, out, weights="torch")  # refused before: "its rate at step 4 is 0"
    velocity = flow.get_all_variables()["h-weight-momentum"].numpy()
    assert velocity.any()
    expected = np.stack([job(x, y) for x, y in batches[before:]])
    variables = {name: v.numpy() for name, v in flow.get_all_variables().items()}
    torch.save([(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches[before:]], tmp_path / "batches.pt")
    (tmp_path / "runner.py").write_text(RUNNER)
    done = subprocess.run([sys.executable, "-I", str(tmp_path / "runner.py"), str(out), str(tmp_path / "batches.pt"),
                           default_session().device, str(tmp_path / "result.pt")],
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = torch.load(tmp_path / "result.pt")
    assert result["optimizer"] == "OneFlowSGD" and result["lr"] == 0.0
    assert not np.allclose(expected[0], expected[-1])  # the rate-0 steps still changed the weights
    np.testing.assert_allclose(result["losses"].numpy(), expected, rtol=1e-6, atol=1e-6)
    names = json.loads((out / "oneflow_names.json").read_text())
    for attr, name in names.items():
        np.testing.assert_allclose(result["state"][attr].numpy(), variables[name], rtol=1e-6, atol=1e-6,
                                   err_msg=name)


def test_the_exported_optimizer_reads_as_pytorch_code(tmp_path: Path):
    job = cosine_momentum_job()
    rng = np.random.default_rng(8)
    job(rng.standard_normal((BATCH, FEATURES)).astype(np.float32), np.zeros(BATCH, np.int32))
    out = tmp_path / "export"
    module = flow.export(job, out, weights="torch")
    source = (out / "model.py").read_text()
    written = source[source.index("def learning_rate"):source.index("def read_weights")]  # the optimizer's part
    assert max(len(line) for line in written.splitlines()) <= 120
    assert "class OneFlowSGD(OneFlowOptimizer):" in source and "    def step(self, closure=None):" in source
    assert "return OneFlowSGD(groups, lr=learning_rate(START_STEP), momentum=0.9)" in source
    assert isinstance(module.optimizer, torch.optim.Optimizer)
    params = {id(p) for group in module.optimizer.param_groups for p in group["params"]}
    assert params == {id(p) for p in module.parameters()}
    # torch's own state_dict round trip (optimizer.pt) keeps OneFlow's slot as the state
    spec = importlib.util.spec_from_file_location("cosine_export", out / "model.py")
    assert spec is not None and spec.loader is not None
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    net, optimizer, _ = model.load_training()
    v = flow.get_all_variables()["out-weight-momentum"].numpy()
    assert v.any()
    np.testing.assert_array_equal(optimizer.state[net.out_weight]["momentum"].numpy(), v)
