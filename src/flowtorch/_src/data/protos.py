"""OneFlow's protobuf messages and enums that programs import (``oneflow.core.*_pb2``), built on the
``protobuf`` package from descriptors written here.

Field numbers and names follow OneFlow's ``oneflow/core/record/record.proto``,
``oneflow/core/common/data_type.proto`` and the ``ActivationType`` enum of
``oneflow/core/operator/op_conf.proto`` (v0.4.0), so records written by OneFlow's tools parse here and
records written here parse there. The descriptors live in a private pool: a real OneFlow installed in the
same environment registers the same file names in protobuf's default pool, and the two must not clash.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal import enum_type_wrapper

_F = descriptor_pb2.FieldDescriptorProto
POOL = descriptor_pool.DescriptorPool()

# (message, element type, packed): record.proto's five list kinds, each `repeated <type> value = 1`.
_LISTS = (("BytesList", _F.TYPE_BYTES, False), ("FloatList", _F.TYPE_FLOAT, True),
          ("DoubleList", _F.TYPE_DOUBLE, True), ("Int32List", _F.TYPE_INT32, True),
          ("Int64List", _F.TYPE_INT64, True))
# Feature's oneof `kind`, in field-number order.
FEATURE_KINDS = ("bytes_list", "float_list", "double_list", "int32_list", "int64_list")


def _record_file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name="oneflow/core/record/record.proto", package="oneflow",
                                           syntax="proto2")
    for name, elem, packed in _LISTS:
        field = f.message_type.add(name=name).field.add(name="value", number=1, label=_F.LABEL_REPEATED, type=elem)
        if packed:
            field.options.packed = True
    feature = f.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (kind, (msg, _, _)) in enumerate(zip(FEATURE_KINDS, _LISTS), start=1):
        feature.field.add(name=kind, number=number, label=_F.LABEL_OPTIONAL, type=_F.TYPE_MESSAGE,
                          type_name=f".oneflow.{msg}", oneof_index=0)
    record = f.message_type.add(name="OFRecord")
    entry = record.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING)
    entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL, type=_F.TYPE_MESSAGE,
                    type_name=".oneflow.Feature")
    record.field.add(name="feature", number=1, label=_F.LABEL_REPEATED, type=_F.TYPE_MESSAGE,
                     type_name=".oneflow.OFRecord.FeatureEntry")
    return f


def _enum_file(path: str, enum: str, values: tuple[str, ...]) -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name=path, package="oneflow", syntax="proto2")
    e = f.enum_type.add(name=enum)
    for number, name in enumerate(values):
        e.value.add(name=name, number=number)
    return f


DATA_TYPES = ("kInvalidDataType", "kChar", "kFloat", "kDouble", "kInt8", "kInt32", "kInt64", "kUInt8",
              "kOFRecord", "kFloat16", "kTensorBuffer")
ACTIVATIONS = ("kNone", "kTanH", "kSigmoid", "kRelu")

_record = POOL.Add(_record_file())
_data_type = POOL.Add(_enum_file("oneflow/core/common/data_type.proto", "DataType", DATA_TYPES))
_activation = POOL.Add(_enum_file("oneflow/core/operator/op_conf.proto", "ActivationType", ACTIVATIONS))


def message_class(name: str) -> type:
    """The generated message class ``oneflow.<name>`` (record.proto)."""
    descriptor = POOL.FindMessageTypeByName(f"oneflow.{name}")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(POOL).GetPrototype(descriptor)  # protobuf < 4.22


def enum_wrapper(name: str) -> enum_type_wrapper.EnumTypeWrapper:
    return enum_type_wrapper.EnumTypeWrapper(POOL.FindEnumTypeByName(f"oneflow.{name}"))


BytesList = message_class("BytesList")
FloatList = message_class("FloatList")
DoubleList = message_class("DoubleList")
Int32List = message_class("Int32List")
Int64List = message_class("Int64List")
Feature = message_class("Feature")
OFRecord = message_class("OFRecord")
DataType = enum_wrapper("DataType")
ActivationType = enum_wrapper("ActivationType")

# The enums' values as module constants, as generated ``*_pb2`` modules have them.
kInvalidDataType = DataType.Value('kInvalidDataType')
kChar = DataType.Value('kChar')
kFloat = DataType.Value('kFloat')
kDouble = DataType.Value('kDouble')
kInt8 = DataType.Value('kInt8')
kInt32 = DataType.Value('kInt32')
kInt64 = DataType.Value('kInt64')
kUInt8 = DataType.Value('kUInt8')
kOFRecord = DataType.Value('kOFRecord')
kFloat16 = DataType.Value('kFloat16')
kTensorBuffer = DataType.Value('kTensorBuffer')
kNone = ActivationType.Value('kNone')
kTanH = ActivationType.Value('kTanH')
kSigmoid = ActivationType.Value('kSigmoid')
kRelu = ActivationType.Value('kRelu')
