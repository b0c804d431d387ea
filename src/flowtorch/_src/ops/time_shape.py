"""OneFlow's time ("piece") shape: how many times per step an op runs, and how flowtorch runs it.

In OneFlow every blob has a time shape besides its shape: ``(total batch num, pieces in batch)`` for the ops of a
job, ``(1, 1)`` as programs ran them. ``unpack(x, n)`` and ``repeat(x, n)`` push ``n`` onto it (the op's output
comes ``n`` times per step), ``pack(y, n)`` pops it (it must be ``n``), ``acc(y, n)`` divides it. Every other
op runs once per piece, and its inputs' time shapes must hold the same number of pieces
(``Operator::InferOutputBlobTimeShapeIf``); its outputs take the first input's time shape.

flowtorch keeps a blob's extra time dims in ``Blob.time_shape`` (``()`` for the job's own) and carries its
``prod(time_shape)`` pieces of one step together, as a leading axis of the blob's tensor; ``blob.shape`` is the
piece's, as OneFlow's. An op applied to such a blob runs its kernel once per piece (:class:`PerPiece`) and
stacks the results, so a reduction, a reshape or a batch norm sees one piece as OneFlow's kernels did. A
blob without time dims among its inputs (a variable, a per-step input) is the same in every piece: OneFlow
asked for ``repeat`` there; flowtorch takes it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from flowtorch._src.capture.blob import Blob
from flowtorch._src.errors import ArgumentError

TIME_OPS = frozenset({"unpack", "pack", "repeat", "acc"})


def _error(op: str, arg: str, expected: str, received: str) -> ArgumentError:
    # (ops._checks.arg_error's wording; that module imports ops._record, which imports this one)
    return ArgumentError(f"flow.{op}: argument {arg!r} must be {expected}; received {received}")


def pieces(time_shape: tuple[int, ...]) -> int:
    """How many pieces a step carries of a blob with these extra time dims (1 for none)."""
    return math.prod(time_shape)


def _blobs(value: Any) -> list[Blob]:
    if isinstance(value, Blob):
        return [value]
    if isinstance(value, (list, tuple)):
        return [b for v in value for b in _blobs(v)]
    if isinstance(value, dict):
        return [b for v in value.values() for b in _blobs(v)]
    return []


def of_inputs(op_type: str, args: Any, kwargs: Any) -> tuple[int, ...]:
    """The time dims of an op's outputs: its first time-sliced input's; every time-sliced input must hold as
    many pieces (OneFlow checked each input's against the first's element count)."""
    sliced = [b for b in _blobs((args, kwargs)) if b.time_shape]
    if not sliced:
        return ()
    first = sliced[0]
    for b in sliced[1:]:
        if pieces(b.time_shape) != pieces(first.time_shape):
            raise _error(op_type, "inputs", f"time shapes of {pieces(first.time_shape)} pieces, as "
                            f"{first.lbn}'s {first.time_shape} (OneFlow runs an op once per piece of all its "
                            "inputs)", f"{b.lbn} with time shape {b.time_shape}")
    return first.time_shape


def _spec(value: Any) -> Any:
    """Which leaves of an op's arguments are time-sliced blobs (True), in the arguments' structure."""
    if isinstance(value, Blob):
        return bool(value.time_shape)
    if isinstance(value, (list, tuple)):
        return [_spec(v) for v in value]
    if isinstance(value, dict):
        return {k: _spec(v) for k, v in value.items()}
    return False


def _take(value: Any, spec: Any, piece: int) -> Any:
    if spec is True:
        return value[piece]
    if isinstance(spec, list):
        return type(value)(_take(v, s, piece) for v, s in zip(value, spec))
    if isinstance(spec, dict):
        return {k: _take(v, spec[k], piece) for k, v in value.items()}
    return value


def _stack(results: list[Any], name: str) -> Any:
    first = results[0]
    if first is None:
        return None
    if isinstance(first, torch.Tensor):
        return torch.stack(results)
    if isinstance(first, (tuple, list)):
        return tuple(_stack([r[i] for r in results], name) for i in range(len(first)))
    raise TypeError(f"op {name}: its kernel gave a {type(first).__name__} per time piece; only tensors can be "
                    "carried as pieces")


class PerPiece:
    """An op's kernel run once per time piece: the time-sliced arguments' leading axis is the piece, the others
    are the same in every piece; the pieces' results are stacked along a new leading axis."""

    def __init__(self, fn: Callable[..., Any], count: int, args: Any, kwargs: Any, op_name: str) -> None:
        self.fn, self.count, self.op_name = fn, count, op_name
        self.arg_spec, self.kwarg_spec = _spec(list(args)), _spec(dict(kwargs))
        # a name torch.fx can print the graph with
        self.__name__ = self.__qualname__ = f"per_piece_{getattr(fn, '__name__', 'kernel')}"
        self.__module__ = __name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        results = [self.fn(*_take(list(args), self.arg_spec, p), **_take(dict(kwargs), self.kwarg_spec, p))
                   for p in range(self.count)]
        return _stack(results, self.op_name)


# --- the time ops' kernels: the leading axis holds the ``count`` pieces of the input (none when count is 1) ---
def unpack_kernel(x: torch.Tensor, n: int, count: int) -> torch.Tensor:
    """Each piece's ``n`` slices along axis 0 become ``n`` consecutive pieces."""
    body = x.shape[1:] if count > 1 else x.shape
    return x.reshape(count * n, body[0] // n, *body[1:])


def pack_kernel(y: torch.Tensor, n: int, count: int) -> torch.Tensor:
    """Each run of ``n`` consecutive pieces concatenated along axis 0."""
    if count == 1:  # pack(y, 1) of a blob of one piece per step
        return y
    left = count // n
    out = y.reshape(left, n * y.shape[1], *y.shape[2:])
    return out[0] if left == 1 else out


def repeat_kernel(x: torch.Tensor, n: int, count: int) -> torch.Tensor:
    """Each piece ``n`` times in a row."""
    if count == 1:
        return x.expand(n, *x.shape)
    return x.unsqueeze(1).expand(count, n, *x.shape[1:]).reshape(count * n, *x.shape[1:])


def acc_kernel(y: torch.Tensor, n: int, count: int) -> torch.Tensor:
    """The sum of each run of ``n`` consecutive pieces."""
    if count == 1:  # acc(y, 1) of a blob of one piece per step
        return y
    left = count // n
    out = y.reshape(left, n, *y.shape[1:]).sum(dim=1, dtype=y.dtype)
    return out[0] if left == 1 else out


def after_pack(op: str, x: Blob, n: int) -> tuple[int, ...]:
    """``pack``'s output time dims: the input's last must be ``n`` (``pack_op.cpp``), and it is taken off (a
    blob of the job's own time shape, whose last dim is 1, packs by 1)."""
    if n == 1 and not x.time_shape:
        return ()
    if not x.time_shape or x.time_shape[-1] != n:
        raise _error(op, "input", f"a blob whose time shape ends with {n} pieces (from flow.unpack or "
                        f"flow.repeat with {n}), as OneFlow's pack checked",
                        f"{x.lbn} with time shape {x.time_shape or '(none: one piece per step)'}")
    return x.time_shape[:-1]


def after_acc(op: str, x: Blob, n: int) -> tuple[int, ...]:
    """``acc``'s output time dims (``acc_op.cpp``): the last taken off when it is ``n``, divided by ``n`` when
    ``n`` divides it, else all of them flattened and divided."""
    ts = list(x.time_shape)
    if ts and ts[-1] == n:
        ts.pop()
    elif ts and ts[-1] % n == 0:
        ts[-1] //= n
    elif pieces(x.time_shape) % n == 0 and pieces(x.time_shape) >= n:
        ts = [pieces(x.time_shape) // n]
    else:
        raise _error(op, "input", f"a blob of a multiple of {n} time pieces (from flow.unpack or flow.repeat)",
                        f"{x.lbn} with time shape {x.time_shape or '(none: one piece per step)'}")
    return () if pieces(tuple(ts)) == 1 else tuple(ts)
