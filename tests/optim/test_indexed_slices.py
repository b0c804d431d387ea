"""indexed_slices_optimizer_conf: lazy row updates of gathered embeddings, against an independent float64 numpy
restatement of OneFlow v0.4's indexed_slices_{sgd,momentum,adam}_update kernels, and the cases where OneFlow's
rewrite pass keeps the update dense."""

from __future__ import annotations

import math

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

V, E, N = 7, 3, 5  # vocabulary, embedding width, ids per step (= loss element count)
rng = np.random.default_rng(7)
TABLE0 = rng.normal(size=(V, E))
D0 = rng.normal(size=(E,))
IDS = [np.array([1, 4, 1, 6, 0], np.int32), np.array([2, 2, 2, 5, 4], np.int32), np.array([6, 0, 3, 3, 1], np.int32)]
STEPS = len(IDS)
WEIGHTS = [rng.normal(size=(N, E)).astype(np.float32) for _ in IDS]
LR = 0.1


def conf(names=("emb",), **extra):
    cfg = flow.FunctionConfig()
    cfg.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=list(names)), **extra))
    return cfg


def run_job(make_opt, cfg=None, *, emb_kwargs=None, twice=False, watch_var=False, steps=STEPS):
    """Train ``loss_i = sum_k (emb[ids_i, k] + d[k]) * w[i, k]`` (shape (N,)); return the variables."""

    @flow.global_function(type="train", function_config=cfg)
    def job(ids: tp.Numpy.Placeholder((N,), dtype=flow.int32), w: tp.Numpy.Placeholder((N, E))) -> None:
        emb = flow.get_variable("emb", shape=(V, E), initializer=flow.zeros_initializer(), **(emb_kwargs or {}))
        d = flow.get_variable("d", shape=(E,), initializer=flow.zeros_initializer())
        if watch_var:
            flow.watch_diff(emb, lambda g: None)
        rows = flow.gather(emb, ids)
        if twice:
            rows = rows + flow.gather(emb, ids) * 0.0
        loss = flow.math.reduce_sum((rows + d) * w, axis=1)
        make_opt().minimize(loss)

    flow.load_variables({"emb": TABLE0.astype(np.float32), "d": D0.astype(np.float32)})
    for ids, w in list(zip(IDS, WEIGHTS))[:steps]:
        job(ids, w)
    return {k: v.numpy() for k, v in flow.get_all_variables().items()}


def const(lr=LR):
    return flow.optimizer.PiecewiseConstantScheduler([], [lr])


# --- numpy references ----------------------------------------------------------------------------------------
def row_grads(ids, w):
    """Rows present in the batch and their summed, 1/N-scaled gradients."""
    rows = np.unique(ids)
    g = np.zeros((len(rows), E))
    for i, r in enumerate(ids):
        g[np.searchsorted(rows, r)] += w[i] / N
    return rows, g


def reference(kind, *, lazy=True, beta=0.9, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, bias_correction=False):
    emb, d = TABLE0.copy(), D0.copy()
    slots = {"emb": [np.zeros_like(emb), np.zeros_like(emb)], "d": [np.zeros_like(d), np.zeros_like(d)]}

    def update(name, w, rows, g, t):
        a, b = slots[name]
        lr = LR
        if kind == "adam" and bias_correction:
            lr = LR * math.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
        wr, ar, br = w[rows], a[rows], b[rows]
        if kind == "sgd":
            wr = wr - lr * (g + wd * wr)
        elif kind == "momentum":
            ar = beta * ar - lr * g
            wr = wr + ar - lr * wd * wr
        else:
            ar = b1 * ar + (1 - b1) * g
            br = b2 * br + (1 - b2) * g * g
            wr = wr - lr * (ar / (np.sqrt(br) + eps) + wd * wr)
        w[rows], a[rows], b[rows] = wr, ar, br

    for t, (ids, w) in enumerate(zip(IDS, WEIGHTS)):
        rows, g = row_grads(ids, w)
        if lazy:
            update("emb", emb, rows, g, t)
        else:
            dense = np.zeros_like(emb)
            dense[rows] = g
            update("emb", emb, np.arange(V), dense, t)
        update("d", d, slice(None), w.sum(axis=0) / N, t)
    return emb, d, slots


CASES = {
    "sgd": (lambda: flow.optimizer.SGD(const(), momentum=0), dict(kind="sgd"), []),
    "momentum": (lambda: flow.optimizer.SGD(const(), momentum=0.9), dict(kind="momentum"), ["momentum"]),
    "sgdw": (lambda: flow.optimizer.SGDW(const(), momentum=0.8, weight_decay=0.05),
             dict(kind="momentum", beta=0.8, wd=0.05), ["momentum"]),
    "adam": (lambda: flow.optimizer.Adam(const()), dict(kind="adam"), ["m", "v"]),
    "lazy_adam": (lambda: flow.optimizer.LazyAdam(const()), dict(kind="adam", bias_correction=True), ["m", "v"]),
    "adamw": (lambda: flow.optimizer.AdamW(const(), beta1=0.8, weight_decay=0.02, do_bias_correction=True),
              dict(kind="adam", b1=0.8, wd=0.02, bias_correction=True), ["m", "v"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_listed_embedding_is_updated_row_by_row(case):
    make_opt, ref_kwargs, slot_names = CASES[case]
    got = run_job(make_opt, conf())
    emb, d, slots = reference(**ref_kwargs)
    # float32 vs float64 (Adam divides by sqrt(v) of small gradients)
    np.testing.assert_allclose(got["emb"], emb, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["d"], d, rtol=1e-5, atol=1e-5)  # the dense variable, dense rule
    for k, suffix in enumerate(slot_names):
        np.testing.assert_allclose(got[f"emb-{suffix}"], slots["emb"][k], rtol=1e-5, atol=1e-7)
    # row 3 first appears in step 3: before that it is untouched, values and slots
    flow.clear_default_session()
    two = run_job(make_opt, conf(), steps=2)
    np.testing.assert_array_equal(two["emb"][3], TABLE0[3].astype(np.float32))
    for suffix in slot_names:
        assert not two[f"emb-{suffix}"][3].any()


def test_unlisted_embedding_stays_dense():
    got = run_job(lambda: flow.optimizer.LazyAdam(const()), conf(names=("other",)))
    emb, _, _ = reference(kind="adam", bias_correction=True, lazy=False)
    np.testing.assert_allclose(got["emb"], emb, rtol=1e-5, atol=1e-5)
    lazy, _, _ = reference(kind="adam", bias_correction=True)
    assert not np.allclose(emb, lazy)  # the two rules differ on these steps


@pytest.mark.parametrize("variant", ["disabled", "regularizer", "clipping", "lars", "used_twice", "watched",
                                     "dynamic_loss_scale"])
def test_cases_oneflow_keeps_dense(variant):
    adam = lambda: flow.optimizer.Adam(const())  # noqa: E731
    make_opt, cfg, kwargs = adam, conf(), {}
    if variant == "disabled":
        cfg = conf(enable=False)
    elif variant == "regularizer":
        kwargs = dict(emb_kwargs=dict(regularizer=flow.regularizers.l2(0.1)))
    elif variant == "clipping":
        make_opt = lambda: flow.optimizer.Adam(const(), grad_clipping=flow.optimizer.grad_clipping.by_global_norm(1.0))  # noqa: E731
    elif variant == "lars":
        make_opt = lambda: flow.optimizer.LARS(const())  # noqa: E731
    elif variant == "used_twice":
        kwargs = dict(twice=True)
    elif variant == "watched":
        kwargs = dict(watch_var=True)
    else:
        make_opt = lambda: flow.optimizer.Adam(const(), loss_scale_policy=flow.optimizer.loss_scale.dynamic_loss_scale())  # noqa: E731,E501
    got = run_job(make_opt, cfg, **kwargs)
    flow.clear_default_session()
    dense = run_job(make_opt, None, **kwargs)
    np.testing.assert_array_equal(got["emb"], dense["emb"])


def test_conf_errors():
    cfg = flow.FunctionConfig()
    cfg.indexed_slices_optimizer_conf(dict(include_op_name=["emb"]))
    with pytest.raises(ValueError, match="unknown field"):
        run_job(lambda: flow.optimizer.Adam(const()), cfg)
    flow.clear_default_session()
    cfg = flow.FunctionConfig()
    cfg.indexed_slices_optimizer_conf(dict(include_op_names=["emb"]))
    with pytest.raises(ValueError, match=r"dict\(op_name="):
        run_job(lambda: flow.optimizer.Adam(const()), cfg)


def test_gradient_accumulation_keeps_dense(tmp_path, in_process):
    """OneFlow's accumulation pass runs before the rewrite and puts its sum between gather and update."""
    import struct

    docs = [np.arange(k, k + 5, dtype=np.uint16) % V for k in range(0, 40, 5)]
    prefix = tmp_path / "tok"
    (tmp_path / "tok.bin").write_bytes(b"".join(d.tobytes() for d in docs))
    sizes = np.array([len(d) for d in docs], "<i4")
    offsets = np.concatenate([[0], np.cumsum(sizes * 2)[:-1]]).astype("<i8")
    header = b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, 8, len(docs), len(docs) + 1)
    (tmp_path / "tok.idx").write_bytes(header + sizes.tobytes() + offsets.tobytes()
                                       + np.arange(len(docs) + 1, dtype="<i8").tobytes())

    def train(cfg):
        cfg.train.num_gradient_accumulation_steps(2)

        @flow.global_function("train", cfg)
        def job() -> None:
            ids = flow.data.megatron_gpt_mmap_data_loader(str(prefix), 3, 64, 2, shuffle=False)
            emb = flow.get_variable("emb", shape=(V, E), initializer=flow.zeros_initializer())
            loss = flow.math.reduce_sum(flow.gather(emb, ids), axis=[1, 2])
            flow.optimizer.Adam(const()).minimize(loss)

        flow.load_variables({"emb": TABLE0.astype(np.float32)})
        job()
        job()
        out = flow.get_all_variables()["emb"].numpy()
        flow.clear_default_session()
        return out

    np.testing.assert_array_equal(train(conf()), train(flow.FunctionConfig()))
