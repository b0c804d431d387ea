"""OneFlow's snapshot (checkpoint) directory format, in pure numpy.

A snapshot is a directory with one sub-directory per variable::

    <path>/<var>/out     raw C-order bytes of the value, native byte order
    <path>/<var>/meta    protobuf text of ``VariableMetaInfo`` (absent in legacy dirs; see snapshot_meta)
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

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
from flowtorch._src.io.snapshot_meta import (
    format_meta,
    meta_to_numpy_dtype,
    native_dtype,
    numpy_dtype_to_meta,
    parse_meta,
)

__all__ = [
    "DATA_FILENAME", "DONE_FILENAME", "META_FILENAME", "MissingMetaError", "SnapshotEntry", "SnapshotError",
    "SnapshotMetaError", "UnsafePathError", "UnsupportedDataTypeError", "confined_path", "is_variable_dir",
    "read_entry", "read_snapshot", "read_variable", "write_snapshot",
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


_MAX_META_BYTES = 1 << 20  # real meta files are a few dozen bytes


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
        dt = native_dtype(np.dtype(dtype))
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
        if expected is None or self.dtype is None:
            raise RuntimeError(f"snapshot entry {self.name!r}: its size is unknown (no shape or dtype yet)")
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
            if meta_to_numpy_dtype(wanted) != native_dtype(arr.dtype):
                raise UnsupportedDataTypeError(
                    f"{_describe(name)}: data_type {wanted} does not match array dtype {arr.dtype}"
                )
            data_type = wanted
        out.append((name, arr, data_type))
    return out


def _raw_bytes(arr: np.ndarray) -> memoryview:
    """C-order, native-endian bytes of ``arr`` (copies only when needed)."""
    flat = np.ascontiguousarray(arr, dtype=native_dtype(arr.dtype)).reshape(-1)
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
