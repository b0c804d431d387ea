"""Which job is being built right now (job bodies run once, on one thread, at session start)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from flowtorch._src.errors import NotInJobError

if TYPE_CHECKING:
    from flowtorch._src.capture.builder import JobBuilder

_stack: list[JobBuilder] = []


def current_builder(what: str) -> JobBuilder:
    """The builder of the job body now running; ``what`` names the API for the error message."""
    if not _stack:
        raise NotInJobError(
            f"flow.{what} can only be used inside a @flow.global_function body "
            "(OneFlow's lazy mode builds ops only while a job is being built)"
        )
    return _stack[-1]


def maybe_builder() -> JobBuilder | None:
    return _stack[-1] if _stack else None


@contextlib.contextmanager
def building(builder: JobBuilder) -> Iterator[JobBuilder]:
    _stack.append(builder)
    try:
        yield builder
    finally:
        _stack.pop()
