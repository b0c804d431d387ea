"""``flow.watch_scope(blob_watcher=None, diff_blob_watcher=None)`` (OneFlow v0.1, ``watch_scope_util.py``).

While the scope is open in a job body, every blob the body creates — all outputs of every op, variables
included — is watched (and diff-watched when a diff watcher is given), once per logical blob name.
Recording happens at build time through the builder's blob-created hook, so the scope costs nothing at
run time beyond the taps of the blobs it recorded, and nothing at all outside it.

A watcher is a dict, filled as ``d[lbn] = {"blob": value, "blob_def": blob_def}`` and refreshed every
step, or a callable ``f(value, blob_def)``. ``value`` is what an unannotated watch handler receives (an
object with ``.numpy()``); ``blob_def`` is the build-time blob (``.location``, ``.shape``, ``.dtype``,
``.op_name``, ``.blob_name``, ``.logical_blob_name``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.runtime.results import convert_leaf

Watcher = dict[str, Any] | Callable[[Any, Blob], None]


def _deliverer(watcher: Watcher, blob: Blob) -> Callable[[torch.Tensor], None]:
    if isinstance(watcher, dict):
        def to_dict(t: torch.Tensor) -> None:
            watcher[blob.unique_name] = {"blob": convert_leaf(t, "local"), "blob_def": blob}
        return to_dict

    def to_callable(t: torch.Tensor) -> None:
        watcher(convert_leaf(t, "local"), blob)
    return to_callable


def _check(watcher: Any, arg: str) -> None:
    if watcher is not None and not isinstance(watcher, dict) and not callable(watcher):
        raise TypeError(f"flow.watch_scope: {arg} must be a dict, a callable f(blob, blob_def) or None; "
                        f"received {type(watcher).__name__} {watcher!r}")


@contextlib.contextmanager
def watch_scope(blob_watcher: Watcher | None = None, diff_blob_watcher: Watcher | None = None) -> Iterator[None]:
    builder = current_builder("watch_scope")
    _check(blob_watcher, "blob_watcher")
    _check(diff_blob_watcher, "diff_blob_watcher")
    seen: set[str] = set()

    def record(blob: Blob) -> None:
        if blob.unique_name in seen or blob.is_tensor_buffer:
            return  # a tensor buffer has no static value to watch
        seen.add(blob.unique_name)
        if blob_watcher is not None:
            naming.unique_str("ForeignWatch_")  # OneFlow adds one watch op per blob
            builder.add_value_watch(blob, _deliverer(blob_watcher, blob))
        if diff_blob_watcher is not None:
            builder.add_diff_watch(blob, _deliverer(diff_blob_watcher, blob))

    builder.recorders.append(record)
    try:
        yield
    finally:
        builder.recorders.remove(record)
