"""What a blob being built reports of its placement, as OneFlow's job-build inference gave it
(``JobBuildAndInferCtx::GetSplitAxisFromProducerView``, ``GetParallelDescFromProducerView``, the mirrored
``MirroredBlobGet*``; ``core/framework/py_remote_blob.cpp``): ``blob.split_axis``, ``blob.parallel_conf`` and
``blob.disable_boxing``, answered for ``capture.blob`` (``set_view_source``).

The devices are the op's placement: its placement scope's, else every device the job asked for (the processes
under the launcher, or on one process the ``gpu_device_num`` × ``machine_num`` the program configured). Where
the consistent view's blobs lie on several devices is the split plan the step will have (``dist/sbp.py``). The
rules per case are in docs/releases.md ("Blob properties across releases and views").
"""

from __future__ import annotations

import operator
import re
from typing import Any

import torch.fx

from flowtorch._src import placement, releases
from flowtorch._src.capture.blob import Blob, set_view_source
from flowtorch._src.data.blobs import DataBlob
from flowtorch._src.dist import collectives, sbp

# ops whose outputs are each on one device of the op's placement (distribute_split_op.cpp's InferBlobParallelDesc)
_PER_DEVICE_OUTPUTS = ("distribute_split", "distribute_clone")


def asked_devices(config: dict[str, Any]) -> int:
    """The devices a job runs on: the processes under the launcher, else what the program asked for
    (``machine_num`` × ``gpu_device_num``, or ``cpu_device_num`` after ``gpu_device_num(0)``)."""
    size = collectives.world_size()
    if size > 1:
        return size
    gpus = int(config.get("gpu_device_num", 1))
    per_machine = gpus if gpus > 0 else int(config.get("cpu_device_num", 1))
    return max(1, per_machine * int(config.get("machine_num", 1)))


def _producer(blob: Blob) -> tuple[torch.fx.Node, str | None]:
    """The call that made ``blob`` (past the getitem of an op with several outputs) and its OneFlow op type."""
    node = blob.node
    source = node.args[0] if node.target is operator.getitem and node.args else None
    call = source if isinstance(source, torch.fx.Node) else node
    return call, call.meta.get("flowtorch_op_type")


def op_device_ids(blob: Blob) -> tuple[str, ...]:
    """The ``machine:device`` ids of the placement ``blob``'s op was built in: its placement scope's, else the
    job's default placement, every device the program asked for (``"0:0-3"``; one entry per machine), as
    OneFlow's default placement named them."""
    if blob.device_ids is not None:
        return blob.device_ids
    config = blob.builder.session.config
    machines = 1 if collectives.world_size() > 1 else max(1, int(config.get("machine_num", 1)))
    per_machine = max(1, asked_devices(config) // machines)
    last = f"-{per_machine - 1}" if per_machine > 1 else ""
    return tuple(f"{m}:0{last}" for m in range(machines))


def blob_device_ids(blob: Blob) -> tuple[str, ...]:
    """``blob.parallel_conf``'s ids: its op's placement, except that ``distribute_split``/``distribute_clone``'s
    ``out_i`` lies on the placement's i-th device alone."""
    ids = op_device_ids(blob)
    if not isinstance(blob, DataBlob) and blob.node.op == "call_function":
        _, op_type = _producer(blob)
        index = re.fullmatch(r"out_(\d+)", blob.blob_name)
        devices = placement.expand_ids(ids)
        if op_type in _PER_DEVICE_OUTPUTS and index is not None and int(index[1]) < len(devices):
            return (devices[int(index[1])],)
    return ids


def blob_split_axis(blob: Blob) -> int | None:
    """``blob.split_axis`` while its job is built: the axis of the blob's parts over its op's devices, None
    where every device holds it whole (or a partial sum), as OneFlow reported from the producing op's view.

    On one device OneFlow placed every op's blobs as ``split(0)`` (``Operator::InferSbpSignatureIf``), and a
    mirrored blob is its own device's part, placed so too: axis 0. On several, a job input is split along its
    batch axis (``input_blob_def.py``'s ``ToInterfaceBlobConf``: none for ``batch_axis=None``), or along axis 0
    whatever it was under ``FLOWTORCH_ONEFLOW_VERSION`` 0.4.0 (which dropped the batch axis), even where its
    length does not divide by the devices (OneFlow split it unevenly; flowtorch's step then keeps it whole);
    ``distribute_split``/``clone``'s parts are whole (broadcast) and ``distribute_add``'s a partial sum
    (None), ``distribute_concat``'s output is split along its axis (``distribute_*_op.cpp``). The other blobs
    are where :func:`sbp.distribute` puts them (the split plan the step will have, of the graph so far); a
    data op's outputs are split by the batch (axis 0), as OneFlow's readers' were."""
    if blob.ndim == 0:
        return None
    builder = blob.builder
    size = placement.count_devices(op_device_ids(blob))
    if size == 1 or builder.config.is_mirrored() or isinstance(blob, DataBlob):
        return 0
    node = blob.node
    if node.op == "placeholder" and not blob.is_variable:
        if releases.selected_at_least(releases.INPUTS_ALWAYS_SPLIT_0):
            return 0
        axis = blob.batch_axis
        return axis if axis is not None and blob.shape[axis] >= size else None
    call, op_type = _producer(blob)
    if op_type in (*_PER_DEVICE_OUTPUTS, "distribute_add"):
        return None
    if op_type == "distribute_concat":
        along = call.args[1] if len(call.args) > 1 else 0
        return along if isinstance(along, int) else None
    if _from_mirrored_input(node):  # OneFlow built an op with a mirrored input as a mirrored op: its part, S(0)
        return 0
    try:
        state = sbp.placed_so_far(builder.graph, size).get(node)
    except NotImplementedError:  # (a graph the consistent view cannot place: its step refuses it too)
        return None
    return state.axis if isinstance(state, sbp.Split) else None


def _from_mirrored_input(node: torch.fx.Node) -> bool:
    """Whether ``node`` is computed from a ``tp.ListNumpy`` input (one part per device) of a consistent job."""
    seen: set[torch.fx.Node] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.op == "placeholder" and n.meta.get("flowtorch_per_device"):
            return True
        todo.extend(n.all_input_nodes)
    return False


class _BlobView:
    """What ``capture.blob`` asks of the step layer about a blob being built (``set_view_source``)."""

    def split_axis(self, blob: Blob) -> int | None:
        return blob_split_axis(blob)

    def device_ids(self, blob: Blob) -> tuple[str, ...]:
        return blob_device_ids(blob)

    def mirrored(self, blob: Blob) -> bool:
        return bool(blob.builder.config.is_mirrored())


set_view_source(_BlobView())
