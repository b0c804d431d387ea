"""The ``oneflow`` import alias: ``import oneflow`` / ``import oneflow.typing`` give flowtorch's modules
(and ``import oneflow_api`` gives :mod:`flowtorch.oneflow_api`). OneFlow's internal module paths
(``oneflow.python.ops.nn_ops``, ``oneflow._oneflow_internal``) are built by :mod:`oneflow_modules`.

A meta-path finder, installed only by the entry points (``python -m flowtorch script.py``, ``flowtorch
run``, the pytest plugin's ``--oneflow-alias``, or ``FLOWTORCH_ONEFLOW_ALIAS=1`` through the installed
``.pth`` hook). Nothing named ``oneflow`` is ever installed, so a real OneFlow install is untouched and a
plain ``import oneflow`` elsewhere behaves as before.
"""

from __future__ import annotations

import collections
import collections.abc
import functools
import importlib
import importlib.abc
import importlib.machinery
import logging
import sys
import types
from collections.abc import Sequence

from flowtorch._src.envvars import env_flag

# OneFlow 0.5+ kept the 0.x API under ``oneflow.compatible.single_client``.
_REDIRECTS = {"oneflow.compatible.single_client": "flowtorch"}
# OneFlow's own modules, which flowtorch has no files for: made by flowtorch._src.oneflow_modules (imported
# only when a program asks, so the entry points that install the alias stay light).
_INTERNAL = ("oneflow.python", "oneflow._oneflow_internal")


class _ExistingModuleLoader(importlib.abc.Loader):
    def __init__(self, module: types.ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _OneFlowLoader(_ExistingModuleLoader):
    """``import oneflow``: flowtorch, with ``oneflow.python`` and ``oneflow._oneflow_internal`` bound on it, as
    importing OneFlow imported them (programs read ``flow._oneflow_internal.X`` with no import of their own)."""

    def exec_module(self, module: types.ModuleType) -> None:
        for name in _INTERNAL:
            importlib.import_module(name)


class OneFlowAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``oneflow[.x]`` to ``flowtorch[.x]`` (the same module objects)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname == "oneflow_api":  # OneFlow 0.3's C++ module, imported by programs for its blob classes
            return importlib.machinery.ModuleSpec(fullname, _ExistingModuleLoader(
                importlib.import_module("flowtorch.oneflow_api")))
        if fullname != "oneflow" and not fullname.startswith("oneflow."):
            return None
        if fullname in _INTERNAL or fullname.startswith("oneflow.python."):
            spec: importlib.machinery.ModuleSpec = importlib.import_module(
                "flowtorch._src.oneflow_modules").find_spec(fullname)
            return spec
        if fullname == "oneflow.compatible":
            module = types.ModuleType("oneflow.compatible")
            module.__path__ = []  # a package, so single_client can be imported from it
        else:
            target_name = _REDIRECTS.get(fullname, "flowtorch" + fullname[len("oneflow"):])
            try:
                module = importlib.import_module(target_name)
            except ModuleNotFoundError as exc:
                if exc.name != target_name:
                    raise
                raise ModuleNotFoundError(
                    f"No module named {fullname!r}: flowtorch (standing in for oneflow) has no {target_name!r}; "
                    "see docs/compat.md for what is supported", name=fullname) from None
        _name_misses(module, fullname)
        loader = _OneFlowLoader(module) if fullname == "oneflow" else _ExistingModuleLoader(module)
        return importlib.machinery.ModuleSpec(fullname, loader, is_package=hasattr(module, "__path__"))


_finder = OneFlowAliasFinder()
_named: dict[str, tuple[types.ModuleType, object]] = {}  # module name: (module, its own __getattr__ or None)


def _name_misses(module: types.ModuleType, alias_name: str) -> None:
    """A name the program asks of ``oneflow.nn`` and flowtorch lacks says ``module 'oneflow.nn' has no
    attribute 'reluu'``, the module as the program wrote it, not flowtorch's (a module ``__getattr__``,
    PEP 562, wrapping the module's own; :func:`uninstall` puts it back)."""
    if module.__name__ in _named or not module.__name__.startswith("flowtorch"):
        return
    own = vars(module).get("__getattr__")
    _named[module.__name__] = (module, own)

    @functools.wraps(own or _name_misses)
    def __getattr__(name: str) -> object:
        if own is not None:
            try:
                value = own(name)  # type: ignore[operator]
            except AttributeError as exc:
                if not str(exc).startswith(f"module {module.__name__!r} has no attribute"):
                    raise
            else:
                if module.__name__ == "flowtorch":  # the facade loaded flowtorch.nn …: they are oneflow.nn …
                    _name_submodules(alias_name)
                return value
        raise AttributeError(f"module {alias_name!r} has no attribute {name!r}", name=name, obj=module) from None

    if own is None:  # it answers no name the module lacks: no open namespace for flowtorch check's index
        __getattr__.lazy_facade = True  # type: ignore[attr-defined]
    module.__getattr__ = __getattr__  # type: ignore[method-assign]


# Python 3.10 removed collections' aliases of the collections.abc classes (``collections.Sized`` …), which
# programs of OneFlow's era (Python 3.6-3.8) still use: running them, the alias puts the aliases back
_ABC_ALIASES = ("Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator", "Hashable", "Iterable",
                "Iterator", "Generator", "Reversible", "Sized", "Container", "Callable", "Collection", "Set",
                "MutableSet", "Mapping", "MutableMapping", "MappingView", "KeysView", "ItemsView", "ValuesView",
                "Sequence", "MutableSequence", "ByteString")
_restored: list[str] = []


def _name_submodules(root: str) -> None:
    """:func:`_name_misses` for every public flowtorch module loaded, named under ``root`` (``oneflow``)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("flowtorch.") and "._" not in name and module is not None:
            _name_misses(module, root + name[len("flowtorch"):])


def install() -> None:
    """Make ``import oneflow`` resolve to flowtorch in this process (idempotent), and give ``collections`` back
    the collections.abc aliases that OneFlow-era programs use."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    for name in _ABC_ALIASES:
        if not hasattr(collections, name) and hasattr(collections.abc, name):
            setattr(collections, name, getattr(collections.abc, name))
            _restored.append(name)


def uninstall() -> None:
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for module, own in _named.values():
        if own is None:
            vars(module).pop("__getattr__", None)
        else:
            module.__getattr__ = own  # type: ignore[method-assign,assignment]
    _named.clear()
    while _restored:
        delattr(collections, _restored.pop())
    for name in [n for n in sys.modules if n in ("oneflow", "oneflow_api") or n.startswith("oneflow.")]:
        del sys.modules[name]
    flowtorch = sys.modules.get("flowtorch")
    if flowtorch is not None:  # importing oneflow.python bound it on the oneflow (flowtorch) module
        for name in _INTERNAL:
            vars(flowtorch).pop(name.rpartition(".")[2], None)


ALIAS_ENV = "FLOWTORCH_ONEFLOW_ALIAS"


def install_from_env() -> None:
    """The ``.pth`` hook's switch: :func:`install` when ``FLOWTORCH_ONEFLOW_ALIAS`` is on (``1``, true, yes,
    on). A value it does not take is refused with a logged warning naming it, and the alias stays off: a
    ``.pth`` line cannot stop Python's start."""
    try:
        on = env_flag(ALIAS_ENV)
    except ValueError as exc:
        logging.getLogger("flowtorch").warning("flowtorch: %s; `import oneflow` is left as it is", exc)
        return
    if on:
        install()


def installed() -> bool:
    return _finder in sys.meta_path
