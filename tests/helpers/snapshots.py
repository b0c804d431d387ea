"""Helpers shared by the snapshot and checkpoint tests: hand-written snapshot files and variable values."""

from __future__ import annotations

import os

import numpy as np

from flowtorch._src.io.checkpoint import get_all_variables


def hand_write(root, name: str, arr: np.ndarray, meta: str | None) -> str:
    """Lay out one variable the way OneFlow's writer does, without flowtorch's writer."""
    var_dir = os.path.join(root, name)
    os.makedirs(var_dir)
    with open(os.path.join(var_dir, "out"), "wb") as f:
        f.write(arr.tobytes())
    if meta is not None:
        with open(os.path.join(var_dir, "meta"), "w") as f:
            f.write(meta)
    return var_dir


def values() -> dict[str, np.ndarray]:
    """Every session variable's current value."""
    return {name: blob.numpy() for name, blob in get_all_variables().items()}


def assert_unchanged(before: dict[str, np.ndarray]) -> None:
    """Every variable still holds the value it had in ``before`` (and no variable came or went)."""
    after = values()
    assert after.keys() == before.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
