"""``flow.experimental.get_interface_blob_value`` / ``set_interface_blob_value``: read or write a job's
interface blob by op name between calls (OneFlow ``experimental/interface_op_read_and_write.py``).

The interface blobs with a value between calls are the variables (``flow.get_variable``'s op name is the
variable's name); as in OneFlow, the session's jobs are built first (their variables created).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from flowtorch._src import session as session_mod


def _variable(op_name: Any, what: str) -> Any:
    session = session_mod.default_session()
    session.sync()
    if not session.is_running:
        session.start()  # OneFlow builds the session's jobs on first use of an interface blob
    if not isinstance(op_name, str) or op_name not in session.variables:
        raise KeyError(f"flow.experimental.{what}: no interface blob named {op_name!r}; the readable and writable "
                       "ones are the session's variables (by get_variable name)")
    return session.variables[op_name]


def get_interface_blob_value(op_name: str) -> np.ndarray:
    """The current value of variable ``op_name`` (a copy)."""
    return _variable(op_name, "get_interface_blob_value").numpy()


def set_interface_blob_value(op_name: str, ndarray: np.ndarray) -> None:
    """Copy ``ndarray`` (the variable's shape and dtype) into variable ``op_name``."""
    _variable(op_name, "set_interface_blob_value")
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"flow.experimental.set_interface_blob_value: ndarray must be a numpy.ndarray; received "
                        f"{type(ndarray).__name__}")
    session_mod.default_session().variables.assign(op_name, ndarray, what="flow.experimental.set_interface_blob_value")
