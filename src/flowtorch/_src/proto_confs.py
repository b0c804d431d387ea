"""OneFlow's conf messages (``flowtorch.core``'s ``InitializerConf``, ``RegularizerConf`` …) read as the plain
values flowtorch's API takes.

OneFlow's Python API built these messages (``flow.random_normal_initializer()`` returned an ``InitializerConf``)
and programs built them too (``initializer_conf_pb2.InitializerConf(...)``); flowtorch's API takes them where
OneFlow's did. A message is known by its descriptor's full name, so any class generated from OneFlow's schema
qualifies, not only ``flowtorch.core``'s.
"""

from __future__ import annotations

from typing import Any

from flowtorch._src.errors import ArgumentError


def is_message(value: Any, full_name: str) -> bool:
    """Whether ``value`` is a protobuf message of OneFlow's type ``full_name`` (``"oneflow.InitializerConf"``)."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == full_name and hasattr(value, "ListFields")


def oneof_fields(message: Any, oneof: str, what: str) -> tuple[str, dict[str, Any]]:
    """The field set in ``message``'s oneof ``oneof`` and the fields set in its value (unset fields are left out,
    so the reader applies the schema's defaults); enums stay numbers. Raises :class:`ArgumentError` when the
    oneof is empty or the value lacks a required field (OneFlow failed on both)."""
    kind = message.WhichOneof(oneof)
    if kind is None:
        raise ArgumentError(f"{what}: the {message.DESCRIPTOR.name} sets none of its {oneof!r} fields "
                            f"({', '.join(f.name for f in message.DESCRIPTOR.oneofs_by_name[oneof].fields)})")
    value = getattr(message, kind)
    if not value.IsInitialized():
        raise ArgumentError(f"{what}: {message.DESCRIPTOR.name}.{kind} lacks its required field(s) "
                            f"{', '.join(value.FindInitializationErrors())}")
    return kind, {field.name: field_value for field, field_value in value.ListFields()}
