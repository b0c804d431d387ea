"""flowtorch: OneFlow 0.x's lazy ``global_function`` API on PyTorch.

``import flowtorch as flow`` gives OneFlow's names; ``python -m flowtorch script.py`` runs an unedited
``import oneflow`` program. Everything public is re-exported from ``flowtorch._src`` by ``flowtorch._facade``,
which the first use of a name loads (PEP 562); its names are the one list of what ``flowtorch`` exports
(``__all__`` and ``dir()`` read it): ``import flowtorch`` alone imports no torch, so
``flowtorch check`` and the command line start fast.
"""

from __future__ import annotations

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"


def _load_facade() -> _Any:  # (importing it sets ``flowtorch._facade`` to the module)
    return _importlib.import_module("flowtorch._facade")


def __getattr__(name: str) -> _Any:
    if name == "__all__":  # the facade is the one list of top-level names
        return sorted(_public(_load_facade()))
    if name.startswith("__") or name == "_facade":
        raise AttributeError(f"module 'flowtorch' has no attribute {name!r}")
    if name.endswith("Error"):  # flowtorch's error types, named as they print (flowtorch.ArgumentError)
        errors = _importlib.import_module("flowtorch._src.errors")
        for error in errors.ERROR_TYPES:
            if error.__name__ == name:
                return error
    facade = _load_facade()
    try:
        value = getattr(facade, name)
    except AttributeError:  # not a flowtorch name (or asked while the facade itself is loading)
        raise AttributeError(f"module 'flowtorch' has no attribute {name!r}") from None
    if getattr(facade, "LOADED", False):
        globals().update({k: getattr(facade, k) for k in _public(facade)})
    return value


__getattr__.lazy_facade = True  # type: ignore[attr-defined]  # flowtorch check's name index: not an open namespace


def _public(facade: _Any) -> set[str]:
    return {k for k in vars(facade) if not k.startswith("_") and k != "LOADED"}


def __dir__() -> list[str]:
    return sorted(set(globals()) | _public(_load_facade()))
