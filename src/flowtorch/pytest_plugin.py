"""pytest plugin: ``pytest --oneflow-alias`` (or ini ``oneflow_alias = true``, or
``FLOWTORCH_ONEFLOW_ALIAS=1``) lets OneFlow-style test files that ``import oneflow`` run on flowtorch.

Off by default, so installing flowtorch never changes what ``import oneflow`` means in other projects.
"""

from __future__ import annotations

import os
from typing import Any


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--oneflow-alias", action="store_true", default=False,
                     help="make `import oneflow` resolve to flowtorch while running the tests")
    parser.addini("oneflow_alias", type="bool", default=False,
                  help="make `import oneflow` resolve to flowtorch while running the tests")


def enabled(config: Any) -> bool:
    return bool(config.getoption("--oneflow-alias") or config.getini("oneflow_alias")
                or os.environ.get("FLOWTORCH_ONEFLOW_ALIAS", "") not in ("", "0"))


def pytest_configure(config: Any) -> None:
    if enabled(config):
        from flowtorch._src import alias
        alias.install()
