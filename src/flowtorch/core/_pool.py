"""The descriptor pool of ``flowtorch.core``'s generated modules (``scripts/write_core_protos.py``).

OneFlow's files keep OneFlow's names (``oneflow/core/job/job.proto``, package ``oneflow``), so they live in a
pool of their own: a real OneFlow imported in the same process registers those names in protobuf's default
pool, and the two must not clash. ``google/protobuf/struct.proto`` (imported by ``summary/plugin_data.proto``)
is added first, with message classes for its messages (protobuf makes a map's or a field's class only for
messages that have one).
"""

from google.protobuf import descriptor_pool, message_factory, struct_pb2

POOL = descriptor_pool.DescriptorPool()
POOL.AddSerializedFile(struct_pb2.DESCRIPTOR.serialized_pb)
for _name in ("Struct", "Value", "ListValue"):
    message_factory.GetMessageClass(POOL.FindMessageTypeByName(f"google.protobuf.{_name}"))
