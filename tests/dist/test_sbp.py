"""The split rules of dist/sbp.py, on one process: jobs are built as on N processes (``collectives.world_size``
says N; step/distributed.py's ``plan_step`` plans the captured graph as it does there), and each test checks
the plan (where the inputs, returns and watched values live), the collectives the rules put into the graph,
and, by running the rewritten graph as N ranks (one thread each, the collectives done among the threads),
that the ranks' parts make numpy's logical values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Tuple  # OneFlow programs annotate with typing's names

import numpy as np
import pytest
import torch
from helpers.ops import randn_from
from helpers.plans import Planned, plan_as_on

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.dist.sbp import BROADCAST, Split

N = 2  # the processes the jobs are planned for
B = BROADCAST
randn = randn_from(np.random.default_rng(0))


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Planned]:
    """``planned(name) -> Planned``: builds the session's jobs as on N processes and hands back job ``name``'s
    plan. The steps themselves stay one process's."""
    return plan_as_on(N, monkeypatch)


# --- inputs and variables --------------------------------------------------------------------------------------
def test_an_input_is_split_along_its_batch_axis_when_that_divides_over_the_ranks(planned) -> None:
    @flow.global_function()
    def inputs(a: tp.Numpy.Placeholder((4, 3)), b: tp.Numpy.Placeholder((3, 4)), c: tp.Numpy.Placeholder((1, 4)),
               d: tp.Numpy.Placeholder((3, 6), batch_axis=1), e: tp.Numpy.Placeholder((4, 3), batch_axis=None),
               f: tp.Numpy.Placeholder((6,), dtype=flow.int32)) -> tp.Numpy:
        return a

    p = planned("inputs")
    # 4 rows: 2 per rank; 3 and 1 rows do not divide; d's batch axis is 1; e has none
    assert p.plan.inputs == [Split(0), B, B, Split(1), B, Split(0)]
    assert p.plan.returns == [Split(0)]
    assert p.inserted() == []


def test_a_variable_is_whole_unless_distributed_split_along_an_axis_that_divides(planned) -> None:
    @flow.global_function()
    def variables(x: tp.Numpy.Placeholder((4, 3))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        whole = flow.get_variable("whole", shape=(3, 6), initializer=flow.ones_initializer())
        split = flow.get_variable("split", shape=(3, 6), initializer=flow.ones_initializer(),
                                  distribute=flow.distribute.split(1))
        uneven = flow.get_variable("uneven", shape=(3, 5), initializer=flow.ones_initializer(),
                                   distribute=flow.distribute.split(1))
        return flow.math.relu(whole), flow.math.relu(split), flow.math.relu(uneven)

    p = planned("variables")
    assert p.plan.returns == [B, Split(1), B]  # each rank reads its own columns of "split"
    assert p.inserted() == [("local_part", "split", 1)]
    values = {"whole": randn(3, 6), "split": randn(3, 6), "uneven": randn(3, 5)}
    got = p.run_on_ranks(randn(4, 3), variables=values)
    for g, name in zip(got, ["whole", "split", "uneven"], strict=True):
        np.testing.assert_array_equal(g, np.maximum(values[name], 0))


# --- elementwise ops -------------------------------------------------------------------------------------------
def test_elementwise_ops_keep_the_split_and_slice_a_whole_operand_that_spans_it(planned) -> None:
    @flow.global_function()
    def elementwise(x: tp.Numpy.Placeholder((4, 3))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        row = flow.get_variable("row", shape=(3,), initializer=flow.ones_initializer())
        full = flow.get_variable("full", shape=(4, 3), initializer=flow.ones_initializer())
        col = flow.get_variable("col", shape=(1, 3), initializer=flow.ones_initializer())
        return flow.math.tanh(flow.math.relu(x)), x + row, x * full, x - col

    p = planned("elementwise")
    assert p.plan.returns == [Split(0)] * 4
    # only "full" has the 4 rows the ranks split; "row" (no such axis) and "col" (one row) are used whole
    assert p.inserted() == [("local_part", "full", 0)]
    x, row, full, col = randn(4, 3), randn(3), randn(4, 3), randn(1, 3)
    got = p.run_on_ranks(x, variables={"row": row, "full": full, "col": col})
    expected = [np.tanh(np.maximum(x, 0)), x + row, x * full, x - col]
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_operands_split_along_different_axes_are_gathered(planned) -> None:
    @flow.global_function()
    def crossed(x: tp.Numpy.Placeholder((4, 4)), y: tp.Numpy.Placeholder((4, 4), batch_axis=1)) -> tp.Numpy:
        return x + y

    p = planned("crossed")
    assert p.plan.inputs == [Split(0), Split(1)]
    assert p.plan.returns == [B]
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["AddN"]
    assert p.inserted() == [("gather", "input_0", 0), ("gather", "input_1", 1)]
    x, y = randn(4, 4), randn(4, 4)
    np.testing.assert_allclose(p.run_on_ranks(x, y)[0], x + y, rtol=1e-6)


# --- matmul ----------------------------------------------------------------------------------------------------
def test_matmul_data_parallel_keeps_the_batch_split(planned) -> None:
    @flow.global_function()
    def data_parallel(x: tp.Numpy.Placeholder((4, 3)), b: tp.Numpy.Placeholder((4, 2, 3)),
                      c: tp.Numpy.Placeholder((4, 3, 5))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(3, 5), initializer=flow.ones_initializer())
        return flow.matmul(x, w), flow.matmul(b, w), flow.matmul(b, c)  # 2-D, batched by a matrix, batched

    p = planned("data_parallel")
    assert p.plan.returns == [Split(0)] * 3
    assert p.inserted() == []
    x, b, c, w = randn(4, 3), randn(4, 2, 3), randn(4, 3, 5), randn(3, 5)
    got = p.run_on_ranks(x, b, c, variables={"w": w})
    for g, e in zip(got, [x @ w, b @ w, b @ c], strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_matmul_with_a_weight_split_by_columns_is_tensor_parallel(planned) -> None:
    @flow.global_function()
    def columns(x: tp.Numpy.Placeholder((4, 3)), v: tp.Numpy.Placeholder((3, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(3, 6), initializer=flow.ones_initializer(),
                              distribute=flow.distribute.split(1))
        wt = flow.get_variable("wt", shape=(6, 3), initializer=flow.ones_initializer(),
                               distribute=flow.distribute.split(0))
        return flow.matmul(x, w), flow.matmul(v, wt, transpose_b=True)

    p = planned("columns")
    assert p.plan.inputs == [Split(0), B]  # v's 3 rows do not divide: whole
    # each rank computes its columns of the product; the split batch is gathered first (OneFlow's boxing)
    assert p.plan.returns == [Split(1), Split(1)]
    assert sorted(p.inserted()) == [("gather", "input_0", 0), ("local_part", "w", 1), ("local_part", "wt", 0)]
    x, v, w, wt = randn(4, 3), randn(3, 3), randn(3, 6), randn(6, 3)
    got = p.run_on_ranks(x, v, variables={"w": w, "wt": wt})
    np.testing.assert_allclose(got[0], x @ w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], v @ wt.T, rtol=1e-5, atol=1e-6)


def test_matmul_contracting_the_split_axis_is_a_partial_sum_summed_over_the_ranks(planned) -> None:
    @flow.global_function()
    def contract(x: tp.Numpy.Placeholder((4, 3)), y: tp.Numpy.Placeholder((4, 5))) -> tp.Numpy:
        return flow.matmul(x, y, transpose_a=True)  # sums over the 4 rows the ranks split

    p = planned("contract")
    assert p.plan.returns == [B]
    assert p.plan.gathered_ops == []
    assert p.inserted() == [("sum_partial", "matmul", None)]
    x, y = randn(4, 3), randn(4, 5)
    np.testing.assert_allclose(p.run_on_ranks(x, y)[0], x.T @ y, rtol=1e-5, atol=1e-6)


def test_matmul_of_two_batch_split_matrices_runs_whole(planned) -> None:
    @flow.global_function()
    def square(x: tp.Numpy.Placeholder((4, 4)), y: tp.Numpy.Placeholder((4, 4))) -> tp.Numpy:
        return flow.matmul(x, y)  # y's rows are the contracted axis: no rule splits this

    p = planned("square")
    assert p.plan.returns == [B]
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["Matmul"]
    assert p.inserted() == [("gather", "input_0", 0), ("gather", "input_1", 0)]
    x, y = randn(4, 4), randn(4, 4)
    np.testing.assert_allclose(p.run_on_ranks(x, y)[0], x @ y, rtol=1e-5, atol=1e-6)


# --- reductions, and ops without a rule ------------------------------------------------------------------------
def test_reduce_sum_over_the_split_axis_is_summed_over_the_ranks_and_over_another_keeps_the_split(planned) -> None:
    @flow.global_function()
    def sums(x: tp.Numpy.Placeholder((4, 3, 2))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        return (flow.math.reduce_sum(x, axis=[0]), flow.math.reduce_sum(x), flow.math.reduce_sum(x, axis=[1]),
                flow.math.reduce_sum(x, axis=[1], keepdims=True), flow.math.reduce_mean(x, axis=[0, 2]))

    p = planned("sums")
    assert p.plan.returns == [B, B, Split(0), Split(0), B]
    assert p.plan.gathered_ops == []
    # reduce_mean is OneFlow's reduce_sum then a scalar multiply: its sum is the partial one
    assert p.inserted() == [("sum_partial", "reduce_sum", None)] * 3
    x = randn(4, 3, 2)
    got = p.run_on_ranks(x)
    expected = [x.sum(0), x.sum().reshape(1), x.sum(1), x.sum(1, keepdims=True), x.mean((0, 2))]
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_reduce_sum_moves_the_split_axis_left_past_the_reduced_ones(planned) -> None:
    @flow.global_function()
    def shifted(x: tp.Numpy.Placeholder((3, 4, 2), batch_axis=1)) -> tp.Numpy:
        return flow.math.reduce_sum(x, axis=[0])

    p = planned("shifted")
    assert p.plan.inputs == [Split(1)]
    assert p.plan.returns == [Split(0)]  # axis 1 of x is axis 0 of the sum
    x = randn(3, 4, 2)
    np.testing.assert_allclose(p.run_on_ranks(x)[0], x.sum(0), rtol=1e-5, atol=1e-6)


def test_an_op_without_a_rule_gathers_its_split_inputs_and_runs_whole(planned) -> None:
    @flow.global_function()
    def no_rule(x: tp.Numpy.Placeholder((4, 3))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(4, 3), initializer=flow.ones_initializer())
        # reduce_max has no rule; softmax has one, for any axis but the split one; w is whole anyway
        return flow.math.reduce_max(x, axis=[1]), flow.nn.softmax(flow.transpose(x, [1, 0])), \
            flow.math.reduce_max(w, axis=[1])

    p = planned("no_rule")
    assert p.plan.returns == [B, B, B]
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["ReduceMax", "Softmax"]
    assert p.inserted() == [("gather", "input_0", 0), ("gather", "transpose", 1)]
    x, w = randn(4, 3), randn(4, 3)
    got = p.run_on_ranks(x, variables={"w": w})
    e = np.exp(x.T - x.T.max(1, keepdims=True))
    for g, want in zip(got, [x.max(1), e / e.sum(1, keepdims=True), w.max(1)], strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)


# --- batch norm ------------------------------------------------------------------------------------------------
def test_training_batch_norm_normalizes_each_rank_s_part_with_its_own_statistics(planned) -> None:
    @flow.global_function(type="train")
    def bn_train(x: tp.Numpy.Placeholder((4, 3, 2, 2))) -> tp.Numpy:
        y = flow.layers.batch_normalization(x, axis=1, name="bn")
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.0]), momentum=0).minimize(
            flow.math.reduce_mean(y))
        return y

    p = planned("bn_train")
    assert p.plan.returns == [Split(0)]
    assert p.plan.gathered_ops == []
    assert p.inserted() == [("sum_partial", "reduce_sum", None)]  # the loss's mean only
    x = randn(4, 3, 2, 2) * 3 + 1

    def bn(part: np.ndarray) -> np.ndarray:  # OneFlow's devices: each part's own batch statistics
        mean, var = part.mean((0, 2, 3), keepdims=True), part.var((0, 2, 3), keepdims=True)
        return (part - mean) / np.sqrt(var + 1e-3)
    np.testing.assert_allclose(p.run_on_ranks(x)[0], np.concatenate([bn(x[:2]), bn(x[2:])]), rtol=1e-4, atol=1e-5)


def test_inference_batch_norm_keeps_the_split_and_batch_norm_over_the_split_axis_runs_whole(planned) -> None:
    @flow.global_function()
    def bn_infer(x: tp.Numpy.Placeholder((4, 3)), c: tp.Numpy.Placeholder((3, 4), batch_axis=1)
                 ) -> Tuple[tp.Numpy, tp.Numpy]:
        return (flow.layers.batch_normalization(x, axis=1, name="rows"),
                flow.layers.batch_normalization(c, axis=1, name="channels"))  # c's split axis is its channels

    p = planned("bn_infer")
    assert p.plan.returns == [Split(0), B]
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["channels"]
    assert p.inserted() == [("gather", "input_1", 1)]
    x, c = randn(4, 3), randn(3, 4)
    got = p.run_on_ranks(x, c)  # moving mean 0, variance 1: y = x / sqrt(1 + eps)
    np.testing.assert_allclose(got[0], x / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(got[1], c / np.sqrt(1 + 1e-3), rtol=1e-5)


# --- shape ops -------------------------------------------------------------------------------------------------
def test_concat_along_another_axis_keeps_the_split_and_along_the_split_axis_runs_whole(planned) -> None:
    @flow.global_function()
    def concats(x: tp.Numpy.Placeholder((4, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(4, 2), initializer=flow.ones_initializer())
        return flow.concat([x, w], axis=1), flow.concat([x, x], axis=0)

    p = planned("concats")
    assert p.plan.returns == [Split(0), B]
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["Concat"]
    # the whole w is sliced to the rows each rank holds; concat along the split axis needs x whole (once)
    assert p.inserted() == [("local_part", "w", 0), ("gather", "input_0", 0)]
    x, w = randn(4, 3), randn(4, 2)
    got = p.run_on_ranks(x, variables={"w": w})
    np.testing.assert_array_equal(got[0], np.concatenate([x, w], 1))
    np.testing.assert_array_equal(got[1], np.concatenate([x, x], 0))


def test_reshape_keeps_a_split_axis_that_survives_whole_with_the_ranks_local_shape(planned) -> None:
    @flow.global_function()
    def reshapes(x: tp.Numpy.Placeholder((4, 6))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        return (flow.reshape(x, (4, 2, 3)), flow.reshape(x, (1, 4, 6)), flow.reshape(x, (8, 3)),
                flow.reshape(x, (24,)))

    p = planned("reshapes")
    assert p.plan.returns == [Split(0), Split(1), B, B]
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["Reshape", "Reshape"]
    # the kept reshapes now ask for each rank's part: 2 of the 4 rows
    local = [n.args[1] for n in p.module.graph.nodes if n.target is torch.reshape]
    assert local == [(2, 2, 3), (1, 2, 6), (8, 3), (24,)]
    x = randn(4, 6)
    for g, shape in zip(p.run_on_ranks(x), [(4, 2, 3), (1, 4, 6), (8, 3), (24,)], strict=True):
        np.testing.assert_array_equal(g, x.reshape(shape))


def test_flatten_transpose_and_expand_dims_follow_the_split_axis(planned) -> None:
    @flow.global_function()
    def moves(x: tp.Numpy.Placeholder((4, 2, 3))) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        return (flow.flatten(x, start_dim=1), flow.transpose(x, [2, 0, 1]), flow.expand_dims(x, 0),
                flow.flatten(x))

    p = planned("moves")
    assert p.plan.returns == [Split(0), Split(1), Split(1), B]  # flattening the split axis runs whole
    assert [op.split("_")[0] for op in p.plan.gathered_ops] == ["Flatten"]
    x = randn(4, 2, 3)
    expected = [x.reshape(4, 6), x.transpose(2, 0, 1), x[None], x.reshape(-1)]
    for g, e in zip(p.run_on_ranks(x), expected, strict=True):
        np.testing.assert_array_equal(g, e)


# --- per-sample ops --------------------------------------------------------------------------------------------
def test_gather_softmax_argmax_one_hot_and_the_loss_stay_per_sample(planned) -> None:
    @flow.global_function()
    def per_sample(ids: tp.Numpy.Placeholder((4,), dtype=flow.int32), labels: tp.Numpy.Placeholder(
            (4,), dtype=flow.int32)) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy, tp.Numpy]:
        table = flow.get_variable("table", shape=(5, 3), initializer=flow.ones_initializer())
        rows = flow.gather(table, ids)  # the looked-up rows are the samples'
        return (rows, flow.nn.softmax(rows), flow.math.argmax(rows), flow.one_hot(labels, 3),
                flow.nn.sparse_softmax_cross_entropy_with_logits(labels, rows))

    p = planned("per_sample")
    assert p.plan.returns == [Split(0)] * 5
    assert p.plan.gathered_ops == [] and p.inserted() == []
    table = randn(5, 3)
    ids, labels = np.array([4, 0, 2, 2], np.int32), np.array([1, 0, 2, 1], np.int32)
    rows, soft, arg, hot, loss = p.run_on_ranks(ids, labels, variables={"table": table})
    e = np.exp(table[ids] - table[ids].max(1, keepdims=True))
    np.testing.assert_array_equal(rows, table[ids])
    np.testing.assert_allclose(soft, e / e.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(arg, table[ids].argmax(1))
    np.testing.assert_array_equal(hot, np.eye(3, dtype=hot.dtype)[labels])
    np.testing.assert_allclose(loss, -np.log((e / e.sum(1, keepdims=True))[np.arange(4), labels]), rtol=1e-5)


def test_dense_with_its_units_split_runs_tensor_parallel_with_the_bias_split_alike(planned) -> None:
    @flow.global_function()
    def hybrid(x: tp.Numpy.Placeholder((4, 3))) -> Tuple[tp.Numpy, tp.Numpy]:
        data = flow.layers.dense(x, 5, name="data")
        units = flow.layers.dense(x, 6, name="units", model_distribute=flow.distribute.split(axis=0))
        return data, units

    p = planned("hybrid")
    assert p.plan.returns == [Split(0), Split(1)]
    assert p.plan.gathered_ops == []
    assert sorted(p.inserted()) == [("gather", "input_0", 0), ("local_part", "units-bias", 0),
                                       ("local_part", "units-weight", 0)]
    x = randn(4, 3)
    values = {"data-weight": randn(5, 3), "data-bias": randn(5), "units-weight": randn(6, 3), "units-bias": randn(6)}
    data, units = p.run_on_ranks(x, variables=values)
    np.testing.assert_allclose(data, x @ values["data-weight"].T + values["data-bias"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(units, x @ values["units-weight"].T + values["units-bias"], rtol=1e-5, atol=1e-6)


# --- what the plan says of watches and losses, and the mirrored view -------------------------------------------
def test_the_plan_places_watched_values_gradients_and_losses(planned) -> None:
    @flow.global_function(type="train")
    def watched(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 2), initializer=flow.ones_initializer())
        h = flow.matmul(x, w)
        flow.watch(h, lambda v: None)
        flow.watch_diff(h, lambda g: None)
        flow.watch(w, lambda v: None)
        per_sample = flow.math.reduce_sum(h * h, axis=[1])
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(per_sample)
        return per_sample

    p = planned("watched")
    assert p.plan.values == {0: Split(0), 1: B}
    assert p.plan.grads == {0: Split(0)}
    assert p.plan.losses == [Split(0)] and p.plan.returns == [Split(0)]


def test_the_mirrored_view_rewrites_nothing_and_splits_what_comes_from_the_inputs(planned) -> None:
    config = flow.function_config()
    config.default_logical_view(flow.scope.mirrored_view())

    @flow.global_function(function_config=config)
    def mirrored(x: tp.Numpy.Placeholder((4, 3)), parts: tp.ListNumpy.Placeholder((2, 3))
                 ) -> Tuple[tp.Numpy, tp.ListNumpy, tp.Numpy]:
        w = flow.get_variable("w", shape=(3, 3), initializer=flow.ones_initializer())
        assert x.shape == (2, 3)  # each rank's part of the tp.Numpy array
        return flow.math.reduce_sum(x, axis=[0]), flow.matmul(parts, w), flow.math.relu(w)

    p = planned("mirrored")
    assert p.plan.mirrored
    assert p.plan.inputs == [Split(0), Split(0)]
    assert p.plan.split_feeds == {0}  # the tp.Numpy input is cut into the ranks' parts; a ListNumpy part is its own
    assert p.plan.returns == [Split(0), Split(0), B]
    assert p.inserted() == []


def test_a_list_numpy_input_in_the_consistent_view_is_refused_with_the_job_named(planned) -> None:
    @flow.global_function()
    def listed(parts: tp.ListNumpy.Placeholder((2, 3))) -> tp.ListNumpy:
        return flow.math.relu(parts)

    with pytest.raises(NotImplementedError,
                       match=r"job 'listed': tp\.ListNumpy placeholders .* the mirrored view on several processes"):
        planned("listed")


# --- parallel_cast of a whole blob ----------------------------------------------------------------------------
def test_parallel_cast_of_a_whole_blob_to_a_split_slices_it_and_to_broadcast_keeps_it(planned) -> None:
    @flow.global_function()
    def cast(whole: tp.Numpy.Placeholder((4, 6), batch_axis=None)) -> Tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        columns = flow.parallel_cast(whole, distribute=flow.distribute.split(1))
        kept = flow.parallel_cast(whole, distribute=flow.distribute.broadcast())
        odd = flow.parallel_cast(flow.slice(whole, [0, 0], [4, 3]), distribute=flow.distribute.split(1))
        return flow.math.relu(columns), kept, odd

    p = planned("cast")
    # OneFlow boxes a broadcast blob to S(1) by keeping each device's columns; 3 columns do not divide over 2
    assert p.plan.inputs == [B] and p.plan.returns == [Split(1), B, B]
    assert p.inserted() == [("local_part", "input_0", 1)]
    x = randn(4, 6)
    columns, kept, odd = p.run_on_ranks(x)
    np.testing.assert_array_equal(columns, np.maximum(x, 0))
    np.testing.assert_array_equal(kept, x)
    np.testing.assert_array_equal(odd, x[:, :3])
