"""indexed_slices_optimizer_conf when the table reaches its gather through multiplications by a number (and
parallel_cast) and the job also returns the table: OneFlow's rewrite pass
(``indexed_slices_optimizer_rewrite_pass.cpp``) follows the gather's backward through those ``scalar_mul`` s
and moves them onto the gradient rows, so only the gathered rows are updated and decayed (SGDW, AdamW).
Checked against a float64 numpy statement of the row update."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

V, E = 9, 2
IDS = [np.array([[1, 4], [1, 7]], np.int32), np.array([[2, 2], [4, 0]], np.int32),
       np.array([[7, 3], [3, 1]], np.int32)]
N = IDS[0].size * E  # loss elements (reduce_mean over the gathered (2, 2, E) block)
TABLE0 = np.random.default_rng(3).uniform(0, 10, size=(V, E))
LR, WD, SCALE = 0.1, 0.3, 2.0


def conf() -> flow.FunctionConfig:
    cfg = flow.FunctionConfig()
    cfg.indexed_slices_optimizer_conf(dict(include_op_names=dict(op_name=["table"])))
    return cfg


PATHS: dict[str, Callable[[Any], Any]] = {
    "scalar_mul": lambda t: t * SCALE,
    "reversed_and_cast": lambda t: flow.parallel_cast(0.5 * (t * (2 * SCALE))),
}


def train(make_opt: Callable[[], Any], path: Callable[[Any], Any], cfg: flow.FunctionConfig | None,
          second_use: bool = False) -> tuple[list[np.ndarray], np.ndarray]:
    @flow.global_function(type="train", function_config=cfg)
    def job(ids: tp.Numpy.Placeholder((2, 2), dtype=flow.int32)) -> tp.Numpy:
        table = flow.get_variable("table", shape=(V, E), initializer=flow.zeros_initializer())
        scaled = path(table)
        loss = flow.math.reduce_mean(flow.gather(scaled, ids))
        if second_use:  # another gradient path: OneFlow keeps the update dense
            loss = loss + flow.math.reduce_sum(scaled) * 0.0
        make_opt().minimize(loss)
        return table

    flow.load_variables({"table": TABLE0.astype(np.float32)})
    returned = [job(ids) for ids in IDS]
    return returned, flow.get_all_variables()["table"].numpy()


def reference(kind: str, lazy: bool = True, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
              ) -> tuple[list[np.ndarray], np.ndarray]:
    """Each step: the rows gathered get d loss / d row = SCALE * count / N; those rows (all rows when not
    lazy) take the SGDW / AdamW rule with the decoupled decay."""
    w = TABLE0.copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    before = []
    for t, ids in enumerate(IDS):
        before.append(w.copy())
        g = np.zeros_like(w)
        for i in ids.reshape(-1):
            g[i] += SCALE / N
        rows = np.unique(ids) if lazy else np.arange(V)
        if kind == "sgdw":
            w[rows] = w[rows] - LR * (g[rows] + WD * w[rows])
        else:
            lr = LR * math.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
            m[rows] = b1 * m[rows] + (1 - b1) * g[rows]
            v[rows] = b2 * v[rows] + (1 - b2) * g[rows] ** 2
            w[rows] = w[rows] - lr * (m[rows] / (np.sqrt(v[rows]) + eps) + WD * w[rows])
    return before, w


OPTIMIZERS: dict[str, Callable[[], Any]] = {
    "sgdw": lambda: flow.optimizer.SGDW(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0,
                                        weight_decay=WD),
    "adamw": lambda: flow.optimizer.AdamW(flow.optimizer.PiecewiseConstantScheduler([], [LR]),
                                          do_bias_correction=True, weight_decay=WD),
}


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_only_gathered_rows_are_updated_and_decayed(kind: str, path: str) -> None:
    returned, final = train(OPTIMIZERS[kind], PATHS[path], conf())
    before, expected = reference(kind)
    for got, want in zip(returned, before):  # the returned table is the value the step read
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # float32 steps vs float64
    np.testing.assert_allclose(final, expected, rtol=1e-5, atol=1e-5)
    untouched = sorted(set(range(V)) - {int(i) for ids in IDS for i in ids.reshape(-1)})
    assert untouched == [5, 6, 8]
    np.testing.assert_array_equal(final[untouched], TABLE0[untouched].astype(np.float32))


@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_a_second_gradient_use_keeps_the_update_dense(kind: str) -> None:
    _, final = train(OPTIMIZERS[kind], PATHS["scalar_mul"], conf(), second_use=True)
    _, dense = reference(kind, lazy=False)
    np.testing.assert_allclose(final, dense, rtol=1e-5, atol=1e-5)
    _, lazy = reference(kind)
    assert not np.allclose(dense, lazy)  # the two rules differ here (the decay of untouched rows)
