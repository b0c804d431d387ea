"""Graph fusion of OneFlow's op boundaries that torch does in one kernel, and ops spared an output nobody reads.

OneFlow's ``layers.dense`` is ``matmul`` then ``bias_add`` and ``layers.conv2d`` is ``conv2d`` then
``bias_add``: two passes over the output where ``F.linear`` / ``F.conv2d(bias=…)`` make one. When the
intermediate blob has no other user (no watch, no diff watch, not returned), the pair is rewritten
into the fused call. Names were given at build, so fusion changes no blob name; the numbers are the
same up to float rounding order.

A sparse softmax cross-entropy makes OneFlow's ``prob_0`` blob beside its loss; when nothing reads it (no watch,
not returned), the step runs the op's form that does not compute it.
"""

from __future__ import annotations

import operator

import torch
import torch.fx
import torch.nn.functional as F

from flowtorch._src.ops import array_ops, conv_ops, nn_ops


def _single_user_producer(node: torch.fx.Node, target: object) -> torch.fx.Node | None:
    src = node.args[0]
    if isinstance(src, torch.fx.Node) and src.op == "call_function" and src.target is target and len(src.users) == 1:
        return src
    return None


def fuse_bias(module: torch.fx.GraphModule) -> int:
    """Fuse matmul+bias_add into ``F.linear``/``addmm`` and conv+bias_add into one conv; returns the count."""
    graph = module.graph
    fused = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not nn_ops.bias_add_kernel:
            continue
        _, bias, axis = node.args
        meta = node.meta.get("flowtorch_meta")
        if meta is None:
            continue
        rank = meta.dim()
        mm = _single_user_producer(node, array_ops.matmul_kernel)
        if mm is not None and rank == 2 and axis == 1 and mm.args[2] is False:
            x, w, _, transpose_b = mm.args
            with graph.inserting_before(node):
                new = (graph.call_function(F.linear, (x, w, bias)) if transpose_b
                       else graph.call_function(torch.addmm, (bias, x, w)))
            _replace(node, mm, new)
            fused += 1
            continue
        conv = _single_user_producer(node, conv_ops.conv_kernel)
        if conv is not None and len(conv.args) == 7 and not conv.kwargs:
            channels_last = conv.args[6]
            if axis == (rank - 1 if channels_last else 1):
                with graph.inserting_before(node):
                    new = graph.call_function(conv_ops.conv_kernel, conv.args, {"bias": bias})
                _replace(node, conv, new)
                fused += 1
    if fused:
        graph.lint()
        module.recompile()
    return fused


def _replace(node: torch.fx.Node, producer: torch.fx.Node, new: torch.fx.Node) -> None:
    new.meta.update(node.meta)
    node.replace_all_uses_with(new)
    node.graph.erase_node(node)
    producer.graph.erase_node(producer)


def drop_unread_outputs(module: torch.fx.GraphModule) -> int:
    """Switch each op with a ``without_prob`` form whose first output no node reads to that form; returns the
    count."""
    dropped = 0
    for node in module.graph.nodes:
        lean = getattr(node.target, "without_prob", None) if node.op == "call_function" else None
        if lean is None:
            continue
        if all(u.target is operator.getitem and (u.args[1] != 0 or not u.users) for u in node.users):
            node.target = lean
            dropped += 1
    if dropped:
        module.recompile()
    return dropped
