"""``flow.unittest``: a TestCase that starts each test with a fresh session, and device-count skips."""

from __future__ import annotations

import os
import unittest
from collections.abc import Callable
from typing import Any

from flowtorch._src import session
from flowtorch._src.capture import signature
from flowtorch._src.dist import group


def eager_execution_enabled() -> bool:
    return os.getenv("ONEFLOW_TEST_ENABLE_EAGER") == "1"


def typing_check_enabled() -> bool:
    return os.getenv("ONEFLOW_TEST_ENABLE_TYPING_CHECK") == "1"


def has_node_list() -> bool:
    return bool(os.getenv("ONEFLOW_TEST_NODE_LIST"))


def node_list() -> list[str]:
    text = os.getenv("ONEFLOW_TEST_NODE_LIST")
    if not text:
        raise AssertionError("ONEFLOW_TEST_NODE_LIST is not set")
    return text.split(",")


def _launched() -> tuple[int, int] | None:
    """``(processes per node, nodes)`` under ``python -m flowtorch --nproc N`` (``WORLD_SIZE`` set)."""
    if not os.getenv("WORLD_SIZE"):
        return None
    _, size, _ = group.env_world()
    per_node = group.local_world_size(size)
    return per_node, max(size // per_node, 1)


def node_size() -> int:
    """``ONEFLOW_TEST_NODE_LIST``'s length when set, else the launcher's node count, else 1."""
    if has_node_list():
        return len(node_list())
    launched = _launched()
    return launched[1] if launched else 1


def has_world_size() -> bool:
    """``ONEFLOW_TEST_WORLD_SIZE`` is set (v0.4.0); it must be a number, as OneFlow asserted."""
    text = os.getenv("ONEFLOW_TEST_WORLD_SIZE")
    if not text:
        return False
    if not text.isdigit():
        raise ValueError(f"env var ONEFLOW_TEST_WORLD_SIZE must be a number; it is {text!r}")
    return True


def world_size() -> int:
    """``ONEFLOW_TEST_WORLD_SIZE`` (v0.4.0; OneFlow failed when it was unset, so does this)."""
    if not has_world_size():
        raise ValueError("flow.unittest.env.world_size(): the env var ONEFLOW_TEST_WORLD_SIZE is not set")
    return int(os.environ["ONEFLOW_TEST_WORLD_SIZE"])


def device_num() -> int:
    """``ONEFLOW_TEST_DEVICE_NUM`` when set, else the launcher's processes per node, else 1."""
    text = os.getenv("ONEFLOW_TEST_DEVICE_NUM")
    if text:
        return int(text)
    launched = _launched()
    return launched[0] if launched else 1


class TestCase(unittest.TestCase):
    """OneFlow's test base: ``setUp`` clears the default session; ``tearDown`` syncs it, so the error of a
    watch handler or callback of this test's calls (a failed check inside it) fails this test."""

    def setUp(self) -> None:
        session.clear_default_session()
        session.enable_eager_execution(eager_execution_enabled())  # the switch outlives sessions
        signature.enable_typing_check(typing_check_enabled())

    def tearDown(self) -> None:
        session.sync_default_session()
        super().tearDown()


def skip_unless(n: int, d: int) -> Callable[[Any], Any]:
    if node_size() == n and device_num() == d:
        return lambda func: func
    return unittest.skip(f"only runs when node_size is {n} and device_num is {d}")


def skip_unless_1n1d() -> Callable[[Any], Any]:
    return skip_unless(1, 1)


def skip_unless_1n2d() -> Callable[[Any], Any]:
    return skip_unless(1, 2)


def skip_unless_1n4d() -> Callable[[Any], Any]:
    return skip_unless(1, 4)


def skip_unless_2n1d() -> Callable[[Any], Any]:
    return skip_unless(2, 1)


def skip_unless_2n2d() -> Callable[[Any], Any]:
    return skip_unless(2, 2)


def skip_unless_2n4d() -> Callable[[Any], Any]:
    return skip_unless(2, 4)
