"""Capturing a step function once and replaying it: a CUDA graph, or its CPU emulation.

``capture(fn)`` records ``fn`` (which returns a flat list of tensors or None) and returns a
:class:`CapturedStep` whose ``static`` list holds the same tensors after every :meth:`~CapturedStep.replay`:

* **CUDA** (``torch.cuda.graph``): the tensors ``fn`` returned live in the graph's memory pool, so each
  replay rewrites them in place. Nothing runs at capture time; the caller replays for the first step.
* **Emulated** (CPU, for tests): capture runs ``fn`` for real (``executed`` is True) and each replay runs
  it again and copies the fresh tensors into the first call's, which gives the same static-buffer
  contract as a CUDA graph, so everything around the graph can be tested without a GPU.

Code that must not do host work inside a graph asks :func:`capturing` and hands a check that reads
device tensors to :func:`defer`; it runs on the host after every replay, before ``replay`` returns. A check
that only reports (it never rejects the step) hands over a ``flag`` instead: a 0-d device bool the graph
computes, copied to the host with the step's results, and the report runs there when it is true, with no
host sync in the step (:attr:`CapturedStep.late`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import torch

from flowtorch._src.errors import CaptureError

Tensors = list[torch.Tensor | None]


@dataclass
class _Capture:
    checks: list[Callable[[], None]] = field(default_factory=list)
    tensors: list[torch.Tensor] = field(default_factory=list)
    late: list[tuple[torch.Tensor, Callable[[], None]]] = field(default_factory=list)


class _State(threading.local):
    capture: _Capture | None = None
    generators: list[torch.Generator] | None = None


_state = _State()


def capturing() -> bool:
    """True while a step is being captured (and, emulated, while it is replayed)."""
    return _state.capture is not None


def defer(check: Callable[[], None], *tensors: torch.Tensor, flag: torch.Tensor | None = None) -> None:
    """Run ``check`` on the host after each replay. ``tensors`` are the device tensors it reads: they are
    kept alive (a CUDA graph then never reuses their memory) and refreshed by an emulated replay.

    With ``flag`` (a 0-d bool tensor of the graph), ``check`` is a report that never rejects the step: it
    runs when the step's results reach the host, only if the flag is true there, and must not read
    ``tensors`` (a later replay may have rewritten them)."""
    cap = _state.capture
    if cap is None:
        raise RuntimeError("graph_capture.defer called outside a capture")
    if flag is None:
        cap.checks.append(check)
        cap.tensors.extend(tensors)
    else:
        cap.late.append((flag, check))
        cap.tensors.append(flag)


def has_checks() -> bool:
    """True if the step being captured has a host check that may reject it after a replay (so its update
    must stay out of the graph)."""
    cap = _state.capture
    return cap is not None and bool(cap.checks)


def note_generator(gen: torch.Generator) -> None:
    """Called by random kernels with their own generator, so a CUDA capture can register it."""
    seen = _state.generators
    if seen is not None and all(g is not gen for g in seen):
        seen.append(gen)


@contextlib.contextmanager
def _set(slot: str, value: object) -> Iterator[None]:
    outer = getattr(_state, slot)
    setattr(_state, slot, value)
    try:
        yield
    finally:
        setattr(_state, slot, outer)


def collect_generators(into: list[torch.Generator]) -> contextlib.AbstractContextManager[None]:
    """Collect into ``into`` the generators :func:`note_generator` sees while the block runs (the warm-up
    steps), so the capture can register them with the graph."""
    return _set("generators", into)


@dataclass
class CapturedStep:
    static: Tensors
    executed: bool
    _replay: Callable[[], None]
    _checks: list[Callable[[], None]]
    _keep: list[torch.Tensor] = field(default_factory=list)
    late: list[tuple[torch.Tensor, Callable[[], None]]] = field(default_factory=list)

    def replay(self) -> None:
        self._replay()
        self.run_checks()

    def run_checks(self) -> None:
        for check in self._checks:
            check()


def _run_capturing(fn: Callable[[], Tensors], cap: _Capture) -> Tensors:
    with _set("capture", cap):
        return list(fn())


def capture_cuda(fn: Callable[[], Tensors], generators: Sequence[torch.Generator] = ()) -> CapturedStep:
    """Capture ``fn`` into a CUDA graph. Raises :class:`CaptureError` (with the stream restored) if the
    step does something a graph cannot hold: a host sync, a CPU tensor, an unregistered generator."""
    graph = torch.cuda.CUDAGraph()
    for gen in generators:
        register = getattr(graph, "register_generator_state", None)
        if register is None:
            raise CaptureError("this torch cannot register a seeded op's generator with a CUDA graph")
        register(gen)
    cap = _Capture()
    stream = torch.cuda.current_stream()
    try:
        # thread_local: a DataLoader's pin-memory thread may allocate pinned memory while this thread captures
        with torch.cuda.graph(graph, capture_error_mode="thread_local"):
            static = _run_capturing(fn, cap)
    except Exception as exc:  # any failure means "run eagerly"
        torch.cuda.set_stream(stream)
        torch.cuda.synchronize()
        raise CaptureError(f"{type(exc).__name__}: {exc}") from exc
    return CapturedStep(static, False, graph.replay, cap.checks, cap.tensors, cap.late)


def capture_emulated(fn: Callable[[], Tensors]) -> CapturedStep:
    """Run ``fn`` now (that is this step) and emulate each replay by running it again and copying its
    results into the first run's tensors."""
    cap = _Capture()
    static = _run_capturing(fn, cap)
    targets = static + list(cap.tensors)

    def replay() -> None:
        fresh_cap = _Capture()
        fresh = _run_capturing(fn, fresh_cap) + list(fresh_cap.tensors)
        if len(fresh) != len(targets):
            raise CaptureError(f"emulated replay made {len(fresh)} tensors; the capture made {len(targets)}")
        with torch.no_grad():
            for dst, src in zip(targets, fresh):
                if (dst is None) != (src is None):
                    raise CaptureError("emulated replay and capture differ in which outputs exist")
                if dst is not None and src is not None and dst is not src:
                    dst.copy_(src)

    return CapturedStep(static, True, replay, cap.checks, late=cap.late)
