"""flowtorch.export of a train job with lazy row updates (indexed_slices_optimizer_conf): exported only
approximately (exact_optimizer=False), its optimizer updates the embedding row by row as OneFlow does, so five
more steps in torch give the job's next five losses and never-gathered rows keep their weights and moments."""

from __future__ import annotations

import importlib.util
import logging

import numpy as np
import pytest
import torch

import flowtorch as flow
import flowtorch.typing as tp

BATCH, IDS, VOCAB, SEEN, DIM, CLASSES = 8, 3, 16, 10, 4, 3  # ids drawn from [0, SEEN): rows SEEN.. never gathered
STEPS_BEFORE, STEPS_AFTER = 3, 5
LOSS_RTOL, LOSS_ATOL = 1e-5, 1e-6  # as test_export_train's check_continuation


def data(seed: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(rng.integers(0, SEEN, (BATCH, IDS)).astype(np.int32), rng.integers(0, CLASSES, BATCH).astype(np.int32))
            for _ in range(STEPS_BEFORE + STEPS_AFTER)]


def embedding_job(make_optimizer):
    cfg = flow.FunctionConfig()
    cfg.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=["emb"])))

    @flow.global_function(type="train", function_config=cfg)
    def train_emb(ids: tp.Numpy.Placeholder((BATCH, IDS), dtype=flow.int32),
                  labels: tp.Numpy.Placeholder((BATCH,), dtype=flow.int32)) -> tp.Numpy:
        emb = flow.get_variable("emb", shape=(VOCAB, DIM),
                                initializer=flow.random_normal_initializer(stddev=0.5, seed=1))
        h = flow.math.reduce_mean(flow.gather(emb, ids), axis=1)
        logits = flow.layers.dense(h, CLASSES, kernel_initializer=flow.random_normal_initializer(stddev=0.5, seed=2),
                                   name="logits")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name="xent")
        make_optimizer().minimize(loss)
        return loss
    return train_emb


def const(lr: float):
    return flow.optimizer.PiecewiseConstantScheduler([], [lr])


OPTIMIZERS = {
    "sgd": lambda: flow.optimizer.SGD(const(0.5), momentum=0.0),  # (OneFlow's default momentum is 0.9)
    "sgdw": lambda: flow.optimizer.SGDW(const(0.5), momentum=0.0, weight_decay=0.1),
    "momentum": lambda: flow.optimizer.SGD(const(0.2), momentum=0.9),
    "adam": lambda: flow.optimizer.Adam(const(0.05), do_bias_correction=False),
    "adamw": lambda: flow.optimizer.AdamW(const(0.05), weight_decay=0.1),
    "lazy_adam": lambda: flow.optimizer.LazyAdam(const(0.05)),
}


def continue_in_torch(module: torch.nn.Module, batches) -> list[np.ndarray]:
    losses = []
    for ids, labels in batches:
        module.optimizer.zero_grad()
        loss = module.loss(torch.from_numpy(ids), torch.from_numpy(labels))
        losses.append(loss.detach().numpy())
        module.objective_from(loss).backward()
        module.optimizer.step()
        module.lr_scheduler.step()
    return losses


@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_lazy_rows_continue_with_the_jobs_losses(kind, caplog):
    job = embedding_job(OPTIMIZERS[kind])
    batches = data()
    for ids, labels in batches[:STEPS_BEFORE]:
        job(ids, labels)
    start = flow.get_all_variables()["emb"].numpy().copy()
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        module = flow.export(job, exact_optimizer=False)
    assert "row by row (indexed_slices_optimizer_conf)" in caplog.text  # the approximation is logged
    optimizer = module.optimizer
    assert type(optimizer).__name__ == ("OneFlowAdam" if "adam" in kind else "OneFlowSGD")
    lazy = [g.get("lazy_rows", False) for g in optimizer.param_groups if any(p is module.emb for p in g["params"])]
    assert lazy == [True]
    expected = [job(ids, labels) for ids, labels in batches[STEPS_BEFORE:]]
    got = continue_in_torch(module, batches[STEPS_BEFORE:])
    assert not np.allclose(expected[0], expected[-1])
    np.testing.assert_allclose(np.stack(got), np.stack(expected), rtol=LOSS_RTOL, atol=LOSS_ATOL)
    job_emb = flow.get_all_variables()["emb"].numpy()
    emb = module.emb.detach().numpy()
    # (Adam's m / sqrt(v) magnifies the losses' few-ulp differences in the weights a little)
    np.testing.assert_allclose(emb, job_emb, rtol=1e-4, atol=1e-5)
    # rows no batch gathered keep their weights (SGDW's and AdamW's decay included) and their zero moments
    np.testing.assert_array_equal(emb[SEEN:], start[SEEN:])
    assert not np.array_equal(emb[:SEEN], start[:SEEN])
    for key in ("exp_avg", "exp_avg_sq", "momentum"):
        if key in optimizer.state[module.emb]:
            slot = optimizer.state[module.emb][key].numpy()
            assert not slot[SEEN:].any() and slot[:SEEN].any()
    if kind in ("adam", "adamw", "lazy_adam"):  # the moments are OneFlow's slots, on every row
        slots = flow.get_all_variables()
        np.testing.assert_allclose(optimizer.state[module.emb]["exp_avg"].numpy(), slots["emb-m"].numpy(),
                                   rtol=1e-4, atol=1e-7)


def test_lazy_rows_files_round_trip(tmp_path):
    """model.py + optimizer.pt (load_training) continue as the job; step() gives the lazy grads back."""
    job = embedding_job(OPTIMIZERS["lazy_adam"])
    batches = data()
    for ids, labels in batches[:STEPS_BEFORE]:
        job(ids, labels)
    module = flow.export(job, tmp_path / "out", weights="torch", exact_optimizer=False)
    dense = [g for g in module.optimizer.param_groups if not g.get("lazy_rows")]
    assert {p.shape for g in dense for p in g["params"]} == {module.logits_weight.shape, module.logits_bias.shape}
    expected = [job(ids, labels) for ids, labels in batches[STEPS_BEFORE:]]
    spec = importlib.util.spec_from_file_location("lazy_rows_model", tmp_path / "out" / "model.py")
    assert spec is not None and spec.loader is not None
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    net, optimizer, scheduler = model.load_training()
    assert type(optimizer).__name__ == "OneFlowAdam" and optimizer.param_groups[0]["bias_correction"]
    assert optimizer.state[net.emb]["step"] == STEPS_BEFORE
    net.optimizer, net.lr_scheduler = optimizer, scheduler
    got = continue_in_torch(net, batches[STEPS_BEFORE:])
    np.testing.assert_allclose(np.stack(got), np.stack(expected), rtol=LOSS_RTOL, atol=LOSS_ATOL)
    ids, labels = batches[0]
    optimizer.zero_grad()
    net.objective(torch.from_numpy(ids), torch.from_numpy(labels)).backward()
    grad = net.emb.grad.clone()
    optimizer.step()
    torch.testing.assert_close(net.emb.grad, grad)


def test_lazy_rows_are_refused_by_an_exact_export():
    job = embedding_job(OPTIMIZERS["sgd"])
    job(*data()[0])
    with pytest.raises(NotImplementedError, match=r"row by row \(indexed_slices_optimizer_conf\).*"
                                                  "exact_optimizer=False"):
        flow.export(job)
