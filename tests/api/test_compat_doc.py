"""The compat table (src/flowtorch/_src/migrate/compat_table.txt, rendered as docs/compat.md) stays true:
supported/partial symbols and their aliases resolve in flowtorch, missing ones are not importable stubs,
and (when the spec is beside the checkout) every api-surface symbol is listed."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import flowtorch as flow
from flowtorch._src import alias
from flowtorch._src.capture.blob import Blob
from flowtorch._src.migrate.compat_table import SECTIONS
from flowtorch._src.ops.user_op_builder import UserOp, UserOpConfBuilder, UserOpModuleBuilder
from flowtorch._src.runtime.results import LocalBlob

ROOT = Path(__file__).resolve().parents[2]
ROWS = [(row.symbol, row.status) for section in SECTIONS for row in section.rows]
ALIASES = [(alias, row.status) for section in SECTIONS for row in section.rows for alias in row.aliases]
# `a += b` on a blob is Python's fallback to __add__ (blobs are immutable handles).
SPECIAL: dict[str, object] = {"LocalBlob": LocalBlob, "Blob.__iadd__": Blob.__add__}
# `X().m` where X needs arguments: m is looked up on what X returns (and on the op it builds).
BUILT_BY = {"user_op_builder": (UserOpConfBuilder, UserOp), "user_op_module_builder": (UserOpModuleBuilder, UserOp)}


def _resolve_internal(symbol: str) -> object:
    """``python.framework.id_util.UniqueStr`` / ``_oneflow_internal``: OneFlow's module paths, under the alias."""
    parts = symbol.split(".")
    alias.install()
    try:
        for cut in range(len(parts), 0, -1):
            try:
                obj: object = importlib.import_module("oneflow." + ".".join(parts[:cut]))
            except ImportError:
                continue
            for part in parts[cut:]:
                obj = getattr(obj, part)
            return obj
        raise AttributeError(symbol)
    finally:
        alias.uninstall()


def resolve(symbol: str) -> object:
    if symbol in SPECIAL:
        return SPECIAL[symbol]
    if symbol.split(".")[0] in ("python", "_oneflow_internal"):
        return _resolve_internal(symbol)
    if symbol.startswith("Blob."):
        return getattr(Blob, symbol.split(".", 1)[1])
    if symbol.startswith("oneflow_api."):  # its own top-level module under the alias
        return getattr(importlib.import_module("flowtorch.oneflow_api"), symbol.split(".", 1)[1])
    if symbol.split("(")[0] in BUILT_BY:
        name, _, method = symbol.partition("().")
        if not method:
            return getattr(flow, name)
        return next(getattr(c, method) for c in BUILT_BY[name] if hasattr(c, method))
    obj: object = flow
    parts = symbol.replace("tp.", "typing.").split(".")
    for part in parts:
        call = part.endswith("()")
        obj = getattr(obj, part[:-2] if call else part)
        if call and not isinstance(obj, type):  # `X().m` of a class: the method on the class
            obj = obj()
    return obj


def test_table_is_not_empty() -> None:
    assert len(ROWS) > 100


@pytest.mark.parametrize("symbol", [s for s, status in ROWS + ALIASES if status != "missing"])
def test_supported_and_partial_symbols_resolve(symbol: str) -> None:
    value = resolve(symbol)  # (raises AttributeError when absent)
    assert value is not None or symbol in ("INVALID_SPLIT_AXIS", "INVALID_BATCH_AXIS")  # OneFlow's "no axis"


@pytest.mark.parametrize("symbol", [s for s, status in ROWS + ALIASES if status == "missing"])
def test_missing_symbols_fail_clearly(symbol: str) -> None:
    with pytest.raises((AttributeError, NotImplementedError)):
        obj = resolve(symbol)
        if callable(obj):
            obj("x")


def test_every_api_surface_table_symbol_is_listed() -> None:
    spec = ROOT.parent / "shared" / "spec" / "api-surface.md"
    if not spec.exists():
        pytest.skip("the spec is not beside this checkout")
    listed = {s for s, _ in ROWS}
    table = re.findall(r"^\| \d+ \| \d+ \| `([^`]+)` \|", spec.read_text(), re.MULTILINE)
    missing = [s for s in table if s not in listed]
    assert not missing, missing
