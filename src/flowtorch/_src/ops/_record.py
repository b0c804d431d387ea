"""The one way ops enter a job graph: :func:`apply` names the op and records its torch kernel."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch.fx

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import OpRecord, blobs_in
from flowtorch._src.capture.context import current_builder
from flowtorch._src.ops import batch_axes, op_registry, op_types, time_shape


def apply(fn: Callable[..., Any], *args: Any, op_type: str, prefix: str | None = None, name: str | None = None,
          outputs: Sequence[str] = ("out_0",), op_name: str | None = None, meta: Any = None,
          dynamic: Any = None, tensor_lists: Sequence[bool] | None = None, attrs: Mapping[str, Any] | None = None,
          inputs: Mapping[str, Sequence[Blob]] | None = None, **kwargs: Any) -> Any:
    """Record ``fn(*args, **kwargs)`` as a OneFlow op and return its blob (or a tuple of blobs).

    ``op_type`` is the op's identity: OneFlow's op type name (``"relu"``, ``"normalization"``; see
    :mod:`.op_types`), recorded on the node as ``meta["flowtorch_op_type"]``. ``prefix`` is OneFlow's
    auto-name prefix without the ``_`` (``"Relu"`` → ``Relu_<n>``), the op type when omitted (``"abs"`` →
    ``abs_<n>``); ``name`` is the user's ``name=`` argument; ``op_name`` overrides both (layers derive their
    op names). ``outputs`` are OneFlow's blob names (``out_0``, ``y_0`` …). ``meta`` gives the output meta
    tensor(s) of an op whose shape depends on the data (its static upper bound) instead of inferring it;
    ``dynamic`` overrides the outputs' ``is_dynamic`` (default: any blob argument is dynamic);
    ``tensor_lists`` (one bool per output) lets an op that passes tensor lists on take them. ``attrs`` are the
    attributes OneFlow's op conf held (``transpose_a``, ``padding_before`` …) and ``inputs`` its input blobs by
    OneFlow's argument names, where they are not the blob arguments in the order of the op's registration: the
    job IR (``flow.experimental.get_job_set()``) describes the op with them.
    """
    builder = current_builder(op_type)
    if not op_types.is_known(op_type) and op_type not in op_registry.registered_names():
        raise ValueError(f"apply: op type {op_type!r} is neither one of OneFlow's that flowtorch records "
                         "(ops/op_types.py) nor a registered one (ops/op_registry.py)")
    full_name = op_name if op_name is not None else naming.op_name(f"{op_type if prefix is None else prefix}_", name)
    times = time_shape.of_inputs(op_type, args, kwargs)  # OneFlow's time dims: () for one piece per step
    if times and op_type not in time_shape.TIME_OPS:  # the op runs once per piece (flow.unpack/repeat's)
        if meta is None:
            meta = builder.infer_meta(fn, args, kwargs, full_name)
        fn = time_shape.PerPiece(fn, time_shape.pieces(times), args, kwargs, full_name)
    blobs = builder.record(fn, args, kwargs, full_name, outputs, meta=meta, dynamic=dynamic,
                           tensor_lists=tensor_lists)
    for blob in blobs:
        blob.time_shape = times
    batch_axes.infer(op_type, args, kwargs, blobs)  # OneFlow's batch axis of each output, by the op type's rule
    builder.ops.append(OpRecord(full_name, op_type, blobs_in((args, kwargs)),
                                {k: list(v) for k, v in inputs.items()} if inputs is not None else None,
                                dict(attrs) if attrs is not None else {}, list(blobs), args))
    if blobs:  # an op without outputs (assign) has no node to mark
        node = blobs[0].node  # the call, or the first getitem of a call with several outputs
        call = node.args[0] if node.target is operator.getitem else node
        if not isinstance(call, torch.fx.Node):
            raise TypeError(f"op {full_name}: its output {node.name} is no call's output (it takes {call!r})")
        call.meta["flowtorch_op_type"] = op_type  # the op's identity; the split rules (dist/sbp.py) go by it
    return blobs[0] if len(blobs) == 1 else tuple(blobs)


def check_blob(x: Any, op: str, arg: str) -> Blob:
    current_builder(op)  # outside a job body, say that first
    if not isinstance(x, Blob):
        raise TypeError(f"flow.{op}: argument {arg!r} must be a blob; received {type(x).__name__} {x!r}")
    return x


def is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
