"""OneFlow's conf messages (``flowtorch.core``'s ``InitializerConf``, ``RegularizerConf`` …) read as the plain
values flowtorch's API takes.

OneFlow's Python API built these messages (``flow.random_normal_initializer()`` returned an ``InitializerConf``)
and programs built them too (``initializer_conf_pb2.InitializerConf(...)``); flowtorch's API takes them where
OneFlow's did. A message is known by its descriptor's full name, so any class generated from OneFlow's schema
qualifies, not only ``flowtorch.core``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def message_from_dict(values: Mapping[str, Any], message: Any, what: str) -> Any:
    """Fill ``message`` from a dict as OneFlow's ``pb_util.PythonDict2PbMessage`` did for its function config
    (``default_initializer_conf({"constant_conf": {"value": 0}})``): a dict fills a message field (an empty one
    sets it), a list of dicts adds repeated messages, another list extends a repeated field, anything else is
    assigned; an enum may also be given by its value's name. A key the schema lacks, or a value of the wrong
    type, raises :class:`ArgumentError` naming it. Returns ``message``."""
    descriptor = message.DESCRIPTOR
    for key, value in values.items():
        field = descriptor.fields_by_name.get(key)
        if field is None:
            raise ArgumentError(f"{what}: {descriptor.name} has no field {key!r}; its fields are "
                                f"{', '.join(f.name for f in descriptor.fields)}")
        where = f"{what}: {descriptor.name}.{key}"
        is_map = _is_map(field)
        repeated = is_map or isinstance(getattr(message, key), Sequence)
        try:
            if is_map and isinstance(value, Mapping):
                target = getattr(message, key)
                entry_value = field.message_type.fields_by_name["value"]
                for item_key, item in value.items():
                    if entry_value.message_type is not None:
                        message_from_dict(item, target[item_key], what)
                    else:
                        target[item_key] = _enum_number(entry_value, item)
            elif isinstance(value, Mapping) and field.message_type is not None and not repeated:
                message_from_dict(value, getattr(message, key), what)
                getattr(message, key).SetInParent()
            elif isinstance(value, (list, tuple)) and repeated:
                target = getattr(message, key)
                for item in value:
                    if isinstance(item, Mapping) and field.message_type is not None:
                        message_from_dict(item, target.add(), what)
                    else:
                        target.append(_enum_number(field, item))
            else:
                setattr(message, key, _enum_number(field, value))
        except ArgumentError:
            raise
        except (TypeError, ValueError, AttributeError) as exc:
            raise ArgumentError(f"{where}: cannot take {value!r} ({exc})") from None
    return message


def _is_map(field: Any) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _enum_number(field: Any, value: Any) -> Any:
    """An enum value's name (``"kFanIn"``) as its number; other values as they are."""
    if field.enum_type is not None and isinstance(value, str):
        if value not in field.enum_type.values_by_name:
            raise ValueError(f"{field.enum_type.name} has no value {value!r}")
        return field.enum_type.values_by_name[value].number
    return value
