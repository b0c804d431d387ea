"""Writing the weights files of ``export`` and ``convert-checkpoint`` so that a failed write is an ``OSError``
(``[Errno 28] No space left on device: 'model.safetensors'``), which the commands report in one line.

Neither writer says so itself: ``torch.save`` into a full disk raises a RuntimeError from its C++ writer
("[enforce fail at inline_container.cc:…] unexpected pos …"), safetensors a ``SafetensorError`` holding its
Rust I/O error ("I/O error: No space left on device (os error 28)").
"""

from __future__ import annotations

import errno
import io
import os
import re
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["as_os_error", "save_safetensors", "save_torch"]

_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def as_os_error(exc: Exception, path: str) -> OSError:
    """``exc``, a writer's error that carries the system's error number as ``(os error N)``, as the OSError a
    Python write would have raised (EIO when it carries none)."""
    found = _OS_ERROR.search(str(exc))
    code = int(found.group(1)) if found else errno.EIO
    return OSError(code, os.strerror(code) if found else f"{os.strerror(code)} ({exc})", path)


def save_torch(obj: Any, path: str | os.PathLike[str], fsync: bool = False) -> None:
    """``torch.save(obj, path)``, serialized in memory first, then written by Python, so that a full disk is
    an OSError naming the file."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    with open(path, "wb") as f:
        f.write(buffer.getbuffer())
        f.flush()
        if fsync:
            os.fsync(f.fileno())


def save_safetensors(save_file: Callable[..., None], tensors: dict[str, torch.Tensor], path: str,
                     metadata: dict[str, str] | None = None) -> None:
    """``save_file(tensors, path, metadata)`` (safetensors.torch's) with its write errors as OSError. The file
    keeps the mode the umask gives a new file (safetensors makes it 0600); ``path`` must not exist."""
    with open(path, "xb"):
        mode = os.stat(path).st_mode
    try:
        save_file(tensors, path, metadata=metadata)
    except Exception as exc:
        if type(exc).__name__ != "SafetensorError":
            raise
        raise as_os_error(exc, path) from exc
    os.chmod(path, mode)
