"""Where ``flowtorch.export`` writes: the checks on OUTDIR, made before ``flowtorch export`` runs the program
(so a bad OUTDIR never costs its training), and how a previous export is recognised. No torch here: the
command checks its arguments before loading it."""

from __future__ import annotations

import os
import re

from flowtorch._src.io.safe_paths import NotRegularFileError, open_regular, stat_kind

__all__ = ["DATA_PACKAGE", "EXPORT_FILES", "WEIGHT_FORMATS", "check_outdir", "is_previous_export"]

WEIGHT_FORMATS = {"safetensors": "model.safetensors", "torch": "model.pt"}
# Every file an export may write: the next export into the same folder replaces or removes them all.
DATA_PACKAGE = "data"  # the folder holding a job's data pipeline (migrate.export_data)
EXPORT_FILES = ("model.py", *WEIGHT_FORMATS.values(), "oneflow_names.json", "optimizer.pt", DATA_PACKAGE)
# The first line of a model.py that export_source.module_source wrote.
_MODEL_HEADER = re.compile(r'"""Job .* exported from flowtorch to plain PyTorch')


def check_outdir(outdir: str | os.PathLike[str], *, force: bool = False, script: str | None = None) -> str:
    """The absolute folder an export into ``outdir`` writes (a link to a folder followed), once checked: the
    ``flowtorch export`` command checks it before the program runs, so its training is never lost to a bad
    OUTDIR. A missing folder is created with its parents. Raises, with a one-line message:
    ``ValueError`` for ``""`` or for the folder of the program ``script`` (the export's ``model.py`` would
    sit among, and could replace, the program's own files); ``NotADirectoryError`` when ``outdir`` or the
    ancestor it would be created in is not a folder; ``PermissionError`` when it cannot be written;
    ``FileExistsError`` for a folder holding files but no previous export, unless ``force``.
    """
    shown = os.fspath(outdir)
    if shown == "":
        raise ValueError("OUTDIR is empty: name the folder to write the export to")
    path = os.path.abspath(shown)
    if not os.path.lexists(path):
        ancestor = os.path.dirname(path)
        while not os.path.lexists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor):
            raise NotADirectoryError(f"OUTDIR {shown!r} cannot be created: {ancestor!r} is {stat_kind(ancestor)}, "
                                     "not a folder")
        if not os.access(ancestor, os.W_OK | os.X_OK):
            raise PermissionError(f"OUTDIR {shown!r} cannot be created: no permission to write in {ancestor!r}")
        return path
    if not os.path.isdir(path):
        raise NotADirectoryError(f"OUTDIR {shown!r} is {stat_kind(path)}, not a folder")
    folder = os.path.realpath(path)
    if script is not None and folder in {os.path.realpath(os.path.dirname(os.path.abspath(script))),
                                         os.path.dirname(os.path.realpath(script))}:
        raise ValueError(f"OUTDIR {shown!r} is the folder of the program {script!r}: the export's files (model.py "
                         "...) would sit among the program's own and could replace them; name a sub-folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"OUTDIR {shown!r}: no permission to write in it")
    if not force and os.listdir(folder) and not is_previous_export(folder):
        raise FileExistsError(f"OUTDIR {shown!r} holds files but no previous export (no model.py written by "
                              "flowtorch export); force it (--force, force=True) to write the export's files "
                              "among them, keeping the others")
    return folder


def is_previous_export(folder: str) -> bool:
    """True when ``folder/model.py`` is a regular file that ``flowtorch export`` wrote."""
    try:
        with open_regular(os.path.join(folder, "model.py")) as f:
            first = f.readline(200)
    except (NotRegularFileError, OSError):
        return False
    return _MODEL_HEADER.match(first.decode("utf-8", "replace")) is not None
