"""OneFlow's consistent view on several processes: a job's graph rewritten so that each rank runs its part
of the logical batch, with the collectives that keep every blob's logical value.

It is OneFlow's SBP reduced to two states: a blob is ``Split(axis)`` (each rank holds one equal part along
``axis``) or broadcast (``B``: every rank holds it whole); a partial sum (a ``reduce_sum`` over the split
axis, a matmul contracting it) is summed over the ranks where it arises. Rules, by OneFlow op type
(``flowtorch_op_type`` on each node), say which ops run on the parts; an op without a rule gathers its
split inputs and runs on whole tensors — always right, only slower. See docs/architecture.md.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

import torch
import torch.fx

from flowtorch._src.dist import collectives
from flowtorch._src.ops import batch_norm
from flowtorch._src.watch import taps


@dataclass(frozen=True)
class Split:
    axis: int


BROADCAST: Final = "B"
State: TypeAlias = "Split | Literal['B']"
# Where a value lives, None where placement does not know (a value computed from no placed node): the rules
# treat it as neither split nor broadcast, the step as whole.
Placed: TypeAlias = "State | None"


@dataclass
class Plan:
    """Where each value of a rewritten step lives: the step's inputs (in graph order), returns, losses and
    watched values and gradients (by watch slot)."""

    size: int
    rank: int = 0  # this process's rank
    inputs: list[State] = field(default_factory=list)
    returns: list[Placed] = field(default_factory=list)
    losses: list[Placed] = field(default_factory=list)
    values: dict[int, Placed] = field(default_factory=dict)
    grads: dict[int, Placed] = field(default_factory=dict)
    gathered_ops: list[str] = field(default_factory=list)  # ops run whole for want of a rule (for the log)
    local_inputs: set[int] = field(default_factory=set)  # inputs each rank feeds its own part of (its reader's)
    split_feeds: set[int] = field(default_factory=set)  # mirrored view: tp.Numpy inputs cut into the ranks' parts
    mirrored: bool = False  # the mirrored view: every rank feeds its own part and runs its ops alone
    feed: str = "check"  # FLOWTORCH_DIST_FEED, read when the step is planned: check, trust or rank0


def distribute(module: torch.fx.GraphModule, size: int, states: dict[torch.fx.Node, Placed] | None = None) -> Plan:
    """Rewrite ``module`` in place for ``size`` ranks and say where its values live (``states``, when given,
    gets where each node lives)."""
    plan = Plan(size, collectives.rank())
    if states is None:
        states = {}
    graph = module.graph
    first_op = next((n for n in graph.nodes if n.op != "placeholder"), None)
    for node in list(graph.nodes):
        if node.op == "placeholder" and node.name.startswith("var_"):
            states[node] = BROADCAST
            axis = _variable_split(node, size)
            if axis is not None and first_op is not None:  # a split variable: each rank reads its own slice
                with graph.inserting_before(first_op):
                    part = graph.call_function(collectives.local_part, (node, axis))
                part.meta["flowtorch_meta"] = node.meta["flowtorch_placeholder_meta"]  # shapes are logical
                node.replace_all_uses_with(part, delete_user_cb=lambda user, part=part: user is not part)
                states[part] = Split(axis)
            continue
        if node.op == "placeholder":
            if node.meta.get("flowtorch_per_device"):
                raise NotImplementedError("tp.ListNumpy placeholders (one array per device) take the mirrored "
                                          "view on several processes: function_config.default_logical_view("
                                          "flow.scope.mirrored_view())")
            if node.meta.get("flowtorch_rank_part"):
                fed: State = Split(0)
                plan.local_inputs.add(len(plan.inputs))
            else:
                fed = _input_state(node, size)
            states[node] = fed
            plan.inputs.append(fed)
        elif node.op == "call_function":
            states[node] = _call_state(_Ctx(graph, node, states, size), plan)
        elif node.op == "output":
            _note_output(node, states, plan)
    graph.lint()
    module.recompile()
    return plan


def placed_so_far(graph: torch.fx.Graph, size: int) -> dict[torch.fx.Node, Placed]:
    """Where each node of a job graph still being built would live on ``size`` ranks in the consistent view:
    :func:`distribute` of a copy (the graph stays as it is), keyed by the graph's own nodes. ``blob.split_axis``
    reads it while the body runs, so the blobs report the placement the step will have."""
    copy = torch.fx.Graph()
    copies: dict[torch.fx.Node, torch.fx.Node] = {}
    copy.graph_copy(graph, copies)
    copy.output(((), ()))
    states: dict[torch.fx.Node, Placed] = {}
    distribute(torch.fx.GraphModule(torch.nn.Module(), copy), size, states)
    placed = {node: states.get(copies[node]) for node in graph.nodes if node in copies}
    for node in placed:
        if node.op == "placeholder" and node.name.startswith("var_"):  # its uses read the rank's slice
            axis = _variable_split(node, size)
            placed[node] = BROADCAST if axis is None else Split(axis)
    return placed


def mirrored(module: torch.fx.GraphModule, size: int) -> Plan:
    """OneFlow's mirrored view: each rank's inputs are its own part (``tp.ListNumpy``: one array per device;
    ``tp.Numpy``: its part of the array, cut along the first axis) and every op runs on it as it is, nothing
    rewritten. A blob computed from the inputs is split along
    axis 0 (its parts are the devices'); one computed from variables alone is the same on every rank."""
    plan = Plan(size, collectives.rank(), mirrored=True)
    states: dict[torch.fx.Node, Placed] = {}
    for node in module.graph.nodes:
        if node.op == "placeholder":
            if node.name.startswith("var_"):
                states[node] = BROADCAST
            else:
                states[node] = Split(0)
                if node.meta.get("flowtorch_split_feed"):  # a tp.Numpy array: each rank takes its part
                    plan.split_feeds.add(len(plan.inputs))
                plan.inputs.append(Split(0))
        elif node.op == "call_function":
            parts = any(isinstance(states.get(n), Split) for n in node.all_input_nodes)
            states[node] = Split(0) if parts else BROADCAST
            _note_tap(node, states, plan)
        elif node.op == "output":
            _note_output(node, states, plan)
    return plan


def _note_tap(node: torch.fx.Node, states: dict[torch.fx.Node, Placed], plan: Plan) -> bool:
    """Record where a watch tap's value lives; False when ``node`` is no tap."""
    if node.target in (taps.value_tap, taps.compiled_value_tap):
        watched = plan.values
    elif node.target in (taps.diff_tap, taps.compiled_diff_tap):
        watched = plan.grads
    else:
        return False
    blob, slot = node.args[:2]
    if not isinstance(slot, int):
        raise TypeError(f"watch tap {node.name}: its slot is {slot!r}, not an int")
    watched[slot] = states.get(blob) if isinstance(blob, torch.fx.Node) else None
    return True


def _output_nodes(node: torch.fx.Node, nodes: torch.fx.node.Argument) -> list[torch.fx.Node]:
    if not isinstance(nodes, (tuple, list)) or not all(isinstance(n, torch.fx.Node) for n in nodes):
        raise TypeError(f"output {node.name}: {nodes!r} is not a sequence of graph nodes")
    return [n for n in nodes if isinstance(n, torch.fx.Node)]


def _note_output(node: torch.fx.Node, states: dict[torch.fx.Node, Placed], plan: Plan) -> None:
    result = node.args[0]
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError(f"output {node.name}: a step returns (outputs, losses), not {result!r}")
    outs, losses = result
    plan.returns = [states[o] for o in _output_nodes(node, outs)]
    plan.losses = [states[n] for n in _output_nodes(node, losses)]


def _variable_split(node: torch.fx.Node, size: int) -> int | None:
    """The axis a variable placed with ``flow.distribute.split(k)`` is split along (None: whole)."""
    sbp = tuple(node.meta.get("flowtorch_distribution", ()))
    meta = node.meta.get("flowtorch_placeholder_meta")
    if len(sbp) != 1 or not sbp[0].startswith("S(") or not isinstance(meta, torch.Tensor) or meta.dim() == 0:
        return None
    axis = int(sbp[0][2:-1]) % meta.dim()
    return axis if meta.shape[axis] % size == 0 else None


def _input_state(node: torch.fx.Node, size: int) -> State:
    """A job input (or fed data) is split along its batch axis when that divides over the ranks."""
    meta = node.meta.get("flowtorch_placeholder_meta", node.meta.get("flowtorch_meta"))
    axis = node.meta.get("flowtorch_batch_axis", 0)
    if not isinstance(meta, torch.Tensor) or axis is None or meta.dim() == 0:
        return BROADCAST
    axis %= meta.dim()
    return Split(axis) if meta.shape[axis] % size == 0 and meta.shape[axis] >= size else BROADCAST


class _Ctx:
    """One node being placed: its inputs' states and shapes, and the graph edits a rule may make."""

    def __init__(self, graph: torch.fx.Graph, node: torch.fx.Node, states: dict[torch.fx.Node, Placed],
                 size: int) -> None:
        self.graph, self.node, self.states, self.size = graph, node, states, size

    def state(self, n: object) -> Placed:
        return self.states.get(n) if isinstance(n, torch.fx.Node) else None

    def split(self, n: object) -> Split | None:
        """``n``'s split, None when it is not split (broadcast, unplaced or no node)."""
        state = self.state(n)
        return state if isinstance(state, Split) else None

    def inputs(self) -> list[torch.fx.Node]:
        return [n for n in self.node.all_input_nodes if n in self.states]

    def split_inputs(self) -> list[torch.fx.Node]:
        return [n for n in self.inputs() if isinstance(self.states[n], Split)]

    @staticmethod
    def shape(n: object) -> tuple[int, ...] | None:
        if not isinstance(n, torch.fx.Node):
            return None
        while n.op == "call_function" and n.target in _PASS_THROUGH:  # a tap or detach: its input's shape
            source = n.args[0]
            if not isinstance(source, torch.fx.Node):
                return None
            n = source
        meta = n.meta.get("flowtorch_meta", n.meta.get("flowtorch_placeholder_meta"))
        return tuple(meta.shape) if isinstance(meta, torch.Tensor) else None

    def out_shape(self) -> tuple[int, ...] | None:
        return self.shape(self.node)

    def arg(self, i: int, default: Any = None) -> Any:
        return self.node.args[i] if len(self.node.args) > i else default

    def insert_before(self, fn: Callable[..., Any], *args: Any) -> torch.fx.Node:
        with self.graph.inserting_before(self.node):
            return self.graph.call_function(fn, args)

    def slice_input(self, n: torch.fx.Node, axis: int) -> None:
        """Feed this op the local part of a broadcast input."""
        self.node.replace_input_with(n, self.insert_before(collectives.local_part, n, axis))

    def gather_input(self, n: torch.fx.Node) -> torch.fx.Node:
        """Feed this op the whole of a split input; the gathered node."""
        state = self.states[n]
        if not isinstance(state, Split):
            raise TypeError(f"{self.node.name}: its input {n.name} is {state!r}, not split: nothing to gather")
        gathered = self.insert_before(collectives.gather, n, state.axis)
        self.node.replace_input_with(n, gathered)
        return gathered

    def reduce_output(self, fn: Callable[[torch.Tensor], torch.Tensor]) -> None:
        """Sum this op's partial output over the ranks before any use."""
        with self.graph.inserting_after(self.node):
            new = self.graph.call_function(fn, (self.node,))
        new.meta.update(self.node.meta)
        self.node.replace_all_uses_with(new, delete_user_cb=lambda user: user is not new)
        self.states[new] = BROADCAST


def _ints(node: torch.fx.Node, arg: torch.fx.node.Argument) -> list[int]:
    """``arg``, a sequence of ints (axes) in ``node``'s arguments."""
    if not isinstance(arg, (tuple, list)):
        raise TypeError(f"{node.name}: {arg!r} is not a sequence of ints")
    ints = [a for a in arg if isinstance(a, int)]
    if len(ints) != len(arg):
        raise TypeError(f"{node.name}: {arg!r} is not a sequence of ints")
    return ints


_PASS_THROUGH = (taps.diff_tap, taps.compiled_diff_tap, torch.Tensor.detach)


def _call_state(ctx: _Ctx, plan: Plan) -> Placed:
    node = ctx.node
    target = node.target
    if _note_tap(node, ctx.states, plan):  # a value tap returns nothing; a diff tap passes its blob on
        return ctx.state(node.args[0]) if target in (taps.diff_tap, taps.compiled_diff_tap) else BROADCAST
    if target in (operator.getitem, torch.Tensor.detach):
        return ctx.state(node.args[0])
    if not ctx.split_inputs():
        if node.meta.get("flowtorch_op_type") == "parallel_cast":  # it may ask a whole blob to be split
            return _parallel_cast(ctx)
        return BROADCAST  # whole inputs: every rank computes the same whole value
    rule = RULES.get(node.meta.get("flowtorch_op_type", ""))
    state = rule(ctx) if rule is not None else None
    if state is not None:
        return state
    # No rule, or the rule does not apply to this placement: run the op on whole tensors.
    plan.gathered_ops.append(node.meta.get("flowtorch_op", node.name))
    for n in ctx.split_inputs():
        ctx.gather_input(n)
    return BROADCAST


# --- rules: each returns the output's state, or None to run the op whole -----------------------------
def _elementwise(ctx: _Ctx) -> State | None:
    """Ops that broadcast their inputs numpy-style: split on one aligned axis; a broadcast input that
    spans that axis is sliced."""
    out = ctx.out_shape()
    if out is None:
        return None
    axis = None
    shapes = {}
    for n in ctx.inputs():
        state, shape = ctx.state(n), ctx.shape(n)
        if shape is None:
            return None
        shapes[n] = shape
        if isinstance(state, Split):
            aligned = state.axis + len(out) - len(shape)
            if shape[state.axis] != out[aligned] or axis not in (None, aligned):
                return None
            axis = aligned
    if axis is None:  # no split input
        return None
    for n, shape in shapes.items():
        k = axis - (len(out) - len(shape))
        if ctx.state(n) == BROADCAST and k >= 0 and shape[k] != 1:
            ctx.slice_input(n, k)
    return Split(axis)


def _per_sample(*positions: int) -> Callable[[_Ctx], State | None]:
    """Ops that treat each sample (axis 0) alone: the inputs at ``positions`` are split on axis 0 (a
    broadcast one is sliced), the others (weights) must be whole."""
    def rule(ctx: _Ctx) -> State | None:
        per_sample = [ctx.arg(i) for i in positions] if positions else ctx.inputs()
        for n in ctx.inputs():
            state = ctx.state(n)
            if any(n is p for p in per_sample):
                if state not in (BROADCAST, Split(0)):
                    return None
            elif state != BROADCAST:
                return None
        for n in per_sample:
            if ctx.state(n) == BROADCAST:
                ctx.slice_input(n, 0)
        return Split(0)
    return rule


def _bias_add(ctx: _Ctx) -> State | None:
    x, b, axis = ctx.arg(0), ctx.arg(1), ctx.arg(2)
    state = ctx.state(x)
    if not isinstance(state, Split):
        return None
    if ctx.state(b) == Split(0):  # a split bias goes with the columns it is added to
        return state if state.axis == axis else None
    if ctx.state(b) != BROADCAST:
        return None
    if state.axis == axis:
        ctx.slice_input(b, 0)
    return state


def _matmul(ctx: _Ctx) -> State | None:
    a, b, trans_a, trans_b = ctx.node.args[:4]
    if not isinstance(a, torch.fx.Node) or not isinstance(b, torch.fx.Node):
        return None  # (a constant operand has no shape to place it by)
    sa, sb = ctx.state(a), ctx.state(b)
    shape_a, shape_b = ctx.shape(a), ctx.shape(b)
    if shape_a is None or shape_b is None:
        return None
    rank = len(shape_a)
    if rank == 2 and len(shape_b) == 2:
        if sa == Split(0) and not trans_a and sb == BROADCAST:
            return Split(0)
        if sb == Split(0 if trans_b else 1) and not trans_a and sa in (BROADCAST, Split(0)):
            # tensor parallel: b's output columns are split; a split batch is gathered first (OneFlow's boxing)
            if sa != BROADCAST:
                ctx.gather_input(a)
            return Split(1)
        if sa == BROADCAST and sb == Split(1) and not trans_b:
            return Split(1)
        if sa == Split(0) and trans_a and sb == Split(0) and not trans_b:  # contracts the split axis
            ctx.reduce_output(collectives.sum_partial)
            return BROADCAST
        return None
    if isinstance(sa, Split) and sa.axis < rank - 2 and len(shape_b) == rank:
        if sb == sa:
            return sa
        if sb == BROADCAST:
            if shape_b[sa.axis] != 1:
                ctx.slice_input(b, sa.axis)
            return sa
    if isinstance(sa, Split) and sa.axis < rank - 2 and len(shape_b) == 2 and sb == BROADCAST:
        return sa
    return None


def _reduce_sum(ctx: _Ctx) -> State | None:
    x, axes, keepdims = ctx.node.args[:3]
    state, shape = ctx.split(x), ctx.shape(x)
    if state is None or shape is None:
        return None
    reduced = tuple(range(len(shape))) if axes is None else tuple(a % len(shape) for a in _ints(ctx.node, axes))
    if state.axis in reduced:
        ctx.reduce_output(collectives.sum_partial)
        return BROADCAST
    return Split(state.axis if keepdims else state.axis - sum(a < state.axis for a in reduced))


def _reshape(ctx: _Ctx) -> State | None:
    """``torch.reshape(x, shape)``: the split axis must survive whole, with the same leading elements."""
    x, state, shape, out = ctx.arg(0), ctx.split(ctx.arg(0)), ctx.shape(ctx.arg(0)), ctx.out_shape()
    if state is None or shape is None or out is None:
        return None
    lead = math.prod(shape[:state.axis])
    for k, extent in enumerate(out):
        if math.prod(out[:k]) == lead and extent == shape[state.axis]:
            local = list(out)
            local[k] //= ctx.size
            ctx.node.args = (x, tuple(local)) + tuple(ctx.node.args[2:])
            return Split(k)
    return None


def _flatten(ctx: _Ctx) -> State | None:
    x = ctx.arg(0)
    state, shape = ctx.split(x), ctx.shape(x)
    if state is None or shape is None:
        return None
    start, end = ctx.arg(1, 0) % len(shape), ctx.arg(2, -1) % len(shape)
    if state.axis < start:
        return state
    if state.axis > end:
        return Split(state.axis - (end - start))
    return None


def _unsqueeze(ctx: _Ctx) -> State | None:
    state, out = ctx.split(ctx.arg(0)), ctx.out_shape()
    if state is None or out is None:
        return None
    dim = ctx.arg(1) % len(out)
    return Split(state.axis + (dim <= state.axis))


def _transpose(ctx: _Ctx) -> State | None:
    state, perm = ctx.split(ctx.arg(0)), list(ctx.arg(1))
    if state is None:
        return None
    rank = len(perm)
    return Split([p % rank for p in perm].index(state.axis))


def _concat(ctx: _Ctx) -> State | None:
    parts, axis = ctx.arg(0), ctx.arg(1)
    out = ctx.out_shape()
    if out is None:
        return None
    axis %= len(out)
    split = {state.axis for state in map(ctx.split, parts) if state is not None}
    if len(split) != 1 or axis in split:
        return None
    (along,) = split
    for p in parts:
        if ctx.state(p) == BROADCAST:
            ctx.slice_input(p, along)
    return Split(along)


def _gather(ctx: _Ctx) -> State | None:
    params, indices, axis = ctx.node.args[:3]
    state = ctx.split(indices)
    if ctx.state(params) != BROADCAST or state is None:
        return None
    if not isinstance(axis, int):
        raise TypeError(f"{ctx.node.name}: gather's axis is {axis!r}, not an int")
    return Split(axis + state.axis)


def _last_axis_kept(ctx: _Ctx) -> State | None:
    """Ops over the last axis of their one input (softmax, argmax): any other split axis stays."""
    x = ctx.arg(0)
    state, shape = ctx.split(x), ctx.shape(x)
    if state is None or shape is None or state.axis == len(shape) - 1 or len(ctx.inputs()) != 1:
        return None
    return state


def _layer_norm(ctx: _Ctx) -> State | None:
    begin_norm_axis = ctx.arg(3)
    if not isinstance(begin_norm_axis, int) or begin_norm_axis < 1:
        return None
    return _per_sample(0)(ctx)


def _batch_norm(ctx: _Ctx) -> State | None:
    """Each rank normalizes its part with its part's statistics, in training too: OneFlow's normalization op
    splits ``x`` and ``y`` and broadcasts the parameters (``user/ops/normalization_op.cpp``, FwGetSbpFn), so
    each device's kernel saw only its part of the batch and updated its own copy of the moving statistics
    (rank 0's is the one saved, as OneFlow saved the first device's)."""
    x, addend, axis = ctx.arg(0), ctx.arg(5), ctx.arg(6)
    state = ctx.state(x)
    params = [ctx.arg(i) for i in range(1, 5)]
    if not isinstance(state, Split) or state.axis == axis or any(ctx.state(p) != BROADCAST for p in params):
        return None
    if addend is not None and ctx.state(addend) not in (state, BROADCAST):
        return None
    if addend is not None and ctx.state(addend) == BROADCAST:
        ctx.slice_input(addend, state.axis)
    if ctx.node.target not in (batch_norm.bn_train_kernel, batch_norm.bn_infer_kernel):
        return None
    return state


def _parallel_cast(ctx: _Ctx) -> State | None:
    """``flow.parallel_cast(x, distribute=...)``: OneFlow's boxing to the asked layout (a whole blob asked to be
    split is sliced: each rank keeps its part)."""
    x, wanted = ctx.arg(0), ctx.arg(1)
    state = ctx.state(x)
    if not isinstance(state, Split):  # whole on every rank (or unplaced: the same on every rank)
        shape = ctx.shape(x)
        if not isinstance(x, torch.fx.Node) or not wanted or not wanted.startswith("S(") or not shape:
            return BROADCAST
        axis = int(wanted[2:-1]) % len(shape)
        if shape[axis] % ctx.size:
            return BROADCAST
        ctx.slice_input(x, axis)
        return Split(axis)
    if not wanted:
        return state
    if wanted == "B" or (wanted.startswith("S(") and Split(int(wanted[2:-1])) != state):
        gathered = ctx.gather_input(x)
        if wanted == "B":
            return BROADCAST
        shape = ctx.shape(x)
        if not shape:
            return BROADCAST
        axis = int(wanted[2:-1]) % len(shape)
        if shape[axis] % ctx.size:
            return BROADCAST
        ctx.node.replace_input_with(gathered, ctx.insert_before(collectives.local_part, gathered, axis))
        return Split(axis)
    return state


def _pass_through(ctx: _Ctx) -> State | None:
    return ctx.state(ctx.arg(0))


# Keyed by OneFlow's op type (ops/op_types.py), the node's ``flowtorch_op_type``: an op built by its ``flow.*``
# function and the same op built with ``flow.user_op_builder(...).Op(type)`` get the same rule.
RULES: dict[str, Callable[[_Ctx], State | None]] = {
    "normalization": _batch_norm,
    "normalization_add_relu": _batch_norm,
    "parallel_cast": _parallel_cast,
    "hierarchical_parallel_cast": _pass_through,
    "bias_add": _bias_add,
    "matmul": _matmul,
    "batch_matmul": _matmul,
    "broadcast_matmul": _matmul,
    "reduce_sum": _reduce_sum,
    "reshape": _reshape,
    "squeeze": _reshape,
    "flatten": _flatten,
    "expand_dims": _unsqueeze,
    "transpose": _transpose,
    "concat": _concat,
    "gather": _gather,
    "softmax": _last_axis_kept,
    "argmax": _last_axis_kept,
    "layer_norm": _layer_norm,
    "one_hot": _per_sample(0),
    "sparse_softmax_cross_entropy": _per_sample(),
    "sparse_cross_entropy": _per_sample(),
    "softmax_cross_entropy": _per_sample(),
    "upsample": _per_sample(0),
    "deconv2d": _per_sample(0),
}
for _nd in (1, 2, 3):
    RULES[f"conv{_nd}d"] = _per_sample(0)
    RULES[f"max_pool_{_nd}d"] = _per_sample(0)
    RULES[f"avg_pool_{_nd}d"] = _per_sample(0)
for _name in (
    "relu sigmoid tanh gelu elu leaky_relu hardsigmoid hardswish hardtanh cast clip_by_scalar clip_by_scalar_min "
    "clip_by_scalar_max identity amp_white_identity add_n scalar_add scalar_mul scalar_mul_by_tensor "
    "scalar_add_by_tensor scalar_sub_by_tensor scalar_div_by_tensor multiply where scalar_pow pow dropout "
    "random_mask_like constant_like sigmoid_cross_entropy smooth_l1_loss abs acos acosh asin asinh atan atanh ceil "
    "cos cosh erf erfc exp expm1 floor lgamma log log1p log_sigmoid negative reciprocal reciprocal_no_nan rint round "
    "rsqrt sigmoid_v2 sign sin sinh softplus sqrt square tan broadcast_add broadcast_sub broadcast_mul "
    "broadcast_div broadcast_maximum broadcast_minimum broadcast_floor_mod broadcast_logical_and"
).split():
    RULES[_name] = _elementwise
