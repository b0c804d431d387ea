"""OneFlow's auto names: one process-wide counter and the ``scope.namespace`` prefix stack.

OneFlow 0.x (``framework/id_util.py``) hands out ``<prefix><n>`` from a single counter that every prefix
shares and nothing resets; flowtorch keeps that, so a program gets the same names it got in OneFlow.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator

from flowtorch._src.deprecation import deprecated_alias

_counter = itertools.count()
_lock = threading.Lock()
_namespaces: list[str] = []


def unique_id() -> int:
    with _lock:
        return next(_counter)


def unique_str(prefix: str) -> str:
    """``prefix`` followed by the next value of the global counter, e.g. ``Relu_2``."""
    return f"{prefix}{unique_id()}"


def namespace_prefix() -> str:
    return "".join(f"{n}-" for n in _namespaces)


def scoped(name: str) -> str:
    """Apply the active ``scope.namespace`` prefixes (``a-b-name``)."""
    return namespace_prefix() + name


def op_name(prefix: str, name: str | None) -> str:
    """The op name OneFlow gives: the user's ``name`` or ``<prefix><n>``, under the namespace."""
    return scoped(name if name is not None else unique_str(prefix))


@contextlib.contextmanager
def namespace(name: str) -> Iterator[None]:
    """``flow.scope.namespace(name)`` / ``flow.name_scope(name)``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"scope.namespace: name must be a non-empty str; received {name!r}")
    _namespaces.append(name)
    try:
        yield
    finally:
        _namespaces.pop()


# ``flow.name_scope`` / ``experimental.name_scope`` / ``deprecated.variable_scope``: one deprecated function in
# OneFlow (``experimental/name_scope.py``), which printed a notice pointing at ``scope.namespace``
name_scope = deprecated_alias(namespace, "oneflow.name_scope", "oneflow.scope.namespace", notice=True)
