"""Every error type flowtorch raises of its own (one module, the bottom of the layer list).

Many derive from the built-in type OneFlow raised as well (often ``AssertionError``, from its bare
``assert`` checks), so programs that caught those keep working.
"""

from __future__ import annotations

import sys


class ArgumentError(ValueError, AssertionError):
    """A bad argument to an op, layer or training object.

    OneFlow checked these with bare ``assert`` (so programs could only catch
    ``AssertionError``); flowtorch raises a message naming the argument. Deriving from both
    keeps ``except AssertionError`` and ``except ValueError`` working.
    """


class UnknownOpError(ArgumentError):
    """An op type name that no registration knows."""


class SplitIndexError(ArgumentError, AttributeError):
    """``split_index`` out of range. OneFlow meant a ValueError but raised AttributeError (a typo,
    ``.formart``, in its message): this is both."""


class CallbackError(RuntimeError):
    """A ``tp.Callback`` callback, an old future's ``async_get`` callback or a watch handler raised.

    The step of the call it belongs to ran (its update is applied); the exception is its ``__cause__``.
    It is raised by a later job call before that call does anything (so, like every error a job call
    raises, that call was not made: make it again), or by ``sync_default_session()`` /
    ``clear_default_session()``. ``job`` and ``call`` (1-based, per job) name the call whose callback failed.
    """

    def __init__(self, message: str, job: str = "", call: int = 0) -> None:
        super().__init__(message)
        self.job = job
        self.call = call

    @classmethod
    def of(cls, job: str, call: int, what: str, cause: BaseException) -> CallbackError:
        """The error of ``what`` (``"the callback"``, ``"the watch handler of <lbn>"``) of that call."""
        error = cls(f"{what} of call {call} of job {job!r} raised {type(cause).__name__}: {cause} "
                    f"(the step of call {call} ran)", job, call)
        error.__cause__ = cause
        return error

    def __reduce__(self) -> tuple[type[CallbackError], tuple[str, str, int]]:
        return type(self), (str(self), self.job, self.call)


class UsageError(ValueError):
    """A bad command-line input: a launcher option missing its value, malformed or inconsistent, or a path
    that does not exist."""


class CaptureError(RuntimeError):
    """The step could not be captured; the caller runs it eagerly instead."""


class NotInJobError(NotImplementedError):
    """A lazy-only API (an op, a loss, a watch) called outside a ``@flow.global_function`` body. OneFlow
    dispatched such APIs by mode (``lib/core/enable_if.py``) and raised NotImplementedError when none matched;
    being a NotImplementedError, this is a RuntimeError too (flowtorch's earlier error type)."""


class DifferentFeedsError(RuntimeError):
    """The ranks were fed different arrays for one step (raised before anything is updated)."""


class RecordFileError(RuntimeError):
    """A part file that cannot be read as OFRecords: the message names the file and the record."""


class MegatronIndexError(ValueError):
    """A ``.idx``/``.bin`` pair that is not a valid Megatron MMapIndexedDataset."""


class DataFileChangedError(RuntimeError):
    """A data file truncated, replaced or rewritten after the loader indexed it: the message names the file."""


class NotRegularFileError(OSError):
    """A path that had to be a regular file is something else (FIFO, directory, device …)."""


# OneFlow signalled most of these conditions with `assert`, so the base class
# keeps AssertionError catchable; the subclasses add the type OneFlow used for
# the narrower cases.
class SnapshotError(AssertionError):
    """A snapshot cannot be read or written (missing, malformed, refused target)."""


class SnapshotMetaError(SnapshotError, ValueError):
    """A ``meta`` file is not a valid ``VariableMetaInfo`` text proto."""


class MissingMetaError(SnapshotError, RuntimeError):
    """A legacy variable without ``meta`` was read before its shape/dtype were supplied."""


class UnsupportedDataTypeError(SnapshotError, NotImplementedError):
    """A data type has no numpy/snapshot counterpart."""


class UnsafePathError(SnapshotError, ValueError):
    """A variable name or snapshot entry that is not one path component inside the snapshot."""


class ConversionError(ValueError):
    """A checkpoint cannot be converted (bad argument, refused input, mismatching layout, occupied target)."""


class ExportError(NotImplementedError):
    """A part of the job that has no plain-PyTorch equivalent here."""


class InternalNameError(AttributeError):
    """A name that OneFlow's internal module (``oneflow.python.*``, ``oneflow._oneflow_internal``) never had,
    asked of flowtorch's stand-in for it."""


class UnsupportedInternalNameError(NotImplementedError):
    """A name OneFlow's internal module had and flowtorch does not give, used (importing it works)."""


# The types print, and pickle, under the names a program reaches them by, ``flowtorch.ArgumentError`` (the
# package's ``__getattr__`` gives them), not under this private module's path.
PUBLIC_MODULE = "flowtorch"
ERROR_TYPES = tuple(value for value in list(globals().values())
                    if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == __name__)
for _error in ERROR_TYPES:
    _error.__module__ = PUBLIC_MODULE


def add_note(exc: BaseException, note: str) -> None:
    """``exc.add_note(note)``, which Python 3.10 lacks: there the note is kept in ``__notes__`` as 3.11 keeps
    it (3.10's tracebacks do not show it)."""
    if sys.version_info >= (3, 11):
        exc.add_note(note)
    else:
        setattr(exc, "__notes__", [*getattr(exc, "__notes__", []), note])  # noqa: B010 (3.10 declares none)
