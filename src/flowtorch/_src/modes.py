"""``flow.enable_eager_execution`` and ``flow.eager_execution_enabled``: OneFlow's eager/lazy switch.

As in OneFlow 0.3 (``framework/env_util.py``, ``core/job/global_for.cpp``), the switch belongs to the
process, not to a session: ``flow.clear_default_session()`` keeps it (``flow.unittest.TestCase`` sets it
from ``ONEFLOW_TEST_ENABLE_EAGER`` before every test). It may be flipped only outside job bodies and
while the default session has no lazy global function; a job keeps the mode it was decorated in.
Eager jobs run in :mod:`flowtorch._src.step.eager`.
"""

from __future__ import annotations

import numpy as np

from flowtorch._src.capture.context import maybe_builder

_eager = False


def enable_eager_execution(val: bool = True) -> None:
    """Make the global functions decorated from now on eager (``True``) or lazy (``False``)."""
    global _eager
    if not isinstance(val, (bool, int, np.bool_, np.integer)):
        raise TypeError(f"flow.enable_eager_execution: val must be a bool; received {type(val).__name__} {val!r}")
    if maybe_builder() is not None:
        raise NotImplementedError(f"flow.enable_eager_execution({bool(val)}) cannot be called inside a job body "
                                  f"(job {maybe_builder().job_name!r}); OneFlow allows it in normal mode only")
    from flowtorch._src.session import default_session  # the session module imports this one
    lazy = list(default_session().jobs)
    if lazy:
        # OneFlow: enable_if condition ``in_normal_mode & ~any_global_function_defined``
        raise NotImplementedError(
            f"flow.enable_eager_execution({bool(val)}): the default session already has global function(s) "
            f"{', '.join(map(repr, lazy))} defined in lazy mode; the mode can only be chosen before any global "
            "function is defined (call flow.clear_default_session() first)")
    _eager = bool(val)


def eager_execution_enabled() -> bool:
    """Whether global functions decorated now are eager."""
    return _eager
