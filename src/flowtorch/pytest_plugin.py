"""pytest plugin: ``pytest --oneflow-alias`` (or ini ``oneflow_alias = true``, or
``FLOWTORCH_ONEFLOW_ALIAS=1``) lets OneFlow-style test files that ``import oneflow`` run on flowtorch.

Off by default, so installing flowtorch never changes what ``import oneflow`` means in other projects.
With the alias on, OneFlow 0.1's function-style tests (``def test_x(test_case): ...`` at module level) get a
``test_case`` fixture: a ``unittest.TestCase`` for its assert methods, after a fresh default session. Some of
v0.1.2's tests spell that argument ``_`` (``def test_x(_)``): the ``_`` fixture is the same.
"""

from __future__ import annotations

import inspect
import unittest
from collections.abc import Iterator
from typing import Any

import pytest

from flowtorch._src import alias
from flowtorch._src.envvars import env_flag


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--oneflow-alias", action="store_true", default=False,
                     help="make `import oneflow` resolve to flowtorch while running the tests")
    parser.addini("oneflow_alias", type="bool", default=False,
                  help="make `import oneflow` resolve to flowtorch while running the tests")


def enabled(config: Any) -> bool:
    return bool(config.getoption("--oneflow-alias") or config.getini("oneflow_alias")
                or env_flag(alias.ALIAS_ENV))  # a value it does not take: ValueError naming it


def pytest_configure(config: Any) -> None:
    if enabled(config):
        alias.install()
        config.pluginmanager.register(OneFlowTestStyle(), "flowtorch-oneflow-test-style")


_SELF_NAMES = ("test_case", "_")  # what OneFlow's function-style tests call the TestCase they are given


def _is_test_case_helper(obj: Any, collector: Any) -> bool:
    """``def test_x(test_case, a, b)`` at module level: a helper the file's TestCase classes call.

    Neither of OneFlow's runners ran such a function on its own (``unittest`` collects classes only;
    ``register_test_cases`` calls each function with ``self`` alone), so pytest should not collect it.
    A function with pytest marks, or whose other arguments are all fixtures, is pytest's to run.
    """
    if getattr(obj, "pytestmark", None):
        return False
    try:
        params = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        return False
    if not params or params[0].name not in _SELF_NAMES:
        return False
    required = [p.name for p in params[1:] if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return any(not _is_fixture(name, collector) for name in required)


def _is_fixture(name: str, collector: Any) -> bool:
    manager = getattr(collector.session, "_fixturemanager", None)
    if manager is None:
        return False
    try:
        return bool(manager.getfixturedefs(name, collector))
    except Exception:
        return False


class OneFlowTestStyle:
    """Registered by :func:`pytest_configure` only when the alias is on."""

    @pytest.fixture
    def test_case(self) -> Iterator[unittest.TestCase]:
        # the session loads torch: a pytest run without the alias (the plugin loads in every run) never does
        from flowtorch._src.session import (  # noqa: PLC0415
            clear_default_session,
            enable_eager_execution,
            sync_default_session,
        )
        clear_default_session()
        enable_eager_execution(False)  # as OneFlow's _ClearDefaultSession (framework/unittest.py)
        yield unittest.TestCase()  # no test method: only its assert methods are used
        sync_default_session()  # a handler's or callback's error fails the test whose call it was

    @pytest.fixture(name="_")
    def underscore(self, test_case: unittest.TestCase) -> unittest.TestCase:
        """v0.1.2's ``def test_x(_)``: the :meth:`test_case` fixture under the name its tests gave it."""
        return test_case

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector: Any, name: str, obj: Any) -> list[Any] | None:
        if isinstance(collector, pytest.Module) and inspect.isfunction(obj) and collector.funcnamefilter(name) \
                and _is_test_case_helper(obj, collector):
            return []
        return None
