"""``FLOWTORCH_CAPTURE=cuda_graph``: a train step's forward and backward replayed as one CUDA graph.

Per input shape, the first :data:`WARMUP_CALLS` calls are ordinary eager steps (on a side stream, as
CUDA graph capture wants; they are real steps, so no update is done twice or lost). The next call
captures ``forward + backward`` reading static input buffers and the variables in place, then every call
copies its inputs into those buffers and replays. The optimizer's update runs after the replay, eagerly,
with ``torch._foreach_*`` kernels: the learning rate and step-dependent terms (schedules, Adam's bias
correction, LARS's first step) are then plain host numbers, exactly as in eager mode, and nothing has to be
re-captured when they change.

Watches need nothing special: the value and gradient taps run once, at capture, and keep the tensors they
saw; those tensors live in the graph's memory and every replay rewrites them, so after a replay they hold
this step's values and are delivered from there. Host-side checks (the label range of sparse
cross-entropy) are deferred to after the replay and run before the update, so a rejected step leaves the
variables as eager mode would. Anything that cannot be captured (a host sync, an unregistrable generator)
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


class GraphedStep:
    """The ``cuda_graph`` mode of one job's :class:`StepFunction`."""

    def __init__(self, step: StepFunction, cuda: bool) -> None:
        self.step = step
        self.cuda = cuda
        self.graphs: dict[ShapeKey, _Graph] = {}
        self.calls: dict[ShapeKey, int] = {}
        self.generators: list[torch.Generator] = []
        self.disabled = False
        self.side_stream = torch.cuda.Stream() if cuda else None
        n_params = len(step.trainable) if step.is_train else 0
        self.layout = (len(step.clone_returns), n_params, step.n_values, step.n_grads)

    @classmethod
    def for_step(cls, step: StepFunction, device: str) -> GraphedStep | None:
        if device.startswith("cuda") and torch.cuda.is_available():
            return cls(step, cuda=True)
        if EMULATE_WITHOUT_CUDA:
            return cls(step, cuda=False)
        log.warning("flowtorch: FLOWTORCH_CAPTURE=cuda_graph needs a CUDA device; job %r runs eagerly on %s",
                    step.job_name, device)
        return None

    def __call__(self, inputs: list[torch.Tensor]) -> StepOutput:
        if self.disabled or not all(isinstance(t, torch.Tensor) for t in inputs):
            return self.step.eager(inputs)  # tensor lists and opaque data-op values vary per call: no static buffer
        key: ShapeKey = tuple((tuple(t.shape), t.dtype) for t in inputs)
        graph = self.graphs.get(key)
        if graph is None:
            calls = self.calls[key] = self.calls.get(key, 0) + 1
            if calls <= WARMUP_CALLS or len(self.graphs) >= MAX_GRAPHS:
                return self._warmup(inputs)
            graph = self._capture(key, inputs)
            if graph is None:
                return self.step.eager(inputs)
            if graph.step.executed:  # the emulated capture ran this very step
                graph.step.run_checks()
                return self._finish(graph)
        for buffer, x in zip(graph.inputs, inputs):
            buffer.copy_(x, non_blocking=True)
        graph.step.replay()
        return self._finish(graph)

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
        graph = self.graphs[key] = _Graph(buffers, captured)
        return graph

    def _body(self, inputs: list[torch.Tensor]) -> list[torch.Tensor | None]:
        """What the graph holds: returns, parameter gradients, watched values, watched gradients."""
        returns, grads, record = self.step.run_taps(inputs, clone_returns=False, predict_mode=torch.no_grad)
        # (row-wise variables run their step eagerly: its gradients are dense)
        return [*returns, *sparse_update.dense(grads), *record.values, *record.grads]

    def _finish(self, graph: _Graph) -> StepOutput:
        n_returns, n_params, n_values, _ = self.layout
        static = graph.step.static
        # Returns may be kept past the next replay (futures): copy them, before the update.
        returns: list[Any] = [None if t is None else t.clone() for t in static[:n_returns]]
        grads = static[n_returns:n_returns + n_params]
        record = taps.StepRecord(0, 0)
        watched = static[n_returns + n_params:]
        record.values, record.grads = list(watched[:n_values]), list(watched[n_values:])
        if self.step.is_train:
            self.step.update(grads)
        return StepOutput(returns, record)
