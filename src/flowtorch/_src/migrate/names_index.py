"""Build ``public_names.json``: flowtorch's public names, by introspection.

``flowtorch check`` may not import flowtorch's runtime (torch), so it reads this index, package data made
ahead of time (``python scripts/write_names_index.py``) and compared with a live build by the tests.

A namespace (a module, a class, or an object with attributes) maps each public name to its kind:
``m:<ns>`` a module, ``c:<ns>`` a flowtorch class (its instances have namespace ``<ns>`` too), ``c`` another
class, ``f:<ns>`` a callable annotated to return an instance of flowtorch class ``<ns>``, ``f`` another
callable, ``o:<ns>`` an object with its own namespace, ``v`` any other value. A namespace holding ``*``
answers every name (a ``__getattr__`` that accepts anything).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import textwrap
import types
import typing
from typing import Any

from google.protobuf import message

from flowtorch._src import function_config as fc

ROOTS = {"": "flowtorch", "oneflow_api": "flowtorch.oneflow_api"}
_OPEN = {"*": "v"}
# Modules whose ``__getattr__`` answers the public names of another module.
_DELEGATES = {"flowtorch.config": "flowtorch._src.flags"}


def _owned(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("flowtorch")


def _class_id(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _instance_attributes(cls: type) -> set[str]:
    """Names a flowtorch class assigns as ``self.<name> = …`` (instance attributes ``dir(cls)`` misses)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if not _owned(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name) and node.value.id == "self"):
                names.add(node.attr)
    return {n for n in names if not n.startswith("_")}


class _Builder:
    def __init__(self) -> None:
        self.namespaces: dict[str, dict[str, str]] = {}
        self._pending: list[tuple[str, Any, str]] = []

    def _enqueue(self, ns: str, obj: Any, what: str) -> str:
        if ns not in self.namespaces:
            self.namespaces[ns] = {}
            self._pending.append((ns, obj, what))
        return ns

    def _returns(self, fn: Any) -> str:
        try:
            ret = typing.get_type_hints(fn).get("return")
        except Exception:  # unresolvable annotations: an unknown return
            return "f"
        if inspect.isclass(ret) and _owned(ret):
            return "f:" + self._enqueue(_class_id(ret), ret, "class")
        return "f"

    def kind(self, obj: Any, path: str) -> str | None:
        if isinstance(obj, types.ModuleType):
            return "m:" + self._enqueue(obj.__name__, obj, "module") if obj.__name__.startswith("flowtorch") \
                else None  # a module flowtorch itself imports is no part of its API
        if inspect.isclass(obj):
            # a protobuf message class (flowtorch.core's) answers its schema's fields, which dir() does not list
            opaque = not _owned(obj) or issubclass(obj, message.Message)
            return "c" if opaque else "c:" + self._enqueue(_class_id(obj), obj, "class")
        if callable(obj) and (inspect.isroutine(obj) or not _owned(type(obj))):
            return self._returns(obj)
        if type(obj).__name__ == "DType":  # ``flow.float`` …: constants, not namespaces programs reach into
            return "v"
        if _owned(type(obj)) or isinstance(obj, types.SimpleNamespace):
            return "o:" + self._enqueue(path, obj, "object")
        return "v"

    def build(self) -> dict[str, dict[str, str]]:
        for root in ROOTS.values():
            self._enqueue(root, importlib.import_module(root), "module")
        while self._pending:
            ns, obj, what = self._pending.pop(0)
            self.namespaces[ns] = self._members(ns, obj, what)
        return dict(sorted(self.namespaces.items()))

    def _members(self, ns: str, obj: Any, what: str) -> dict[str, str]:
        if what == "class" and ns == "flowtorch._src.function_config.FunctionConfig":
            return self._function_config(obj)
        if ns in _DELEGATES:
            # only the delegate's functions and option groups: its imports (modules, typing names) are no API
            delegate = importlib.import_module(_DELEGATES[ns])
            names = {n: kind for n, kind in self._listed(delegate, ns, "module", modules=False).items()
                     if kind[0] in "fo"}
            if ns == "flowtorch.config":  # and late 2019's job conf (master_2020.job_conf_setter): the options
                names = {**self._job_conf_options(ns), **names}
            return dict(sorted({**names, **self._listed(obj, ns, what)}.items()))
        if _dynamic(obj, what):
            return dict(_OPEN)
        return self._listed(obj, ns, what)

    def _listed(self, obj: Any, ns: str, what: str, modules: bool = True) -> dict[str, str]:
        """The kinds of the public names ``dir(obj)`` lists (and a class's ``self.x = …`` attributes)."""
        out: dict[str, str] = {}
        for name in dir(obj):
            if name.startswith("_") or name == "annotations" and what != "class":  # ``from __future__ import``
                continue
            if not modules and isinstance(getattr(obj, name, None), types.ModuleType):
                continue
            if ns == ROOTS[""] and name in ROOTS:  # ``oneflow_api`` is its own top-level module, not ``flow.…``
                continue
            if what == "class" and not _owned(_definer(obj, name)):
                continue  # inherited from Python or torch (``unittest.TestCase``'s asserts vary by Python version)
            kind = self.kind(getattr(obj, name, None), f"{ns}.{name}")
            if kind is not None:
                out[name] = kind
        if what == "class":
            out.update({name: "v" for name in _instance_attributes(obj) - out.keys()})
            # a value typed as this class may be a subclass's (an eager job's blobs have ``numpy()``)
            for sub in _subclasses(obj):
                out.update({n: k for n, k in self._listed(sub, _class_id(sub), "class").items() if n not in out})
        return dict(sorted(out.items()))

    def _function_config(self, cls: type) -> dict[str, str]:
        """FunctionConfig answers its registered option names (``cfg.train.primary_lr``) through __getattr__."""
        out = {name: "f" for name in dir(cls) if not name.startswith("_")}
        out.update({name: "v" for name in _instance_attributes(cls)})
        out.update(self._job_conf_options(_class_id(cls)))
        return dict(sorted(out.items()))

    def _job_conf_options(self, ns: str) -> dict[str, str]:
        """The function-config options as names of ``ns``: an option ``f``, a group (``train``) its own namespace."""
        out: dict[str, str] = {}
        groups: dict[str, dict[str, str]] = {}
        for option in fc._DEFAULTS:
            group, _, name = option.rpartition(".")
            if group:
                groups.setdefault(group, {})[name] = "f"
            else:
                out[option] = "f"
        for group, names in groups.items():
            self.namespaces[f"{ns}.{group}"] = dict(sorted(names.items()))
            out[group] = f"o:{ns}.{group}"
        return out


def _definer(cls: type, name: str) -> type | None:
    """The class of ``cls.__mro__`` that defines ``name``."""
    return next((k for k in cls.__mro__ if name in vars(k)), None)


def _subclasses(cls: type) -> list[type]:
    subclasses: list[type] = cls.__subclasses__()
    direct = [sub for sub in subclasses if _owned(sub)]
    return direct + [deeper for sub in direct for deeper in _subclasses(sub)]


def _dynamic(obj: Any, what: str) -> bool:
    """Whether ``obj`` answers names through a flowtorch ``__getattr__`` (its namespace is open)."""
    if what == "module":  # flowtorch's own lazy facade (flowtorch/__init__.py) is a closed namespace
        hook = vars(obj).get("__getattr__")
        return hook is not None and not getattr(hook, "lazy_facade", False)
    return any("__getattr__" in vars(k) for k in (obj if what == "class" else type(obj)).__mro__ if _owned(k))


def build_index() -> dict[str, dict[str, str]]:
    """The index of flowtorch as it is now (imports flowtorch, hence torch)."""
    return _Builder().build()


def render_index(namespaces: dict[str, dict[str, str]]) -> str:
    about = ("flowtorch's public names for `flowtorch check`, by namespace; the kinds are explained in "
             "flowtorch/_src/migrate/names_index.py. Generated by scripts/write_names_index.py: do not edit")
    index = {"about": about, "roots": ROOTS, "namespaces": namespaces}
    return json.dumps(index, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
