"""The command line's one message channel: ``-v``/``-q`` and the stderr handler of the "flowtorch" logger.

Library code only logs (logger ``"flowtorch"``). A command-line run (``python -m flowtorch …``, ``flowtorch
check …``) shows those records on stderr at INFO, at WARNING with ``-q`` and at DEBUG with ``-v``
(:func:`configured`). A program that configures logging itself (a handler on the root logger, as
``logging.basicConfig`` adds) gets flowtorch's records there instead, once.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["VERBOSITY_USAGE", "configured", "flags_for", "level_for", "pull_verbosity", "split_verbosity"]

LOGGER = "flowtorch"
VERBOSITY_USAGE = """verbosity (before or after the command, not among a program's own arguments; flowtorch's own
messages go to stderr):
  -v, --verbose         more: debug messages, and a failing program's whole traceback (flowtorch's frames too)
  -q, --quiet           less: warnings and errors only (default: also flowtorch's notes, INFO)"""

_VERBOSE = ("-v", "--verbose")
_QUIET = ("-q", "--quiet")


def split_verbosity(args: list[str]) -> tuple[int, list[str]]:
    """The leading ``-v``/``-q`` flags of ``args`` as one number (+1 per ``-v``, -1 per ``-q``; ``-vv`` counts
    two) and the arguments after them."""
    verbosity, i = 0, 0
    while i < len(args):
        arg = args[i]
        if arg in _VERBOSE or arg in _QUIET:
            verbosity += 1 if arg in _VERBOSE else -1
        elif len(arg) > 2 and arg[0] == "-" and arg[1] in "vq" and set(arg[1:]) == {arg[1]}:  # -vv, -qq
            verbosity += (len(arg) - 1) * (1 if arg[1] == "v" else -1)
        else:
            break
        i += 1
    return verbosity, args[i:]


def pull_verbosity(args: list[str], value_options: Collection[str] = (), positionals: int | None = None,
                   stop_prefixes: tuple[str, ...] = ()) -> tuple[int, list[str]]:
    """The ``-v``/``-q`` flags anywhere among a command's own arguments, counted as :func:`split_verbosity`
    counts them, and the arguments without them. A command's own arguments end at ``--``, at an option that
    starts with one of ``stop_prefixes`` (``-m MODULE``), or once ``positionals`` positional arguments were
    seen (None: never): what follows belongs to the program the command runs and is kept as it is. The word
    after an option of ``value_options`` is that option's value."""
    verbosity, kept, seen, i = 0, [], 0, 0
    while i < len(args):
        arg = args[i]
        ended = positionals is not None and seen >= positionals and (seen > 0 or not arg.startswith("-"))
        if ended or arg == "--" or (stop_prefixes and arg.startswith(stop_prefixes)):
            break
        more, rest = split_verbosity([arg])
        if not rest:
            verbosity += more
        elif arg in value_options:
            kept += args[i:i + 2]
            i += 1
        else:
            kept.append(arg)
            seen += not arg.startswith("-") or arg == "-"
        i += 1
    return verbosity, kept + args[i:]


def level_for(verbosity: int) -> int:
    """INFO at 0, DEBUG above, WARNING at -1, ERROR below."""
    return {1: logging.DEBUG, 0: logging.INFO, -1: logging.WARNING}.get(max(-2, min(1, verbosity)), logging.ERROR)


def flags_for(verbosity: int) -> list[str]:
    """The flags that give ``verbosity`` again (for the processes a launch starts)."""
    return ["-v"] * verbosity if verbosity > 0 else ["-q"] * -verbosity


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text if text.startswith(LOGGER) else f"{LOGGER}: {text}"


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to the ``sys.stderr`` of the moment (a test's capture, a program's replacement), and stays
    silent when the root logger has handlers of its own: the records propagate there."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(_Formatter("%(message)s"))

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # StreamHandler.__init__ sets it
        pass

    def filter(self, record: logging.LogRecord) -> bool:  # type: ignore[override]
        return not logging.getLogger().handlers and bool(super().filter(record))


@contextmanager
def configured(verbosity: int = 0, floor: int = logging.NOTSET) -> Iterator[None]:
    """Show the "flowtorch" logger's records on stderr at :func:`level_for` ``(verbosity)`` (never below
    ``floor``) while the block runs; the logger's level and handlers are as before afterwards."""
    logger = logging.getLogger(LOGGER)
    level, handler = max(level_for(verbosity), floor), _StderrHandler()
    previous = logger.level
    logger.setLevel(level)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
