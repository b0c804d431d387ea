"""The eager/lazy switch behind ``flow.enable_eager_execution`` and ``flow.eager_execution_enabled``.

As in OneFlow 0.3 (``framework/env_util.py``, ``core/job/global_for.cpp``), the switch belongs to the
process, not to a session: ``flow.clear_default_session()`` keeps it (``flow.unittest.TestCase`` sets it
from ``ONEFLOW_TEST_ENABLE_EAGER`` before every test). The checks on flipping it (outside job bodies, while
the default session has no lazy global function) are the session's: ``session.enable_eager_execution``.
Eager jobs run in :mod:`flowtorch._src.step.eager`.
"""

from __future__ import annotations

_eager = False


def set_eager(val: bool) -> None:
    """Make the global functions decorated from now on eager (``True``) or lazy (``False``); unchecked."""
    global _eager
    _eager = val


def eager_execution_enabled() -> bool:
    """Whether global functions decorated now are eager."""
    return _eager
