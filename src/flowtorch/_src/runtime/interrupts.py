"""Steps are whole under interrupts: a signal handler that would run while a step runs runs when it ends.

Python runs a signal's handler on the main thread between any two bytecodes, so an exception it raises (the
KeyboardInterrupt of SIGINT, or one raised by a program's SIGALRM timer, a notebook kernel's handler, a
test runner's timeout) landing in an optimizer update would leave some variables, momentum slots or the
step counter updated and others not, and one landing in a ``torch.no_grad()`` exit would leave grad mode
off. While a step runs on the main thread every Python-level signal handler is held: the signal is noted,
and its handler runs when the outermost step ends, with the state as after that step. A second SIGINT
during the same step is passed on at once, so a step that never ends can still be interrupted (at the
price of that step).

The first step puts a holding trampoline in front of every signal that has a Python handler then, and
wraps ``signal.signal`` so that a handler the program installs later is held as well (``signal.getsignal``
still returns the program's own handler). Outside steps the trampoline calls the handler at once. Steps
that run off the main thread need none of this: signals never interrupt other threads.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

Handler = Callable[[int, FrameType | None], Any]

_depth = 0  # steps running on the main thread (nested: a watch handler may call another job)
_pending: list[tuple[int, FrameType | None]] = []  # signals held until the outermost step ends
_handlers: dict[int, Handler] = {}  # the program's handler of each signal the trampoline stands in front of
_installed = False
_MAIN_THREAD = threading.main_thread().ident
_original_signal = signal.signal
_original_getsignal = signal.getsignal


def _trampoline(signum: int, frame: FrameType | None) -> None:
    if _depth > 0:
        if not (signum == signal.SIGINT and any(s == signal.SIGINT for s, _ in _pending)):
            _pending.append((signum, frame))
            return
    _pass_on(signum, frame)


def _pass_on(signum: int, frame: FrameType | None) -> None:
    handler = _handlers.get(signum)
    if handler is not None:
        handler(signum, frame)


def _held_signal(signalnum: int, handler: Any) -> Any:
    """``signal.signal`` once steps are held: a Python handler goes behind the trampoline."""
    previous = _held_getsignal(signalnum)
    if callable(handler) and handler is not _trampoline:
        _original_signal(signalnum, _trampoline)  # (raises as signal.signal does: a thread, a bad number)
        _handlers[signalnum] = handler
    else:
        _original_signal(signalnum, handler)
        _handlers.pop(signalnum, None)
    return previous


def _held_getsignal(signalnum: int) -> Any:
    current = _original_getsignal(signalnum)
    return _handlers.get(signalnum, current) if current is _trampoline else current


def _install() -> None:
    """Hold the handlers there are now and those installed later (once: outside the main interpreter's main
    thread signal.signal raises, and it is not retried every step)."""
    global _installed
    _installed = True
    for signum in signal.valid_signals():
        try:
            handler = _original_getsignal(signum)
            if callable(handler) and handler is not _trampoline:
                _original_signal(signum, _trampoline)
                _handlers[signum] = handler
        except (ValueError, OSError, RuntimeError):  # not settable here (SIGKILL, SIGSTOP, ...)
            continue
    signal.signal = _held_signal  # type: ignore[assignment]
    signal.getsignal = _held_getsignal


class deferred_interrupts:  # a context manager, named like contextlib's
    """Hold every Python-level signal handler for the block; the signals received meanwhile are handled, in
    order, when the outermost block exits. Only the main thread runs handlers, so elsewhere this does nothing."""

    __slots__ = ("_active",)

    def __enter__(self) -> None:
        global _depth
        self._active = threading.get_ident() == _MAIN_THREAD
        if self._active:
            if not _installed:
                _install()
            _depth += 1

    def __exit__(self, *exc: object) -> None:
        global _depth
        if not self._active:
            return
        _depth -= 1
        if _depth == 0 and _pending:
            received = list(_pending)
            _pending.clear()
            for signum, frame in received:  # (a handler that raises drops the ones after it, as Python does)
                _pass_on(signum, frame)
