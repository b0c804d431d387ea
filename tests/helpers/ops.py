"""Helpers for op tests: build a one-op job from numpy inputs, run it, and check values and gradients
against numpy references (gradients via the OneFlow op-test pattern ``x + zero_variable`` + watch_diff)."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import initializers

_jobs = itertools.count()


def _dtype(a: np.ndarray) -> Any:
    return {np.dtype(np.float32): flow.float32, np.dtype(np.float64): flow.float64, np.dtype(np.int32): flow.int32,
            np.dtype(np.int64): flow.int64, np.dtype(np.int8): flow.int8}[a.dtype]


def make_job(body: Callable[..., Any], arrays: Sequence[np.ndarray], *, job_type: str = "predict",
             ret: Any = tp.Numpy, name: str | None = None) -> Any:
    """A global_function with one Numpy placeholder per array (shape and dtype of the array)."""
    params = [inspect.Parameter(f"a{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=tp.Numpy.Placeholder(a.shape, dtype=_dtype(a)))
              for i, a in enumerate(arrays)]

    def job(*blobs: Any) -> Any:
        return body(*blobs)
    job.__name__ = name or f"op_test_job_{next(_jobs)}"
    job.__signature__ = inspect.Signature(params, return_annotation=ret)  # type: ignore[attr-defined]
    return flow.global_function(type=job_type)(job)


def randn_from(rng: np.random.Generator) -> Callable[..., np.ndarray]:
    """``randn(*shape, dtype=np.float32)``: standard normal draws from ``rng``, cast to ``dtype``. A module
    keeps its own seeded ``rng`` (and draws other values from it too), so its numbers stay its own."""
    def randn(*shape: int, dtype: Any = np.float32) -> np.ndarray:
        return rng.standard_normal(shape).astype(dtype)
    return randn


def run(fn: Callable[..., Any], *arrays: np.ndarray, ret: Any = tp.Numpy, job_type: str = "predict") -> Any:
    """fn(*blobs) in a predict job, called once with ``arrays``."""
    return make_job(fn, arrays, ret=ret, job_type=job_type)(*arrays)


def zero_var(name: str, shape: Sequence[int], dtype: Any = None) -> Any:
    return flow.get_variable(name, shape=tuple(shape), dtype=dtype, initializer=initializers.zeros_initializer(),
                             trainable=True)


def forward_and_grad(fn: Callable[..., Any], x: np.ndarray, *others: np.ndarray, seed: int = 0,
                     weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run ``y = fn(x + zero_var, *others)`` in a train job with loss ``reduce_sum(y * w)``; return
    (y, d loss / d x as seen by watch_diff, w)."""
    probe: dict[str, Any] = {}

    def shape_body(*blobs: Any) -> Any:
        out = fn(*blobs)
        probe["shape"] = out.shape
        return out
    # shape of y: build once in a predict job
    y_shape = _infer_shape(shape_body, x, *others)
    w = weight if weight is not None else np.random.default_rng(seed).uniform(0.5, 1.5, y_shape).astype(x.dtype)
    flow.clear_default_session()
    grads: list[np.ndarray] = []

    def body(xb: Any, wb: Any, *rest: Any) -> Any:
        v = zero_var("x0", x.shape, dtype=_dtype(x))
        xin = xb + v
        flow.watch_diff(xin, lambda g: grads.append(np.array(g)))
        y = fn(xin, *rest)
        flow.losses.add_loss(flow.math.reduce_sum(y * wb))
        return y
    job = make_job(body, (x, w) + others, job_type="train")
    y = job(x, w, *others)
    assert len(grads) == 1, "watch_diff did not fire exactly once"
    return y, grads[0], w


def _infer_shape(body: Callable[..., Any], *arrays: np.ndarray) -> tuple[int, ...]:
    shapes: list[tuple[int, ...]] = []

    def wrapped(*blobs: Any) -> Any:
        out = body(*blobs)
        shapes.append(out.shape)
        return out
    make_job(wrapped, arrays)(*arrays)
    return shapes[0]


def numeric_grad(ref: Callable[..., np.ndarray], x: np.ndarray, w: np.ndarray, *others: np.ndarray,
                 eps: float = 1e-6) -> np.ndarray:
    """d sum(ref(x, *others) * w) / dx by central differences in float64."""
    x64 = x.astype(np.float64)
    w64 = w.astype(np.float64)
    g = np.zeros_like(x64)
    flat = x64.reshape(-1)
    gflat = g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = np.sum(ref(x64, *others) * w64)
        flat[i] = old - eps
        down = np.sum(ref(x64, *others) * w64)
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return g


def check_op(fn: Callable[..., Any], ref: Callable[..., np.ndarray], x: np.ndarray, *others: np.ndarray,
             rtol: float = 1e-5, atol: float = 1e-5, grad_rtol: float = 1e-3, grad_atol: float = 1e-4,
             grad: bool = True) -> None:
    """Forward against ``ref`` (numpy, float64) and, if ``grad``, the watched input gradient against
    central differences of ``ref``."""
    if not grad:
        y = run(fn, x, *others)
        np.testing.assert_allclose(y, ref(x.astype(np.float64), *others), rtol=rtol, atol=atol)
        return
    y, g, w = forward_and_grad(fn, x, *others)
    np.testing.assert_allclose(y, ref(x.astype(np.float64), *others), rtol=rtol, atol=atol)
    np.testing.assert_allclose(g, numeric_grad(ref, x, w, *others), rtol=grad_rtol, atol=grad_atol)


def np_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def lbns(blobs: Sequence[Any]) -> list[str]:
    return [b.logical_blob_name for b in blobs]


def next_id() -> int:
    """The value the global name counter will hand out next (it is consumed by this call)."""
    from flowtorch._src import naming
    return naming.unique_id() + 1


class expect_error:  # used like pytest.raises
    """``pytest.raises`` that also clears the session afterwards: a job whose build failed stays registered
    and would be rebuilt (and fail again) by the next job call of the session."""

    def __init__(self, exc: Any, match: str | None = None) -> None:
        import pytest
        self._cm = pytest.raises(exc, match=match)

    def __enter__(self) -> Any:
        return self._cm.__enter__()

    def __exit__(self, *exc_info: Any) -> bool:
        try:
            return self._cm.__exit__(*exc_info)
        finally:
            flow.clear_default_session()
