"""Write ``flowtorch.core``: OneFlow v0.4.0's ``oneflow/core`` protobuf schemas and their ``*_pb2`` modules.

Usage (with an interpreter that has ``grpcio-tools``, the ``protos`` extra of ``setup.cfg``)::

    git --git-dir=<oneflow.git> archive v0.4.0 oneflow/core | tar -x -C /tmp/of040
    python scripts/write_core_protos.py /tmp/of040 [--earlier v0.1.0=/tmp/of010 v0.2.0=/tmp/of020 …]

From the checkout's ``oneflow/core/**/*.proto`` it

1. compiles them with ``grpcio-tools``' protoc into descriptors (OneFlow's schema, the reference);
2. writes each file's schema back as a ``.proto`` without comments under ``protos/oneflow/core/`` (names,
   numbers, types, labels, defaults, oneofs, maps, options and imports: the interface, none of the prose);
3. compiles those and checks that every descriptor equals OneFlow's, field for field;
4. writes ``protos/oneflow_core_v0.4.0.json``, the manifest that ``tests/api/test_core_protos.py`` checks the
   generated modules against;
5. with ``--earlier``, writes ``protos/earlier_names.json``: the names that earlier releases' files declared and
   v0.4.0 moved to another file under the same full name (``op_conf_pb2.InitializerConf`` of v0.1.0-v0.3.2);
6. generates ``src/flowtorch/core/<path>_pb2.py`` (and ``.pyi``) from ``protos/``, rewritten to import each
   other as ``flowtorch.core.*`` and to register in flowtorch's own descriptor pool (``flowtorch.core._pool``:
   a real OneFlow imported in the same process registers the same file names in protobuf's default pool),
   each answering its earlier names with v0.4.0's objects, and an ``__init__.py`` per package that imports
   its modules on first use.

``--check`` does all of it in a temporary directory and reports whether the committed files differ.

protoc's version is pinned (grpcio-tools 1.62, protoc 25.1): its Python output runs on every protobuf from
4.21 on and carries no runtime version check (protoc 27's requires a runtime at least as new as itself).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parents[1]
PROTOS = ROOT / "protos"
MANIFEST = PROTOS / "oneflow_core_v0.4.0.json"
EARLIER = PROTOS / "earlier_names.json"
CORE = ROOT / "src" / "flowtorch" / "core"
_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    _F.TYPE_DOUBLE: "double", _F.TYPE_FLOAT: "float", _F.TYPE_INT64: "int64", _F.TYPE_UINT64: "uint64",
    _F.TYPE_INT32: "int32", _F.TYPE_FIXED64: "fixed64", _F.TYPE_FIXED32: "fixed32", _F.TYPE_BOOL: "bool",
    _F.TYPE_STRING: "string", _F.TYPE_BYTES: "bytes", _F.TYPE_UINT32: "uint32", _F.TYPE_SFIXED32: "sfixed32",
    _F.TYPE_SFIXED64: "sfixed64", _F.TYPE_SINT32: "sint32", _F.TYPE_SINT64: "sint64",
}
_LABELS = {_F.LABEL_OPTIONAL: "optional", _F.LABEL_REQUIRED: "required", _F.LABEL_REPEATED: "repeated"}


# ----------------------------------------------------------------------------------------------- protoc
def protoc(include: Path, files: list[str], *args: str) -> None:
    import grpc_tools
    from grpc_tools import protoc as grpc_protoc  # build-time tool: only this script needs it

    well_known = Path(grpc_tools.__file__).parent / "_proto"
    code = grpc_protoc.main(["protoc", f"-I{include}", f"-I{well_known}", *args, *files])
    if code != 0:
        raise SystemExit(f"protoc failed ({code}) on {include}")


def descriptors(include: Path, files: list[str]) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        protoc(include, files, f"--descriptor_set_out={out}")
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return {f.name: f for f in fds.file}


def proto_files(include: Path) -> list[str]:
    return sorted(str(p.relative_to(include)) for p in (include / "oneflow" / "core").rglob("*.proto"))


# ------------------------------------------------------------------------------------ descriptor → .proto
def _unsupported(what: str, where: str) -> None:
    raise NotImplementedError(f"{where}: {what} is not written by write_core_protos.py")


def _quote(text: str) -> str:
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def _field_type(field: descriptor_pb2.FieldDescriptorProto) -> str:
    if field.type in (_F.TYPE_MESSAGE, _F.TYPE_ENUM):
        return field.type_name
    if field.type not in _SCALARS:
        _unsupported(f"field type {field.type}", field.name)
    return _SCALARS[field.type]


def _field_options(field: descriptor_pb2.FieldDescriptorProto) -> str:
    opts = []
    if field.HasField("default_value"):
        value = field.default_value
        opts.append(f"default = {_quote(value) if field.type in (_F.TYPE_STRING, _F.TYPE_BYTES) else value}")
    known = descriptor_pb2.FieldOptions()
    if field.options.HasField("packed"):
        opts.append(f"packed = {str(field.options.packed).lower()}")
        known.packed = field.options.packed
    if field.options.HasField("deprecated"):
        opts.append(f"deprecated = {str(field.options.deprecated).lower()}")
        known.deprecated = field.options.deprecated
    if field.options != known:
        _unsupported(f"field options {field.options}", field.name)
    return f" [{', '.join(opts)}]" if opts else ""


def _map_line(field: descriptor_pb2.FieldDescriptorProto, entry: descriptor_pb2.DescriptorProto) -> str:
    key, value = entry.field
    return f"map<{_field_type(key)}, {_field_type(value)}> {field.name} = {field.number}{_field_options(field)};"


def _enum_lines(enum: descriptor_pb2.EnumDescriptorProto) -> list[str]:
    if enum.options.ByteSize() or enum.reserved_range or enum.reserved_name:
        _unsupported("enum options or reserved values", enum.name)
    return [f"enum {enum.name} {{", *(f"  {v.name} = {v.number};" for v in enum.value), "}"]


def _indent(lines: list[str]) -> list[str]:
    return ["  " + line for line in lines]


def _message_lines(msg: descriptor_pb2.DescriptorProto, full_name: str) -> list[str]:
    if (msg.options.ByteSize() or msg.extension_range or msg.extension or msg.reserved_range
            or msg.reserved_name):
        _unsupported("message options, extensions or reserved fields", full_name)
    entries = {f"{full_name}.{n.name}": n for n in msg.nested_type if n.options.map_entry}
    pending = [n for n in msg.nested_type]  # nested messages and map entries, in the descriptor's order
    body: list[str] = []
    for enum in msg.enum_type:
        body += _enum_lines(enum)

    def nested_until(entry: descriptor_pb2.DescriptorProto | None) -> None:
        # the nested messages declared before a map field (whose entry protoc places among them)
        while pending:
            nested = pending.pop(0)
            if nested is entry:
                return
            if nested.options.map_entry:
                raise AssertionError(f"{full_name}: map entry {nested.name} out of its field's order")
            body.extend(_message_lines(nested, f"{full_name}.{nested.name}"))

    done_oneofs: set[int] = set()
    for field in msg.field:
        if field.type == _F.TYPE_GROUP or field.HasField("extendee") or field.proto3_optional:
            _unsupported("groups, extensions or proto3 optionals", f"{full_name}.{field.name}")
        entry = entries.get(field.type_name[1:] if field.type_name.startswith(".") else "")
        if entry is not None and field.label == _F.LABEL_REPEATED:
            nested_until(entry)
            body.append(_map_line(field, entry))
        elif field.HasField("oneof_index"):
            index = field.oneof_index
            if index in done_oneofs:
                continue
            done_oneofs.add(index)
            members = [f for f in msg.field if f.HasField("oneof_index") and f.oneof_index == index]
            if msg.oneof_decl[index].options.ByteSize():
                _unsupported("oneof options", full_name)
            body.append(f"oneof {msg.oneof_decl[index].name} {{")
            body += [f"  {_field_type(f)} {f.name} = {f.number}{_field_options(f)};" for f in members]
            body.append("}")
        else:
            body.append(f"{_LABELS[field.label]} {_field_type(field)} {field.name} = {field.number}"
                        f"{_field_options(field)};")
    nested_until(None)
    return [f"message {msg.name} {{", *_indent(body), "}"]


def write_proto(f: descriptor_pb2.FileDescriptorProto) -> str:
    if f.options.ByteSize() or f.service or f.extension or f.weak_dependency or f.syntax not in ("", "proto2"):
        _unsupported("file options, services, extensions, weak imports or proto3", f.name)
    lines = ['syntax = "proto2";', f"package {f.package};"]
    if f.dependency:
        lines.append("")
    for i, dep in enumerate(f.dependency):
        lines.append(f'import {"public " if i in f.public_dependency else ""}"{dep}";')
    for enum in f.enum_type:
        lines += ["", *_enum_lines(enum)]
    for msg in f.message_type:
        lines += ["", *_message_lines(msg, f"{f.package}.{msg.name}")]
    return "\n".join(lines) + "\n"


def _comparable(f: descriptor_pb2.FileDescriptorProto) -> bytes:
    copy = descriptor_pb2.FileDescriptorProto()
    copy.CopyFrom(f)
    copy.ClearField("source_code_info")
    return copy.SerializeToString(deterministic=True)


# ------------------------------------------------------------------------------------------------ manifest
def _manifest_message(msg: descriptor_pb2.DescriptorProto, prefix: str, out: dict) -> None:
    name = f"{prefix}.{msg.name}"
    fields = []
    for f in msg.field:
        fields.append({
            "name": f.name, "number": f.number, "type": _F.Type.Name(f.type), "label": _F.Label.Name(f.label),
            "type_name": f.type_name, "default": f.default_value if f.HasField("default_value") else None,
            "oneof": msg.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else None,
        })
    out["messages"][name] = {"map_entry": msg.options.map_entry, "fields": fields}
    for enum in msg.enum_type:
        out["enums"][f"{name}.{enum.name}"] = [[v.name, v.number] for v in enum.value]
    for nested in msg.nested_type:
        _manifest_message(nested, name, out)


def manifest(files: dict[str, descriptor_pb2.FileDescriptorProto]) -> dict:
    out: dict = {}
    for name, f in sorted(files.items()):
        entry: dict = {"package": f.package, "dependencies": list(f.dependency),
                       "public_dependencies": [f.dependency[i] for i in f.public_dependency],
                       "messages": {}, "enums": {}}
        for enum in f.enum_type:
            entry["enums"][f"{f.package}.{enum.name}"] = [[v.name, v.number] for v in enum.value]
        for msg in f.message_type:
            _manifest_message(msg, f.package, entry)
        out[name] = entry
    return out


# ------------------------------------------------------------------------------------------ earlier names
def _top_names(f: descriptor_pb2.FileDescriptorProto) -> set[str]:
    """A file's module-level names: its messages, its enums and their values."""
    return ({m.name for m in f.message_type} | {e.name for e in f.enum_type}
            | {v.name for e in f.enum_type for v in e.value})


def earlier_names(reference: dict[str, descriptor_pb2.FileDescriptorProto],
                  earlier: list[tuple[str, Path]]) -> dict[str, dict[str, dict]]:
    """``{file: {name: {"home": file, "releases": [...]}}}``: the names an earlier release's file declared that
    v0.4.0 declares in another file, under the same full name (``InitializerConf`` was ``op_conf.proto``'s in
    v0.1.0-v0.3.2, so programs of then wrote ``op_conf_pb2.InitializerConf()``)."""
    homes: dict[tuple[str, str], list[str]] = {}
    for name, f in reference.items():
        for top in _top_names(f):
            homes.setdefault((f.package, top), []).append(name)
    moved: dict[str, dict[str, dict]] = {}
    for release, checkout in earlier:
        files = proto_files(checkout)
        for name, f in descriptors(checkout, files).items():
            if name not in reference or name not in files:
                continue  # a file v0.4.0 no longer has has no module here
            for top in sorted(_top_names(f) - _top_names(reference[name])):
                home = homes.get((f.package, top), [])
                if len(home) == 1:
                    entry = moved.setdefault(name, {}).setdefault(top, {"home": home[0], "releases": []})
                    entry["releases"].append(release)
    return moved


def _module_name(proto_file: str) -> str:
    return "flowtorch." + proto_file.removeprefix("oneflow/").removesuffix(".proto").replace("/", ".") + "_pb2"


def moved_block(names: dict[str, dict]) -> str:
    """The module-level ``__getattr__`` that answers an earlier release's names with v0.4.0's objects."""
    releases = sorted({r for entry in names.values() for r in entry["releases"]})
    table = "".join(f'    "{n}": "{_module_name(e["home"])}",\n' for n, e in sorted(names.items()))
    return f'''

# Names that this file declared in OneFlow {", ".join(releases)} and v0.4.0 declares in another file, under the
# same full name: the same objects (protos/earlier_names.json).
import importlib as _importlib  # noqa: E402

_MOVED = {{
{table}}}


def __getattr__(name):
    if name in _MOVED:
        return getattr(_importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")


__getattr__.lazy_facade = True  # flowtorch check's name index: a closed namespace


def __dir__():
    return sorted(set(globals()) | set(_MOVED))
'''


def moved_stub(names: dict[str, dict]) -> str:
    return "".join(f"from {_module_name(e['home'])} import {n} as {n}\n" for n, e in sorted(names.items()))


# --------------------------------------------------------------------------------------- python modules
_HEADER = ("# Generated by scripts/write_core_protos.py from OneFlow v0.4.0's {source}\n"
           "# (protoc {version}, then rewritten for flowtorch.core); do not edit.\n")


def rewrite_module(text: str, source: str) -> str:
    """protoc's module, importing its dependencies as ``flowtorch.core.*`` and registering in flowtorch's pool."""
    version = re.search(r"# Protobuf Python Version: (\S+)", text)
    text = re.sub(r"^from oneflow\.core(\.| import )", r"from flowtorch.core\1", text, flags=re.M)
    text = re.sub(r"^import oneflow\.core\.", "import flowtorch.core.", text, flags=re.M)
    text = re.sub(r"\boneflow_dot_core_dot_", "flowtorch_dot_core_dot_", text)
    if "_descriptor_pool.Default()" not in text:
        raise AssertionError(f"{source}: protoc's output no longer registers in the default pool")
    text = text.replace("from google.protobuf import descriptor_pool as _descriptor_pool\n",
                        "from flowtorch.core._pool import POOL as _flowtorch_pool\n")
    text = text.replace("_descriptor_pool.Default()", "_flowtorch_pool")
    module = source.removesuffix(".proto").replace("/", ".") + "_pb2"
    text = text.replace(f"'{module}'", f"'flowtorch.{module.removeprefix('oneflow.')}'")
    if re.search(r"^(from|import) oneflow\b", text, flags=re.M):
        raise AssertionError(f"{source}: an import of oneflow is left")
    return _HEADER.format(source=source, version=version.group(1) if version else "?") + text


def rewrite_stub(text: str) -> str:
    text = re.sub(r"^from oneflow\.core(\.| import )", r"from flowtorch.core\1", text, flags=re.M)
    return re.sub(r"\boneflow_dot_core_dot_", "flowtorch_dot_core_dot_", text)


def package_init(package: str, modules: list[str], packages: list[str]) -> str:
    """A package ``__init__`` that imports its submodules on first use, so ``import flowtorch`` stays light."""
    names = sorted(modules + packages)
    listed = "".join(f'    "{n}",\n' for n in names)
    return f'''"""``oneflow.{package}`` (generated by scripts/write_core_protos.py; do not edit): its modules import on
first use, as ``flowtorch.{package}.<name>`` or as attributes of this package."""

import importlib
from types import ModuleType

__all__ = [
{listed}]


def __getattr__(name: str) -> ModuleType:
    if name in __all__:
        return importlib.import_module(f"{{__name__}}.{{name}}")
    raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")


__getattr__.lazy_facade = True  # type: ignore[attr-defined]  # flowtorch check's name index: a closed namespace


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
'''


_POOL = '''"""The descriptor pool of ``flowtorch.core``'s generated modules (``scripts/write_core_protos.py``).

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
'''


def write_python(include: Path, files: list[str], core: Path, moved: dict[str, dict[str, dict]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        protoc(include, files, f"--python_out={out}", f"--pyi_out={out}")
        version = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "--version"], capture_output=True,
                                 text=True, check=True).stdout.split()[-1]
        packages: dict[str, tuple[list[str], list[str]]] = {"core": ([], [])}
        for source in files:
            rel = Path(source).relative_to("oneflow")  # core/job/job.proto
            generated = out / Path(source).with_name(Path(source).stem + "_pb2.py")
            target = core.parent / rel.with_name(rel.stem + "_pb2.py")
            target.parent.mkdir(parents=True, exist_ok=True)
            text = rewrite_module(generated.read_text(), source).replace("protoc ?", f"protoc {version}")
            stub = rewrite_stub(generated.with_suffix(".pyi").read_text())
            if source in moved:
                text += moved_block(moved[source])
                stub += moved_stub(moved[source])
            target.write_text(text)
            target.with_suffix(".pyi").write_text(stub)
            parts = rel.parent.parts  # ("core", "job")
            for i in range(1, len(parts)):
                parent, child = ".".join(parts[:i]), parts[i]
                packages.setdefault(parent, ([], []))
                if child not in packages[parent][1]:
                    packages[parent][1].append(child)
            packages.setdefault(".".join(parts), ([], []))[0].append(rel.stem + "_pb2")
    for package, (modules, subpackages) in packages.items():
        init = core.parent.joinpath(*package.split("."), "__init__.py")
        init.write_text(package_init(package, modules, subpackages))
    (core / "_pool.py").write_text(_POOL)


# ------------------------------------------------------------------------------------------------------ main
def write_all(checkout: Path, protos: Path, core: Path, earlier: list[tuple[str, Path]]) -> dict[str, int]:
    files = proto_files(checkout)
    if not files:
        raise SystemExit(f"{checkout}: no oneflow/core/**/*.proto (pass the root of a OneFlow checkout)")
    reference = {n: f for n, f in descriptors(checkout, files).items() if n in files}
    if protos.exists():
        shutil.rmtree(protos / "oneflow", ignore_errors=True)
    for name, f in reference.items():
        path = protos / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(write_proto(f))
    written = descriptors(protos, files)
    differ = [n for n in files if _comparable(written[n]) != _comparable(reference[n])]
    if differ:
        raise SystemExit(f"the written schemas differ from OneFlow's: {differ}")
    table = manifest(reference)
    (protos / MANIFEST.name).write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    # without earlier releases' checkouts, the committed table of their names is kept
    if earlier:
        moved = earlier_names(reference, earlier)
    else:
        moved = json.loads(EARLIER.read_text()) if EARLIER.exists() else {}
    (protos / EARLIER.name).write_text(json.dumps(moved, indent=1, sort_keys=True) + "\n")
    for old in core.rglob("*_pb2.py*"):
        old.unlink()
    write_python(protos, files, core, moved)
    messages = sum(1 for f in table.values() for m in f["messages"].values() if not m["map_entry"])
    enums = sum(len(f["enums"]) for f in table.values())
    return {"files": len(files), "messages": messages, "enums": enums}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a OneFlow v0.4.0 tree holding oneflow/core/**/*.proto")
    parser.add_argument("--check", action="store_true", help="write into a temporary directory and compare")
    parser.add_argument("--earlier", nargs="*", default=[], metavar="RELEASE=CHECKOUT",
                        help="earlier releases' trees (v0.1.0=/tmp/of010 …), for the names their files declared "
                             "that v0.4.0 moved; without them protos/earlier_names.json is kept")
    args = parser.parse_args(argv)
    earlier = [(r, Path(p).resolve()) for r, _, p in (e.partition("=") for e in args.earlier)]
    if not args.check:
        counts = write_all(args.checkout.resolve(), PROTOS, CORE, earlier)
        print(f"wrote {counts['files']} schemas, {counts['messages']} messages and {counts['enums']} enums")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        protos, core = Path(tmp) / "protos", Path(tmp) / "src" / "flowtorch" / "core"
        core.mkdir(parents=True)
        for keep in CORE.glob("*.py"):  # hand-written files of the package
            if keep.name not in ("__init__.py", "_pool.py"):
                shutil.copy(keep, core / keep.name)
        write_all(args.checkout.resolve(), protos, core, earlier)
        stale = [p for p in set(_tree(protos)) | set(_tree(PROTOS)) if _tree(protos).get(p) != _tree(PROTOS).get(p)]
        stale += [p for p in set(_tree(core)) | set(_tree(CORE)) if _tree(core).get(p) != _tree(CORE).get(p)]
        print("\n".join(sorted(stale)) or "up to date")
        return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
