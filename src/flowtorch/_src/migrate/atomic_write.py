"""Writing a destination so that a failure leaves it as it was: an exception, a full disk, Ctrl-C.

The new content is built in a hidden temporary path and moved into place only once it is complete.
``convert-checkpoint`` writes one file or one snapshot folder (:func:`write_atomically`). ``export`` writes a few
files into a folder that may already hold a previous export (:func:`write_into_folder`). The moves run with
Ctrl-C held (``runtime.interrupts``): an interrupt that arrives during them is raised once they are done.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
from collections.abc import Callable, Sequence

from flowtorch._src.io.safe_paths import fsync_dir, hidden_temp_name, missing_ancestors
from flowtorch._src.runtime.interrupts import deferred_interrupts

__all__ = ["publish", "write_atomically", "write_into_folder"]

log = logging.getLogger("flowtorch")

_BACKUP = ".previous"  # inside the staging folder: the files a write replaces, until it is done


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def publish(tmp: str, dst: str, replace: bool, appeared: Callable[[], Exception]) -> None:
    """Move the finished ``tmp`` onto ``dst``; never over an existing ``dst`` unless ``replace``.
    ``appeared()`` is the error raised when ``dst`` was created by someone else meanwhile."""
    if replace and os.path.lexists(dst):
        if os.path.isdir(dst) and not os.path.islink(dst):
            backup = os.path.join(os.path.dirname(dst), hidden_temp_name(dst))
            with deferred_interrupts():  # dst is missing between the two renames
                os.rename(dst, backup)
                try:
                    os.rename(tmp, dst)
                except BaseException:
                    os.rename(backup, dst)
                    raise
            shutil.rmtree(backup, ignore_errors=True)
        else:
            os.replace(tmp, dst)
        return
    if os.path.isdir(tmp):
        try:
            os.rename(tmp, dst)  # fails on a non-empty dst
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise appeared() from exc
            raise
        return
    try:
        os.link(tmp, dst)  # atomic and never overwrites
    except FileExistsError as exc:
        raise appeared() from exc
    except OSError:  # no hard links on this file system
        if os.path.lexists(dst):
            raise appeared() from None
        os.replace(tmp, dst)
        return
    os.unlink(tmp)


def write_atomically(dst: str, build: Callable[[str], None], replace: bool,
                     appeared: Callable[[], Exception]) -> None:
    """``build(tmp)`` writes a hidden sibling path of ``dst`` (a file, or a folder it creates), which is then
    published (:func:`publish`); on failure nothing remains, nor the parent folders created for it."""
    parent = os.path.dirname(os.path.abspath(dst))
    created = missing_ancestors(parent)
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, hidden_temp_name(dst))
    try:
        build(tmp)
        publish(tmp, dst, replace, appeared)
    except BaseException:
        _remove(tmp)
        for d in created:  # innermost first; stop at the first one that is not empty
            try:
                os.rmdir(d)
            except OSError:
                break
        raise


def _fsync_files(folder: str, names: Sequence[str]) -> None:
    for name in names:
        if os.path.isdir(os.path.join(folder, name)):  # a folder: its builder synced its files
            fsync_dir(os.path.join(folder, name))
            continue
        with open(os.path.join(folder, name), "rb") as f:
            os.fsync(f.fileno())


def _move_in(staging: str, folder: str, names: Sequence[str], stale: Sequence[str]) -> None:
    """Rename ``staging/<names>`` into ``folder``, the files they replace and ``folder/<stale>`` first moved
    to a backup inside ``staging``; if a rename fails, every file is put back where it was."""
    backup = os.path.join(staging, _BACKUP)
    os.mkdir(backup)
    saved: list[str] = []
    placed: list[str] = []
    try:
        for name in dict.fromkeys([*names, *stale]):
            if os.path.lexists(os.path.join(folder, name)):
                os.rename(os.path.join(folder, name), os.path.join(backup, name))
                saved.append(name)
        for name in names:
            os.rename(os.path.join(staging, name), os.path.join(folder, name))
            placed.append(name)
    except BaseException:
        for name in placed:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))
        for name in saved:  # each one it can: a file not put back stays in the backup (see write_into_folder)
            with contextlib.suppress(OSError):
                os.rename(os.path.join(backup, name), os.path.join(folder, name))
        raise


def write_into_folder(folder: str, build: Callable[[str], None], names: Sequence[str], stale: Sequence[str] = (),
                      appeared: Callable[[], Exception] | None = None) -> None:
    """Put the files ``names`` that ``build(tmp)`` writes into the existing empty folder ``tmp`` into
    ``folder``, replacing the files of those names and removing the entries named in ``stale``; the folder's
    other entries, and the folder itself (inode, mode, owner), are kept.

    A missing ``folder`` is created from the finished temporary folder with one rename (missing parents are
    created). Otherwise the temporary folder is made beside ``folder`` (inside it when ``folder`` is a mount
    point, so that the renames stay on one file system, or its parent is read-only) and its files are moved in
    only once all are written and synced: ``folder`` holds either its old files or all the new ones, never a
    mix (if putting an old file back fails too, the old files are kept in the temporary folder, and logged).
    """
    folder = os.path.abspath(folder)

    def make(tmp: str) -> None:
        os.mkdir(tmp)
        build(tmp)
        _fsync_files(tmp, names)
        fsync_dir(tmp)

    if not os.path.isdir(folder):
        def taken() -> Exception:
            return appeared() if appeared is not None else FileExistsError(
                errno.EEXIST, "created by another process during the write; nothing was replaced", folder)
        write_atomically(folder, make, replace=False, appeared=taken)
        fsync_dir(os.path.dirname(folder))
        return
    parent = os.path.dirname(folder)
    beside = os.stat(parent).st_dev == os.stat(folder).st_dev and os.access(parent, os.W_OK | os.X_OK)
    tmp = os.path.join(parent if beside else folder, hidden_temp_name(folder, [*names, *stale]))
    moved = False
    try:
        make(tmp)
        with deferred_interrupts():
            _move_in(tmp, folder, names, stale)
            moved = True
        fsync_dir(folder)
    finally:
        backup = os.path.join(tmp, _BACKUP)
        kept = [] if moved or not os.path.isdir(backup) else sorted(os.listdir(backup))
        if kept:  # the moves failed and some previous files could not be put back: never delete them
            log.error("%s: the previous %s could not be put back after the write failed; they are in %s",
                      folder, ", ".join(kept), backup)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
