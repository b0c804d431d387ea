"""Checkpoint conversion between OneFlow snapshot directories and safetensors / PyTorch state-dict files.

Formats: ``snapshot`` (a OneFlow snapshot directory, both model-IO eras: with ``meta`` files, or the legacy
``out``-only layout), ``safetensors`` (``.safetensors``) and ``pt`` (``.pt``/``.pth``, a flat
``torch.save``-d ``dict[str, Tensor]``). Nothing runs pickle code: ``.pt`` files are read with
``torch.load(weights_only=True)``, snapshots through :mod:`flowtorch._src.io.snapshot` (untrusted-path safe).
Values pass through unchanged (raw bytes, no casts), so round trips are bit-exact. The destination is written
into a hidden sibling and renamed into place: a failed conversion leaves no partial destination.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from flowtorch._src.errors import ConversionError, SnapshotError
from flowtorch._src.io.safe_paths import (
    component_problem,
    is_occupied,
    open_regular,
    stat_kind,
)
from flowtorch._src.io.snapshot import (
    DONE_FILENAME,
    SnapshotEntry,
    is_variable_dir,
    read_snapshot,
    write_snapshot,
)
from flowtorch._src.io.snapshot_meta import meta_to_numpy_dtype, numpy_dtype_to_meta
from flowtorch._src.migrate.atomic_write import write_atomically
from flowtorch._src.migrate.file_writes import save_safetensors, save_torch
from flowtorch._src.migrate.names import optimizer_state, unique_torch_names
from flowtorch._src.package import extra_hint

__all__ = [
    "FORMATS", "NAMES_FILE", "ConversionError", "ConversionResult", "ConvertedVariable", "VariableSpec", "convert",
    "detect_format", "load_checkpoint", "parse_shapes", "read_layout", "read_names",
]  # fmt: skip

log = logging.getLogger("flowtorch")

FORMATS = ("snapshot", "safetensors", "pt")
# What flowtorch export writes beside the weights: module attribute → OneFlow variable name.
NAMES_FILE = "oneflow_names.json"
_EXTENSIONS = {".safetensors": "safetensors", ".pt": "pt", ".pth": "pt"}
# safetensors metadata key recording OneFlow data types that a torch dtype alone loses (kChar vs kInt8).
_DATA_TYPES_KEY = "flowtorch.oneflow_data_types"

# The dtypes a OneFlow snapshot can hold, by ``DataType`` enum name.
_SNAPSHOT_DTYPES: dict[str, torch.dtype] = {
    "kFloat": torch.float32, "kDouble": torch.float64, "kFloat16": torch.float16, "kInt8": torch.int8,
    "kChar": torch.int8, "kInt32": torch.int32, "kInt64": torch.int64, "kUInt8": torch.uint8,
}  # fmt: skip
_DTYPE_NAMES: dict[str, str] = {
    **{name: name for name in _SNAPSHOT_DTYPES},
    "float32": "kFloat", "float": "kFloat", "float64": "kDouble", "double": "kDouble", "float16": "kFloat16",
    "half": "kFloat16", "int8": "kInt8", "char": "kChar", "int32": "kInt32", "int64": "kInt64", "uint8": "kUInt8",
}  # fmt: skip


@dataclass(frozen=True)
class VariableSpec:
    """The expected layout of one variable: ``shape``, torch ``dtype`` and the OneFlow ``data_type``
    (``None`` when the dtype has no OneFlow counterpart, e.g. bfloat16)."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    data_type: str | None = None


@dataclass(frozen=True)
class ConvertedVariable:
    """One variable written: its source ``name``, the ``key`` it was written under, shape, dtype, size."""

    name: str
    key: str
    shape: tuple[int, ...]
    dtype: str
    nbytes: int


@dataclass(frozen=True)
class ConversionResult:
    """What :func:`convert` wrote."""

    src: str
    dst: str
    src_format: str
    dst_format: str
    legacy: bool
    variables: tuple[ConvertedVariable, ...]
    names: str | None = None  # the names map that renamed the keys, if one did

    @property
    def total_bytes(self) -> int:
        return sum(v.nbytes for v in self.variables)

    def summary(self) -> str:
        era = " (legacy, no meta)" if self.legacy else ""
        n = len(self.variables)
        renamed = f", keys renamed by {self.names}" if self.names else ""
        return (f"converted {n} variable{'s' if n != 1 else ''} ({self.total_bytes:,} bytes) from {self.src_format} "
                f"{self.src} to {self.dst_format}{era} {self.dst}{renamed}")


# ---------------------------------------------------------------------------------------------- formats


def detect_format(path: str, role: str, given: str | None = None) -> str:
    """The format of ``path`` (``role`` is ``"SRC"``/``"DST"`` for messages): ``given`` when set, else a
    directory → ``snapshot``, a known extension → its format; a DST without extension → ``snapshot``."""
    if given is not None:
        if given not in FORMATS:
            raise ConversionError(f"{role} format must be one of {', '.join(FORMATS)}; got {given!r}")
        return given
    suffix = os.path.splitext(os.path.normpath(path))[1].lower()
    if os.path.isdir(path):
        return "snapshot"
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    if role == "DST" and (not suffix or path.endswith(("/", os.sep))) and not os.path.lexists(path):
        return "snapshot"
    what = f"extension {suffix!r}" if suffix else "no extension"
    found = stat_kind(path) or "nothing"
    flag = {"SRC": "; pass --from", "DST": "; pass --to"}.get(role, "")
    hint = f"{flag} {{{','.join(FORMATS)}}}" if flag else ""
    raise ConversionError(f"cannot tell the format of {role} {path!r} ({found} there, {what}): expected a snapshot "
                          f"directory or a file ending in {', '.join(_EXTENSIONS)}{hint}")


def _safetensors() -> Any:
    try:
        import safetensors  # noqa: PLC0415 - an optional package (flowtorch[export])
        import safetensors.torch  # noqa: PLC0415
    except ImportError as exc:
        raise ConversionError("reading or writing .safetensors needs the safetensors package: "
                              + extra_hint("export")) from exc
    return safetensors


def _spec_for(dtype: torch.dtype, shape: tuple[int, ...], data_type: str | None = None) -> VariableSpec:
    if data_type is None:
        data_type = next((k for k, v in _SNAPSHOT_DTYPES.items() if v == dtype and k != "kChar"), None)
    return VariableSpec(tuple(int(d) for d in shape), dtype, data_type)


def _show(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _require_file(path: str, role: str) -> None:
    kind = stat_kind(path)
    if kind != "a regular file":
        raise ConversionError(f"{role} {path!r} must be a regular file; it is {kind or 'missing'}")


def _file_text(path: str, role: str) -> str:
    """The text of the regular file ``path`` (``role`` names it in the error otherwise)."""
    _require_file(path, role)
    with open_regular(path) as f:
        return f.read().decode("utf-8", "replace")


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConversionError(f"{what}: not valid JSON: {exc}") from exc


# ---------------------------------------------------------------------------------------------- reading


def _weights_only_reason(exc: Exception) -> str:
    text = str(exc)
    m = re.search(r"WeightsUnpickler error:\s*(.*?)\s*(?:Check the documentation|$)", text, re.DOTALL)
    reason = m.group(1) if m else text.strip().splitlines()[-1] if text.strip() else type(exc).__name__
    return " ".join(reason.split())


def _read_pt(path: str) -> dict[str, torch.Tensor]:
    _require_file(path, "state dict")
    try:
        with open_regular(path) as f:
            obj = torch.load(f, map_location="cpu", weights_only=True)
    except Exception as exc:  # any failure means: not a plain state dict
        raise ConversionError(f"{path}: not a PyTorch state dict that loads with weights_only=True (no pickle code "
                              f"is run, so it is refused): {_weights_only_reason(exc)}") from exc
    if not isinstance(obj, Mapping):
        raise ConversionError(f"{path}: expected a flat dict[str, Tensor] (a state dict); it holds a "
                              f"{type(obj).__name__}")
    out: dict[str, torch.Tensor] = {}
    for key, value in obj.items():
        if not isinstance(key, str):
            raise ConversionError(f"{path}: expected a flat dict[str, Tensor]; key {key!r} is a {type(key).__name__}")
        if not isinstance(value, torch.Tensor):
            hint = " (a nested dict: pass the inner state dict)" if isinstance(value, Mapping) else ""
            raise ConversionError(f"{path}: expected a flat dict[str, Tensor]; entry {key!r} is a "
                                  f"{type(value).__name__}{hint}")
        if value.layout != torch.strided or value.is_quantized:
            raise ConversionError(f"{path}: entry {key!r} is a {value.layout} tensor of dtype {_show(value.dtype)}; "
                                  "only dense tensors can be converted")
        # Own contiguous storage: views sharing one storage would otherwise be saved together.
        out[key] = value.detach().clone(memory_format=torch.contiguous_format)
    return out


def _read_safetensors(path: str) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    _require_file(path, "safetensors file")
    st = _safetensors()
    try:
        with st.safe_open(path, framework="pt", device="cpu") as f:
            names = f.keys()
            tensors = {key: f.get_tensor(key) for key in names}
            metadata = f.metadata() or {}
    except (st.SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise ConversionError(f"{path}: not a valid safetensors file: {exc}") from exc
    data_types: dict[str, str] = {}
    if _DATA_TYPES_KEY in metadata:
        try:
            recorded = json.loads(metadata[_DATA_TYPES_KEY])
            data_types = {k: v for k, v in recorded.items() if k in tensors and v in _SNAPSHOT_DTYPES
                          and _SNAPSHOT_DTYPES[v] == tensors[k].dtype}
        except (ValueError, AttributeError):
            log.warning("%s: ignoring unreadable metadata %s", path, _DATA_TYPES_KEY)
    return tensors, data_types


def _snapshot_entries(path: str) -> dict[str, SnapshotEntry]:
    try:
        return read_snapshot(path)
    except SnapshotError as exc:
        raise ConversionError(f"snapshot {path}: {exc}") from exc


def _read_snapshot(path: str, expected: Mapping[str, VariableSpec] | None, assume_float32_flat: bool
                   ) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    entries = _snapshot_entries(path)
    expected = expected or {}
    legacy = [name for name, e in entries.items() if not e.has_meta and name not in expected]
    if legacy and not assume_float32_flat:
        shown = ", ".join(legacy[:10]) + (f", … ({len(legacy)} in all)" if len(legacy) > 10 else "")
        raise ConversionError(
            f"snapshot {path} is a legacy (out-only) snapshot: variables without meta have no recorded shape or "
            f"dtype: {shown}. Give them with --like OTHER (a snapshot with meta files, a .safetensors or .pt file) "
            "or --shapes JSON; --assume-float32-flat reads each as a flat float32 vector (a guess)")
    tensors: dict[str, torch.Tensor] = {}
    data_types: dict[str, str] = {}
    for name, entry in entries.items():
        try:
            if not entry.has_meta:
                if name in expected:
                    spec = expected[name]
                    if spec.data_type is None:
                        raise ConversionError(f"variable {name!r}: dtype {_show(spec.dtype)} (from --like/--shapes) "
                                              "cannot be stored in a OneFlow snapshot")
                    entry = entry.with_expected(spec.shape, meta_to_numpy_dtype(spec.data_type))
                    entry = replace(entry, data_type=spec.data_type)
                else:
                    entry = _flat_float32(entry)
            if entry.shape is None or entry.data_type is None:  # every branch above gives both
                raise RuntimeError(f"variable {name!r}: the snapshot entry has no shape or data type")
            tensor = torch.from_numpy(entry.numpy())
        except SnapshotError as exc:
            raise ConversionError(f"snapshot {path}: {exc}") from exc
        tensors[name] = tensor
        data_types[name] = entry.data_type
    return tensors, data_types


def _flat_float32(entry: SnapshotEntry) -> SnapshotEntry:
    size = os.stat(entry.data_path).st_size
    if size % 4:
        raise ConversionError(f"variable {entry.name!r}: --assume-float32-flat: {entry.data_path} holds {size} "
                              "bytes, not a multiple of 4")
    log.warning("variable %r has no meta: read as float32 of shape (%d,) (--assume-float32-flat)",
                entry.name, size // 4)
    return entry.with_expected((size // 4,), np.float32)


def load_checkpoint(path: str, fmt: str | None = None, *, expected: Mapping[str, VariableSpec] | None = None,
                    assume_float32_flat: bool = False) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """Read a checkpoint: ``({name: tensor}, {name: OneFlow data_type})``, the data types for the variables
    whose ``data_type`` is known (from ``meta``, safetensors metadata or ``expected``).

    ``expected`` gives legacy snapshot variables their shape/dtype; every variable named in it is checked.
    """
    fmt = detect_format(path, "SRC", fmt)
    if fmt == "snapshot":
        tensors, data_types = _read_snapshot(path, expected, assume_float32_flat)
    elif fmt == "safetensors":
        tensors, data_types = _read_safetensors(path)
    else:
        tensors, data_types = _read_pt(path), {}
    if not tensors:
        raise ConversionError(f"{fmt} {path} holds no tensors")
    for name, spec in (expected or {}).items():
        if name in tensors:
            _check(name, tensors[name], spec, path)
    return tensors, data_types


def _check(name: str, tensor: torch.Tensor, spec: VariableSpec, path: str) -> None:
    shape = tuple(tensor.shape)
    if shape != spec.shape or tensor.dtype != spec.dtype:
        raise ConversionError(f"variable {name!r} of {path}: shape {shape}, dtype {_show(tensor.dtype)}, but "
                              f"--like/--shapes expects shape {spec.shape}, dtype {_show(spec.dtype)}")


# ---------------------------------------------------------------------------------------------- layouts


def read_layout(path: str, fmt: str | None = None) -> dict[str, VariableSpec]:
    """The shapes/dtypes of a checkpoint (for ``--like``): a snapshot's metas (each variable must have one),
    or the tensors of a safetensors / ``.pt`` file."""
    fmt = detect_format(path, "--like", fmt) if os.path.exists(path) else None
    if fmt is None:
        raise ConversionError(f"--like {path!r}: no such file or directory")
    if fmt == "snapshot":
        specs = {}
        for name, e in _snapshot_entries(path).items():
            if not e.has_meta or e.shape is None or e.data_type is None:
                raise ConversionError(f"--like {path}: variable {name!r} has no meta file (a legacy snapshot "
                                      "cannot say what another one holds)")
            specs[name] = _spec_for(_SNAPSHOT_DTYPES[e.data_type], e.shape, e.data_type)
        return specs
    tensors, data_types = _read_safetensors(path) if fmt == "safetensors" else (_read_pt(path), {})
    return {name: _spec_for(t.dtype, tuple(t.shape), data_types.get(name)) for name, t in tensors.items()}


def parse_shapes(shapes: str | Mapping[str, Any]) -> dict[str, VariableSpec]:
    """``--shapes``: a path to a JSON file, JSON text, or the parsed mapping, of the form
    ``{"name": {"shape": [d0, d1, …], "dtype": "float32"}}``; dtype names: float32/float, float64/double,
    float16/half, int8, char, int32, int64, uint8, or OneFlow's ``kFloat`` … (default float32)."""
    if isinstance(shapes, str):
        shapes = _json(_file_text(shapes, "--shapes file") if os.path.lexists(shapes) else shapes, "--shapes")
    if not isinstance(shapes, Mapping):
        raise ConversionError(f"--shapes: expected an object {{name: {{shape, dtype}}}}; got {type(shapes).__name__}")
    specs = {}
    for name, desc in shapes.items():
        if not isinstance(desc, Mapping) or not set(desc) <= {"shape", "dtype"} or "shape" not in desc:
            raise ConversionError(f"--shapes: entry {name!r} must be {{\"shape\": [...], \"dtype\": \"float32\"}}; "
                                  f"got {desc!r}")
        shape = desc["shape"]
        if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                  for d in shape):
            raise ConversionError(f"--shapes: entry {name!r}: shape must be a list of non-negative integers; "
                                  f"got {shape!r}")
        dtype_name = desc.get("dtype", "float32")
        data_type = _DTYPE_NAMES.get(dtype_name) if isinstance(dtype_name, str) else None
        if data_type is None:
            raise ConversionError(f"--shapes: entry {name!r}: dtype {dtype_name!r} is not a OneFlow snapshot dtype "
                                  f"(expected one of {', '.join(_DTYPE_NAMES)})")
        specs[str(name)] = VariableSpec(tuple(shape), _SNAPSHOT_DTYPES[data_type], data_type)
    return specs


# ---------------------------------------------------------------------------------------------- names


def read_names(path: str) -> dict[str, str]:
    """A names map (``oneflow_names.json``, as ``flowtorch export`` writes it): ``{attribute: OneFlow name}``."""
    data = _json(_file_text(path, "names map"), f"names map {path}")
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConversionError(f"names map {path}: expected an object {{attribute: OneFlow variable name}} of strings")
    return data


def _names_map(src: str, src_fmt: str, dst_fmt: str, names: str | os.PathLike[str] | bool | None
               ) -> tuple[dict[str, str], str] | None:
    """The map from SRC's keys to DST's (and its path): ``names`` given, or the ``oneflow_names.json`` beside a
    weights file converted to a snapshot. A snapshot SRC takes the map backwards (OneFlow name → attribute)."""
    if names is False:
        return None
    if names is None or names is True:
        path = os.path.join(os.path.dirname(os.path.abspath(src)), NAMES_FILE)
        if src_fmt == "snapshot" or dst_fmt != "snapshot" or not os.path.lexists(path):
            if names is True:
                raise ConversionError(f"no names map: {path} is missing, or SRC is not a weights file converted "
                                      "to a snapshot; pass --names FILE")
            return None
    else:
        path = os.fspath(names)
    mapping = read_names(path)
    if src_fmt != "snapshot":
        return mapping, path
    inverse: dict[str, str] = {}
    for attr, name in mapping.items():
        if name in inverse:
            raise ConversionError(f"names map {path}: {inverse[name]!r} and {attr!r} both stand for {name!r}")
        inverse[name] = attr
    return inverse, path


def _renamed(tensors: Mapping[str, torch.Tensor], mapping: dict[str, str], path: str, src: str) -> dict[str, str]:
    """SRC key → DST key by the names map; a warning names the keys it lacks and the entries SRC lacks."""
    unmapped = [k for k in tensors if k not in mapping]
    absent = [k for k in mapping if k not in tensors]
    if unmapped:
        log.warning("names map %s has no entry for %d of the %d tensors of %s; they keep their names: %s", path,
                    len(unmapped), len(tensors), src, _few(unmapped))
    if absent:
        log.warning("names map %s names %d tensors that %s does not hold (is it the map of these weights?): %s",
                    path, len(absent), src, _few(absent))
    keys = {k: mapping.get(k, k) for k in tensors}
    seen: dict[str, str] = {}
    for name, key in keys.items():
        if key in seen:
            raise ConversionError(f"names map {path}: {seen[key]!r} and {name!r} of {src} would both be written "
                                  f"as {key!r}")
        seen[key] = name
    return keys


def _few(names: list[str]) -> str:
    return ", ".join(names[:10]) + (f", … ({len(names)} in all)" if len(names) > 10 else "")


# ---------------------------------------------------------------------------------------------- writing


def _snapshot_arrays(tensors: Mapping[str, torch.Tensor], data_types: Mapping[str, str], dst: str
                     ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    arrays, types = {}, {}
    for key, t in tensors.items():
        why = component_problem(key) or ("it is the name of the snapshot's completion marker"
                                         if key == DONE_FILENAME else None)
        if why is not None:
            raise ConversionError(f"invalid variable name {key!r} for snapshot DST {dst!r}: {why} (a variable of a "
                                  "snapshot is a sub-directory named after it; --rename-for-torch gives safe names)")
        if t.dtype not in _SNAPSHOT_DTYPES.values():
            supported = ", ".join(sorted({_show(d) for d in _SNAPSHOT_DTYPES.values()}))
            raise ConversionError(f"variable {key!r} has dtype {_show(t.dtype)}, which a OneFlow snapshot cannot "
                                  f"hold (supported: {supported}); cast it before converting")
        arrays[key] = t.numpy()
        wanted = data_types.get(key)
        types[key] = wanted if wanted and _SNAPSHOT_DTYPES.get(wanted) == t.dtype else numpy_dtype_to_meta(
            arrays[key].dtype)
    return arrays, types


def _fsync_file(path: str) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _looks_like_snapshot(path: str) -> bool:
    if os.path.exists(os.path.join(path, DONE_FILENAME)):
        return True
    with os.scandir(path) as it:
        return any(e.is_dir(follow_symlinks=False) and is_variable_dir(e.path) for e in it)


def _check_target(dst: str, fmt: str, force: bool) -> None:
    """Refuse an occupied ``dst`` unless ``force``, and even then anything but a file (file formats) or a
    snapshot directory (snapshot format) of the same kind."""
    if fmt != "snapshot" and os.path.isdir(dst):
        raise ConversionError(f"DST {dst!r} is a directory, not a {fmt} file: refusing to replace it")
    if not is_occupied(dst):
        return
    kind = stat_kind(dst)
    if not force:
        raise ConversionError(f"DST {dst!r} already exists ({kind}); pass --force to replace it")
    if fmt == "snapshot" and not (os.path.isdir(dst) and not os.path.islink(dst) and _looks_like_snapshot(dst)):
        raise ConversionError(f"DST {dst!r} is {kind} that is not a OneFlow snapshot directory: refusing to "
                              "replace it, even with --force")


def _write_atomically(dst: str, build: Callable[[str], None], force: bool) -> None:
    """``build(tmp)`` writes a hidden sibling path of ``dst``, which then replaces it (only with ``force``);
    on failure nothing remains (nor the parent directories created for it)."""
    write_atomically(dst, build, force, lambda: ConversionError(
        f"DST {dst!r} appeared during the conversion; nothing was replaced"))


def _save(dst: str, fmt: str, tensors: dict[str, torch.Tensor], data_types: dict[str, str], legacy: bool,
          force: bool) -> None:
    if fmt == "snapshot":
        arrays, types = _snapshot_arrays(tensors, data_types, dst)
        if os.path.isdir(dst) and not is_occupied(dst) and not os.path.islink(dst):
            _write_snapshot(dst, arrays, types, legacy)  # an empty directory is written into, as OneFlow did
        else:
            _write_atomically(dst, lambda tmp: _write_snapshot(tmp, arrays, types, legacy), force)
    elif fmt == "safetensors":
        st = _safetensors()
        odd = {k: v for k, v in data_types.items() if k in tensors and v == "kChar"}
        metadata = {_DATA_TYPES_KEY: json.dumps(odd, sort_keys=True)} if odd else None

        def build(tmp: str) -> None:
            save_safetensors(st.torch.save_file, tensors, tmp, metadata)
            _fsync_file(tmp)

        _write_atomically(dst, build, force)
    else:
        def build(tmp: str) -> None:
            save_torch(tensors, tmp, fsync=True)

        _write_atomically(dst, build, force)


def _write_snapshot(path: str, arrays: dict[str, np.ndarray], types: dict[str, str], legacy: bool) -> None:
    try:
        write_snapshot(path, arrays, legacy=legacy, data_types=types)
    except SnapshotError as exc:
        raise ConversionError(f"cannot write snapshot {path}: {exc}") from exc


# ---------------------------------------------------------------------------------------------- convert


def convert(src: str | os.PathLike[str], dst: str | os.PathLike[str], *, src_format: str | None = None,
            dst_format: str | None = None, legacy: bool = False, like: str | os.PathLike[str] | None = None,
            shapes: str | Mapping[str, Any] | None = None, assume_float32_flat: bool = False,
            rename_for_torch: bool = False, force: bool = False,
            names: str | os.PathLike[str] | bool | None = None, weights_only: bool = False) -> ConversionResult:
    """Convert the checkpoint ``src`` into ``dst`` and return what was written.

    Formats come from the paths (a directory is a snapshot; ``.safetensors``, ``.pt``/``.pth``) unless given.
    ``legacy`` writes a snapshot without ``meta`` files (the v0.1–v0.2 model IO). ``like`` (a checkpoint path)
    and ``shapes`` (:func:`parse_shapes`) give the layout of legacy variables and check every variable they
    name. ``rename_for_torch`` writes keys as :func:`~flowtorch._src.migrate.names.unique_torch_names` gives
    them. ``names`` (a path) renames keys by a names map (``oneflow_names.json``: module attribute → OneFlow
    name; backwards when SRC is a snapshot); by default (``None``) the ``oneflow_names.json`` beside a weights
    file converted to a snapshot is applied (``True``: it must be there), ``False`` applies none. Keys the map
    lacks, and entries naming tensors SRC lacks, are logged as warnings. ``dst`` is never replaced unless
    ``force``; a failure leaves no partial ``dst``. ``weights_only`` leaves out the training's state
    (:func:`~flowtorch._src.migrate.names.optimizer_state`: the optimizers' slots, the step counters).
    """
    src, dst = os.fspath(src), os.fspath(dst)
    if not os.path.exists(src):
        raise ConversionError(f"SRC {src!r}: no such file or directory")
    src_fmt = detect_format(src, "SRC", src_format)
    dst_fmt = detect_format(dst, "DST", dst_format)
    if legacy and dst_fmt != "snapshot":
        raise ConversionError(f"--legacy writes a legacy snapshot directory; DST {dst!r} is a {dst_fmt} file")
    if os.path.lexists(dst) and os.path.realpath(src) == os.path.realpath(dst):
        raise ConversionError(f"SRC and DST are the same path: {src!r}")
    _check_target(dst, dst_fmt, force)
    if rename_for_torch and names not in (None, False):
        raise ConversionError("--rename-for-torch and --names both rename the keys; pass one")
    names_map = _names_map(src, src_fmt, dst_fmt, False if rename_for_torch else names)

    expected: dict[str, VariableSpec] = {}
    if like is not None:
        expected.update(read_layout(os.fspath(like)))
    if shapes is not None:
        expected.update(parse_shapes(shapes))
    tensors, data_types = load_checkpoint(src, src_fmt, expected=expected, assume_float32_flat=assume_float32_flat)
    if weights_only:
        dropped = optimizer_state(tensors)
        tensors = {k: v for k, v in tensors.items() if k not in dropped}
        data_types = {k: v for k, v in data_types.items() if k not in dropped}
        if not tensors:
            raise ConversionError(f"--weights-only: SRC {src!r} holds no weights, only the training's state")
        log.info("--weights-only: left out %d variables of the training's state (optimizer slots, step counters)%s",
                 len(dropped), f": {sorted(dropped)[:10]}" if dropped else "")
    unused = sorted(set(expected) - set(tensors))
    if unused:
        log.info("--like/--shapes name %d variables that %s does not hold: %s", len(unused), src, unused[:10])

    if names_map is not None:
        keys = _renamed(tensors, names_map[0], names_map[1], src)
    else:
        keys = unique_torch_names(tensors) if rename_for_torch else {name: name for name in tensors}
    out = {keys[name]: t for name, t in tensors.items()}
    out_types = {keys[name]: v for name, v in data_types.items()}
    _save(dst, dst_fmt, out, out_types, legacy, force)
    variables = tuple(ConvertedVariable(name, keys[name], tuple(t.shape), _show(t.dtype),
                                        math.prod(t.shape) * t.element_size()) for name, t in tensors.items())
    return ConversionResult(src, dst, src_fmt, dst_fmt, legacy, variables,
                            names_map[1] if names_map is not None else None)
