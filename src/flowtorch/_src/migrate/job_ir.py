"""The job IR: each built job as the ``Job`` message of a ``JobSet``, as OneFlow's compiler described it
(``flow.experimental.get_job_set()``), for the tools that read a job that way (OneFlow's ONNX exporter
``oneflow_onnx`` walks ``job.net.op`` and ``job.helper.lbn2logical_blob_desc``).

Every op is an ``OperatorConf``: job inputs are ``input_conf`` ops (``Input_<n>/out``), variables ``variable_conf``
ops (``<name>/out``), returns ``return_conf`` ops (``Return_<n>/out``), and every other op a ``user_conf`` with
OneFlow's op type name, its input and output argument names from the op's ``REGISTER_USER_OP`` declaration
(``capture/user_op_schemas.json``, ``scripts/write_user_op_schemas.py``) and its attributes typed as there.
Blob names are the ones ``watch_scope`` reports. An op flowtorch records without OneFlow's attributes gets the
attributes it has; a tool that needs one it lacks says which.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any

from flowtorch._src import dtypes
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.builder import JobIR, OpRecord
from flowtorch._src.session import default_session
from flowtorch.core.common import data_type_pb2, shape_pb2
from flowtorch.core.framework import user_op_attr_pb2
from flowtorch.core.job import job_pb2, job_set_pb2
from flowtorch.core.operator import interface_blob_conf_pb2, op_conf_pb2

_LIST_FIELDS = {"at_list_int32", "at_list_int64", "at_list_float", "at_list_string"}


@functools.cache
def schemas() -> dict[str, dict[str, Any]]:
    """OneFlow v0.4.0's user-op schemas: per op type its ``inputs``, ``outputs``, ``optional`` and ``attrs``."""
    text = resources.files("flowtorch._src.capture").joinpath("user_op_schemas.json").read_text(encoding="utf-8")
    table: dict[str, dict[str, Any]] = json.loads(text)["ops"]
    return table


def attr_value(value: Any, field: str | None) -> user_op_attr_pb2.AttrValue:
    """``value`` as an ``AttrValue`` in ``field`` (``at_int32`` …; None: chosen by the value's Python type)."""
    attr = user_op_attr_pb2.AttrValue()
    if field is None:
        field = _field_of(value)
    if field == "at_shape":
        attr.at_shape.CopyFrom(_shape(value))
    elif field == "at_data_type":
        attr.at_data_type = _data_type(value)
    elif field == "at_list_shape":
        attr.at_list_shape.val.extend(_shape(v) for v in value)
    elif field == "at_list_data_type":
        attr.at_list_data_type.val.extend(_data_type(v) for v in value)
    elif field in _LIST_FIELDS:
        getattr(attr, field).val.extend(value)
    elif field in ("at_int32", "at_int64"):
        setattr(attr, field, int(value))
    elif field in ("at_float", "at_double"):
        setattr(attr, field, float(value))
    else:
        setattr(attr, field, value)
    return attr


def _field_of(value: Any) -> str:
    if isinstance(value, bool):
        return "at_bool"
    if isinstance(value, int):
        return "at_int64"
    if isinstance(value, float):
        return "at_double"
    if isinstance(value, str):
        return "at_string"
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return "at_list_int64"
        if all(isinstance(v, (int, float)) for v in value):
            return "at_list_float"
        return "at_list_string"
    raise TypeError(f"job IR: no OneFlow attribute type for {type(value).__name__} {value!r}")


def _shape(dims: Iterable[int]) -> shape_pb2.ShapeProto:
    shape = shape_pb2.ShapeProto()
    shape.dim.extend(int(d) for d in dims)
    return shape


def _data_type(dtype: Any) -> data_type_pb2.DataType:
    """A flowtorch dtype (``flow.float32``) or OneFlow's enum name (``kFloat``) as the ``DataType`` value."""
    name = dtype if isinstance(dtype, str) else dtype.proto_name
    return data_type_pb2.DataType.Value(name)


def _blob_name(blob: Blob) -> tuple[str, int]:
    """``out_0`` → (``out``, 0): OneFlow's output argument name and index of a user op's blob."""
    name, _, index = blob.blob_name.rpartition("_")
    return (name, int(index)) if name and index.isdigit() else (blob.blob_name, 0)


def _named_inputs(op: OpRecord, schema: dict[str, Any] | None) -> dict[str, list[Blob]]:
    """The op's input blobs by OneFlow's argument names: as the op gave them, else its blob arguments laid on
    the schema's inputs in order (all of them on the one input of an op like ``add_n`` or ``concat``)."""
    if op.named is not None:
        return op.named
    if schema is None:
        return {f"in_{i}": [b] for i, b in enumerate(op.inputs)}
    names = [n for n in schema["inputs"] if not n.startswith("_")]
    required = [n for n in names if n not in schema["optional"]]
    if len(required) == 1 and len(op.inputs) > 1 and len(names) == 1:
        return {required[0]: list(op.inputs)}
    found: dict[str, list[Blob]] = {}
    for name, blob in zip(names, op.inputs):
        found[name] = [blob]
    for i, blob in enumerate(op.inputs[len(names):]):  # more blobs than the schema names: kept, numbered
        found[f"in_{len(names) + i}"] = [blob]
    return found


def _scalar(value: Any) -> dict[str, Any]:
    is_int = isinstance(value, int) and not isinstance(value, bool)
    return {"has_int_operand": is_int, "int_operand": int(value) if is_int else 0,
            "has_float_operand": not is_int, "float_operand": 0.0 if is_int else float(value)}


def _pad_attrs(args: tuple[Any, ...]) -> dict[str, Any]:
    """``pad``'s attributes from its kernel's torch-ordered pads (last axis first)."""
    torch_pads, value = args[1], args[2]
    pairs = [(torch_pads[i], torch_pads[i + 1]) for i in range(0, len(torch_pads), 2)][::-1]
    is_float = isinstance(value, float)
    return {"padding_before": [b for b, _ in pairs], "padding_after": [a for _, a in pairs],
            "floating_constant_value": float(value) if is_float else 0.0,
            "integral_constant_value": 0 if is_float else int(value)}


def _constant_attrs(args: tuple[Any, ...]) -> dict[str, Any]:
    value, shape, dtype = args[0], args[1], args[2]
    is_float = isinstance(value, float)
    return {"floating_value": float(value) if is_float else 0.0, "integer_value": 0 if is_float else int(value),
            "is_floating_value": is_float, "dtype": dtypes.from_torch(dtype), "shape": list(shape)}


def _concat_attrs(args: tuple[Any, ...]) -> dict[str, Any]:
    blobs, axis = args[0], args[1]
    size = args[2] if len(args) > 2 else sum(b.shape[axis] for b in blobs)
    return {"axis": axis, "max_dim_size": size}


# Attributes that are the kernel's own arguments, derived from them (ops whose call sites give none)
_DERIVED: dict[str, Callable[[tuple[Any, ...]], dict[str, Any]]] = {
    "scalar_add": lambda a: _scalar(a[1]),
    "scalar_mul": lambda a: _scalar(a[1]),
    "leaky_relu": lambda a: {"alpha": a[1]},
    "elu": lambda a: {"alpha": a[1]},
    "hardtanh": lambda a: {"min_val": a[1], "max_val": a[2]},
    "reshape": lambda a: {"shape": list(a[1])},
    "transpose": lambda a: {"perm": list(a[1])},
    "flatten": lambda a: {"start_dim": a[1], "end_dim": a[2]},
    "expand_dims": lambda a: {"axis": a[1]},
    "squeeze": lambda a: {"axes": list(a[1])},
    "concat": _concat_attrs,
    "pad": _pad_attrs,
    "constant": _constant_attrs,
    "cast": lambda a: {"dtype": dtypes.from_torch(a[1])},
    **{kind: lambda a: {"axis": list(a[1]) if a[1] is not None else list(range(a[0].ndim)), "keepdims": bool(a[2])}
       for kind in ("reduce_sum", "reduce_prod", "reduce_any", "reduce_all", "reduce_max", "reduce_min")},
}


def _attrs(op: OpRecord) -> dict[str, Any]:
    derive = _DERIVED.get(op.op_type)
    derived = derive(op.args) if derive is not None and op.args else {}
    return {**derived, **op.attrs}


def _asymmetric_pads(op: OpRecord, attrs: dict[str, Any]) -> tuple[list[int], list[int]] | None:
    """A conv's (extra before, extra after) per spatial axis where its padding is asymmetric (OneFlow put a pad
    op before such a conv, the conv padding the common part); None where it is symmetric."""
    before, after = attrs.get("padding_before"), attrs.get("padding_after")
    if not op.op_type.startswith("conv") or before is None or after is None or before == after:
        return None
    common = [min(b, a) for b, a in zip(before, after)]
    return [b - c for b, c in zip(before, common)], [a - c for a, c in zip(after, common)]


def user_op_conf(op: OpRecord, device_tag: str) -> op_conf_pb2.OperatorConf:
    """One recorded op as OneFlow's ``OperatorConf`` with a ``user_conf``."""
    schema = schemas().get(op.op_type)
    conf = op_conf_pb2.OperatorConf(name=op.name, device_tag=device_tag)
    user = conf.user_conf
    user.op_type_name = op.op_type
    for name, blobs in _named_inputs(op, schema).items():
        user.input[name].s.extend(b.logical_blob_name for b in blobs)
    outputs: dict[str, list[str]] = {}
    for blob in op.outputs:
        name, _ = _blob_name(blob)
        outputs.setdefault(name, []).append(blob.logical_blob_name)
    for name, lbns in outputs.items():
        user.output[name].s.extend(lbns)
    types = schema["attrs"] if schema is not None else {}
    for name, value in _attrs(op).items():
        if schema is not None and name not in types:
            continue  # (the IR's own notes, such as a conv's padding_after)
        user.attr[name].CopyFrom(attr_value(value, types.get(name)))
    return conf


def _net_ops(op: OpRecord, device_tag: str) -> list[op_conf_pb2.OperatorConf]:
    """The op confs of one recorded op: one, or for a conv with asymmetric padding a ``pad`` op and the conv on
    its output with the common padding (OneFlow's ``calc_conv_padding``)."""
    attrs = _attrs(op)
    extra = _asymmetric_pads(op, attrs)
    if extra is None:
        return [user_op_conf(op, device_tag)]
    x = op.inputs[0]
    first = attrs.get("data_format") == "channels_first"
    spatial = range(2, x.ndim) if first else range(1, x.ndim - 1)
    before, after = [0] * x.ndim, [0] * x.ndim
    for axis, b, a in zip(spatial, *extra):
        before[axis], after[axis] = b, a
    pad_name = f"{op.name}-pad"
    pad = op_conf_pb2.OperatorConf(name=pad_name, device_tag=device_tag)
    pad.user_conf.op_type_name = "pad"
    pad.user_conf.input["x"].s.append(x.logical_blob_name)
    pad.user_conf.output["y"].s.append(f"{pad_name}/y_0")
    types = schemas()["pad"]["attrs"]
    for name, value in (("padding_before", before), ("padding_after", after), ("floating_constant_value", 0.0),
                        ("integral_constant_value", 0)):
        pad.user_conf.attr[name].CopyFrom(attr_value(value, types[name]))
    conv = user_op_conf(op, device_tag)
    conv.user_conf.input["in"].s[0] = f"{pad_name}/y_0"
    common = [min(b, a) for b, a in zip(attrs["padding_before"], attrs["padding_after"])]
    conv.user_conf.attr["padding_before"].CopyFrom(attr_value(common, "at_list_int32"))
    return [pad, conv]


def _padded(ir: JobIR) -> list[tuple[str, str, list[int]]]:
    """The output lbn, input lbn and output shape of each pad op :func:`_net_ops` adds."""
    found = []
    for op in ir.ops:
        attrs = _attrs(op)
        extra = _asymmetric_pads(op, attrs) if op.outputs else None
        if extra is None:
            continue
        x = op.inputs[0]
        first = attrs.get("data_format") == "channels_first"
        shape = list(x.shape)
        for axis, b, a in zip(range(2, x.ndim) if first else range(1, x.ndim - 1), *extra):
            shape[axis] += b + a
        found.append((f"{op.name}-pad/y_0", x.logical_blob_name, shape))
    return found


def _interface(blob: Blob) -> interface_blob_conf_pb2.InterfaceBlobConf:
    conf = interface_blob_conf_pb2.InterfaceBlobConf(data_type=_data_type(blob.dtype), is_dynamic=blob.is_dynamic)
    conf.shape.CopyFrom(_shape(blob.shape))
    return conf


def job_message(name: str, ir: JobIR, device_tag: str) -> job_pb2.Job:
    """One built job as OneFlow's ``Job``."""
    job = job_pb2.Job()
    job.job_conf.job_name = name
    if ir.job_type == "train":
        job.job_conf.train_conf.SetInParent()
    else:
        job.job_conf.predict_conf.SetInParent()
    ops = job.net.op
    for blob in ir.inputs:
        op = ops.add(name=blob.op_name, device_tag=device_tag)
        op.input_conf.out = blob.blob_name
        op.input_conf.blob_conf.CopyFrom(_interface(blob))
    for var_name, blob in ir.variables.items():
        op = ops.add(name=var_name, device_tag=device_tag)
        op.variable_conf.out = blob.blob_name
        op.variable_conf.shape.CopyFrom(_shape(blob.shape))
        op.variable_conf.data_type = _data_type(blob.dtype)
    for recorded in ir.ops:
        if recorded.outputs:
            ops.extend(_net_ops(recorded, device_tag))
    for return_name, blob in ir.returns:
        op = ops.add(name=return_name, device_tag=device_tag)
        setattr(op.return_conf, "in", blob.logical_blob_name)
        op.return_conf.out = "out"
    group = job.placement.placement_group.add()
    group.op_set.op_name.extend(op.name for op in ops)
    group.parallel_conf.device_tag = device_tag
    group.parallel_conf.device_name.append("0:0")
    descs = job.helper.lbn2logical_blob_desc
    for blob in _described(ir):
        desc = descs[blob.logical_blob_name]
        desc.shape.CopyFrom(_shape(blob.shape))
        desc.data_type = _data_type(blob.dtype)
        desc.is_dynamic = blob.is_dynamic
    for return_name, blob in ir.returns:
        desc = descs[f"{return_name}/out"]
        desc.CopyFrom(descs[blob.logical_blob_name])
    for lbn, x_lbn, shape in _padded(ir):
        desc = descs[lbn]
        desc.CopyFrom(descs[x_lbn])
        desc.shape.CopyFrom(_shape(shape))
    return job


def _described(ir: JobIR) -> list[Blob]:
    """Every blob an op of the net produces (inputs, variables, ops' outputs), once each."""
    seen: dict[str, Blob] = {}
    for blob in [*ir.inputs, *ir.variables.values(), *(b for op in ir.ops for b in op.outputs)]:
        seen.setdefault(blob.logical_blob_name, blob)
    return list(seen.values())


def job_set(jobs: Sequence[tuple[str, JobIR]], device: str) -> job_set_pb2.JobSet:
    """The ``JobSet`` of the given built jobs (name, IR), on the session's device."""
    tag = "gpu" if device.startswith("cuda") else "cpu"
    result = job_set_pb2.JobSet()
    for name, ir in jobs:
        result.job.append(job_message(name, ir, tag))
    return result


def get_job_set() -> job_set_pb2.JobSet:
    """``flow.experimental.get_job_set()``: the session's jobs as OneFlow compiled them (the session starts, so
    every registered job is built, as OneFlow's compiled them all at once)."""
    session = default_session()
    session.start()
    built = [(job.name, job.ir) for job in list(session.jobs.values()) if job.ir is not None]
    return job_set(built, session.device)


__all__ = ["attr_value", "get_job_set", "job_message", "job_set", "schemas", "user_op_conf"]
