"""Session-facing model IO: ``flow.checkpoint.save/get``, ``flow.load_variables``, ``flow.get_all_variables``
and the old ``flow.train.CheckPoint`` / ``flow.train.SimpleCheckPointManager`` (spec §6).

Every entry point starts the default session first (OneFlow's ``try_init_default_session``: all registered
jobs are built, so their variables exist) and waits for launched jobs (``sync``). Variables are initialised
when they are created, as with OneFlow's model IO v2, so ``CheckPoint().init()`` only starts the session.

Files are read and written by :mod:`flowtorch._src.io.snapshot` (OneFlow's directory layout; raw bytes,
never pickles). A load first checks every value (name, shape, dtype, file size) and reads it, and only
then copies anything into the variables: a rejected load leaves every variable as it was.
"""

from __future__ import annotations

import datetime
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from flowtorch._src import dtypes
from flowtorch._src.dist import collectives
from flowtorch._src.errors import MissingMetaError, SnapshotError, UnsafePathError, add_note
from flowtorch._src.io.snapshot import (
    DATA_FILENAME,
    DONE_FILENAME,
    SnapshotEntry,
    confined_path,
    is_variable_dir,
    read_entry,
    read_snapshot,
    read_variable,
    write_snapshot,
)
from flowtorch._src.session import Session, default_session
from flowtorch._src.variable_store import Variable

__all__ = [
    "CheckPoint", "FileBackendVariableBlob", "SimpleCheckPointManager", "VariableBlob", "get",
    "get_all_variables", "load_variables", "save",
]  # fmt: skip

_BY_PROTO = {d.proto_name: d for d in dtypes.ALL}
_MAX_LISTED = 20
log = logging.getLogger("flowtorch")


def _started() -> Session:
    """The default session, started (every registered job built) and synced."""
    session = default_session()
    session.start()
    session.sync()
    return session


def _native(dtype: np.dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    return dtype.newbyteorder("=") if dtype.byteorder not in ("=", "|") else dtype


def _show_dtype(np_dtype: np.dtype | None, data_type: str | None = None) -> str:
    """``oneflow.float32`` style for a dtype flowtorch knows, numpy's name otherwise."""
    if data_type is not None and data_type in _BY_PROTO:
        return repr(_BY_PROTO[data_type])
    if np_dtype is None:
        return "unknown"
    try:
        return repr(dtypes.from_numpy(_native(np_dtype)))
    except TypeError:
        return str(np_dtype)


def _path_arg(path: Any, what: str) -> str:
    try:
        return os.fspath(path)
    except TypeError:
        raise TypeError(f"{what}: path must be a str or os.PathLike; received {path!r}") from None


def _temporary(path: str) -> bool:
    """An absolute path inside the system's temporary directory, such as ``tempfile.TemporaryDirectory()``
    gives."""
    if not os.path.isabs(path):
        return False
    temp = os.path.realpath(tempfile.gettempdir())
    return os.path.commonpath([temp, os.path.realpath(path)]) == temp


def _rank0_path(path: str, what: str, *, reading: bool) -> str:
    """On several processes: the path rank 0 passed, which every rank must pass too. flowtorch keeps one
    snapshot, written by rank 0 (every rank holds the same variables) and read by every rank, so another
    rank's path would silently be neither written nor read: ``SnapshotError`` naming both, on every rank.

    Per-process temporary directories may differ (absolute paths inside the temporary directory): OneFlow
    ran the program once and made one (its tests save to ``tempfile.TemporaryDirectory()``); run once per
    rank, the program makes one on each, and rank 0's stands for them all."""
    mine = (path, os.path.normpath(path), _temporary(path))
    paths: list[Any] = [None] * collectives.world_size()
    torch.distributed.all_gather_object(paths, mine)
    first, norm, temp = paths[0]
    others = [(r, p) for r, (p, n, t) in enumerate(paths) if n != norm and not (t and temp)]
    if others:
        r, p = others[0]
        more = f" (and {len(others) - 1} other rank(s) yet other paths)" if len(others) > 1 else ""
        if reading:
            what_happens = f"rank {r} would read {first!r}, not {p!r}"
        else:
            what_happens = (f"nothing would be written at {p!r}, and flow.checkpoint.get({p!r}) on rank {r} "
                            f"would read {first!r}")
        raise SnapshotError(
            f"{what}: the ranks passed different paths: rank 0 {first!r}, rank {r} {p!r}{more}. flowtorch keeps "
            f"one snapshot, written by rank 0 and read by every rank: {what_happens}. Pass the same path on "
            "every rank (a per-rank checkpoint holds nothing more: every rank has the same variables)")
    if mine[1] != norm:
        log.info("flowtorch: %s: rank %d's temporary directory %r stands for rank 0's, %r: the snapshot is "
                 "there", what, collectives.rank(), path, first)
    return path if collectives.rank() == 0 else first


# ---------------------------------------------------------------------------------------------- blobs


class FileBackendVariableBlob:
    """One variable of a snapshot on disk (``flow.checkpoint.get``): ``.numpy()``, ``.shape``, ``.dtype``.

    The value is read from ``<var_dir>/out`` on each ``numpy()``. A legacy variable (no ``meta`` file)
    has ``shape``/``dtype`` ``None`` until given: ``FileBackendVariableBlob(var_dir, dtype, shape)``,
    or :func:`load_variables` takes them from the variable it is loaded into.
    """

    def __init__(self, var_dir: str | os.PathLike[str], dtype: Any = None, shape: Any = None) -> None:
        entry = read_variable(_path_arg(var_dir, "FileBackendVariableBlob"))
        if (dtype is None) != (shape is None):
            raise RuntimeError(f"FileBackendVariableBlob({os.fspath(var_dir)!r}): both or neither of shape and "
                               f"dtype should be None; received shape={shape!r}, dtype={dtype!r}")
        if dtype is not None:
            if entry.has_meta:
                raise AssertionError(f"FileBackendVariableBlob({os.fspath(var_dir)!r}): the variable has a meta "
                                     f"file ({entry.shape}, {_show_dtype(entry.dtype, entry.data_type)}); shape "
                                     "and dtype must not be given")
            flow_dtype = dtypes.to_dtype(dtype, what="FileBackendVariableBlob: dtype")
            entry = entry.with_expected(tuple(int(d) for d in shape), flow_dtype.numpy_dtype)
        self._entry = entry
        self._read: np.ndarray | None = None

    @classmethod
    def _from_entry(cls, entry: SnapshotEntry, read_now: bool = False) -> FileBackendVariableBlob:
        """``read_now``: the value is read here and kept (another rank's snapshot, which it may remove once
        every rank has read it)."""
        blob = cls.__new__(cls)
        blob._entry = entry
        blob._read = entry.numpy() if read_now and entry.shape is not None else None
        return blob

    def _value(self) -> np.ndarray:
        return self._read.copy() if self._read is not None else self._entry.numpy()

    @property
    def name(self) -> str:
        """The variable's name (its directory's name)."""
        return self._entry.name

    @property
    def file_path(self) -> str:
        return self._entry.data_path

    @property
    def has_meta_info(self) -> bool:
        return self._entry.shape is not None

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self._entry.shape

    @property
    def dtype(self) -> dtypes.DType | None:
        entry = self._entry
        if entry.data_type is not None and entry.data_type in _BY_PROTO:
            return _BY_PROTO[entry.data_type]
        return None if entry.dtype is None else dtypes.from_numpy(entry.dtype)

    @property
    def quant_info(self) -> Any:
        raise NotImplementedError("FileBackendVariableBlob.quant_info is not supported (as in OneFlow)")

    def numpy(self) -> np.ndarray:
        """The value, freshly read from the file (``RuntimeError`` for a legacy variable without meta); on a rank
        other than 0 of several processes, the value read by ``checkpoint.get`` from rank 0's snapshot."""
        return self._value()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __repr__(self) -> str:
        return (f"FileBackendVariableBlob(name={self.name!r}, path={self._entry.path!r}, shape={self.shape}, "
                f"dtype={self.dtype})")


class VariableBlob:
    """A session variable as ``flow.get_all_variables()`` gives it: ``.numpy()`` is a fresh copy of the
    current value (it follows later training steps and loads), ``.shape``, ``.dtype``."""

    __slots__ = ("_name", "_var")

    def __init__(self, name: str, var: Variable) -> None:
        self._name = name
        self._var = var

    @property
    def op_name(self) -> str:
        return self._name

    @property
    def blob_name(self) -> str:
        return "out"

    @property
    def logical_blob_name(self) -> str:
        return f"{self._name}/out"

    @property
    def shape(self) -> tuple[int, ...]:
        return self._var.shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._var.dtype

    def numpy(self) -> np.ndarray:
        return self._var.numpy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __repr__(self) -> str:
        return f"VariableBlob(name={self._name!r}, shape={self.shape}, dtype={self.dtype})"


# ---------------------------------------------------------------------------------------------- reading


def get_all_variables() -> dict[str, VariableBlob]:
    """``flow.get_all_variables()``: ``{name: blob}`` for every variable of the session, optimizer state
    (``<var>-momentum``, ``<var>-m``/``-v`` …) and ``System-Train-TrainStep-<job>`` included."""
    session = _started()
    return {name: VariableBlob(name, var) for name, var in session.variables.items()}


def get(path: str | os.PathLike[str]) -> dict[str, FileBackendVariableBlob] | FileBackendVariableBlob:
    """``flow.checkpoint.get(path)``: the variables of the snapshot directory ``path`` as
    ``{name: FileBackendVariableBlob}``, or one blob when ``path`` is itself a variable's directory
    (holds ``out``). Meta files and sizes are checked now; values are read by ``.numpy()`` (on the other ranks
    of several processes, now: rank 0's snapshot may be gone once every rank has read it)."""
    path = _path_arg(path, "flow.checkpoint.get")
    _started()
    if collectives.world_size() > 1:
        # OneFlow read once, in one process: every rank reads rank 0's path (a per-process temporary
        # directory of the others' may be empty)
        path = _rank0_path(path, "flow.checkpoint.get", reading=True)
    # a rank other than 0 reads the values now, before the barrier: rank 0 may remove its snapshot after it
    # (OneFlow's tests save into a per-process temporary directory and leave it at once)
    read_now = collectives.world_size() > 1 and collectives.rank() != 0
    try:
        if os.path.isdir(path) and is_variable_dir(path):
            return FileBackendVariableBlob._from_entry(read_variable(path), read_now)
        entries = read_snapshot(path, allow_empty=True)  # raises "Directory {} doesn't exist!" (AssertionError)
        blobs = {name: FileBackendVariableBlob._from_entry(e, read_now) for name, e in entries.items()}
    except SnapshotError as exc:
        if collectives.rank() != 0:
            add_note(exc, f"rank {collectives.rank()} reads the snapshot at rank 0's path; on several machines "
                          "it must be on a filesystem they share")
        raise
    finally:
        if collectives.world_size() > 1:
            torch.distributed.barrier()  # rank 0 goes on (and may remove its directory) once all have read it
    if not blobs:
        log.warning("flow.checkpoint.get: %s holds no variable (no sub-directory with an '%s' file); it returns "
                    "an empty dict", path, DATA_FILENAME)
    return blobs


# ---------------------------------------------------------------------------------------------- loading


def _check_match(name: str, var: Variable, shape: tuple[int, ...], np_dtype: np.dtype, shown_dtype: str,
                 source: str, what: str) -> None:
    if tuple(shape) != var.shape:
        raise AssertionError(f"{var.shape} vs {tuple(shape)}: {what}: variable {name!r} has shape {var.shape}, "
                             f"the value ({source}) has shape {tuple(shape)}")
    if _native(np_dtype) != var.dtype.numpy_dtype:
        raise AssertionError(f"{var.dtype} vs {shown_dtype}: {what}: variable {name!r} has dtype {var.dtype}, "
                             f"the value ({source}) has dtype {shown_dtype}")


def _resolve(name: str, var: Variable, value: Any, what: str) -> np.ndarray | torch.Tensor:
    """Check ``value`` against variable ``name`` and return its data (read now), ready to assign."""
    entry: SnapshotEntry | None = None
    if isinstance(value, FileBackendVariableBlob) and value._read is not None:
        _check_match(name, var, value._read.shape, value._read.dtype, str(value._read.dtype), "a snapshot read by "
                     "rank 0's path", what)
        return value._value()
    if isinstance(value, FileBackendVariableBlob):
        entry = value._entry
    elif isinstance(value, SnapshotEntry):
        entry = value
    if entry is not None:
        source = f"file {entry.data_path}"
        try:
            if entry.shape is None:  # legacy: no meta, the variable says what the bytes are
                entry = entry.with_expected(var.shape, var.dtype.numpy_dtype)
            if entry.shape is None or entry.dtype is None:  # with_expected gives both
                raise RuntimeError(f"variable {name!r}: the snapshot entry has no shape or dtype")
            _check_match(name, var, entry.shape, entry.dtype, _show_dtype(entry.dtype, entry.data_type), source,
                         what)
            return entry.numpy()
        except SnapshotError as exc:
            if entry.name == name:
                raise
            raise type(exc)(f"{what}: value for variable {name!r}: {exc}") from exc
    if isinstance(value, VariableBlob):
        src = value._var
        _check_match(name, var, src.shape, src.dtype.numpy_dtype, repr(src.dtype), f"variable {value.op_name!r}",
                     what)
        return src.tensor.detach().clone()  # a snapshot, so {"a": b, "b": a} swaps
    if isinstance(value, np.ndarray):
        _check_match(name, var, value.shape, value.dtype, _show_dtype(value.dtype), "numpy array", what)
        return value.astype(_native(value.dtype), copy=False)
    if isinstance(value, torch.Tensor):
        ok = value.dtype in {d.torch_dtype for d in dtypes.ALL}
        np_dtype = dtypes.from_torch(value.dtype).numpy_dtype if ok else np.dtype("V1")
        shown = repr(dtypes.from_torch(value.dtype)) if ok else str(value.dtype)
        _check_match(name, var, tuple(value.shape), np_dtype, shown, "torch tensor", what)
        return value.detach().clone()
    raise AssertionError(f"Unknown value type: {type(value).__name__} ({what}: value for variable {name!r}; "
                         "expected a numpy.ndarray, a blob of flow.checkpoint.get() or of flow.get_all_variables())")


def _assign_all(session: Session, plan: list[tuple[str, np.ndarray | torch.Tensor]], what: str) -> None:
    store = session.variables
    assigned: Sequence[tuple[str, np.ndarray | torch.Tensor]] = (
        _rank0_plan(session, plan) if collectives.world_size() > 1 else plan)
    for name, data in assigned:
        store.assign(name, data, what=what)
    session.sync()


def _rank0_plan(session: Session, plan: list[tuple[str, np.ndarray | torch.Tensor]]
                ) -> list[tuple[str, torch.Tensor]]:
    """Rank 0's values on every rank. OneFlow loaded once, in one process: a program that loads from a
    per-process path (a temporary directory) must still give every rank rank 0's variables."""
    names = [[name for name, _ in plan]]
    torch.distributed.broadcast_object_list(names, src=0)
    mine = dict(plan)
    out = []
    for name in names[0]:
        var = session.variables[name].tensor
        value = mine.get(name) if collectives.rank() == 0 else None
        tensor = (torch.as_tensor(value).to(device=var.device, dtype=var.dtype).contiguous() if value is not None
                  else torch.empty_like(var, memory_format=torch.contiguous_format))
        torch.distributed.broadcast(tensor, src=0)
        out.append((name, tensor))
    return out


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f", … ({len(names)} in all)" if len(names) > _MAX_LISTED else "")


def load_variables(value_dict: Mapping[str, Any] | FileBackendVariableBlob, ignore_mismatch: bool = True) -> None:
    """``flow.load_variables(value_dict, ignore_mismatch=True)``: copy each value into the variable of the
    same name. Values: numpy arrays, blobs of :func:`get` or of :func:`get_all_variables`. Shapes and dtypes
    must match exactly (``AssertionError "<var> vs <value>"``); names that are no variable are skipped, or
    raise ``RuntimeError`` when ``ignore_mismatch`` is False. Nothing is assigned unless everything is valid.
    """
    what = "flow.load_variables"
    if isinstance(value_dict, FileBackendVariableBlob):
        raise TypeError(f"{what}: value_dict must be a dict {{variable name: value}}; received one "
                        f"FileBackendVariableBlob ({value_dict._entry.path} is a single variable's directory): "
                        f"pass {{{value_dict.name!r}: blob}} or the snapshot directory above it")
    if not isinstance(value_dict, Mapping):
        raise TypeError(f"{what}: value_dict must be a dict {{variable name: value}}; "
                        f"received {type(value_dict).__name__}")
    session = _started()
    store = session.variables
    unknown = [name for name in value_dict if name not in store]
    if unknown and not ignore_mismatch:
        first = f'"{unknown[0]}" is not a variable name'
        others = f" (nor are {_listed([repr(n) for n in unknown[1:]])})" if len(unknown) > 1 else ""
        raise RuntimeError(f"{first}{others}: {what}(..., ignore_mismatch=False); the session's variables are: "
                           f"{_listed(list(store)) or 'none'}")
    plan = [(name, _resolve(name, store[name], value, what)) for name, value in value_dict.items()
            if name in store]
    _assign_all(session, plan, what)


# ---------------------------------------------------------------------------------------------- saving


def _value_for_save(name: Any, value: Any) -> tuple[np.ndarray, str | None]:
    if isinstance(value, VariableBlob):
        return value.numpy(), None
    if isinstance(value, FileBackendVariableBlob) and value._read is not None:
        return value._value(), value._entry.data_type
    if isinstance(value, (FileBackendVariableBlob, SnapshotEntry)):
        entry = value._entry if isinstance(value, FileBackendVariableBlob) else value
        if entry.shape is None:
            raise MissingMetaError(f"flow.checkpoint.save: value for variable {name!r} ({entry.data_path}) has "
                                   "no meta info (a legacy snapshot): load it into a variable first, or give "
                                   "FileBackendVariableBlob(var_dir, dtype, shape)")
        return entry.numpy(), entry.data_type
    if isinstance(value, np.ndarray):
        return value, None
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy(), None
    raise RuntimeError(f"Unknown type: {type(value).__name__} (flow.checkpoint.save: value for variable {name!r}; "
                       "expected a blob of flow.get_all_variables() or flow.checkpoint.get(), or a numpy.ndarray)")


def _save(path: Any, var_dict: Mapping[str, Any] | None, *, legacy: bool, what: str) -> None:
    path = _path_arg(path, what)
    session = _started()
    if var_dict is None:
        arrays = {name: var.numpy() for name, var in session.variables.items()}
        data_types: dict[str, str] = {}
    else:
        if not isinstance(var_dict, Mapping):
            raise TypeError(f"{what}: var_dict must be a dict {{name: value}} or None; "
                            f"received {type(var_dict).__name__}")
        arrays, data_types = {}, {}
        for name, value in var_dict.items():
            arr, data_type = _value_for_save(name, value)
            arrays[name] = arr
            if data_type is not None:
                data_types[name] = data_type
    if collectives.world_size() == 1:
        write_snapshot(path, arrays, legacy=legacy, data_types=data_types)
        return
    path = _rank0_path(path, what, reading=False)
    # Several processes hold equal variables: rank 0 writes the logical snapshot, and every rank learns
    # whether it did (a failure is raised on every rank, none waits for a file that never comes).
    error: BaseException | None = None
    if collectives.rank() == 0:
        try:
            write_snapshot(path, arrays, legacy=legacy, data_types=data_types)
        except BaseException as exc:  # re-raised below, after the others are told
            error = exc
    failed = torch.tensor([error is not None], dtype=torch.int32, device=session.device)
    torch.distributed.broadcast(failed, src=0)
    if error is not None:
        raise error
    if failed.item():
        raise RuntimeError(f"{what}: rank 0 failed to write the snapshot {path} (its error is raised there)")


def save(path: str | os.PathLike[str], var_dict: Mapping[str, Any] | None = None) -> None:
    """``flow.checkpoint.save(path, var_dict=None)``: write every variable (or ``var_dict``) as a snapshot
    directory (``<path>/<var>/out`` + ``meta``, then ``snapshot_done``). ``path`` must not exist or be an
    empty directory (``AssertionError "Non-empty directory … already exists!"``), which is kept (written into,
    ``PermissionError`` when not writable). ``snapshot_done`` appears last; a failed save leaves ``path`` as found."""
    _save(path, var_dict, legacy=False, what="flow.checkpoint.save")


def load(path: str | os.PathLike[str]) -> dict[str, FileBackendVariableBlob] | FileBackendVariableBlob:
    """``flow.load(path)`` (v0.4.0's name of ``checkpoint.get``, ``framework/check_point_v2.py``)."""
    return get(path)


def save_var_dict(obj: Mapping[str, Any] | None, save_dir: str | os.PathLike[str]) -> None:
    """``flow.save(obj, save_dir)`` (v0.4.0: ``checkpoint.save`` with its arguments the other way round)."""
    save(save_dir, obj)


# ---------------------------------------------------------------------------------------------- old API

_DEPRECATION_BANNER = (  # OneFlow's words, without its terminal colours (a log record)
    "'flow.train.CheckPoint' is deprecated. Please use the new API:\n"
    "flow.train.CheckPoint().save(path) => flow.checkpoint.save(path)\n"
    "flow.train.CheckPoint().load(path) => flow.load_variables(flow.checkpoint.get(path))\n"
    "flow.train.CheckPoint().init() is not needed any more."
)


def _legacy_enabled() -> bool:
    return bool(default_session().config.get("enable_legacy_model_io", False))


def _legacy_load(path: str) -> None:
    """Old model IO: every variable reads ``<path>/<var>/out``; a missing one keeps its initial value.

    Every variable name must be one path component resolving inside ``path`` (``UnsafePathError``
    otherwise, raised before any file is read); like every load, nothing is assigned unless all is valid.
    """
    what = "flow.train.CheckPoint.load"
    session = _started()
    try:
        for name in session.variables:
            confined_path(path, name)
    except UnsafePathError as exc:
        raise UnsafePathError(f"{what}: {exc}") from None
    plan = []
    for name, var in session.variables.items():
        entry = read_entry(path, name)
        if entry is not None:
            plan.append((name, _resolve(name, var, entry, what)))
        else:
            # OneFlow's model-load kernel; flowtorch variables already hold their initial value.
            data_path = os.path.join(path, name, DATA_FILENAME)
            log.warning("CANNOT find variable path in : %s. It will be initialized.", data_path)  # OneFlow's words
    _assign_all(session, plan, what)


class CheckPoint:
    """``flow.train.CheckPoint()``: the pre-v0.3.2 checkpoint object (deprecated by OneFlow).

    With the default model IO its methods are :func:`save` and ``load_variables(get(path))``; with
    ``flow.config.enable_legacy_model_io(True)`` they use the old layout (``out`` files, no ``meta``).
    """

    def __init__(self) -> None:
        if not _legacy_enabled():
            log.warning(_DEPRECATION_BANNER)

    def init(self) -> None:
        """Start the session. Variables are initialised when created, so there is nothing else to do."""
        _started()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write every variable to the snapshot directory ``path`` (must not exist or be empty)."""
        legacy = _legacy_enabled()
        _save(path, None, legacy=legacy, what="flow.train.CheckPoint.save")

    def load(self, path: str | os.PathLike[str]) -> None:
        """Load the snapshot directory ``path`` into the session's variables."""
        path = _path_arg(path, "flow.train.CheckPoint.load")
        if _legacy_enabled():
            _legacy_load(path)
        else:
            load_variables(get(path))


class SimpleCheckPointManager:
    """``flow.train.SimpleCheckPointManager(root_path, prefix="snapshot_")``: timestamped snapshots
    ``<root_path>/<prefix><YYYYmmdd_HHMMSS_ffffff>``; a snapshot counts once its ``snapshot_done`` exists."""

    def __init__(self, root_path: str | os.PathLike[str], prefix: str = "snapshot_") -> None:
        root_path = _path_arg(root_path, "flow.train.SimpleCheckPointManager")
        if not os.path.exists(root_path):
            os.makedirs(root_path)
        elif not os.path.isdir(root_path):
            raise AssertionError(f"flow.train.SimpleCheckPointManager: root_path {root_path} is not a directory")
        self._root_path = root_path
        self._prefix = prefix

    def list_checkpoints(self) -> list[str]:
        def is_snapshot(name: str) -> bool:
            return name.startswith(self._prefix) and os.path.isfile(
                os.path.join(self._root_path, name, DONE_FILENAME))

        return sorted(f for f in os.listdir(self._root_path) if is_snapshot(f))

    def latest_checkpoint(self) -> str | None:
        names = self.list_checkpoints()
        return names[-1] if names else None

    def initialize_or_restore(self) -> None:
        """Load the latest snapshot, or save one when there is none."""
        name = self.latest_checkpoint()
        if name:
            load_variables(get(os.path.join(self._root_path, name)))
        else:
            self.save()

    def save(self) -> None:
        stamp = datetime.datetime.now().strftime("%Y%m%d_%H%M%S_%f")
        save(os.path.join(self._root_path, self._prefix + stamp))
