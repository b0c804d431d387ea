"""The consistent view on 2 and 4 gloo processes (issue 12): one logical batch split over the ranks gives
one process's numbers — losses, watched values and gradients, weights — and checkpoints cross process
counts both ways. Batch norm is the exception OneFlow made: each device normalized its part of the batch
with that part's statistics, so its job is checked against hand-written torch doing the same."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

WORKER = Path(__file__).with_name("dp_worker.py")
pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) stand-in; CUDA runs use nccl")


def _run(run_py, tmp: Path, name: str, nproc: int, load: str = "-", save: str | None = None,
         env: dict | None = None) -> dict:
    out = tmp / f"{name}.json"
    launch = ["-m", "flowtorch"] + (["--nproc", str(nproc)] if nproc > 1 else [])
    args = [*launch, str(WORKER), str(out), load] + ([save] if save else [])
    done = run_py(*args, cwd=str(tmp), timeout=240, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


def _conv_bn_reference(start: dict, parts: int) -> tuple[list, dict]:
    """dp_worker's ``conv_bn`` job in plain torch, its batch norm per part of ``parts`` (OneFlow's devices):
    the 4 steps' per-sample losses and the final variables (the moving statistics: part 0's device's)."""
    def tensor(name: str) -> torch.Tensor:
        return torch.tensor(np.array(start[name]), dtype=torch.float32)

    trained = [f"c_{k}" for k in ("conv-weight", "conv-bias", "bn-gamma", "bn-beta", "out-weight", "out-bias")]
    v = {k: tensor(k).requires_grad_() for k in trained}
    v.update({k: tensor(k) for k in ("c_bn-moving_mean", "c_bn-moving_variance")})
    velocity = {k: tensor(f"{k}-momentum") for k in trained}  # the optimizer's slots, from the snapshot
    rng = np.random.RandomState(7)  # rank 0's draws: x, y (the MLP jobs'), then conv_bn's x
    losses = []
    for _ in range(4):
        rng.randn(8, 12)
        y = torch.from_numpy(rng.randint(0, 7, 8).astype(np.int64))
        x = torch.from_numpy(rng.randn(8, 2, 5, 5).astype(np.float32))
        conv = torch.nn.functional.conv2d(x, v["c_conv-weight"], v["c_conv-bias"], padding=1)
        normed = []
        for i, part in enumerate(conv.chunk(parts)):
            mean = v["c_bn-moving_mean"] if i == 0 else v["c_bn-moving_mean"].clone()
            var = v["c_bn-moving_variance"] if i == 0 else v["c_bn-moving_variance"].clone()
            normed.append(torch.nn.functional.batch_norm(part, mean, var, v["c_bn-gamma"], v["c_bn-beta"],
                                                         training=True, momentum=0.1, eps=0.001))
        block = torch.relu(torch.cat(normed) + conv)
        logits = block.reshape(8, -1) @ v["c_out-weight"].t() + v["c_out-bias"]
        loss = torch.nn.functional.cross_entropy(logits, y, reduction="none")
        losses.append(loss.tolist())
        grads = torch.autograd.grad(loss.mean(), [v[k] for k in velocity])
        with torch.no_grad():  # OneFlow's momentum SGD: v = 0.9 v - lr g; w += v
            for (k, vel), g in zip(velocity.items(), grads):
                vel.mul_(0.9).sub_(0.05 * g)
                v[k].add_(vel)
    return losses, {**{k: t.detach().numpy() for k, t in v.items()},
                    **{f"{k}-momentum": t.numpy() for k, t in velocity.items()}}


def _close(a, b, what: str) -> None:
    # float32 sums in another order (each rank's part, then the ranks' sum): rounding only
    np.testing.assert_allclose(np.array(a), np.array(b), rtol=2e-5, atol=2e-6, err_msg=what)


# 2 processes: every rank draws rank 0's arrays and slices its own copy (the inputs' checksums compared in the
# gradient all-reduce); 4: the other ranks draw other arrays, and rank 0's are sent (FLOWTORCH_DIST_FEED=rank0)
@pytest.mark.parametrize("nproc, env", [(2, {"DP_SAME_DATA": "1"}), (4, {"FLOWTORCH_DIST_FEED": "rank0"})])
def test_data_parallel_training_gives_one_process_numbers_and_checkpoints_cross_counts(run_py, tmp_path,
                                                                                      nproc: int, env: dict) -> None:
    start = tmp_path / "start"
    _run(run_py, tmp_path, "init", 1, save=str(start))  # a trained snapshot, saved by one process
    one = _run(run_py, tmp_path, "one", 1, load=str(start))
    many = _run(run_py, tmp_path, "many", nproc, load=str(start), save=str(tmp_path / "many_ckpt"), env=env)
    for name, value in one["loaded"].items():
        np.testing.assert_array_equal(np.array(many["loaded"][name]), np.array(value), err_msg=name)
    assert len(many["losses"]["later"]) == 4
    for job in ("per_sample", "batch_mean", "hybrid", "later"):
        _close(many["losses"][job], one["losses"][job], job)
    for run, parts in ((one, 1), (many, nproc)):  # batch norm: each device's part's statistics
        losses, final = _conv_bn_reference(one["loaded"], parts)
        _close(run["losses"]["conv_bn"], losses, f"conv_bn losses, {parts} part(s)")
        for name, value in final.items():
            _close(run["final"][name], value, f"{name}, {parts} part(s)")
    for key in ("hidden", "d_logits", "d_weight", "d_split", "probs"):
        _close(many[key], one[key], key)
    assert sorted(many["final"]) == sorted(one["final"])
    # model parallel: the split output layer's matmul runs on each rank's units (only the loss, which needs
    # every class, gathers its logits)
    assert one["hybrid_whole_ops"] is None
    assert not any("h_out" in op for op in many["hybrid_whole_ops"]), many["hybrid_whole_ops"]
    for name, value in one["final"].items():
        if not name.startswith("c_"):  # conv_bn's, above
            _close(many["final"][name], value, name)
    assert int(np.array(many["final"]["System-Train-TrainStep-per_sample"])[0]) == 8  # 4 + 4 steps, counted once
    back = _run(run_py, tmp_path, "back", 1, load=str(tmp_path / "many_ckpt"))  # saved by n, loaded by 1
    for name, value in many["final"].items():
        np.testing.assert_array_equal(np.array(back["loaded"][name]), np.array(value), err_msg=name)


def test_mirrored_view_parts_per_device_equal_one_process_on_the_whole_batch(run_py, tmp_path) -> None:
    worker = WORKER.with_name("mirrored_worker.py")
    outs = {}
    for nproc in (1, 2):
        launch = ["-m", "flowtorch"] + (["--nproc", str(nproc)] if nproc > 1 else [])
        done = run_py(*launch, str(worker), str(tmp_path / f"m{nproc}.json"), cwd=str(tmp_path), timeout=240)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        outs[nproc] = json.loads((tmp_path / f"m{nproc}.json").read_text())
    one, two = outs[1], outs[2]
    assert one["parts"] == [1, 1, 1] and two["parts"] == [2, 2, 2]  # tp.ListNumpy: one array per device
    assert one["dynamic_ok"] and two["dynamic_ok"]  # parts of different shapes, each device's own
    assert two["loaded_on_rank0"] == [[1.0, 2.0, 3.0]] * 2  # load_variables given on rank 0 alone
    assert two["got_names"] == sorted(two["final"])  # checkpoint.get of per-rank paths reads rank 0's
    _close(two["losses"], one["losses"], "losses")
    _close(two["seen"], one["seen"], "watched hidden (parts merged)")
    for name, value in one["final"].items():
        _close(two["final"][name], value, name)


# a train job fitting x @ w, as both feed programs below run it on 2 processes
FIT_JOB = """
import os, sys, json
import numpy as np
import oneflow as flow
import oneflow.typing as tp

rank = int(os.environ["RANK"])

@flow.global_function(type="train")
def fit(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
    w = flow.get_variable("w", shape=(3, 1), initializer=flow.constant_initializer(0.5))
    loss = flow.math.square(flow.matmul(x, w))
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
    return loss
"""

DIFFERENT_FEEDS = FIT_JOB + """
@flow.global_function()
def predict(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
    return flow.matmul(x, flow.get_variable("w", shape=(3, 1), initializer=flow.constant_initializer(0.5)))

same = np.ones((4, 3), np.float32)
fit(same)  # the ranks agree
before = flow.get_all_variables()["w"].numpy().copy()
errors = []
for job in (fit, predict):
    try:
        job(same + rank)  # rank 1 feeds other arrays
    except RuntimeError as exc:
        errors.append(str(exc))
after = flow.get_all_variables()["w"].numpy()
with open(sys.argv[1] + f".{rank}", "w") as f:
    json.dump({"errors": errors, "unchanged": bool((before == after).all())}, f)
"""


def test_ranks_fed_different_arrays_are_told_and_nothing_is_updated(run_py, tmp_path) -> None:
    (tmp_path / "feeds.py").write_text(DIFFERENT_FEEDS)
    done = run_py("-m", "flowtorch", "--nproc", "2", "feeds.py", str(tmp_path / "out"), cwd=str(tmp_path), timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for rank in (0, 1):
        seen = json.loads((tmp_path / f"out.{rank}").read_text())
        assert seen["unchanged"], rank
        assert len(seen["errors"]) == 2, seen  # the train job (in its gradient all-reduce) and the predict job
        for message in seen["errors"]:
            assert "job " in message and "the ranks were fed different arrays" in message
            assert "FLOWTORCH_DIST_FEED=rank0" in message and "Nothing was updated" in message


TRUSTED_FEEDS = FIT_JOB + """
x = np.full((4, 3), rank + 1.0, np.float32)  # each rank feeds its own arrays, unchecked
loss = fit(x)
with open(sys.argv[1] + f".{rank}", "w") as f:
    json.dump({"loss": loss.tolist(), "w": flow.get_all_variables()["w"].numpy().tolist()}, f)
"""


def test_trusted_feeds_take_each_ranks_part_of_its_own_arrays_unchecked(run_py, tmp_path) -> None:
    # FLOWTORCH_DIST_FEED=trust: DDP's contract, no checksum; rank r's rows are its own arrays' part r
    (tmp_path / "trust.py").write_text(TRUSTED_FEEDS)
    done = run_py("-m", "flowtorch", "--nproc", "2", "trust.py", str(tmp_path / "out"), cwd=str(tmp_path),
                  timeout=240, env={"FLOWTORCH_DIST_FEED": "trust"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    x = np.concatenate([np.full((2, 3), 1.0), np.full((2, 3), 2.0)])  # the batch the ranks' parts make
    w = np.full((3, 1), 0.5)
    pred = x @ w
    grad = x.T @ (2 * pred) / len(x)  # OneFlow's SGD scales the summed gradient by 1/(the loss's elements)
    for rank in (0, 1):
        seen = json.loads((tmp_path / f"out.{rank}").read_text())
        np.testing.assert_allclose(np.array(seen["loss"]), pred**2, rtol=1e-6)
        np.testing.assert_allclose(np.array(seen["w"]), w - 0.1 * grad, rtol=1e-6)


def test_an_unknown_feed_mode_is_refused(monkeypatch) -> None:
    from flowtorch._src.step import distributed
    monkeypatch.setenv("FLOWTORCH_DIST_FEED", "rank1")
    with pytest.raises(ValueError, match="FLOWTORCH_DIST_FEED must be one of check, trust, rank0; received 'rank1'"):
        distributed.feed_mode()


MIRRORED_NUMPY = """
import os, sys, json
import numpy as np
import oneflow as flow
import oneflow.typing as tp

rank = int(os.environ.get("RANK", "0"))
config = flow.FunctionConfig()
config.default_logical_view(flow.scope.mirrored_view())
seen = {"shape": None, "watched": [], "d_x": []}

@flow.global_function(type="train", function_config=config)
def fit(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
    seen["shape"] = list(x.shape)  # OneFlow's mirrored blob: this device's part of the array
    x = x + flow.get_variable("shift", shape=(3,), initializer=flow.zeros_initializer())
    w = flow.get_variable("w", shape=(3, 2), initializer=flow.constant_initializer(0.5))
    y = flow.nn.relu(flow.matmul(x, w))
    flow.watch(y, lambda v: seen["watched"].append(v.tolist()))
    flow.watch_diff(x, lambda g: seen["d_x"].append(g.tolist()))
    loss = flow.math.square(y)
    flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0).minimize(loss)
    return loss

data = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.3
losses = [fit(data).tolist() for _ in range(3)]
if rank == 0:
    with open(sys.argv[1], "w") as f:
        json.dump({"losses": losses, "w": flow.get_all_variables()["w"].numpy().tolist(), **seen}, f)
"""


def test_mirrored_view_cuts_a_numpy_placeholder_into_the_devices_parts(run_py, tmp_path) -> None:
    # OneFlow's mirrored view splits a tp.Numpy array along its first axis, one part per device; the body sees
    # the part's shape, watches and results are the parts merged, and the numbers are one process's
    (tmp_path / "mirrored_numpy.py").write_text(MIRRORED_NUMPY)
    outs = {}
    for nproc in (1, 2):
        launch = ["-m", "flowtorch"] + (["--nproc", str(nproc)] if nproc > 1 else [])
        done = run_py(*launch, "mirrored_numpy.py", str(tmp_path / f"m{nproc}.json"), cwd=str(tmp_path), timeout=240)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        outs[nproc] = json.loads((tmp_path / f"m{nproc}.json").read_text())
    assert outs[1]["shape"] == [4, 3] and outs[2]["shape"] == [2, 3]
    for key in ("losses", "watched", "d_x", "w"):
        _close(outs[2][key], outs[1][key], key)
    assert np.array(outs[2]["losses"]).shape == (3, 4, 2)  # every device's rows, merged
