"""File-system helpers for snapshots: path and file checks for reading untrusted directory trees,
and the directory steps of a crash-safe write.

They know nothing about snapshots: the path checks return why a path is unsafe (``None`` when it is
fine) and the others raise ``OSError``, so the caller can word the error for its format.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Sequence
from typing import BinaryIO

from flowtorch._src.errors import NotRegularFileError

__all__ = [
    "NotRegularFileError", "component_problem", "escape_problem", "file_kind", "is_occupied", "open_regular",
    "stat_kind", "write_tree",
]  # fmt: skip

# O_NONBLOCK: opening a FIFO with no writer must not wait for one (it is refused right after).
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """``"a regular file"``, ``"a named pipe (FIFO)"``, ``"a directory"`` … for an ``st_mode``."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), f"a special file (mode {stat.filemode(mode)})")


def stat_kind(path: str) -> str | None:
    """What ``path`` is (:func:`file_kind`, links followed), ``None`` when nothing is there."""
    try:
        return file_kind(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return "a dangling symbolic link" if os.path.islink(path) else None
    except OSError as exc:
        return f"a path that cannot be examined ({exc.strerror})"


def component_problem(name: str) -> str | None:
    """Why ``name`` is not a single, non-empty path component (``None`` when it is one)."""
    if name == "":
        return "it is empty"
    if name in (".", ".."):
        return f"{name!r} names the {'current' if name == '.' else 'parent'} directory"
    for sep in sorted({"/", os.sep, os.altsep or "/"}):
        if sep in name:
            return f"it contains the path separator {sep!r}"
    if "\0" in name:
        return "it contains a NUL character"
    return None


def escape_problem(root: str, path: str) -> str | None:
    """Why ``path`` does not resolve (symbolic links followed) to a path strictly inside ``root``."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    try:
        inside = real != real_root and os.path.commonpath([real_root, real]) == real_root
    except ValueError:  # different drives on Windows
        inside = False
    return None if inside else f"{path} resolves to {real}, which is not inside {real_root}"


def open_regular(path: str) -> BinaryIO:
    """Open ``path`` for binary reading if it is a regular file (links followed).

    Anything else raises :class:`NotRegularFileError` ("… is a named pipe (FIFO), not a regular file")
    without blocking: a special file is refused from ``stat`` before it is opened, and the opened
    descriptor is checked again with ``fstat`` in case the path was swapped in between.
    """
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        fd = os.open(path, _READ_FLAGS)
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISREG(mode):
                return open(fd, "rb", closefd=True)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    raise NotRegularFileError(f"it is {file_kind(mode)}, not a regular file")


# ---------------------------------------------------------------------------------------------- writing


def is_occupied(path: str) -> bool:
    """True when ``path`` is a non-empty directory or anything but a directory."""
    if os.path.isdir(path):
        with os.scandir(path) as it:
            return next(it, None) is not None
    return os.path.lexists(path)


def fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # not supported for directories on every platform
    finally:
        os.close(fd)


def missing_ancestors(path: str) -> list[str]:
    """``path`` and its ancestors that do not exist, innermost first."""
    missing: list[str] = []
    cur = path
    while cur and not os.path.exists(cur):
        missing.append(cur)
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    return missing


def hidden_temp_name(target: str, taken: Sequence[str] = ()) -> str:
    while True:
        name = f".{os.path.basename(target)}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
        if name not in taken:
            return name


def move_entries(src: str, dst: str, names: Sequence[str]) -> None:
    """Rename each ``src/name`` to ``dst/name`` in order; on failure remove those moved and re-raise."""
    moved: list[str] = []
    try:
        for name in names:
            os.replace(os.path.join(src, name), os.path.join(dst, name))
            moved.append(name)
    except BaseException:
        for name in moved:
            path = os.path.join(dst, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        raise


def write_tree(target: str, shown: str, build: Callable[[str], None], names: Sequence[str],
               refuse_occupied: Callable[[], None]) -> None:
    """Create the directory ``target`` with the entries ``names`` (the completion marker last), which
    ``build(tmp)`` writes into a fresh hidden directory; ``target`` must be missing or an empty directory.

    A missing ``target`` is built as a sibling renamed onto it at the end (missing parents are created).
    An existing empty directory is kept (inode, mode, owner), as a program writing into it would:
    ``PermissionError`` (EACCES, naming ``shown``) when it is not writable; the tree is built inside it,
    which keeps the renames on one file system (a mount point included) and needs no write permission
    on the parent, then each entry is renamed into place in order. On failure ``target`` is left as found.
    ``refuse_occupied()`` must raise when ``target`` is occupied: it runs when ``target`` was filled
    since the caller checked it.
    """
    if os.path.isdir(target):
        if not os.access(target, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, "Permission denied: cannot write into the directory", shown)
        tmp_name = hidden_temp_name(target, names)
        tmp = os.path.join(target, tmp_name)
        os.mkdir(tmp)
        try:
            build(tmp)
            fsync_dir(tmp)
            if os.listdir(target) != [tmp_name]:
                refuse_occupied()
                raise FileExistsError(errno.ENOTEMPTY, "Directory is no longer empty", shown)
            move_entries(tmp, target, names)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        fsync_dir(target)
        return

    parent = os.path.dirname(target)
    created_parents = missing_ancestors(parent)
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, hidden_temp_name(target))
    os.mkdir(tmp)
    try:
        build(tmp)
        fsync_dir(tmp)
        try:
            os.replace(tmp, target)  # POSIX rename replaces an empty directory atomically
        except OSError:
            refuse_occupied()
            raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for d in created_parents:  # innermost first; stop at the first non-empty one
            try:
                os.rmdir(d)
            except OSError:
                break
        raise
    fsync_dir(parent)
