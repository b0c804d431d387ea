"""Quantization-aware training: OneFlow's ``QuantAwareTraining`` job pass (v0.4.0
``core/job_rewriter/quantization_aware_training.cpp``) on a built job's fx graph.

``function_config.enable_qat(True)`` (alias ``enable_quantization_aware_training``) rewrites the job once, before
it is compiled, as OneFlow's pass rewrote the job after its AMP pass:

* **Which ops.** The "int8" op types of ``qat.target_backend``: ``""``: conv2d, matmul, batch_matmul, add_n,
  avg_pool_2d, max_pool_2d; ``"cambricon"``: conv2d, matmul; ``"tensorrt7"``: conv2d. A conv2d whose only
  consumer is a bias_add (then a normalization, then a relu, each the only consumer of the one before) takes them
  along; a ``reshape`` fed by such an op passes its scale on (not for cambricon).
* **Which blobs.** Each input of those ops that comes from outside them is fake-quantized, and (except for
  cambricon) so is the output of each int8 op, or of the end of its conv chain, for every consumer; cambricon
  quantizes every input of an int8 op instead. Only float32 blobs, and never an input of a normalization.
  An op built under ``flow.experimental.scope.config(quantization_aware_training=False)`` keeps its inputs (and,
  as an int8 op, its outputs) as they are.
* **How.** A variable's blob (a weight) gets a ``min_max_observer`` (per channel along axis 0 with
  ``qat.per_channel_weight_quantization``); any other blob a ``moving_average_min_max_observer`` with
  ``qat.moving_min_max_momentum`` that updates its statistics while the train-step counter is at most
  ``qat.moving_min_max_stop_update_after_iters`` (required); a train job reads its own counter
  (``System-Train-TrainStep-<job>``, the step about to run), any other job a zero counter of its own and never
  updates. The bias of a conv chain is quantized with the product of its conv's input and weight scales and a
  zero zero-point. Then ``fake_quantization`` (gradient straight through) feeds the consumer. ``qat.symmetric``
  picks the scheme, cambricon its power-of-two formula. The kernels are :mod:`flowtorch._src.ops.quantization_ops`'.
* **Names** (``<b>`` = the blob's name with ``/`` → ``-``): ops ``<b>-fake-quant-observer``, ``<b>-fake-quant``,
  ``<b>-fake-quant-mul-bias``; non-trainable zero variables ``<b>-fake-quant-observer-fake-quant-moving-max`` /
  ``-moving-min`` (float32 (1,)), ``<b>-fake-quant-zp`` (float32, one per channel), and in jobs other than train
  jobs ``<b>-fake-quant-observer-fake-train-step`` (int64 (1,)). They are session variables: jobs whose blobs
  have the same names share them, checkpoints save them.

Not rewritten, as in OneFlow: eager jobs (OneFlow's eager mode ran no job pass) and, with
``enable_auto_mixed_precision``, the whole job (OneFlow's AMP pass ran first and made the inputs and outputs of
these ops float16, which the pass leaves alone; logged).
"""

from __future__ import annotations

import collections
import logging
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx

from flowtorch._src import dtypes, initializers
from flowtorch._src.capture.builder import BuiltGraph, ConfigView
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import op_registry, quantization_ops
from flowtorch._src.step import amp
from flowtorch._src.variable_store import VariableStore
from flowtorch._src.watch import taps

__all__ = ["QatOptions", "options", "rewrite"]

log = logging.getLogger("flowtorch")

Node = torch.fx.Node
Argument = torch.fx.node.Argument

_INT8_OPS = {
    "": frozenset({"add_n", "matmul", "batch_matmul", "conv2d", "avg_pool_2d", "max_pool_2d"}),
    "cambricon": frozenset({"conv2d", "matmul"}),
    "tensorrt7": frozenset({"conv2d"}),
}
_TRANSPARENT_OPS = {"": frozenset({"reshape"}), "cambricon": frozenset(), "tensorrt7": frozenset({"reshape"})}
_BIT = 8  # the ops' default quantization_bit: the pass sets no other
_told_eager: set[str] = set()  # eager jobs told that QAT does not apply (a warn-once flag)


@dataclass(frozen=True)
class QatOptions:
    """A job's ``qat.*`` options (v0.4.0 ``QatConfig`` with its defaults)."""

    per_channel: bool = False
    symmetric: bool = True
    momentum: float = 0.95
    stop_update_after_iters: int | None = None
    target_backend: str = ""

    @property
    def scheme(self) -> str:
        return "symmetric" if self.symmetric else "affine"

    @property
    def formula(self) -> str:
        return "cambricon" if self.target_backend == "cambricon" else "google"

    @property
    def int8_ops(self) -> frozenset[str]:
        return _INT8_OPS[self.target_backend]

    @property
    def transparent_ops(self) -> frozenset[str]:
        return _TRANSPARENT_OPS[self.target_backend]

    @property
    def quantize_outputs(self) -> bool:
        """Fake-quantize the outputs of int8 ops (else every input of them)."""
        return self.target_backend != "cambricon"


def options(config: ConfigView) -> QatOptions | None:
    """The job's QAT options, or None when ``enable_qat`` is off."""
    if not config.get("enable_quantization_aware_training"):
        return None
    backend = config.get("qat.target_backend", "")
    if backend not in _INT8_OPS:
        raise NotImplementedError(f"function_config.qat.target_backend: OneFlow's QAT pass knows '', 'cambricon' and "
                                  f"'tensorrt7'; received {backend!r}")
    stop = config.get("qat.moving_min_max_stop_update_after_iters")
    return QatOptions(bool(config.get("qat.per_channel_weight_quantization")), bool(config.get("qat.symmetric", True)),
                      float(config.get("qat.moving_min_max_momentum", 0.95)), None if stop is None else int(stop),
                      backend)


def rewrite(job_name: str, built: BuiltGraph, variables: VariableStore, is_train: bool, train_step_name: str,
            eager: bool = False) -> int:
    """Apply the pass to ``built`` in place when its config enables QAT; returns the number of
    ``fake_quantization`` ops inserted. New variables join the store and ``built.var_names``."""
    opts = options(built.config)
    if opts is None:
        return 0
    if eager:  # (an eager job makes a step at every call: said once)
        if job_name not in _told_eager:
            _told_eager.add(job_name)
            log.info("flowtorch: job %r is an eager job: enable_qat is ignored (OneFlow's eager mode ran no job "
                     "passes)", job_name)
        return 0
    if amp.enabled(built.config):
        log.info("flowtorch: job %r enables auto mixed precision: the QAT pass quantizes nothing (OneFlow's AMP "
                 "pass ran before it and left the quantized ops' blobs float16, which it skips)", job_name)
        return 0
    default = built.config.get("default_data_type")
    if default is not None and default != dtypes.float32:
        raise ArgumentError(f"job {job_name!r}: quantization-aware training needs default_data_type float32 (as "
                            f"OneFlow's pass checks); this job's is {default}")
    if opts.formula == "cambricon" and opts.per_channel:
        raise NotImplementedError(f"job {job_name!r}: qat.per_channel_weight_quantization with qat.target_backend "
                                  "'cambricon': per-channel mode is not supported in the cambricon scheme "
                                  "(OneFlow's min_max_observer kernel)")
    return _Rewriter(job_name, built, variables, is_train, train_step_name, opts).run()


# --- the graph as OneFlow's op graph ---------------------------------------------------------------------
def _op_type(n: Node) -> str | None:
    return n.meta.get("flowtorch_op_type") if n.op == "call_function" else None


def _enabled(n: Node) -> bool:
    """The op's scope attribute ``quantization_aware_training`` (builder.record keeps non-default scopes)."""
    return bool(n.meta.get("flowtorch_scope_attrs", {}).get("quantization_aware_training", True))


def _blob_of(arg: Node) -> Node:
    """The blob an argument node stands for: a diff-watch tap is its blob."""
    if arg.op == "call_function" and arg.target is taps.diff_tap and isinstance(arg.args[0], Node):
        return arg.args[0]
    return arg


def _producer(blob: Node) -> Node:
    """The op that made ``blob``: the call behind an output's getitem, else the node itself."""
    if blob.op == "call_function" and blob.target is operator.getitem and isinstance(blob.args[0], Node):
        return blob.args[0]
    return blob


def _outputs(op: Node) -> list[Node]:
    """The blob nodes of an op (its getitems when it has several outputs)."""
    if "flowtorch_meta" in op.meta or op.op != "call_function":
        return [op]
    return [u for u in op.users if u.target is operator.getitem]


def _inputs(op: Node) -> list[tuple[Node, Node]]:
    """(argument node, blob) of each blob the op reads, in argument order."""
    return [(a, _blob_of(a)) for a in op.all_input_nodes]


def _uses(blob: Node) -> list[tuple[Node, Node]]:
    """(argument node, consumer) of each op that reads ``blob``: watches and returns count, losses do not."""
    out: list[tuple[Node, Node]] = []
    for u in blob.users:
        pairs = [(u, c) for c in u.users] if u.target is taps.diff_tap else [(blob, u)]
        for arg, c in pairs:
            if c.op == "output" and not any(o is arg for o in _returns(c)):
                continue  # only a loss, which OneFlow's graph has no consumer op for
            out.append((arg, c))
    return out


def _returns(output: Node) -> tuple[Argument, ...]:
    """The returned nodes of the graph's output node (``output((returns, losses))``, builder.finalize)."""
    returns = output.args[0][0] if isinstance(output.args[0], tuple) else ()
    return tuple(returns) if isinstance(returns, (tuple, list)) else ()


def _consumers(op: Node) -> list[Node]:
    return list(dict.fromkeys(c for b in _outputs(op) for _, c in _uses(b)))


def _meta(n: Node) -> torch.Tensor | None:
    if n.op == "call_function" and n.target is torch.Tensor.detach and isinstance(n.args[0], Node):
        return _meta(n.args[0])
    m = n.meta.get("flowtorch_meta", n.meta.get("flowtorch_placeholder_meta"))
    return m if isinstance(m, torch.Tensor) else None


def _lbn(n: Node) -> str:
    if n.op == "call_function" and n.target is torch.Tensor.detach and isinstance(n.args[0], Node):
        return _lbn(n.args[0])
    return str(n.meta.get("flowtorch_lbn", n.name))


def _conv_chain(conv: Node) -> tuple[list[Node], Node]:
    """OneFlow's "conv2d → bias_add → normalization → relu" pattern: the ops it takes along and the last one."""
    taken: list[Node] = []
    cur = conv
    cons = _consumers(conv)
    if _op_type(conv) != "conv2d" or len(cons) != 1:
        return taken, cur
    nxt = cons[0]
    for kind in ("bias_add", "normalization", "relu"):
        if _op_type(nxt) != kind:
            continue
        taken.append(nxt)
        cur = nxt
        after = _consumers(nxt)
        if len(after) == 1:
            nxt = after[0]
    return taken, cur


def _conv_of_bias(consumer: Node) -> Node | None:
    """The conv2d whose bias this edge carries (OneFlow's ``IsConvBiasEdge``: any input of a bias_add fed by a
    conv2d; flowtorch's conv2d has no bias input of its own before step/fuse.py)."""
    if _op_type(consumer) != "bias_add":
        return None
    return next((p for _, b in _inputs(consumer) if _op_type(p := _producer(b)) == "conv2d"), None)


@dataclass(frozen=True)
class _ConvBias:
    """A conv2d and its input and weight blobs, whose scales give its bias's."""

    conv: Node
    input: Node
    weight: Node


@dataclass
class _Rewriter:
    job_name: str
    built: BuiltGraph
    variables: VariableStore
    is_train: bool
    train_step_name: str
    opts: QatOptions
    graph: torch.fx.Graph = field(init=False)
    var_nodes: dict[str, Node] = field(init=False)
    observers: dict[Node, tuple[Node, Node]] = field(default_factory=dict)  # blob → (scale, zero_point)
    created: list[str] = field(default_factory=list)
    n_fake_quant: int = 0

    def __post_init__(self) -> None:
        self.graph = self.built.module.graph
        holders = [n for n in self.graph.nodes if n.op == "placeholder"]
        self.var_nodes = dict(zip(self.built.var_names, holders[self.built.n_inputs:]))

    # --- OneFlow's analysis --------------------------------------------------------------------------
    def run(self) -> int:
        opts = self.opts
        white: set[Node] = set()
        for n in self.graph.nodes:
            t = _op_type(n)
            if t in opts.int8_ops:
                white.add(n)
                white.update(_conv_chain(n)[0])
            elif t in opts.transparent_ops and any(_producer(b) in white for _, b in _inputs(n)):
                white.add(n)
        edges: dict[tuple[Node, Node], Node] = {}  # (blob, consumer) → the consumer's argument node
        scale_src: dict[Node, Node] = {}  # blob → the blob whose observer gives its scale

        def add(arg: Node, consumer: Node) -> None:
            blob = _blob_of(arg)
            edges.setdefault((blob, consumer), arg)
            scale_src[blob] = blob

        for n in list(self.graph.nodes):
            if n not in white:
                continue
            for arg, blob in _inputs(n):
                if _producer(blob) not in white and _enabled(n):
                    add(arg, n)
            t = _op_type(n)
            if t in opts.int8_ops:
                if opts.quantize_outputs:
                    end = _conv_chain(n)[1]
                    if _enabled(end):
                        for b in _outputs(end):
                            for arg, c in _uses(b):
                                add(arg, c)
                elif _enabled(n):
                    for arg, _ in _inputs(n):
                        add(arg, n)
            elif t in opts.transparent_ops:
                (_, src), out = _inputs(n)[0], _outputs(n)[0]
                if src in scale_src:
                    scale_src[out] = scale_src[src]
        # decided before any edge is rewritten: the edges that carry a conv's bias, with its input and weight
        by_blob: dict[Node, list[tuple[Node, Node, _ConvBias | None]]] = collections.defaultdict(list)
        for (blob, consumer), arg in edges.items():
            conv = _conv_of_bias(consumer)
            bias = None if conv is None else _ConvBias(conv, *(b for _, b in _inputs(conv)[:2]))
            by_blob[blob].append((arg, consumer, bias))
        for blob, uses in by_blob.items():
            self._quantize(blob, uses, scale_src)
        if self.n_fake_quant:
            self.graph.lint()
            self.built.module.recompile()
        quantized = [n for n in white if _op_type(n) in opts.int8_ops and _enabled(n)]
        kinds = collections.Counter(_op_type(n) for n in quantized)
        log.info("flowtorch: job %r: quantization-aware training (target_backend %r, %s, %s weights) quantizes %d "
                 "op(s)%s with %d fake_quantization op(s) and %d new variable(s)", self.job_name,
                 opts.target_backend, opts.scheme, "per-channel" if opts.per_channel else "per-layer", len(quantized),
                 f" ({', '.join(f'{k} ×{v}' for k, v in sorted(kinds.items()))})" if kinds else "",
                 self.n_fake_quant, len(self.created))
        return self.n_fake_quant

    def _quantize(self, blob: Node, uses: list[tuple[Node, Node, _ConvBias | None]],
                  scale_src: dict[Node, Node]) -> None:
        meta = _meta(blob)
        if meta is None or meta.dtype != torch.float32:
            return  # OneFlow's pass quantizes kFloat blobs only
        fakes: dict[Node | None, Node] = {}  # by the conv whose bias this is (None: the blob's own observer)
        for arg, consumer, bias in uses:
            if _op_type(consumer) == "normalization":
                continue  # OneFlow skips batch norm inputs ("merged into conv" in a complete pass)
            conv = None if bias is None else bias.conv
            if conv not in fakes:
                fakes[conv] = self._fake_quant(blob, arg, meta, consumer, bias, scale_src)
            if consumer.op == "output":  # a returned blob: the return takes the fake-quantized one, a loss not
                pair = consumer.args[0]
                losses = pair[1] if isinstance(pair, tuple) else ()
                returns = tuple(fakes[conv] if o is arg else o for o in _returns(consumer))
                consumer.args = ((returns, losses),)
            else:
                consumer.replace_input_with(arg, fakes[conv])

    # --- the inserted ops ----------------------------------------------------------------------------
    def _fake_quant(self, blob: Node, arg: Node, meta: torch.Tensor, consumer: Node, bias: _ConvBias | None,
                    scale_src: dict[Node, Node]) -> Node:
        name = _lbn(blob).replace("/", "-")
        if bias is None:
            scale, zero_point = self._observer(blob, arg)
            cursor = zero_point
        else:
            conv, w = bias.conv, bias.weight
            found = [scale_src.get(bias.input), scale_src.get(w)]
            if found[0] is None or found[1] is None:
                raise NotImplementedError(
                    f"job {self.job_name!r}: quantizing {_lbn(blob)} (the bias of conv {conv.meta.get('flowtorch_op')})"
                    " needs the scales of the conv's input and weight, which the QAT pass does not quantize here "
                    "(is the conv in a scope with quantization_aware_training=False?); OneFlow's pass fails too")
            in_scale, _ = self._observer(found[0], None)
            w_scale, _ = self._observer(found[1], None)
            w_meta = _meta(w)
            length = w_meta.shape[0] if self.opts.per_channel and w_meta is not None else 1
            zero_point = self._variable(f"{name}-fake-quant-zp", (length,), torch.float32)
            shape = torch.broadcast_shapes(tuple(in_scale.meta["flowtorch_meta"].shape),
                                           tuple(w_scale.meta["flowtorch_meta"].shape))
            with self.graph.inserting_before(consumer):
                scale = self._op(torch.mul, (in_scale, w_scale), "broadcast_mul", f"{name}-fake-quant-mul-bias", "z_0",
                                 torch.empty(shape, dtype=torch.float32, device="meta"))
            cursor = scale
        kernel = op_registry.lookup("fake_quantization").make_kernel(())
        with self.graph.inserting_after(cursor):
            fake = self._op(kernel, (arg, scale, zero_point, _BIT, self.opts.scheme, self.opts.formula),
                            "fake_quantization", f"{name}-fake-quant", "out_0", torch.empty_like(meta))
        self.n_fake_quant += 1
        return fake

    def _observer(self, blob: Node, arg: Node | None) -> tuple[Node, Node]:
        """The blob's observer (made once): ``min_max_observer`` for a variable, else the moving-average one."""
        if blob in self.observers:
            return self.observers[blob]
        arg = blob if arg is None else arg
        meta = _meta(blob)
        if meta is None or meta.dtype != torch.float32:
            raise NotImplementedError(f"job {self.job_name!r}: the QAT pass needs a scale of {_lbn(blob)}, which is "
                                      "not a float32 blob")
        opts = self.opts
        name = _lbn(blob).replace("/", "-") + "-fake-quant-observer"
        per_channel = opts.per_channel and opts.formula == "google" and meta.dim() > 0
        if self._is_variable(blob):
            op_type = "min_max_observer"
            args: tuple[Argument, ...] = (arg, _BIT, opts.scheme, opts.formula, not per_channel)
            n = meta.shape[0] if per_channel else 1
        else:
            if opts.stop_update_after_iters is None:
                raise ArgumentError(f"job {self.job_name!r}: quantization-aware training observes {_lbn(blob)} with a "
                                    "moving average, which needs function_config.qat.moving_min_max_stop_update_after"
                                    "_iters(n) (OneFlow's pass requires it)")
            if opts.stop_update_after_iters <= 0:
                raise ArgumentError(f"function_config.qat.moving_min_max_stop_update_after_iters must be positive "
                                    f"(OneFlow's observer checks it); job {self.job_name!r} has "
                                    f"{opts.stop_update_after_iters}")
            if self.is_train:
                step = self._variable(self.train_step_name, (1,), torch.int64)
            else:
                step = self._variable(f"{name}-fake-train-step", (1,), torch.int64)
            moving_max = self._variable(f"{name}-fake-quant-moving-max", (1,), torch.float32)
            moving_min = self._variable(f"{name}-fake-quant-moving-min", (1,), torch.float32)
            op_type = "moving_average_min_max_observer"
            args = (arg, step, moving_max, moving_min, self.is_train, opts.stop_update_after_iters, _BIT,
                    opts.scheme, opts.momentum, opts.formula)
            n = 1
        anchor = arg if arg.op != "placeholder" else self._last_placeholder()
        with self.graph.inserting_after(anchor):
            call = self._op(op_registry.lookup(op_type).make_kernel(()), args, op_type, name, None, None)
        outs = []
        cursor = call
        for i, out in enumerate(("scale_0", "zero_point_0")):
            with self.graph.inserting_after(cursor):
                cursor = self.graph.call_function(operator.getitem, (call, i))
            cursor.meta["flowtorch_meta"] = torch.empty(n, dtype=torch.float32, device="meta")
            cursor.meta["flowtorch_lbn"] = f"{name}/{out}"
            outs.append(cursor)
        self.observers[blob] = (outs[0], outs[1])
        return self.observers[blob]

    def _op(self, fn: Callable[..., Any], args: tuple[Argument, ...], op_type: str, op_name: str, out: str | None,
            meta: torch.Tensor | None) -> Node:
        """One OneFlow op as the builder records it (a node typed by its op type and named)."""
        node = self.graph.call_function(fn, args)
        node.meta.update(flowtorch_op_type=op_type, flowtorch_op=op_name, flowtorch_location="(the QAT pass)",
                         flowtorch_lbn=f"{op_name}/{out}" if out else op_name)
        if meta is not None:
            node.meta.update(flowtorch_meta=meta, flowtorch_lbn=f"{op_name}/{out}")
        return node

    # --- variables -----------------------------------------------------------------------------------
    def _is_variable(self, blob: Node) -> bool:
        if blob.op == "call_function" and blob.target is torch.Tensor.detach and isinstance(blob.args[0], Node):
            blob = blob.args[0]
        return blob.op == "placeholder" and blob in self.var_nodes.values()

    def _last_placeholder(self) -> Node:
        return [n for n in self.graph.nodes if n.op == "placeholder"][-1]

    def _variable(self, name: str, shape: tuple[int, ...], dtype: torch.dtype) -> Node:
        """Variable ``name``'s placeholder in this job; the session variable (zeros, not trainable) is made when
        no job made it before."""
        if name in self.var_nodes:
            return self.var_nodes[name]
        if name in self.variables:
            var = self.variables[name]
            if var.shape != shape or var.tensor.dtype != dtype:
                raise ArgumentError(f"job {self.job_name!r}: the QAT pass needs variable {name!r} of shape {shape} "
                                    f"and dtype {dtype}; the session has one of shape {var.shape}, dtype {var.dtype}")
        else:
            self.variables.create(name, torch.zeros(shape, dtype=dtype), trainable=False,
                                  initializer=initializers.constant_initializer(0))
            if name != self.train_step_name:  # (the step would make that one anyway)
                self.created.append(name)
        with self.graph.inserting_after(self._last_placeholder()):
            node = self.graph.placeholder(f"var_{len(self.built.var_names)}")
        node.meta.update(flowtorch_placeholder_meta=torch.empty(shape, dtype=dtype, device="meta"),
                         flowtorch_distribution=(), flowtorch_lbn=f"{name}/out")
        self.built.var_names.append(name)
        self.var_nodes[name] = node
        return node


_ = quantization_ops.SCHEMES  # importing the module registers the op types looked up above
