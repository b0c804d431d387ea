"""OneFlow's saved-model messages (``oneflow/core/serving/saved_model.proto`` and what it imports, v0.4.0), built
on the ``protobuf`` package from descriptors written here, as :mod:`flowtorch._src.data.protos` builds the record
messages.

Field names, numbers, labels and defaults follow OneFlow's files, so a ``saved_model.pb`` written here parses in
OneFlow and one written by OneFlow parses here. ``OperatorConf`` carries the fields every op has and the
interface and user op confs (the ones a saved model written here holds); the other op confs of OneFlow's
``op_type`` oneof are not declared: a binary file keeps them as unknown fields, and text files are read with
``allow_unknown_field``. The descriptors live in a private pool (a real OneFlow in the same environment
registers the same file names in protobuf's default pool).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from flowtorch._src.data.protos import DATA_TYPES

_F = descriptor_pb2.FieldDescriptorProto
_OPT, _REQ, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REQUIRED, _F.LABEL_REPEATED
_STR, _I64, _I32, _U32, _BOOL, _FLOAT, _DOUBLE, _MSG, _ENUM = (
    _F.TYPE_STRING, _F.TYPE_INT64, _F.TYPE_INT32, _F.TYPE_UINT32, _F.TYPE_BOOL, _F.TYPE_FLOAT, _F.TYPE_DOUBLE,
    _F.TYPE_MESSAGE, _F.TYPE_ENUM)
POOL = descriptor_pool.DescriptorPool()

# A field: (name, number, label, type, message or enum type name or None, options). Options: "default" (its
# text), "oneof" (index of the message's oneof), "packed".
Field = tuple[str, int, int, int, str | None, dict[str, Any]]


def _f(name: str, number: int, label: int, kind: int, type_name: str | None = None, **options: Any) -> Field:
    return (name, number, label, kind, type_name, options)


def _add_fields(msg: descriptor_pb2.DescriptorProto, fields: Sequence[Field]) -> None:
    for name, number, label, kind, type_name, options in fields:
        field = msg.field.add(name=name, number=number, label=label, type=kind)
        if type_name is not None:
            field.type_name = type_name if type_name.startswith(".") else f".oneflow.{type_name}"
        if "default" in options:
            field.default_value = options["default"]
        if "oneof" in options:
            field.oneof_index = options["oneof"]
        if options.get("packed"):
            field.options.packed = True


def _message(f: descriptor_pb2.FileDescriptorProto, name: str, fields: Sequence[Field] = (),
             oneofs: Sequence[str] = ()) -> descriptor_pb2.DescriptorProto:
    msg = f.message_type.add(name=name)
    for oneof in oneofs:
        msg.oneof_decl.add(name=oneof)
    _add_fields(msg, fields)
    return msg


def _map(msg: descriptor_pb2.DescriptorProto, name: str, number: int, value_type: str) -> None:
    """``map<string, value_type> name = number`` (a repeated nested ``<Name>Entry``, as protoc writes it)."""
    entry_name = "".join(part.capitalize() for part in name.split("_")) + "Entry"
    entry = msg.nested_type.add(name=entry_name)
    entry.options.map_entry = True
    _add_fields(entry, [_f("key", 1, _OPT, _STR), _f("value", 2, _OPT, _MSG, value_type)])
    full = f".oneflow.{msg.name}.{entry_name}"
    _add_fields(msg, [_f(name, number, _REP, _MSG, full)])


def _file(path: str, deps: Sequence[str] = ()) -> descriptor_pb2.FileDescriptorProto:
    return descriptor_pb2.FileDescriptorProto(name=f"oneflow/core/{path}", package="oneflow", syntax="proto2",
                                              dependency=[f"oneflow/core/{d}" for d in deps])


def _files() -> list[descriptor_pb2.FileDescriptorProto]:
    shape = _file("common/shape.proto")
    _message(shape, "ShapeProto", [_f("dim", 1, _REP, _I64)])
    data_type = _file("common/data_type.proto")
    enum = data_type.enum_type.add(name="DataType")
    for number, name in enumerate(DATA_TYPES):
        enum.value.add(name=name, number=number)
    lbi = _file("register/logical_blob_id.proto")
    _message(lbi, "LogicalBlobId", [_f("op_name", 1, _OPT, _STR), _f("blob_name", 2, _OPT, _STR)])
    sbp = _file("job/sbp_parallel.proto")
    _message(sbp, "SplitParallel", [_f("axis", 1, _REQ, _I64)])
    _message(sbp, "BroadcastParallel")
    _message(sbp, "PartialSumParallel")
    _message(sbp, "SbpParallel", [_f("split_parallel", 1, _OPT, _MSG, "SplitParallel", oneof=0),
                                  _f("broadcast_parallel", 2, _OPT, _MSG, "BroadcastParallel", oneof=0),
                                  _f("partial_sum_parallel", 3, _OPT, _MSG, "PartialSumParallel", oneof=0)],
             oneofs=["parallel_type"])
    _message(sbp, "ParallelDistribution", [_f("sbp_parallel", 1, _REP, _MSG, "SbpParallel")])
    interface = _file("operator/interface_blob_conf.proto",
                      ["common/shape.proto", "common/data_type.proto", "job/sbp_parallel.proto"])
    _message(interface, "InterfaceBlobConf", [
        _f("shape", 1, _OPT, _MSG, "ShapeProto"), _f("data_type", 2, _OPT, _ENUM, "DataType"),
        _f("is_dynamic", 3, _OPT, _BOOL), _f("parallel_distribution", 4, _OPT, _MSG, "ParallelDistribution")])
    attr = _file("framework/user_op_attr.proto", ["common/shape.proto", "common/data_type.proto"])
    value = _message(attr, "AttrValue", oneofs=["value"])
    lists = (("ListInt32", _I32, None), ("ListInt64", _I64, None), ("ListFloat", _FLOAT, None),
             ("ListDataType", _ENUM, "DataType"), ("ListShape", _MSG, "ShapeProto"), ("ListString", _STR, None))
    for name, kind, type_name in lists:
        _add_fields(value.nested_type.add(name=name), [_f("val", 1, _REP, kind, type_name)])
    scalars = [("at_int32", _I32, None), ("at_int64", _I64, None), ("at_bool", _BOOL, None),
               ("at_float", _FLOAT, None), ("at_double", _DOUBLE, None), ("at_string", _STR, None),
               ("at_shape", _MSG, "ShapeProto"), ("at_data_type", _ENUM, "DataType")]
    scalars += [(f"at_list_{n[4:].lower().replace('datatype', 'data_type')}", _MSG, f".oneflow.AttrValue.{n}")
                for n, _, _ in lists]
    _add_fields(value, [_f(n, i, _OPT, k, t, oneof=0) for i, (n, k, t) in enumerate(scalars, start=1)])
    user = _file("framework/user_op_conf.proto", ["framework/user_op_attr.proto"])
    user_conf = _message(user, "UserOpConf", [_f("op_type_name", 1, _REQ, _STR)])
    _add_fields(user_conf.nested_type.add(name="ListString"), [_f("s", 1, _REP, _STR)])
    _map(user_conf, "input", 2, ".oneflow.UserOpConf.ListString")
    _map(user_conf, "output", 3, ".oneflow.UserOpConf.ListString")
    _map(user_conf, "attr", 4, "AttrValue")
    op = _file("operator/op_conf.proto", ["common/shape.proto", "common/data_type.proto",
                                          "operator/interface_blob_conf.proto", "framework/user_op_conf.proto"])
    _message(op, "InputOpConf", [_f("tick", 1, _OPT, _STR), _f("out", 2, _REQ, _STR),
                                 _f("blob_conf", 3, _REQ, _MSG, "InterfaceBlobConf")])
    _message(op, "ReturnOpConf", [_f("in", 1, _REQ, _STR), _f("out", 2, _REQ, _STR)])
    _message(op, "OutputOpConf", [_f("in", 1, _REQ, _STR), _f("out", 2, _REQ, _STR),
                                  _f("blob_conf", 3, _REQ, _MSG, "InterfaceBlobConf")])
    _message(op, "VariableOpConf", [
        _f("tick", 1, _OPT, _STR), _f("out", 2, _REQ, _STR), _f("shape", 3, _REQ, _MSG, "ShapeProto"),
        _f("data_type", 4, _OPT, _ENUM, "DataType"), _f("model_name", 7, _OPT, _STR, default="weight"),
        _f("random_seed", 9, _OPT, _I64), _f("trainable", 11, _OPT, _BOOL, default="true"),
        _f("parallel_distribution", 12, _REP, _STR)])
    _message(op, "OperatorConf", [
        _f("name", 1, _REQ, _STR), _f("device_tag", 4, _OPT, _STR, default="invalid_device"),
        _f("ctrl_in_op_name", 7, _REP, _STR), _f("scope_symbol_id", 8, _OPT, _I64),
        _f("stream_index_hint", 9, _OPT, _U32), _f("pass_tag", 10, _OPT, _STR),
        _f("variable_conf", 122, _OPT, _MSG, "VariableOpConf", oneof=0),
        _f("input_conf", 137, _OPT, _MSG, "InputOpConf", oneof=0),
        _f("output_conf", 138, _OPT, _MSG, "OutputOpConf", oneof=0),
        _f("return_conf", 146, _OPT, _MSG, "ReturnOpConf", oneof=0),
        _f("user_conf", 199, _OPT, _MSG, "UserOpConf", oneof=0)], oneofs=["op_type"])
    job = _file("job/job_conf.proto", ["register/logical_blob_id.proto", "operator/interface_blob_conf.proto"])
    _message(job, "JobInputDef", [_f("lbi", 1, _REQ, _MSG, "LogicalBlobId"),
                                  _f("blob_conf", 2, _REQ, _MSG, "InterfaceBlobConf")])
    _message(job, "JobOutputDef", [_f("lbi", 1, _REQ, _MSG, "LogicalBlobId")])
    signature = _message(job, "JobSignatureDef")
    _map(signature, "inputs", 1, "JobInputDef")
    _map(signature, "outputs", 2, "JobOutputDef")
    saved = _file("serving/saved_model.proto", ["operator/op_conf.proto", "job/job_conf.proto"])
    model = _message(saved, "SavedModel", [_f("name", 1, _REQ, _STR), _f("version", 2, _REQ, _I64),
                                           _f("checkpoint_dir", 3, _REQ, _STR)])
    _map(model, "graphs", 4, "GraphDef")
    _add_fields(model, [_f("default_graph_name", 5, _OPT, _STR)])
    graph = _message(saved, "GraphDef", [_f("op_list", 1, _REP, _MSG, "OperatorConf")])
    _map(graph, "signatures", 2, "JobSignatureDef")
    _add_fields(graph, [_f("default_signature_name", 3, _OPT, _STR)])
    return [shape, data_type, lbi, sbp, interface, attr, user, op, job, saved]


for _proto in _files():
    POOL.Add(_proto)


def _class(name: str) -> Any:
    descriptor = POOL.FindMessageTypeByName(f"oneflow.{name}")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(POOL).GetPrototype(descriptor)  # protobuf < 4.22


ShapeProto = _class("ShapeProto")
LogicalBlobId = _class("LogicalBlobId")
SbpParallel = _class("SbpParallel")
ParallelDistribution = _class("ParallelDistribution")
InterfaceBlobConf = _class("InterfaceBlobConf")
AttrValue = _class("AttrValue")
UserOpConf = _class("UserOpConf")
OperatorConf = _class("OperatorConf")
JobInputDef = _class("JobInputDef")
JobOutputDef = _class("JobOutputDef")
JobSignatureDef = _class("JobSignatureDef")
SavedModel = _class("SavedModel")
GraphDef = _class("GraphDef")
