"""``FLOWTORCH_CAPTURE=cuda_graph``: the whole step (forward, backward and the optimizer's update) replayed
as one CUDA graph.

Per input shape, the first :data:`WARMUP_CALLS` calls are ordinary eager steps (on a side stream, as
CUDA graph capture wants; they are real steps, so no update is done twice or lost). The next call
captures the step reading static input buffers and the variables in place, then every call copies its
inputs into those buffers (from the caller's pinned staging, without a host sync) and replays.

The update is in the graph (every optimizer: SGD, SGDW, Adam, AdamW, LazyAdam, LARS, LAMB, RMSProp, their
combinations, with clipping, regularizers and a static or dynamic loss scale): everything that changes from
step to step (the scheduled learning rate, Adam's and LAMB's bias corrections, LARS's first step) is
computed on the host exactly as eagerly and written to a small device tensor before each replay, which the
graph reads (as torch's ``capturable`` optimizers do), so schedules and warm-up never re-capture; the
train-step counter and the dynamic loss scale move on the device too (a step with non-finite gradients has
its update undone there). A strict label check, which may reject the step after the replay, keeps the
update out of the graph: it then runs after the replay, eagerly, and this is logged once per job (as for an
optimizer whose ``capturable`` is False).

Watches need nothing special: the value and gradient taps run once, at capture, and keep the tensors they
saw; those tensors live in the graph's memory and every replay rewrites them, so after a replay they hold
this step's values and are delivered from there (the caller copies them before the next step). Host-side
checks that only report (the label range of sparse cross-entropy) read a flag the graph computes, when the
step's results reach the host. Anything that cannot be captured (a host sync, an unregistrable generator)
is logged once and the job runs eagerly from then on, never re-capturing in a loop.

On a CPU-only session the mode runs eagerly (one log line), unless :data:`EMULATE_WITHOUT_CUDA` is set:
then :func:`graph_capture.capture_emulated` stands in for the graph, which lets the tests check everything
but the CUDA capture itself.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from flowtorch._src import errors
from flowtorch._src.runtime import graph_capture
from flowtorch._src.step import sparse_update
from flowtorch._src.watch import taps
from flowtorch._src.watch.taps import StepOutput

if TYPE_CHECKING:
    from flowtorch._src.step.compile import StepFunction

log = logging.getLogger("flowtorch")

WARMUP_CALLS = 3
"""Eager steps per input shape before capture (PyTorch's ``make_graphed_callables`` default)."""
MAX_GRAPHS = 4
"""Graphs kept per job (one per input shape); calls with further shapes run eagerly."""
EMULATE_WITHOUT_CUDA = False
"""Tests set this to emulate the graph on CPU (``graph_capture.capture_emulated``)."""

ShapeKey = tuple[tuple[tuple[int, ...], torch.dtype], ...]


@dataclass
class _Graph:
    inputs: list[torch.Tensor]
    step: graph_capture.CapturedStep
    updates: bool  # the update is in the graph


class _Numbers:
    """The device tensor a captured update reads its step numbers from, filled before each replay from a
    small ring of pinned buffers (a buffer is rewritten only once its copy is done)."""

    DEPTH = 8

    def __init__(self, n: int, device: torch.device, cuda: bool) -> None:
        self.device_values = torch.zeros(n, dtype=torch.float64, device=device)
        self.cuda = cuda
        self.pinned = [torch.zeros(n, dtype=torch.float64, pin_memory=cuda) for _ in range(self.DEPTH if cuda else 1)]
        self.events = [torch.cuda.Event() if cuda else None for _ in self.pinned]
        self.next = 0

    def load(self, values: list[float]) -> None:
        k = self.next
        self.next = (k + 1) % len(self.pinned)
        buf, event = self.pinned[k], self.events[k]
        if event is not None:
            event.synchronize()  # (long done: DEPTH steps ago)
        buf.numpy()[:] = values
        self.device_values.copy_(buf, non_blocking=self.cuda)
        if event is not None:
            event.record()


class GraphedStep:
    """The ``cuda_graph`` mode of one job's :class:`StepFunction`."""

    def __init__(self, step: StepFunction, cuda: bool) -> None:
        self.step = step
        self.cuda = cuda
        self.graphs: dict[ShapeKey, _Graph] = {}
        self.calls: dict[ShapeKey, int] = {}
        self.generators: list[torch.Generator] = []
        self.disabled = False
        self._updates = False  # set by each capture: whether the graph holds the update
        self.side_stream = torch.cuda.Stream() if cuda else None
        self.device = step.var_tensors[0].device if step.var_tensors else torch.device("cuda" if cuda else "cpu")
        self.n_params = len(step.trainable) if step.is_train else 0
        self.numbers: _Numbers | None = None
        if step.is_train:
            why = step.update_capturable()
            if why is None:
                self.numbers = _Numbers(len(step.step_numbers()), self.device, cuda)
            else:
                log.info("flowtorch: job %r replays its forward and backward from a CUDA graph and updates after "
                         "the replay: %s", step.job_name, why)

    @classmethod
    def for_step(cls, step: StepFunction, device: str) -> GraphedStep | None:
        if device.startswith("cuda") and torch.cuda.is_available():
            return cls(step, cuda=True)
        if EMULATE_WITHOUT_CUDA:
            return cls(step, cuda=False)
        log.warning("flowtorch: FLOWTORCH_CAPTURE=cuda_graph needs a CUDA device; job %r runs eagerly on %s",
                    step.job_name, device)
        return None

    def __call__(self, inputs: list[Any]) -> StepOutput:
        """One step. Inputs may be on the host (the caller's pinned staging): a replay copies them into its
        buffers without a host sync; an eager step moves them to the device first."""
        if self.disabled or not all(isinstance(t, torch.Tensor) for t in inputs):
            return self.step.eager(self._on_device(inputs))  # tensor lists and opaque values vary per call
        key: ShapeKey = tuple((tuple(t.shape), t.dtype) for t in inputs)
        graph = self.graphs.get(key)
        if graph is None:
            calls = self.calls[key] = self.calls.get(key, 0) + 1
            on_device = self._on_device(inputs)
            if calls <= WARMUP_CALLS or len(self.graphs) >= MAX_GRAPHS:
                return self._warmup(on_device)
            if self.numbers is not None:
                self.numbers.load(self.step.step_numbers())  # (an emulated capture runs this step now)
            graph = self._capture(key, on_device)
            if graph is None:
                return self.step.eager(on_device)
            if graph.step.executed:  # the emulated capture ran this very step
                graph.step.run_checks()
                return self._finish(graph)
        for buffer, x in zip(graph.inputs, inputs):
            buffer.copy_(x, non_blocking=True)
        if graph.updates and self.numbers is not None:
            self.numbers.load(self.step.step_numbers())
        graph.step.replay()
        return self._finish(graph)

    def _on_device(self, inputs: list[Any]) -> list[Any]:
        return [t.to(self.device, non_blocking=True) if isinstance(t, torch.Tensor) and t.device != self.device
                else t for t in inputs]

    def _warmup(self, inputs: list[torch.Tensor]) -> StepOutput:
        with graph_capture.collect_generators(self.generators):
            if self.side_stream is None:
                return self.step.eager(inputs)
            self.side_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.side_stream):
                out = self.step.eager(inputs)
            torch.cuda.current_stream().wait_stream(self.side_stream)
            return out

    def _capture(self, key: ShapeKey, inputs: list[torch.Tensor]) -> _Graph | None:
        buffers = [x.clone() for x in inputs]
        try:
            if self.cuda:
                captured = graph_capture.capture_cuda(lambda: self._body(buffers), self.generators)
            else:
                captured = graph_capture.capture_emulated(lambda: self._body(buffers))
        except errors.CaptureError as exc:
            log.warning("flowtorch: job %r could not be captured as a CUDA graph (%s); running it eagerly "
                        "from now on", self.step.job_name, exc)
            self.disabled = True
            return None
        graph = self.graphs[key] = _Graph(buffers, captured, self._updates)
        return graph

    def _body(self, inputs: list[torch.Tensor]) -> list[torch.Tensor | None]:
        """What the graph holds: returns, parameter gradients (unless the update is in the graph), watched
        values, watched gradients. A returned variable (or view of one) is copied in the graph, before the update."""
        returns, grads, record = self.step.run_taps(inputs, clone_returns=True, predict_mode=torch.no_grad)
        self._updates = self.numbers is not None and not graph_capture.has_checks()
        if self._updates and self.numbers is not None:
            self.step.update_in_graph(grads, self.numbers.device_values)
            return [*returns, *record.values, *record.grads]
        # (row-wise variables run their step eagerly: its gradients are dense)
        return [*returns, *sparse_update.dense(grads), *record.values, *record.grads]

    def _finish(self, graph: _Graph) -> StepOutput:
        """This step's output from the graph's buffers: the caller copies what it keeps before the next step."""
        n_returns, n_values = len(self.step.clone_returns), self.step.n_values
        n_params = 0 if graph.updates else self.n_params
        static = graph.step.static
        returns: list[Any] = list(static[:n_returns])
        grads = static[n_returns:n_returns + n_params]
        record = taps.StepRecord(0, 0)
        watched = static[n_returns + n_params:]
        record.values, record.grads = list(watched[:n_values]), list(watched[n_values:])
        record.checks = list(graph.step.late)
        record.static = True
        if self.step.is_train:
            if graph.updates:
                self.step.updated_in_graph()
            else:
                self.step.update(grads)
        return StepOutput(returns, record)
