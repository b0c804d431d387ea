"""``flow.unittest.register_test_cases``: OneFlow 0.1's function-style test collection.

OneFlow 0.1 wrote op tests as module-level ``def test_x(test_case): ...`` functions; a runner script
(``1node_test.py``) called ``register_test_cases(globals(), its_directory, lambda n: n == 1, base)`` to
turn every ``test*.py`` beside it into a ``unittest.TestCase`` subclass named after the file, with the
file's ``test*`` functions as its methods (``test_case`` is then ``self``). Behaviour follows OneFlow's
``oneflow/python/framework/unittest.py`` (v0.1.2 – v0.3.4).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
import unittest
from collections.abc import Callable, MutableMapping
from typing import Any

from flowtorch._src import session

# OneFlow's marker attribute, kept verbatim so functions decorated by either library agree.
NUM_NODES_ATTR = "__oneflow_test_case_num_nodes_required__"


def num_nodes_required(num_nodes: int) -> Callable[[Any], Any]:
    """Mark a test function as needing ``num_nodes`` machines (unmarked: 1)."""
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, int) or num_nodes < 1:
        raise ValueError(f"flow.unittest.num_nodes_required: num_nodes must be a positive int, got {num_nodes!r}")

    def decorate(func: Any) -> Any:
        setattr(func, NUM_NODES_ATTR, num_nodes)
        return func
    return decorate


def num_nodes_of(func: Any) -> int:
    return int(getattr(func, NUM_NODES_ATTR, 1))


class ClearDefaultSession:
    """Mixin of every generated class: each test starts with a fresh default session."""

    def setUp(self) -> None:
        session.clear_default_session()
        session.enable_eager_execution(False)  # OneFlow's _ClearDefaultSession (framework/unittest.py)
        super().setUp()  # type: ignore[misc]  # the TestCase base that follows in the MRO

    def tearDown(self) -> None:
        session.sync_default_session()  # a handler's or callback's error fails the test whose call it was
        super().tearDown()  # type: ignore[misc]


def _load(name: str, path: str) -> types.ModuleType:
    """Import ``path`` as top-level module ``name``, as ``imp.load_source`` did (so ``import name`` from
    another test file gets the same module); a module already imported from that file is reused."""
    loaded = sys.modules.get(name)
    if loaded is not None and os.path.realpath(getattr(loaded, "__file__", "") or "") == os.path.realpath(path):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"flow.unittest.register_test_cases: cannot import {path!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _import_failure(error: Exception) -> Callable[[Any], None]:
    def test_import(test_case: Any) -> None:
        raise error
    return test_import


def register_test_cases(scope: MutableMapping[str, Any], directory: str | os.PathLike[str],
                        filter_by_num_nodes: Callable[[int], bool],
                        base_class: type = unittest.TestCase,
                        test_case_mixin: type = ClearDefaultSession) -> None:
    """Put into ``scope`` one TestCase subclass per ``test*.py`` file of ``directory``.

    The class is named after the file (``test_add.py`` gives ``test_add``); its methods are the module's
    callable ``test*`` attributes whose :func:`num_nodes_required` count passes ``filter_by_num_nodes``.
    Its bases are ``(test_case_mixin, base_class)``, so each test starts with a fresh default session.

    Unlike OneFlow, a file that fails to import does not abort the whole registration: its class gets
    one ``test_import`` method that re-raises the import error, so the run still reports it as failed.
    """
    if not callable(filter_by_num_nodes):
        raise TypeError("flow.unittest.register_test_cases: filter_by_num_nodes must be a callable taking "
                        f"the number of nodes, got {type(filter_by_num_nodes).__name__}")
    if not (isinstance(base_class, type) and issubclass(base_class, unittest.TestCase)):
        raise TypeError("flow.unittest.register_test_cases: base_class must be a unittest.TestCase subclass, "
                        f"got {base_class!r}")
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"flow.unittest.register_test_cases: directory {directory!r} does not exist")
    files = sorted(f for f in os.listdir(directory)
                   if f.startswith("test") and f.endswith(".py") and os.path.isfile(os.path.join(directory, f)))
    for file_name in files:
        class_name = file_name[:-3]
        methods: dict[str, Any]
        try:
            module = _load(class_name, os.path.join(directory, file_name))
        except Exception as error:
            methods = {"test_import": _import_failure(error)}
        else:
            methods = {}
            for name in dir(module):
                func = getattr(module, name)
                if name.startswith("test") and callable(func) and filter_by_num_nodes(num_nodes_of(func)):
                    methods[name] = func
        methods["__module__"] = scope.get("__name__", __name__)
        methods["__qualname__"] = class_name
        scope[class_name] = type(class_name, (test_case_mixin, base_class), methods)


def run() -> None:
    """``flow.unittest.run()`` (OneFlow's master of late 2019, ``framework/test_case.py``): ``unittest.main()``."""
    unittest.main()


def run_if_this_is_main() -> None:
    """``flow.unittest.run_if_this_is_main()`` (late 2019): ``unittest.main()`` when the caller's module is the
    program being run (``__main__``), else nothing."""
    if sys._getframe(1).f_globals.get("__name__") == "__main__":
        unittest.main()
