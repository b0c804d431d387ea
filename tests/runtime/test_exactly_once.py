"""Every callback of every async call is delivered exactly once, in call order, whatever raises: a raising
callback or watch handler never costs another call its callback, and its error reaches the caller once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


class Boom(Exception):
    pass


def _job(kind: str, ret: Any = None, name: str | None = None) -> Callable[..., Any]:
    ret = tp.Callback[tp.Numpy] if ret is None else ret

    def body(x: tp.Numpy.Placeholder((4, 3))) -> ret:  # type: ignore[valid-type]
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.constant_initializer(0.5))
        out = flow.matmul(x, w)
        if kind == "train":
            loss = flow.math.reduce_mean(flow.math.square(out - 1.0))
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [1e-3]), momentum=0.9).minimize(loss)
            return loss
        return out
    body.__name__ = name or kind
    return flow.global_function(type=kind)(body)


def _boom(fn: Callable[[], Any]) -> int:
    """1 if ``fn()`` raised Boom, else 0."""
    try:
        fn()
    except Boom:
        return 1
    return 0


def _calls(n: int, bad: int, call: Callable[[int, Callable[[Any], None]], None]) -> tuple[list[int], int]:
    """n calls, the callback of call ``bad`` raising; returns (the delivered call numbers, errors caught)."""
    delivered: list[int] = []
    caught = 0

    def callback(i: int) -> Callable[[Any], None]:
        def cb(_: Any) -> None:
            delivered.append(i)
            if i == bad:
                raise Boom(f"callback {i}")
        return cb
    for i in range(n):
        caught += _boom(lambda i=i: call(i, callback(i)))
    return delivered, caught + _boom(flow.sync_default_session)


@pytest.mark.parametrize("n", [10, 1000])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("kind", ["train", "predict"])
def test_a_raising_callback_drops_no_other(kind: str, where: str, n: int) -> None:
    bad = {"first": 0, "middle": n // 2, "last": n - 1}[where]
    job = _job(kind)
    delivered, caught = _calls(n, bad, lambda i, cb: job(X * (1 + i % 3))(cb))
    assert delivered == list(range(n))
    assert caught == 1  # raised once: by a later call (after it registered its own callback) or by the sync
    flow.sync_default_session()  # and not again


def test_two_jobs_interleaved_deliver_in_call_order() -> None:
    train, predict = _job("train"), _job("predict")
    n = 200

    def call(i: int, cb: Callable[[Any], None]) -> None:
        (train if i % 2 else predict)(X)(cb)
    for bad in (0, 77, n - 1):
        delivered, caught = _calls(n, bad, call)
        assert delivered == list(range(n)) and caught == 1


def test_a_raising_watch_handler_drops_no_callback() -> None:
    seen: list[int] = []

    def handler(v: tp.Numpy) -> None:
        seen.append(len(seen))
        if len(seen) == 4:
            raise Boom("handler")

    @flow.global_function()
    def watched(x: tp.Numpy.Placeholder((4, 3))) -> tp.Callback[tp.Numpy]:
        y = x * 2.0
        flow.watch(y, handler)
        return y

    delivered, caught = _calls(10, -1, lambda i, cb: watched(X)(cb))
    assert delivered == list(range(10)) and seen == list(range(10))
    assert caught == 1


def test_futures_and_results_free_jobs_keep_every_call() -> None:
    @flow.global_function()
    def old(x=flow.FixedTensorDef((4, 3))):
        return x + 1.0

    @flow.global_function()
    def side(x: tp.Numpy.Placeholder((4, 3))) -> None:
        flow.watch(x * 1.0, lambda v: None)

    hits: list[int] = []

    def raising(_: Any) -> None:
        raise Boom("async_get")
    futures: list[Any] = []
    # (async_get raises here when the result is already delivered: on the CPU)
    caught = _boom(lambda: old(X).async_get(raising))
    for _ in range(5):
        caught += _boom(lambda: (futures.append(old(X)), side(X)))  # side: launched, then a pending error
    for f in futures:
        caught += _boom(lambda f=f: f.async_get(lambda v: hits.append(1)))
    caught += _boom(flow.sync_default_session)
    assert caught == 1 and len(futures) == 5 and hits == [1] * 5
