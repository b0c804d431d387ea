"""flowtorch.export of train jobs: five more steps in plain PyTorch give the job's next five losses."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate.export_optim import schedule_source
from flowtorch._src.optim import schedulers as sch
from flowtorch._src.session import default_session

BATCH, FEATURES, CLASSES = 8, 12, 5
STEPS_BEFORE, STEPS_AFTER = 3, 5
# float32 arithmetic done in another order (the gradient's 1/n scaling, torch's update kernels): a few ulps
LOSS_RTOL, LOSS_ATOL = 1e-5, 1e-6


def data(seed: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((BATCH, FEATURES)).astype(np.float32),
             rng.integers(0, CLASSES, BATCH).astype(np.int32)) for _ in range(STEPS_BEFORE + STEPS_AFTER)]


def mlp_train_job(make_optimizer, regularizer=None):
    @flow.global_function(type="train")
    def train_mlp(x: tp.Numpy.Placeholder((BATCH, FEATURES)),
                  labels: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.5)
        h = flow.layers.dense(x, 16, activation=flow.nn.relu, kernel_initializer=init, bias_initializer=init,
                              kernel_regularizer=regularizer, name="hidden")
        flow.watch_diff(h, lambda g: None)  # a gradient tap: gone from the export
        logits = flow.layers.dense(h, CLASSES, kernel_initializer=init, name="logits")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="xent")
        make_optimizer().minimize(loss)
        return loss
    return train_mlp


def continue_in_torch(module: torch.nn.Module, batches) -> list[np.ndarray]:
    """The losses of the exported module trained on ``batches`` with its own optimizer and schedule."""
    device = next(module.parameters()).device
    losses = []
    for x, y in batches:
        x, y = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)
        module.optimizer.zero_grad()
        loss = module.loss(x, y)  # one run of the graph per step, as the job's
        losses.append(loss.detach().cpu().numpy())
        module.objective_from(loss).backward()
        module.optimizer.step()
        module.lr_scheduler.step()
    return losses


def check_continuation(job) -> torch.nn.Module:
    batches = data()
    for x, y in batches[:STEPS_BEFORE]:
        job(x, y)
    module = flow.export(job)
    expected = [job(x, y) for x, y in batches[STEPS_BEFORE:]]  # the job goes on from the same point
    got = continue_in_torch(module, batches[STEPS_BEFORE:])
    assert not np.allclose(expected[0], expected[-1])  # the steps did change the weights
    np.testing.assert_allclose(np.stack(got), np.stack(expected), rtol=LOSS_RTOL, atol=LOSS_ATOL)
    return module


def test_sgd_with_momentum_continues_with_the_jobs_losses():
    module = check_continuation(mlp_train_job(lambda: flow.optimizer.SGD(
        flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0.9)))
    assert isinstance(module.optimizer, torch.optim.Optimizer) and type(module.optimizer).__name__ == "OneFlowSGD"
    assert module.optimizer.param_groups[0]["momentum"] == 0.9


def test_sgd_momentum_state_is_oneflows_slot():
    job = mlp_train_job(lambda: flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]),
                                                   momentum=0.9))
    for x, y in data()[:2]:
        job(x, y)
    module = flow.export(job)
    v = flow.get_all_variables()["hidden-weight-momentum"].numpy()
    assert v.any()
    np.testing.assert_array_equal(module.optimizer.state[module.hidden_weight]["momentum"].cpu().numpy(), v)


def test_adam_without_bias_correction_with_a_schedule_and_regularizer():
    job = mlp_train_job(lambda: flow.optimizer.Adam(flow.optimizer.CosineScheduler(0.01, 10)),
                        regularizer=flow.regularizers.l1_l2(0.001, 0.01))
    module = check_continuation(job)
    assert type(module.optimizer).__name__ == "OneFlowAdam"
    assert not module.optimizer.param_groups[0]["bias_correction"]
    assert module.optimizer.state[module.hidden_weight]["step"] == STEPS_BEFORE + STEPS_AFTER
    # the schedule went on with the steps: the rate now is OneFlow's for step 3 + 5
    assert module.optimizer.param_groups[0]["lr"] == sch.CosineScheduler(0.01, 10).lr(STEPS_BEFORE + STEPS_AFTER)


def test_adamw_with_warmup_and_excluded_decay():
    module = check_continuation(mlp_train_job(lambda: flow.optimizer.AdamW(
        flow.optimizer.PolynomialScheduler(0.02, 12, warmup=flow.optimizer.warmup.linear(5, 0.2)),
        weight_decay=0.1, weight_decay_excludes=["bias"])))
    assert type(module.optimizer).__name__ == "OneFlowAdam"
    rates = {p.shape: g["weight_decay"] for g in module.optimizer.param_groups for p in g["params"]}
    assert rates[module.hidden_bias.shape] == 0.0 and rates[module.hidden_weight.shape] == 0.1


@pytest.mark.parametrize("clip_norm", [1.0, 0.05])  # 0.05: every step clipped; 1.0: OneFlow's 1/clip_norm cap
def test_clipping_by_global_norm_continues_with_the_jobs_losses(clip_norm):
    module = check_continuation(mlp_train_job(lambda: flow.optimizer.AdamW(
        flow.optimizer.PiecewiseConstantScheduler([], [0.02]), weight_decay=0.01,
        grad_clipping=flow.optimizer.grad_clipping.by_global_norm(clip_norm))))
    assert module.optimizer.clip_norm == clip_norm


def test_clipping_with_sgd_momentum_matches_oneflows_factor():
    check_continuation(mlp_train_job(lambda: flow.optimizer.SGD(
        flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0.9,
        grad_clipping=flow.optimizer.grad_clipping.by_global_norm(0.5))))


def test_exported_optimizer_state_equals_the_jobs_adam_slots():
    job = mlp_train_job(lambda: flow.optimizer.Adam(flow.optimizer.PiecewiseConstantScheduler([], [0.01])))
    for x, y in data()[:2]:
        job(x, y)
    module = flow.export(job)
    variables = flow.get_all_variables()
    for attr, name in module.oneflow_names.items():
        state = module.optimizer.state[getattr(module, attr)]
        np.testing.assert_array_equal(state["exp_avg"].cpu().numpy(), variables[f"{name}-m"].numpy())
        np.testing.assert_array_equal(state["exp_avg_sq"].cpu().numpy(), variables[f"{name}-v"].numpy())


def test_generated_training_files_continue_without_flowtorch(tmp_path):
    job = mlp_train_job(lambda: flow.optimizer.Adam(flow.optimizer.ExponentialScheduler(0.01, 4, 0.5)))
    batches = data()
    for x, y in batches[:STEPS_BEFORE]:
        job(x, y)
    flow.export(job, tmp_path / "out")
    expected = np.stack([job(x, y) for x, y in batches[STEPS_BEFORE:]])
    torch.save([(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches[STEPS_BEFORE:]], tmp_path / "b.pt")
    device = default_session().device
    runner = tmp_path / "runner.py"
    runner.write_text(textwrap.dedent(f"""
        import sys
        sys.modules["flowtorch"] = None
        sys.path.insert(0, {str(tmp_path / 'out')!r})
        import torch
        import model
        net, optimizer, scheduler = model.load_training(device={device!r})  # the job's device
        losses = []
        for x, y in torch.load({str(tmp_path / 'b.pt')!r}):
            x, y = x.to({device!r}), y.to({device!r})
            optimizer.zero_grad()
            loss = net.loss(x, y)
            losses.append(loss.detach())
            net.objective_from(loss).backward()
            optimizer.step()
            scheduler.step()
        torch.save(torch.stack(losses).cpu(), {str(tmp_path / 'losses.pt')!r})
    """))
    done = subprocess.run([sys.executable, "-I", str(runner)], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(torch.load(tmp_path / "losses.pt").numpy(), expected, rtol=LOSS_RTOL, atol=LOSS_ATOL)


def test_conv_batch_norm_train_job_continues_losses_and_moving_statistics():
    @flow.global_function(type="train")
    def train_cnn(x: tp.Numpy.Placeholder((BATCH, 1, 10, 10)),
                  labels: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
        init = flow.random_normal_initializer(stddev=0.3)
        c = flow.layers.conv2d(x, 4, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init, name="conv")
        c = flow.layers.batch_normalization(c, axis=1, momentum=0.8, name="bn")  # batch statistics, updated
        c = flow.nn.max_pool2d(c, 2, 2, "VALID", "NCHW")
        logits = flow.layers.dense(flow.reshape(c, (BATCH, -1)), CLASSES, kernel_initializer=init, name="fc")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0.0).minimize(loss)
        return loss

    rng = np.random.default_rng(5)
    batches = [(rng.standard_normal((BATCH, 1, 10, 10)).astype(np.float32),
                rng.integers(0, CLASSES, BATCH).astype(np.int32)) for _ in range(STEPS_BEFORE + STEPS_AFTER)]
    for x, y in batches[:STEPS_BEFORE]:
        train_cnn(x, y)
    module = flow.export(train_cnn)
    expected = [train_cnn(x, y) for x, y in batches[STEPS_BEFORE:]]
    got = continue_in_torch(module, batches[STEPS_BEFORE:])
    np.testing.assert_allclose(np.stack(got), np.stack(expected), rtol=LOSS_RTOL, atol=LOSS_ATOL)
    variables = flow.get_all_variables()
    for stat in ("moving_mean", "moving_variance"):  # updated once per step, in place, as the job did
        np.testing.assert_allclose(getattr(module, f"bn_{stat}").detach().cpu().numpy(),
                                   variables[f"bn-{stat}"].numpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(variables["bn-moving_mean"].numpy(), 0.0)


SCHEDULES = [
    sch.PiecewiseConstantScheduler([3, 7], [0.1, 0.05, 0.01]),
    sch.PiecewiseScalingScheduler(0.1, [4, 9], [0.5, 0.1], warmup=sch.ConstantWarmup(2, 0.3)),
    sch.CosineScheduler(0.1, 20, alpha=0.1, warmup=sch.LinearWarmup(5, 0.0)),
    sch.LinearCosineScheduler(0.1, 15),
    sch.PolynomialScheduler(0.1, 6, power=2.0, cycle=True),
    sch.PolynomialScheduler(0.1, 6, end_learning_rate=0.001),
    sch.ExponentialScheduler(0.1, 5, 0.7, staircase=True),
    sch.InverseTimeScheduler(0.1, 5, 0.5),
    sch.NaturalExpScheduler(0.1, 5, 0.3, staircase=True),
]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: type(s).__name__)
def test_generated_learning_rate_equals_the_schedule(schedule):
    scope: dict = {"torch": torch, "math": math}
    exec(schedule_source(schedule), scope)  # the code the export writes
    assert [scope["learning_rate"](step) for step in range(40)] == [schedule.lr(step) for step in range(40)]


def test_generated_cosine_rate_by_hand():
    scope: dict = {"torch": torch, "math": math}
    exec(schedule_source(sch.CosineScheduler(0.1, 20)), scope)
    assert scope["learning_rate"](10) == pytest.approx(0.05, rel=1e-7)  # half-way down the cosine
    assert scope["learning_rate"](25) == 0.0


# the optimizers torch.optim has no class for, or whose epsilon or bias correction it places elsewhere: the
# export writes OneFlow's own rule, so each continues the job exactly
EXACT_RULES = {
    "rmsprop": lambda: flow.optimizer.RMSProp(flow.optimizer.PiecewiseConstantScheduler([], [0.01])),
    "rmsprop_centered": lambda: flow.optimizer.RMSProp(flow.optimizer.ExponentialScheduler(0.01, 3, 0.8),
                                                       centered=True),
    "lazy_adam": lambda: flow.optimizer.LazyAdam(flow.optimizer.CosineScheduler(0.02, 12)),
    "adamw_corrected": lambda: flow.optimizer.AdamW(flow.optimizer.PiecewiseConstantScheduler([], [0.02]),
                                                    do_bias_correction=True, weight_decay=0.05),
    "lamb": lambda: flow.optimizer.LAMB(flow.optimizer.PiecewiseConstantScheduler([], [0.02]), weight_decay=0.01),
    "lars": lambda: flow.optimizer.LARS(flow.optimizer.PiecewiseConstantScheduler([], [0.5]), lars_coefficient=0.01,
                                        weight_decay=0.01),
    "sgdw_momentum": lambda: flow.optimizer.SGDW(flow.optimizer.CosineScheduler(0.05, 12), momentum=0.9,
                                                 weight_decay=0.05),
    "sgd_dynamic_scale": lambda: flow.optimizer.SGD(
        flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0.9,
        grad_clipping=flow.optimizer.grad_clipping.by_global_norm(1.0),
        loss_scale_policy=flow.optimizer.loss_scale.dynamic_loss_scale()),
}


@pytest.mark.parametrize("kind", list(EXACT_RULES))
def test_every_rule_continues_with_the_jobs_losses(kind):
    module = check_continuation(mlp_train_job(EXACT_RULES[kind]))
    assert isinstance(module.optimizer, torch.optim.Optimizer)
    assert type(module.optimizer).__name__.startswith("OneFlow")


def test_rmsprop_state_is_oneflows_slots():
    job = mlp_train_job(lambda: flow.optimizer.RMSProp(flow.optimizer.PiecewiseConstantScheduler([], [0.01]),
                                                       centered=True))
    x, y = data()[0]
    job(x, y)
    module = flow.export(job)
    assert type(module.optimizer).__name__ == "OneFlowRMSProp" and module.optimizer.param_groups[0]["centered"]
    state = module.optimizer.state[module.logits_weight]
    variables = flow.get_all_variables()
    np.testing.assert_array_equal(state["square_avg"].cpu().numpy(), variables["logits-weight-mean_square"].numpy())
    np.testing.assert_array_equal(state["grad_avg"].cpu().numpy(), variables["logits-weight-mean_gradient"].numpy())


def test_a_combined_optimizer_is_refused():
    def combined():
        lr = flow.optimizer.PiecewiseConstantScheduler([], [0.01])
        return flow.optimizer.CombinedOptimizer([flow.optimizer.SGD(lr, variables=["hidden-weight"]),
                                                 flow.optimizer.Adam(lr, variables=["hidden-bias"])])
    job = mlp_train_job(combined)
    x, y = data()[0]
    job(x, y)
    with pytest.raises(NotImplementedError, match="CombinedOptimizer cannot be exported: it combines several"):
        flow.export(job)
