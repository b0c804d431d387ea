"""The eager/lazy switch behind ``flow.enable_eager_execution`` and ``flow.eager_execution_enabled``.

As in OneFlow 0.3 (``framework/env_util.py``, ``core/job/global_for.cpp``), the switch belongs to the
process, not to a session: ``flow.clear_default_session()`` keeps it (``flow.unittest.TestCase`` sets it
from ``ONEFLOW_TEST_ENABLE_EAGER`` before every test). The checks on flipping it (outside job bodies, while
the default session has no lazy global function) are the session's: ``session.enable_eager_execution``.
Eager jobs run in :mod:`flowtorch._src.step.eager`.

``FLOWTORCH_ONEFLOW_VERSION`` names the OneFlow release a program was written for, where releases disagree and
a call cannot tell them apart (:func:`oneflow_v01`; the variable is read by :mod:`flowtorch._src.releases`).
"""

from __future__ import annotations

from flowtorch._src import releases

# the short forms of FLOWTORCH_ONEFLOW_VERSION (releases.py also takes MAJOR.MINOR.PATCH: 0.3.4, v0.4.0)
ONEFLOW_VERSIONS = ("auto", "0.1", "0.2", "0.3", "0.4")

_eager = False


def set_eager(val: bool) -> None:
    """Make the global functions decorated from now on eager (``True``) or lazy (``False``); unchecked."""
    global _eager
    _eager = val


def eager_execution_enabled() -> bool:
    """Whether global functions decorated now are eager."""
    return _eager


def oneflow_v01() -> bool:
    """``FLOWTORCH_ONEFLOW_VERSION=0.1``: the program follows OneFlow v0.1's conventions where a call reads the
    same in later releases (the object ops' ``image_size`` rows are ``(h, w)``, as v0.1.2's kernels read them;
    v0.2.0 on read ``(w, h)``). "auto" (the default) follows the later releases there; any 0.1.x selects it."""
    return releases.before(releases.V02)
