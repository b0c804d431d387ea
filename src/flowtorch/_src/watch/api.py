"""``flow.watch`` and ``flow.watch_diff``: register a handler at build, call it once per step.

The handler's parameter annotation picks what it receives (``framework/typing_util.py`` in OneFlow):
``tp.Numpy`` → ndarray, ``tp.ListNumpy`` → list, ``tp.ListListNumpy`` → list of lists, none → a
:class:`~flowtorch._src.runtime.results.LocalBlob`. A string or None instead of a handler prints the
prompt and the value.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.capture.signature import resolved_signature
from flowtorch._src.capture.typing_defs import ListListNumpy, ListNumpy, Numpy
from flowtorch._src.runtime.results import convert_leaf

_KIND = {Numpy: "numpy", ListNumpy: "list_numpy", ListListNumpy: "list_list_numpy"}


def make_deliver(blob: Blob, handler_or_prompt: Any, what: str) -> Callable[[torch.Tensor], None]:
    """Check a watch handler at build and return ``deliver(tensor)`` calling it with the right form."""
    if not callable(handler_or_prompt):
        if handler_or_prompt is not None and not isinstance(handler_or_prompt, str):
            raise TypeError(f"flow.{what}({blob.logical_blob_name}): handler_or_prompt must be a callable, a str "
                            f"or None; received {handler_or_prompt!r}")
        prompt = handler_or_prompt
        kind = "numpy" if not blob.is_dynamic else "list_numpy"

        def print_value(t: torch.Tensor) -> None:
            if prompt is not None:
                print(str(prompt))
            print(convert_leaf(t, kind))
        return print_value
    handler = handler_or_prompt
    kind = handler_kind(handler, blob, what)

    dynamic = blob.is_dynamic

    def deliver(t: torch.Tensor) -> None:
        handler(convert_leaf(t, kind, dynamic))
    return deliver


def handler_kind(handler: Callable[..., Any], blob: Blob, what: str) -> str:
    try:
        params = resolved_signature(handler).parameters
    except (TypeError, ValueError):  # builtins without a signature: pass the local blob
        return "local"
    if len(params) != 1:
        raise AssertionError(f"watch callback should accept only one parameter (flow.{what} of "
                             f"{blob.logical_blob_name}: {getattr(handler, '__name__', handler)!r} takes "
                             f"{len(params)})")
    annotation = next(iter(params.values())).annotation
    if annotation is inspect.Parameter.empty:
        return "local"
    if annotation not in _KIND:
        raise NotImplementedError(f"invalid watch callback paremeter annotation {annotation!r} found. candidate "
                                  "annotations: oneflow.typing.Numpy, oneflow.typing.ListNumpy, "
                                  "oneflow.typing.ListListNumpy")
    kind = _KIND[annotation]
    if kind == "numpy" and blob.is_dynamic:
        raise AssertionError("only fixed shaped blob compatible to oneflow.typing.Numpy. you can change annotation "
                             f"to oneflow.typing.ListNumpy or oneflow.typing.ListListNumpy (blob {blob.lbn})")
    return kind


def _check_blob(blob: Any, what: str) -> Blob:
    if not isinstance(blob, Blob):
        raise TypeError(f"flow.{what}: the first argument must be a blob of the job being built; "
                        f"received {type(blob).__name__} {blob!r}")
    return blob


def watch(blob_watched: Blob, handler_or_prompt: Any = None) -> None:
    """Call the handler with this blob's value once per step (``ForeignWatch_<n>`` in OneFlow)."""
    builder = current_builder("watch")
    blob = _check_blob(blob_watched, "watch")
    deliver = make_deliver(blob, handler_or_prompt, "watch")
    naming.unique_str("ForeignWatch_")
    builder.add_value_watch(blob, deliver)


def watch_diff(blob_watched: Blob, handler_or_prompt: Any = None) -> None:
    """Call the handler with d sum(loss)/d blob once per train step (never for blobs without gradient)."""
    builder = current_builder("watch_diff")
    blob = _check_blob(blob_watched, "watch_diff")
    deliver = make_deliver(blob, handler_or_prompt, "watch_diff")
    builder.add_diff_watch(blob, deliver)
