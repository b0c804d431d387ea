"""``flowtorch.core``: OneFlow v0.4.0's ``oneflow/core`` schemas as generated ``*_pb2`` modules.

``protos/oneflow_core_v0.4.0.json`` is the manifest that ``scripts/write_core_protos.py`` wrote from the
descriptors of OneFlow's own ``.proto`` files; here every generated module is held against it: its file name,
package and imports, and each message's fields (name, number, type, label, type name, default, oneof) and
each enum's values, with nothing missing and nothing extra.
"""

from __future__ import annotations

import importlib
import json
import re
import struct
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, text_format

from flowtorch._src import alias

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((ROOT / "protos" / "oneflow_core_v0.4.0.json").read_text())
FDP = descriptor_pb2.FieldDescriptorProto


def module_of(proto_file: str) -> types.ModuleType:
    """``oneflow/core/job/job.proto`` -> ``flowtorch.core.job.job_pb2``."""
    dotted = proto_file.removeprefix("oneflow/").removesuffix(".proto").replace("/", ".")
    return importlib.import_module(f"flowtorch.{dotted}_pb2")


def walk(proto: descriptor_pb2.FileDescriptorProto) -> tuple[dict[str, Any], dict[str, Any]]:
    """``({message full name: DescriptorProto}, {enum full name: EnumDescriptorProto})`` of one file."""
    messages: dict[str, Any] = {}
    enums = {f"{proto.package}.{e.name}": e for e in proto.enum_type}

    def visit(msg: descriptor_pb2.DescriptorProto, prefix: str) -> None:
        name = f"{prefix}.{msg.name}"
        messages[name] = msg
        enums.update({f"{name}.{e.name}": e for e in msg.enum_type})
        for nested in msg.nested_type:
            visit(nested, name)

    for msg in proto.message_type:
        visit(msg, proto.package)
    return messages, enums


def default(kind: str, text: str | None) -> Any:
    """A default's value: protobuf may print a float default another way (``0.05`` as ``0.0500000007``)."""
    if text is None or kind not in ("TYPE_FLOAT", "TYPE_DOUBLE"):
        return text
    return float(np.float32(text)) if kind == "TYPE_FLOAT" else float(text)


def generated(proto_file: str) -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto()
    module_of(proto_file).DESCRIPTOR.CopyToProto(proto)
    return proto


def test_the_manifest_counts_oneflows_schema() -> None:
    # OneFlow v0.4.0 has 73 .proto files under oneflow/core; 396 messages (not counting the 61 entry types
    # that protoc makes for map fields) and 19 enums, nested ones included: 415 types
    messages = [m for f in MANIFEST.values() for m in f["messages"].values()]
    enums = [e for f in MANIFEST.values() for e in f["enums"]]
    assert len(MANIFEST) == 73
    assert sum(not m["map_entry"] for m in messages) == 396
    assert sum(m["map_entry"] for m in messages) == 61
    assert len(enums) == 19
    assert {f["package"] for f in MANIFEST.values()} == {"oneflow", "oneflow.summary", "oneflow.vm",
                                                          "oneflow.boxing.collective"}


def test_every_proto_file_has_a_module_and_a_comment_free_schema() -> None:
    modules = sorted(p.relative_to(ROOT / "src" / "flowtorch").with_suffix("").as_posix()
                     for p in (ROOT / "src" / "flowtorch" / "core").rglob("*_pb2.py"))
    assert modules == sorted("core/" + f.removeprefix("oneflow/core/").removesuffix(".proto") + "_pb2"
                             for f in MANIFEST)
    for name in MANIFEST:
        text = (ROOT / "protos" / name).read_text()
        assert "//" not in text and "/*" not in text, name
        assert re.search(rf"^package {re.escape(MANIFEST[name]['package'])};$", text, re.M), name


@pytest.mark.parametrize("proto_file", sorted(MANIFEST))
def test_module_descriptors_match_the_manifest(proto_file: str) -> None:
    want = MANIFEST[proto_file]
    proto = generated(proto_file)
    assert proto.name == proto_file
    assert (proto.package, proto.syntax or "proto2") == (want["package"], "proto2")
    assert list(proto.dependency) == want["dependencies"]
    assert [proto.dependency[i] for i in proto.public_dependency] == want["public_dependencies"]
    messages, enums = walk(proto)
    assert sorted(messages) == sorted(want["messages"])
    assert sorted(enums) == sorted(want["enums"])
    for name, enum in enums.items():
        assert [[v.name, v.number] for v in enum.value] == want["enums"][name], name
    for name, msg in messages.items():
        expected = want["messages"][name]
        assert msg.options.map_entry == expected["map_entry"], name
        got = [{"name": f.name, "number": f.number, "type": FDP.Type.Name(f.type), "label": FDP.Label.Name(f.label),
                "type_name": f.type_name,
                "default": default(FDP.Type.Name(f.type), f.default_value if f.HasField("default_value") else None),
                "oneof": msg.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else None}
               for f in msg.field]
        assert got == [{**f, "default": default(f["type"], f["default"])} for f in expected["fields"]], name


@pytest.mark.parametrize("proto_file", sorted(MANIFEST))
def test_module_attributes_are_protocs(proto_file: str) -> None:
    """Message classes (nested ones as attributes of their parents), enum wrappers and the top-level enums'
    values as module constants, as protoc's Python modules give them."""
    module = module_of(proto_file)
    package = MANIFEST[proto_file]["package"]
    for name, info in MANIFEST[proto_file]["messages"].items():
        obj: Any = module
        for part in name.removeprefix(package + ".").split("."):
            obj = getattr(obj, part)
        assert obj.DESCRIPTOR.full_name == name
        if not info["map_entry"]:
            assert obj().SerializePartialToString() == b""
    for name, values in MANIFEST[proto_file]["enums"].items():
        relative = name.removeprefix(package + ".")
        holder: Any = module
        for part in relative.split(".")[:-1]:
            holder = getattr(holder, part)
        wrapper = getattr(holder, relative.split(".")[-1])
        for value, number in values:
            assert wrapper.Value(value) == number and getattr(holder, value) == number


def test_defaults_read_as_the_schema_says() -> None:
    from flowtorch.core.job import initializer_conf_pb2 as ic
    from flowtorch.core.job import job_conf_pb2

    conf = ic.TruncatedNormalInitializerConf()
    assert conf.std == pytest.approx(np.float32(0.05)) and not conf.HasField("std")
    assert ic.RangeInitializerConf().axis == -1
    config = job_conf_pb2.JobConfigProto()
    for field in config.DESCRIPTOR.fields:  # every scalar default has the field's Python type
        if field.has_default_value and field.message_type is None:
            assert getattr(config, field.name) == field.default_value


def test_wire_format_is_oneflows() -> None:
    """Bytes written by hand from the schema's numbers (protobuf's encoding: tag = number << 3 | wire type)."""
    from flowtorch.core.job import initializer_conf_pb2 as ic
    from flowtorch.core.record import record_pb2

    conf = ic.InitializerConf(truncated_normal_conf=ic.TruncatedNormalInitializerConf(std=0.5))
    inner = bytes([2 << 3 | 5]) + struct.pack("<f", 0.5)  # std: field 2, fixed32
    assert conf.SerializeToString() == bytes([6 << 3 | 2, len(inner)]) + inner  # truncated_normal_conf: 6
    record = record_pb2.OFRecord()
    record.feature["x"].int32_list.value.extend([1, 2])
    parsed = record_pb2.OFRecord.FromString(record.SerializeToString())
    assert list(parsed.feature["x"].int32_list.value) == [1, 2]


def test_messages_read_oneflow_text_format() -> None:
    from flowtorch.core.operator import op_conf_pb2

    op = text_format.Parse('name: "relu_1" user_conf { op_type_name: "relu" input { key: "x" value { s: "a/out" } }'
                           ' attr { key: "alpha" value { at_float: 0.5 } } }', op_conf_pb2.OperatorConf())
    assert op.WhichOneof("op_type") == "user_conf"
    assert op.user_conf.attr["alpha"].at_float == 0.5 and list(op.user_conf.input["x"].s) == ["a/out"]


def test_the_pool_is_flowtorchs_own() -> None:
    from google.protobuf import descriptor_pool

    from flowtorch.core._pool import POOL
    from flowtorch.core.job import job_pb2

    assert job_pb2.DESCRIPTOR.pool is POOL
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindFileByName("oneflow/core/job/job.proto")


@pytest.fixture
def oneflow() -> Iterator[types.ModuleType]:
    alias.install()
    try:
        yield importlib.import_module("oneflow")
    finally:
        alias.uninstall()


def test_oneflow_core_modules_under_the_alias(oneflow: types.ModuleType) -> None:
    initializer_conf_pb2 = importlib.import_module("oneflow.core.job.initializer_conf_pb2")
    from flowtorch.core.job import initializer_conf_pb2 as ours

    assert initializer_conf_pb2 is ours
    assert oneflow.core.job.regularizer_conf_pb2.RegularizerConf.DESCRIPTOR.full_name == "oneflow.RegularizerConf"
    import oneflow.core.operator.op_conf_pb2 as op_conf_util  # type: ignore[import-not-found]

    assert op_conf_util.kRelu == 3
    with pytest.raises(AttributeError):
        _ = oneflow.core.job.no_such_pb2


PROGRAM = '''
import numpy as np
import oneflow as flow
import oneflow.typing as tp
import oneflow.core.job.initializer_conf_pb2 as initializer_conf_util
import oneflow.core.job.regularizer_conf_pb2 as regularizer_conf_util
import oneflow.core.operator.op_conf_pb2 as op_conf_util


def weight_init():
    conf = initializer_conf_util.InitializerConf()
    conf.random_normal_conf.std = 0.25
    return conf


@flow.global_function(type="predict")
def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
    w = flow.get_variable("w", shape=(4, 3), initializer=weight_init(), random_seed=5,
                          regularizer=regularizer_conf_util.RegularizerConf())
    return flow.matmul(x, w, transpose_b=True)


assert op_conf_util.kRelu == 3
np.save("out.npy", job(np.ones((2, 3), np.float32)))
'''


def test_a_program_builds_initializers_from_oneflow_core(tmp_path: Path, run_py) -> None:
    """Under ``python -m flowtorch``, as OneFlow's model scripts did (``initializer_conf_util.InitializerConf()``)."""
    (tmp_path / "prog.py").write_text(PROGRAM)
    done = run_py("-m", "flowtorch", "prog.py", cwd=tmp_path)
    # an empty RegularizerConf names its empty oneof
    assert done.returncode != 0 and "RegularizerConf sets none of its 'type' fields" in done.stderr, done.stderr
    (tmp_path / "prog.py").write_text(PROGRAM.replace("regularizer_conf_util.RegularizerConf()",
                                                      "regularizer_conf_util.RegularizerConf(l1_l2_conf={})"))
    done = run_py("-m", "flowtorch", "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    w = np.random.default_rng(5).normal(0.0, 0.25, size=12).reshape(4, 3).astype(np.float32)
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), np.ones((2, 3), np.float32) @ w.T, rtol=1e-6)


EARLIER = json.loads((ROOT / "protos" / "earlier_names.json").read_text())


def test_names_earlier_releases_declared_elsewhere_are_v040s_objects() -> None:
    # v0.1.0-v0.3.2's op_conf.proto declared InitializerConf, RegularizerConf, the update and decay confs …;
    # v0.4.0 declares them, under the same full names, in job/*.proto
    assert "InitializerConf" in EARLIER["oneflow/core/operator/op_conf.proto"]
    for proto_file, names in EARLIER.items():
        module = module_of(proto_file)
        for name, entry in names.items():
            assert name not in MANIFEST[proto_file]["messages"] and entry["releases"]
            assert getattr(module, name) is getattr(module_of(entry["home"]), name), (proto_file, name)
            assert name in dir(module)


def test_a_v01_program_builds_its_initializer_from_op_conf(oneflow: types.ModuleType) -> None:
    import oneflow.core.operator.op_conf_pb2 as op_conf_util  # type: ignore[import-not-found]

    conf = op_conf_util.InitializerConf()
    conf.constant_conf.value = 1.5
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    @oneflow.global_function(type="predict")
    def job(inp: oneflow.typing.Numpy.Placeholder((2, 3))) -> oneflow.typing.Numpy:
        return oneflow.layers.dense(inp, 2, use_bias=False, kernel_initializer=conf, name="fc")

    np.testing.assert_allclose(job(x), x @ np.full((3, 2), 1.5, np.float32), rtol=1e-6)


# --- the script's schema writer, on a made-up file (it needs no protoc) -----------------------------------------
def _script() -> types.ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("write_core_protos", ROOT / "scripts" / "write_core_protos.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_schema_writer_keeps_maps_oneofs_defaults_and_declaration_order() -> None:
    proto = descriptor_pb2.FileDescriptorProto(name="oneflow/core/x/demo.proto", package="oneflow", syntax="proto2",
                                               dependency=["oneflow/core/x/base.proto"], public_dependency=[0])
    msg = proto.message_type.add(name="Demo")
    msg.enum_type.add(name="Mode").value.add(name="kA", number=0)
    msg.nested_type.add(name="First")
    entry = msg.nested_type.add(name="TableEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_STRING)
    entry.field.add(name="value", number=2, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_INT64)
    msg.nested_type.add(name="Last")
    msg.oneof_decl.add(name="kind")
    msg.field.add(name="name", number=1, label=FDP.LABEL_REQUIRED, type=FDP.TYPE_STRING, default_value='a"b')
    msg.field.add(name="table", number=5, label=FDP.LABEL_REPEATED, type=FDP.TYPE_MESSAGE,
                  type_name=".oneflow.Demo.TableEntry")
    msg.field.add(name="first", number=3, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_MESSAGE,
                  type_name=".oneflow.Demo.First", oneof_index=0)
    msg.field.add(name="mode", number=4, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_ENUM,
                  type_name=".oneflow.Demo.Mode", oneof_index=0)
    packed = msg.field.add(name="dims", number=6, label=FDP.LABEL_REPEATED, type=FDP.TYPE_FLOAT)
    packed.options.packed = True
    assert _script().write_proto(proto) == "\n".join([
        'syntax = "proto2";', "package oneflow;", "", 'import public "oneflow/core/x/base.proto";', "",
        "message Demo {", "  enum Mode {", "    kA = 0;", "  }",
        '  required string name = 1 [default = "a\\"b"];',
        "  message First {", "  }",  # declared before the map, whose entry protoc puts between First and Last
        "  map<string, int64> table = 5;",
        "  oneof kind {", "    .oneflow.Demo.First first = 3;", "    .oneflow.Demo.Mode mode = 4;", "  }",
        "  repeated float dims = 6 [packed = true];",
        "  message Last {", "  }", "}", ""])


def test_the_schema_writer_refuses_what_it_cannot_write() -> None:
    proto = descriptor_pb2.FileDescriptorProto(name="oneflow/core/x/ext.proto", package="oneflow", syntax="proto2")
    proto.message_type.add(name="Open").extension_range.add(start=100, end=200)
    with pytest.raises(NotImplementedError, match="Open"):
        _script().write_proto(proto)
