"""Write OneFlow's user-op schemas (each op type's input, output and attribute names and the attributes' types) from
OneFlow's source: ``src/flowtorch/_src/capture/user_op_schemas.json``.

    python scripts/write_user_op_schemas.py GIT_DIR [--tag v0.4.0]

GIT_DIR is a clone (or the bare mirror the ``fetch`` tool brings) of github.com/Oneflow-Inc/oneflow. The schemas
are read from the ``REGISTER_USER_OP("name")`` chains of ``oneflow/user/ops/*.cpp`` at the tag: ``.Input("x")``,
``.OptionalInput``, ``.InputWithMinimum``, ``.Output…``, ``.Attr<T>("name")``. Registrations made by a macro are
expanded for the names the file passes to it, directly or through an ``OF_PP_FOR_EACH_TUPLE(MACRO, SEQ)`` whose
sequence lists ``OF_PP_MAKE_TUPLE_SEQ("name", …)`` entries. Only names and types are kept (an interface), nothing
of the ops' code. The job IR (``flow.experimental.get_job_set()``) names each op's arguments and types its
attributes from this table.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "flowtorch" / "_src" / "capture" / "user_op_schemas.json"

# OneFlow's C++ attribute types → the AttrValue field that holds them (oneflow/core/framework/user_op_attr.proto)
ATTR_FIELDS = {
    "int32_t": "at_int32", "int": "at_int32", "int64_t": "at_int64", "bool": "at_bool", "float": "at_float",
    "double": "at_double", "std::string": "at_string", "Shape": "at_shape", "DataType": "at_data_type",
    "std::vector<int32_t>": "at_list_int32", "std::vector<int64_t>": "at_list_int64",
    "std::vector<float>": "at_list_float", "std::vector<DataType>": "at_list_data_type",
    "std::vector<Shape>": "at_list_shape", "std::vector<std::string>": "at_list_string",
}
_CALL = re.compile(r'\.(Input|OptionalInput|InputWithMinimum|Output|OptionalOutput|OutputWithMinimum)\(\s*"(\w+)"'
                   r'|\.Attr<\s*((?:std::vector<\s*)?[\w:]+\s*>?)\s*>\(\s*"(\w+)"')
_LITERAL = re.compile(r'REGISTER_USER_OP\(\s*"(\w+)"\s*\)')
_DEFINE = re.compile(r"#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)")
_SEQ_DEFINE = re.compile(r"#define\s+(\w+)\s*\\?\n((?:[^\n]*\\\n)*[^\n]*)")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True,
                          text=True).stdout


def _top_level(text: str) -> str:
    """The registration chain up to its ``;``, without what lies inside parentheses or braces after a call's
    first argument (the infer functions' lambdas)."""
    out, depth = [], 0
    for ch in text:
        if ch == ";" and depth == 0:
            break
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if depth <= 1:
            out.append(ch)
    return "".join(out)


def _chain(text: str) -> dict[str, object]:
    """The schema in one registration chain."""
    body = _top_level(text)
    inputs: list[str] = []
    outputs: list[str] = []
    optional: list[str] = []
    attrs: dict[str, str] = {}
    for m in _CALL.finditer(body):
        if m.group(1):
            (inputs if "Input" in m.group(1) else outputs).append(m.group(2))
            if m.group(1).startswith("Optional"):
                optional.append(m.group(2))
        else:
            kind = re.sub(r"\s+", "", m.group(3))
            if kind.startswith("std::vector<") and not kind.endswith(">"):
                kind += ">"
            attrs[m.group(4)] = ATTR_FIELDS.get(kind, kind)
    return {"inputs": inputs, "outputs": outputs, "optional": optional, "attrs": attrs}


def _seq_names(name: str, defines: dict[str, str], depth: int = 0) -> list[str]:
    """The first string of every tuple a sequence macro lists (following sequences it is made of)."""
    body = defines.get(name)
    if body is None or depth > 5:
        return []
    found = re.findall(r'OF_PP_MAKE_TUPLE_SEQ\(\s*"(\w+)"', body)
    for other in re.findall(r"\b([A-Z][A-Z0-9_]+_SEQ)\b", body):
        if other != name:
            found += _seq_names(other, defines, depth + 1)
    return found


def schemas(git_dir: str, tag: str) -> dict[str, dict[str, object]]:
    files = [p for p in _git(git_dir, "ls-tree", "-r", "--name-only", tag, "oneflow/").split()
             if p.endswith((".cpp", ".h")) and ("/user/" in p or "/ndarray/" in p or "/common/" in p)]
    texts = {p: _git(git_dir, "show", f"{tag}:{p}") for p in files}
    seq_defines = {m.group(1): m.group(2) for t in texts.values() for m in _SEQ_DEFINE.finditer(t)}
    found: dict[str, dict[str, object]] = {}
    for path, text in texts.items():
        if "REGISTER_USER_OP(" not in text or not path.startswith("oneflow/user/ops/"):
            continue
        for m in _LITERAL.finditer(text):
            found.setdefault(m.group(1), _chain(text[m.end():]))
        # registering macros: name -> (the position of the op type among its parameters, the schema)
        registering: dict[str, tuple[int, dict[str, object]]] = {}
        defines = [(d.group(1), [p.strip() for p in d.group(2).split(",")], d.group(3).replace("\\\n", "\n"))
                   for d in _DEFINE.finditer(text)]
        for _ in range(3):  # a macro that expands another registering macro registers too
            for macro, params, body in defines:
                if macro in registering:
                    continue
                reg = re.search(r"REGISTER_USER_OP\(\s*(\w+)\s*\)", body)
                if reg is not None and reg.group(1) in params:
                    registering[macro] = (params.index(reg.group(1)), _chain(body[reg.end():]))
                    continue
                for inner, (position, schema) in list(registering.items()):
                    call = re.search(rf"\b{inner}\(([^()]*)\)", body)
                    if call is not None:
                        arg = call.group(1).split(",")[position].strip()
                        if arg in params:
                            registering[macro] = (params.index(arg), schema)
                            break
        for macro, (position, schema) in registering.items():
            names = [a.split(",")[position].strip().strip('"')
                     for a in re.findall(rf"\b{macro}\(([^()]*)\)", text) if '"' in a]
            for seq in re.findall(rf"OF_PP_FOR_EACH_TUPLE\(\s*{macro}\s*,\s*(\w+)", text):
                names += _seq_names(seq, seq_defines)
            for name in names:
                if re.fullmatch(r"\w+", name):
                    found.setdefault(name, schema)
    return dict(sorted(found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--tag", default="v0.4.0")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    table = schemas(args.git_dir, args.tag)
    Path(args.out).write_text(json.dumps({"about": f"OneFlow {args.tag} user-op schemas "
                                                   "(scripts/write_user_op_schemas.py)", "ops": table},
                                         indent=1, sort_keys=True) + "\n")
    print(f"{len(table)} op types written to {args.out}")


if __name__ == "__main__":
    main()
