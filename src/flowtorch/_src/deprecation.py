"""OneFlow's deprecated names (``@oneflow_deprecate`` in v0.3.4) and ``flow.is_deprecated``.

A deprecated name that shares its function with a current one (``flow.name_scope`` and
``flow.scope.namespace``) gets its own thin wrapper, so ``flow.is_deprecated`` tells them apart as OneFlow did.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["deprecated_alias", "is_deprecated", "mark_deprecated"]

log = logging.getLogger("flowtorch")
F = TypeVar("F", bound=Callable[..., Any])
_DEPRECATED: set[Any] = set()


def mark_deprecated(obj: F) -> F:
    """Record ``obj`` as one of OneFlow's deprecated names and return it."""
    _DEPRECATED.add(obj)
    return obj


def deprecated_alias(fn: Callable[..., Any], old: str, new: str, *, notice: bool = False) -> Callable[..., Any]:
    """A deprecated name for ``fn``: a wrapper of its own, logging once (WARNING) where OneFlow printed a notice."""
    noticed = False

    @functools.wraps(fn)
    def alias(*args: Any, **kwargs: Any) -> Any:
        nonlocal noticed
        if notice and not noticed:
            noticed = True
            log.warning("%s will be removed in the future, use %s instead (as OneFlow said)", old, new)
        return fn(*args, **kwargs)

    alias.__qualname__ = alias.__name__ = old.rsplit(".", 1)[-1]
    return mark_deprecated(alias)


def is_deprecated(func_or_class: Any) -> bool:
    """``flow.is_deprecated(func_or_class)``: whether it is one of OneFlow's deprecated names
    (``oneflow_export.py``)."""
    return isinstance(func_or_class, Hashable) and func_or_class in _DEPRECATED
