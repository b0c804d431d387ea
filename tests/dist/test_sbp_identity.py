"""One spelling of an op's identity (``ops/op_types.py``): OneFlow's op type name. A ``flow.*`` op and the same
op built with ``flow.user_op_builder(...).Op(type)`` record the same type on their fx node
(``node.meta["flowtorch_op_type"]``), so the split rules (``dist/sbp.py``'s ``RULES``, keyed by op types only)
treat them alike; the auto-name prefix (``Relu_<n>``) is no identity."""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any, Tuple  # OneFlow programs annotate with typing's names

import numpy as np
import pytest
import torch
from helpers.ops import make_job
from helpers.plans import plan_as_on

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import session
from flowtorch._src.capture.blob import Blob
from flowtorch._src.dist import collectives, sbp
from flowtorch._src.dist.sbp import Split
from flowtorch._src.ops import op_registry, op_types
from flowtorch._src.ops._record import apply
from flowtorch._src.step import distributed

rng = np.random.default_rng(26)


def op_type(blob: Blob) -> str:
    """The op type recorded on the call that made ``blob``."""
    node = blob.node
    call = node.args[0] if node.target is operator.getitem else node
    return call.meta["flowtorch_op_type"]


def built(op_name: str, op: str) -> flow.user_op_builder:
    return flow.user_op_builder(op_name).Op(op)


def sole(builder: Any) -> Blob:
    return builder.Build().InferAndTryRun().RemoteBlobList()[0]


# (expected op type, shapes of the job's inputs, the flow.* op, the same op through user_op_builder)
PAIRS: list[tuple[str, list[tuple[int, ...]], Callable[..., Blob], Callable[..., Blob]]] = [
    ("relu", [(4, 3)], lambda x: flow.nn.relu(x),
     lambda x: sole(built("u", "relu").Input("in", [x]).Output("out"))),
    ("sigmoid", [(4, 3)], lambda x: flow.math.sigmoid(x),
     lambda x: sole(built("u", "sigmoid").Input("in", [x]).Output("out"))),
    ("tanh", [(4, 3)], lambda x: flow.math.tanh(x),  # TanH_<n>/out_0
     lambda x: sole(built("u", "tanh").Input("x", [x]).Output("y"))),
    ("tanh", [(4, 3)], lambda x: flow.math.tanh_v2(x),  # tanh_v2_<n>/y_0
     lambda x: sole(built("u", "tanh").Input("x", [x]).Output("y"))),
    ("softmax", [(4, 3)], lambda x: flow.nn.softmax(x),
     lambda x: sole(built("u", "softmax").Input("in", [x]).Output("out"))),
    ("matmul", [(4, 3), (3, 2)], lambda a, b: flow.matmul(a, b),
     lambda a, b: sole(built("u", "matmul").Input("a", [a]).Input("b", [b]).Output("out"))),
    ("batch_matmul", [(2, 4, 3), (2, 3, 2)], lambda a, b: flow.matmul(a, b),
     lambda a, b: sole(built("u", "batch_matmul").Input("a", [a]).Input("b", [b]).Output("out"))),
    ("bias_add", [(4, 3), (3,)], lambda x, b: flow.nn.bias_add(x, b),
     lambda x, b: sole(built("u", "bias_add").Input("a", [x]).Input("b", [b]).Output("out").Attr("axis", 1))),
    ("reshape", [(4, 3)], lambda x: flow.reshape(x, (4, 3, 1)),
     lambda x: sole(built("u", "reshape").Input("in", [x]).Output("out").Attr("shape", [4, 3, 1]))),
    ("transpose", [(4, 3)], lambda x: flow.transpose(x, [1, 0]),
     lambda x: sole(built("u", "transpose").Input("input", [x]).Output("output").Attr("perm", [1, 0]))),
    ("add_n", [(4, 3), (4, 3)], lambda x, y: flow.math.add(x, y),  # AddN_<n>: same shapes
     lambda x, y: sole(built("u", "add_n").Input("in", [x, y]).Output("out"))),
    ("broadcast_add", [(4, 3), (1, 3)], lambda x, y: flow.math.add(x, y),
     lambda x, y: sole(built("u", "broadcast_add").Input("x", [x]).Input("y", [y]).Output("z"))),
]


@pytest.mark.parametrize(("expected", "shapes", "flow_op", "builder_op"), PAIRS,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(PAIRS)])
def test_a_flow_op_and_the_same_op_through_user_op_builder_record_one_op_type(
        expected: str, shapes: list[tuple[int, ...]], flow_op: Callable[..., Blob],
        builder_op: Callable[..., Blob]) -> None:
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    blobs: list[Blob] = []

    def body(*inputs: Blob) -> Blob:
        blobs.extend([flow_op(*inputs), builder_op(*inputs)])
        return blobs[0]

    make_job(body, arrays)(*arrays)
    by_flow, by_builder = blobs
    assert by_builder.op_name == "u" and by_flow.op_name != "u"  # the two really are two ops
    assert op_type(by_flow) == op_type(by_builder) == expected
    assert sbp.RULES[expected] is sbp.RULES[op_type(by_flow)] is sbp.RULES[op_type(by_builder)]


def test_the_blob_names_keep_oneflow_s_prefix_apart_from_the_op_type() -> None:
    blobs: list[Blob] = []

    @flow.global_function()
    def names(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        blobs.extend([flow.nn.relu(x), flow.math.tanh(x), flow.math.abs(x), flow.nn.relu6(x)])
        return blobs[0]

    names(np.ones((2, 3), np.float32))
    assert [b.op_name.rsplit("_", 1)[0] for b in blobs] == ["Relu", "TanH", "abs", "Relu6"]
    assert [op_type(b) for b in blobs] == ["relu", "tanh", "abs", "hardtanh"]


def test_relu_by_either_spelling_runs_on_each_rank_s_part(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planned as on 2 processes: both relus get the element-wise rule, so nothing is gathered."""
    planned = plan_as_on(2, monkeypatch)

    @flow.global_function()
    def relus(x: tp.Numpy.Placeholder((4, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        return flow.nn.relu(x), sole(built("my_relu", "relu").Input("in", [x]).Output("out"))

    relus_plan = planned("relus")
    plan, module = relus_plan.plan, relus_plan.module
    assert plan.inputs == [Split(0)]
    assert plan.returns == [Split(0), Split(0)]
    assert plan.gathered_ops == []
    types = [n.meta["flowtorch_op_type"] for n in module.graph.nodes if "flowtorch_op_type" in n.meta]
    assert types == ["relu", "relu"]


def test_every_split_rule_is_keyed_by_an_op_type() -> None:
    registered = set(op_registry.registered_names())
    unknown = [k for k in sbp.RULES if not op_types.is_known(k) and k not in registered]
    assert unknown == []
    assert [k for k in sbp.RULES if k[:1].isupper()] == []  # no auto-name prefix (Relu, Matmul) among them


def test_apply_refuses_an_op_type_it_does_not_know() -> None:
    @flow.global_function()
    def prefix_as_type(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return apply(torch.relu, x, op_type="Relu")

    with pytest.raises(ValueError, match="op type 'Relu' is neither"):
        prefix_as_type(np.ones(2, np.float32))
