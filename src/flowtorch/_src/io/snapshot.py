"""OneFlow's snapshot (checkpoint) directory format, in pure numpy.

A snapshot is a directory with one sub-directory per variable::

    <path>/<var>/out     raw C-order bytes of the value, native byte order
    <path>/<var>/meta    protobuf text of ``VariableMetaInfo`` (absent in legacy dirs)
    <path>/snapshot_done empty marker, written last

Only direct sub-directories holding a regular file ``out`` are variables;
anything else (``snapshot_done``, stray files, dirs without ``out``) is ignored,
as OneFlow's ``checkpoint.get`` and legacy ``SnapshotManager`` did.

Reading treats the directory as untrusted: paths built from variable names go
through :func:`confined_path`; ``out``/``meta`` must be regular files resolving
inside the snapshot (a FIFO, device or outward link is refused, never opened).

Nothing here knows about sessions or jobs: the runtime maps these entries onto
its variables.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, NoReturn

import numpy as np

from flowtorch._src.errors import (
    MissingMetaError,
    SnapshotError,
    SnapshotMetaError,
    UnsafePathError,
    UnsupportedDataTypeError,
)
from flowtorch._src.io.safe_paths import (
    component_problem,
    escape_problem,
    is_occupied,
    open_regular,
    stat_kind,
    write_tree,
)

__all__ = [
    "DATA_FILENAME", "DONE_FILENAME", "META_FILENAME", "MissingMetaError", "SnapshotEntry", "SnapshotError",
    "SnapshotMetaError", "UnsafePathError", "UnsupportedDataTypeError", "confined_path", "format_meta",
    "is_variable_dir", "meta_to_numpy_dtype", "numpy_dtype_to_meta", "parse_meta", "read_entry", "read_snapshot",
    "read_variable", "write_snapshot",
]  # fmt: skip

DATA_FILENAME = "out"
META_FILENAME = "meta"
DONE_FILENAME = "snapshot_done"


def confined_path(root: str, name: object, what: str = "variable") -> str:
    """``root/name`` for the entry ``name`` of the snapshot directory ``root``.

    Raises :class:`UnsafePathError` when ``name`` is not a single path component
    (``''``, ``'.'``, ``'..'``, a separator, NUL) or when the joined path resolves
    (through symbolic links) outside ``realpath(root)``; ``TypeError`` for a non-str.
    """
    if not isinstance(name, str):
        raise TypeError(f"{what} name must be a str, got {type(name).__name__} {name!r}")
    why = component_problem(name)
    if why is not None:
        raise UnsafePathError(f"invalid {what} name {name!r} for snapshot directory {root}: {why} "
                              f"(a {what} name must be a single path component)")
    path = os.path.join(root, name)
    why = escape_problem(root, path)
    if why is not None:
        raise UnsafePathError(f"{what} {name!r} of snapshot directory {root} is refused: {why} (not followed)")
    return path


# ---------------------------------------------------------------------------
# data types

# The `DataType` enum of oneflow/core/common/data_type.proto.
_ENUM_NAMES: dict[int, str] = dict(enumerate((
    "kInvalidDataType", "kChar", "kFloat", "kDouble", "kInt8", "kInt32", "kInt64", "kUInt8",
    "kOFRecord", "kFloat16", "kTensorBuffer",
)))  # fmt: skip
_ENUM_NUMBERS: dict[str, int] = {name: number for number, name in _ENUM_NAMES.items()}

_META_TO_NUMPY: dict[str, np.dtype] = {
    "kChar": np.dtype(np.int8),  # OneFlow maps char to np.byte, i.e. int8
    "kFloat": np.dtype(np.float32),
    "kDouble": np.dtype(np.float64),
    "kInt8": np.dtype(np.int8),
    "kInt32": np.dtype(np.int32),
    "kInt64": np.dtype(np.int64),
    "kUInt8": np.dtype(np.uint8),
    "kFloat16": np.dtype(np.float16),
}
# int8 is written as kInt8 (the type of a `flow.int8` variable), never kChar.
_NUMPY_TO_META: dict[np.dtype, str] = {
    dt: name for name, dt in _META_TO_NUMPY.items() if name != "kChar"
}


def _native(dtype: np.dtype) -> np.dtype:
    return dtype.newbyteorder("=") if dtype.byteorder not in ("=", "|") else dtype


def numpy_dtype_to_meta(dtype: np.dtype | type | str) -> str:
    """Return the ``DataType`` enum name (e.g. ``"kFloat"``) for a numpy dtype.

    Byte order is ignored (snapshots are always native); ``int8`` gives ``kInt8``.
    """
    dt = _native(np.dtype(dtype))
    try:
        return _NUMPY_TO_META[dt]
    except KeyError:
        supported = ", ".join(str(d) for d in _NUMPY_TO_META)
        raise UnsupportedDataTypeError(
            f"numpy dtype {dt} cannot be stored in a OneFlow snapshot (supported: {supported})"
        ) from None


def meta_to_numpy_dtype(data_type: str | int) -> np.dtype:
    """Return the numpy dtype for a ``DataType`` enum name or number."""
    name = _ENUM_NAMES.get(data_type) if isinstance(data_type, int) else data_type
    if name is None or name not in _META_TO_NUMPY:
        known = ", ".join(_META_TO_NUMPY)
        raise UnsupportedDataTypeError(
            f"data_type {data_type!r} has no numpy equivalent (supported: {known})"
        )
    return _META_TO_NUMPY[name]


# ---------------------------------------------------------------------------
# meta text proto


def format_meta(shape: Sequence[int], data_type: str) -> str:
    """Render ``VariableMetaInfo`` exactly as protobuf's ``MessageToString`` does."""
    if data_type not in _ENUM_NUMBERS:
        raise UnsupportedDataTypeError(f"unknown data_type {data_type!r}")
    dims = "".join(f"  dim: {int(d)}\n" for d in shape)
    return f"shape {{\n{dims}}}\ndata_type: {data_type}\n"


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<int>[-+]?(?:0[xX][0-9a-fA-F]+|[0-9]+)(?![\w.]))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<sym>[{}<>:\[\],;])
    """,
    re.VERBOSE,
)
_INT64_MAX = 2**63 - 1
_MAX_META_BYTES = 1 << 20  # real meta files are a few dozen bytes


class _MetaParser:
    """Parser for the subset of protobuf text format that ``VariableMetaInfo`` needs."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str, int, int]] = []
        line, line_start = 1, 0
        pos = 0
        while pos < len(text):
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                self._fail(f"unexpected character {text[pos]!r}", line, pos - line_start + 1)
            kind = m.lastgroup or ""
            if kind != "ws":
                self.tokens.append((kind, m.group(), line, pos - line_start + 1))
            for i in range(pos, m.end()):
                if text[i] == "\n":
                    line, line_start = line + 1, i + 1
            pos = m.end()
        self.i = 0

    @staticmethod
    def _fail(msg: str, line: int, col: int) -> NoReturn:
        raise ValueError(f"line {line} col {col}: {msg}")

    def _peek(self) -> tuple[str, str, int, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _next(self, expected: str) -> tuple[str, str, int, int]:
        tok = self._peek()
        if tok is None:
            last = self.tokens[-1] if self.tokens else ("", "", 1, 1)
            self._fail(f"expected {expected}, got end of text", last[2], last[3])
        self.i += 1
        return tok

    def _accept(self, value: str) -> bool:
        tok = self._peek()
        if tok is not None and tok[0] == "sym" and tok[1] == value:
            self.i += 1
            return True
        return False

    def _expect_sym(self, value: str) -> None:
        tok = self._next(repr(value))
        if tok[0] != "sym" or tok[1] != value:
            self._fail(f"expected {value!r}, got {tok[1]!r}", tok[2], tok[3])

    def _int(self) -> int:
        tok = self._next("an integer")
        if tok[0] != "int":
            self._fail(f"expected an integer, got {tok[1]!r}", tok[2], tok[3])
        body = tok[1].lstrip("+-")
        if body[:2].lower() == "0x":
            value = int(body, 16)
        elif len(body) > 1 and body[0] == "0":
            if not set(body) <= set("01234567"):
                self._fail(f"invalid octal integer {tok[1]!r}", tok[2], tok[3])
            value = int(body, 8)
        else:
            value = int(body)
        value = -value if tok[1].startswith("-") else value
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
            self._fail(f"integer {tok[1]} out of int64 range", tok[2], tok[3])
        return value

    def _field_name(self, allowed: tuple[str, ...], message: str) -> str:
        tok = self._next("a field name")
        if tok[0] != "ident" or tok[1] not in allowed:
            self._fail(f"{message} has no field {tok[1]!r}", tok[2], tok[3])
        return tok[1]

    def _separator(self) -> None:
        if not self._accept(","):
            self._accept(";")

    def _shape(self) -> list[int]:
        self._accept(":")
        tok = self._next("'{' or '<'")
        if tok[0] != "sym" or tok[1] not in "{<":
            self._fail(f"expected '{{' or '<', got {tok[1]!r}", tok[2], tok[3])
        close = "}" if tok[1] == "{" else ">"
        dims: list[int] = []
        while not self._accept(close):
            if self._peek() is None:
                self._next(repr(close))
            self._field_name(("dim",), "ShapeProto")
            self._expect_sym(":")
            if self._accept("["):
                if not self._accept("]"):
                    dims.append(self._int())
                    while self._accept(","):
                        dims.append(self._int())
                    self._expect_sym("]")
            else:
                dims.append(self._int())
            self._separator()
        return dims

    def _data_type(self) -> str:
        # Unknown enum names/numbers are returned as text and rejected later
        # as unsupported data types rather than as syntax errors.
        self._expect_sym(":")
        tok = self._next("a DataType value")
        if tok[0] == "ident":
            return tok[1]
        self.i -= 1
        number = self._int()
        return _ENUM_NAMES.get(number, str(number))

    def parse(self) -> tuple[tuple[int, ...] | None, str | None]:
        shape: list[int] | None = None
        data_type: str | None = None
        while self._peek() is not None:
            tok = self.tokens[self.i]
            name = self._field_name(("shape", "data_type"), "VariableMetaInfo")
            if (name == "shape" and shape is not None) or (
                name == "data_type" and data_type is not None
            ):
                self._fail(f"field {name!r} given more than once", tok[2], tok[3])
            if name == "shape":
                shape = self._shape()
            else:
                data_type = self._data_type()
            self._separator()
        return (tuple(shape) if shape is not None else None), data_type


def parse_meta(text: str) -> tuple[tuple[int, ...], str]:
    """Parse a ``meta`` file's text into ``(shape, data_type_name)``.

    Accepts what protobuf's text parser accepts for this message (one-line or
    multi-line, ``#`` comments, ``:``/``<>``/``[..]`` variants, enum numbers).
    A missing ``shape`` means a scalar ``()``, as protobuf would report it.
    ``data_type`` is returned as written (a number outside the enum as its
    digits); :func:`meta_to_numpy_dtype` decides whether it is supported.
    Raises ``ValueError`` (with line/column) on malformed text and on a missing
    ``data_type``.
    """
    shape, data_type = _MetaParser(text).parse()
    if data_type is None:
        raise ValueError("required field 'data_type' is missing")
    if shape is None:
        shape = ()
    if any(d < 0 for d in shape):
        raise ValueError(f"shape {shape} has a negative dimension")
    return shape, data_type


# ---------------------------------------------------------------------------
# reading


def _describe(name: str) -> str:
    return f"variable {name!r}"


def _open_file(name: str, root: str, path: str, kind: str) -> BinaryIO:
    """Open ``out``/``meta`` of variable ``name``: a regular file resolving inside ``root``."""
    why = escape_problem(root, path)
    if why is not None:
        raise UnsafePathError(f"{_describe(name)}: {kind} file refused: {why} (not followed)")
    try:
        return open_regular(path)
    except OSError as exc:
        error = SnapshotMetaError if kind == "meta" else SnapshotError
        raise error(f"{_describe(name)}: cannot read {kind} file {path}: {exc}") from exc


@dataclass(frozen=True)
class SnapshotEntry:
    """One variable of a snapshot; the value is read from disk on each ``numpy()``.

    ``shape``/``dtype`` come from ``meta``; for a legacy variable without ``meta``
    they are ``None`` until :meth:`with_expected` supplies them.
    ``data_type`` is the enum name (``"kFloat"`` …), or ``None`` likewise.
    ``root`` is the directory the files must resolve into (``path`` when ``None``).
    """

    name: str
    path: str
    shape: tuple[int, ...] | None
    dtype: np.dtype | None
    data_type: str | None
    has_meta: bool
    root: str | None = field(default=None, compare=False)

    @property
    def data_path(self) -> str:
        return os.path.join(self.path, DATA_FILENAME)

    @property
    def meta_path(self) -> str:
        return os.path.join(self.path, META_FILENAME)

    @property
    def nbytes(self) -> int | None:
        if self.shape is None or self.dtype is None:
            return None
        return math.prod(self.shape) * self.dtype.itemsize

    def with_expected(self, shape: Sequence[int], dtype: np.dtype | type | str) -> SnapshotEntry:
        """Return an entry whose shape/dtype are known.

        With ``meta`` the file's own shape/dtype win and ``self`` is returned
        unchanged (the caller compares them with its variable). Without ``meta``
        the given shape/dtype are adopted and the file size is checked.
        """
        if self.has_meta:
            return self
        dt = _native(np.dtype(dtype))
        entry = SnapshotEntry(
            name=self.name,
            path=self.path,
            shape=tuple(int(d) for d in shape),
            dtype=dt,
            data_type=numpy_dtype_to_meta(dt),
            has_meta=False,
            root=self.root,
        )
        entry._check_size()
        return entry

    def _open(self, kind: str) -> BinaryIO:
        path = self.meta_path if kind == "meta" else self.data_path
        return _open_file(self.name, self.root or self.path, path, kind)

    def _check_size(self, f: BinaryIO | None = None) -> None:
        """Compare the size of the opened data file ``f`` (opened here when ``None``) with ``nbytes``."""
        expected = self.nbytes
        assert expected is not None and self.dtype is not None
        if f is None:
            with self._open("data") as opened:
                return self._check_size(opened)
        actual = os.fstat(f.fileno()).st_size  # of what was opened, not of what the path names now
        if actual != expected:
            what = "truncated" if actual < expected else "larger than expected"
            raise SnapshotError(
                f"{_describe(self.name)}: data file {self.data_path} is {what}: "
                f"{actual} bytes, expected {expected} "
                f"(shape {self.shape}, dtype {self.dtype})"
            )

    def numpy(self) -> np.ndarray:
        """Read the value into a fresh, writable array of ``shape``/``dtype``."""
        if self.shape is None or self.dtype is None:
            raise MissingMetaError(
                f"{_describe(self.name)} has no meta info ({self.meta_path} is "
                "missing, a legacy snapshot): its shape and dtype must be supplied "
                "with with_expected(shape, dtype) before reading"
            )
        count = math.prod(self.shape)
        with self._open("data") as f:
            self._check_size(f)
            flat = np.fromfile(f, dtype=self.dtype, count=count)
        if flat.size != count:  # the file shrank after the size check
            raise SnapshotError(
                f"{_describe(self.name)}: data file {self.data_path} is truncated: "
                f"read {flat.size} of {count} elements"
            )
        return flat.reshape(self.shape)


def is_variable_dir(path: str) -> bool:
    """True when ``path`` is a single variable's directory (holds a regular file ``out``).

    False when there is no ``out`` or ``out`` is a directory (a variable named
    ``out`` of a snapshot). Any other ``out`` (named pipe, device, socket, dangling
    link …) raises :class:`SnapshotError` naming the file: such a directory is
    refused rather than silently skipped.
    """
    data_path = os.path.join(path, DATA_FILENAME)
    kind = stat_kind(data_path)
    if kind in (None, "a directory", "a regular file"):
        return kind == "a regular file"
    name = os.path.basename(os.path.normpath(os.path.abspath(path)))
    raise SnapshotError(f"{_describe(name)}: cannot read data file {data_path}: it is {kind}, not a regular file")


def _load_entry(var_dir: str, name: str, root: str) -> SnapshotEntry:
    entry = SnapshotEntry(name, var_dir, None, None, None, has_meta=False, root=root)
    meta_path = entry.meta_path
    if not os.path.lexists(meta_path):
        return entry
    with entry._open("meta") as f:
        try:
            raw = f.read(_MAX_META_BYTES + 1)
            if len(raw) > _MAX_META_BYTES:
                raise ValueError(f"file is larger than {_MAX_META_BYTES} bytes")
            shape, data_type = parse_meta(raw.decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SnapshotMetaError(
                f"{_describe(name)}: cannot parse meta file {meta_path}: {exc}"
            ) from exc
    try:
        dtype = meta_to_numpy_dtype(data_type)
    except UnsupportedDataTypeError as exc:
        raise UnsupportedDataTypeError(f"{_describe(name)}: meta file {meta_path}: {exc}") from None
    entry = SnapshotEntry(name, var_dir, shape, dtype, data_type, has_meta=True, root=root)
    entry._check_size()
    return entry


def _require_dir(path: str) -> None:
    if not os.path.isdir(path):
        what = "is not a directory" if os.path.exists(path) else "doesn't exist"
        raise SnapshotError(f"Directory {path} {what}!")


def read_variable(path: str) -> SnapshotEntry:
    """Open the single-variable directory ``path`` (it must hold ``out``).

    The entry is named after the directory; its files must resolve inside it.
    Meta and size are validated now; the data is read by ``numpy()``.
    """
    _require_dir(path)
    name = os.path.basename(os.path.normpath(os.path.abspath(path)))
    if not is_variable_dir(path):
        raise SnapshotError(
            f"{_describe(name)}: {path} is not a variable directory "
            f"(no file {os.path.join(path, DATA_FILENAME)})"
        )
    return _load_entry(path, name, path)


def read_entry(root: str, name: str) -> SnapshotEntry | None:
    """Open variable ``name`` of the snapshot directory ``root``; ``None`` when it has no ``out``.

    The path goes through :func:`confined_path` and the files must resolve inside ``root``.
    """
    var_dir = confined_path(root, name)
    if not (os.path.isdir(var_dir) and is_variable_dir(var_dir)):
        return None
    return _load_entry(var_dir, name, root)


def read_snapshot(path: str, *, allow_empty: bool = False) -> dict[str, SnapshotEntry]:
    """Open every variable of the snapshot directory ``path``, sorted by name.

    Raises :class:`SnapshotError` when ``path`` is missing or (unless
    ``allow_empty``; OneFlow itself returned ``{}``) holds no variable, and
    :class:`UnsafePathError` for any entry (a symbolic link) resolving outside it.
    """
    _require_dir(path)
    entries: dict[str, SnapshotEntry] = {}
    for name in sorted(os.listdir(path)):
        entry = read_entry(path, name)
        if entry is not None:
            entries[name] = entry
    if not entries and not allow_empty:
        hint = (
            f"; {path} itself holds '{DATA_FILENAME}': it is a single variable, use read_variable()"
            if is_variable_dir(path)
            else ""
        )
        raise SnapshotError(
            f"snapshot directory {path} contains no variables "
            f"(no sub-directory with a '{DATA_FILENAME}' file){hint}"
        )
    return entries


# ---------------------------------------------------------------------------
# writing


def _check_name(name: object, root: str) -> str:
    confined_path(root, name)
    if name == DONE_FILENAME:
        raise UnsafePathError(f"invalid variable name {name!r} for snapshot directory {root}: "
                              "it is the name of the snapshot's completion marker")
    return str(name)


def _refuse_occupied(target: str, shown: str) -> None:
    if is_occupied(target):
        # OneFlow's message, for a file too; the note only adds to it.
        note = "" if os.path.isdir(target) else " (it is a file, not a directory)"
        raise SnapshotError(f"Non-empty directory {shown} already exists!{note}")


def _write_file(path: str, data: bytes | memoryview) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _prepared(
    arrays: Mapping[str, object], data_types: Mapping[str, str] | None, shown: str
) -> list[tuple[str, np.ndarray, str]]:
    """Validate names and dtypes of everything before anything is written."""
    overrides = dict(data_types or {})
    unknown = set(overrides) - set(arrays)
    if unknown:
        raise ValueError(f"data_types names unknown variables: {sorted(unknown)}")
    out: list[tuple[str, np.ndarray, str]] = []
    for raw_name, value in arrays.items():
        name = _check_name(raw_name, shown)
        arr = np.asarray(value)
        try:
            data_type = numpy_dtype_to_meta(arr.dtype)
        except UnsupportedDataTypeError as exc:
            raise UnsupportedDataTypeError(f"{_describe(name)}: {exc}") from None
        if name in overrides:
            wanted = overrides[name]
            if meta_to_numpy_dtype(wanted) != _native(arr.dtype):
                raise UnsupportedDataTypeError(
                    f"{_describe(name)}: data_type {wanted} does not match array dtype {arr.dtype}"
                )
            data_type = wanted
        out.append((name, arr, data_type))
    return out


def _raw_bytes(arr: np.ndarray) -> memoryview:
    """C-order, native-endian bytes of ``arr`` (copies only when needed)."""
    flat = np.ascontiguousarray(arr, dtype=_native(arr.dtype)).reshape(-1)
    return flat.data.cast("B")


def _build(tmp: str, items: list[tuple[str, np.ndarray, str]], legacy: bool) -> None:
    """Write every variable and ``snapshot_done`` into the fresh directory ``tmp``."""
    for name, arr, data_type in items:
        var_dir = confined_path(tmp, name)
        os.mkdir(var_dir)
        _write_file(os.path.join(var_dir, DATA_FILENAME), _raw_bytes(arr))
        if not legacy:
            meta = format_meta(arr.shape, data_type).encode("utf-8")
            _write_file(os.path.join(var_dir, META_FILENAME), meta)
    _write_file(os.path.join(tmp, DONE_FILENAME), b"")


def write_snapshot(
    path: str,
    arrays: Mapping[str, np.ndarray],
    *,
    legacy: bool = False,
    data_types: Mapping[str, str] | None = None,
) -> None:
    """Write ``arrays`` as a OneFlow snapshot directory at ``path``.

    ``path`` must not exist or be an empty directory; anything else raises
    ``SnapshotError`` (an ``AssertionError``, as in OneFlow) with OneFlow's
    message. Variable names go through :func:`confined_path` (``UnsafePathError``,
    a ``ValueError``) before anything is written. ``legacy=True`` omits the ``meta``
    files, like OneFlow's old model IO (which still wrote ``snapshot_done``).
    ``data_types`` may override the enum name written for a variable (e.g.
    ``"kChar"`` for an int8 array).

    A missing ``path`` is written as a hidden sibling directory renamed onto it.
    An existing empty directory is kept (inode, mode, owner), as OneFlow wrote
    into it: ``PermissionError`` when it is not writable; the variables are built
    in a hidden directory inside it and renamed into place, ``snapshot_done`` last.
    On failure ``path`` is left as found.
    """
    shown = os.fspath(path)
    # Write through a symlink rather than replacing the link itself.
    target = os.path.realpath(shown) if os.path.islink(shown) else os.path.abspath(shown)
    _refuse_occupied(target, shown)
    items = _prepared(arrays, data_types, shown)
    write_tree(target, shown, lambda tmp: _build(tmp, items, legacy), [*(n for n, _, _ in items), DONE_FILENAME],
               lambda: _refuse_occupied(target, shown))
