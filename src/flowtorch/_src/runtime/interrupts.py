"""Steps are atomic under Ctrl-C: a SIGINT that arrives while a step runs is handled when the step ends.

Python raises KeyboardInterrupt between any two bytecodes, so one landing in an optimizer update would
leave some variables (or momentum slots, or the step counter) updated and others not, and one landing in
a ``torch.no_grad()`` exit would leave grad mode off. Holding the signal for the length of a step (not
its build, not the user's watch handlers or callbacks) keeps every step whole; the interrupt then
arrives with the state as after that step.

A SIGINT handler is installed once, by the first step on the main thread, wrapping the handler found
there (KeyboardInterrupt by default); outside steps it passes every signal straight on. A handler the
program installs later replaces it, and then steps are no longer held.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

_depth = 0  # steps running on the main thread (nested: a watch handler may call another job)
_pending: tuple[int, FrameType | None] | None = None
_previous: Any = None
_installed = False


def _handle(signum: int, frame: FrameType | None) -> None:
    global _pending
    if _depth > 0:
        if _pending is None:
            _pending = (signum, frame)
        return
    _pass_on(signum, frame)


def _pass_on(signum: int, frame: FrameType | None) -> None:
    if callable(_previous):
        _previous(signum, frame)
    elif _previous == signal.SIG_DFL:
        signal.default_int_handler(signum, frame)


def _install() -> None:
    global _installed, _previous
    _installed = True  # once: a failure (not the main interpreter) is not retried every step
    try:
        _previous = signal.signal(signal.SIGINT, _handle)
    except ValueError:
        pass


class deferred_interrupts:  # a context manager, named like contextlib's
    """Hold SIGINT for the block; one received meanwhile is handled when the outermost block exits.
    Only the main thread receives signals, so elsewhere this does nothing."""

    __slots__ = ("_active",)

    def __enter__(self) -> None:
        global _depth
        self._active = threading.current_thread() is threading.main_thread()
        if self._active:
            if not _installed:
                _install()
            _depth += 1

    def __exit__(self, *exc: object) -> None:
        global _depth, _pending
        if not self._active:
            return
        _depth -= 1
        if _depth == 0 and _pending is not None:
            received, _pending = _pending, None
            _pass_on(*received)
