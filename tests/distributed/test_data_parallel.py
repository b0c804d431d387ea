"""The consistent view on 2 and 4 gloo processes (issue 12): one logical batch split over the ranks gives
one process's numbers — losses, watched values and gradients, weights — and checkpoints cross process
counts both ways."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

WORKER = Path(__file__).with_name("dp_worker.py")
pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) stand-in; CUDA runs use nccl")


def _run(run_py, tmp: Path, name: str, nproc: int, load: str = "-", save: str | None = None) -> dict:
    out = tmp / f"{name}.json"
    launch = ["-m", "flowtorch"] + (["--nproc", str(nproc)] if nproc > 1 else [])
    args = [*launch, str(WORKER), str(out), load] + ([save] if save else [])
    done = run_py(*args, cwd=str(tmp), timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


def _close(a, b, what: str) -> None:
    # float32 sums in another order (each rank's part, then the ranks' sum): rounding only
    np.testing.assert_allclose(np.array(a), np.array(b), rtol=2e-5, atol=2e-6, err_msg=what)


@pytest.mark.parametrize("nproc", [2, 4])
def test_data_parallel_training_gives_one_process_numbers_and_checkpoints_cross_counts(run_py, tmp_path,
                                                                                      nproc: int) -> None:
    start = tmp_path / "start"
    _run(run_py, tmp_path, "init", 1, save=str(start))  # a trained snapshot, saved by one process
    one = _run(run_py, tmp_path, "one", 1, load=str(start))
    many = _run(run_py, tmp_path, "many", nproc, load=str(start), save=str(tmp_path / "many_ckpt"))
    for name, value in one["loaded"].items():
        np.testing.assert_array_equal(np.array(many["loaded"][name]), np.array(value), err_msg=name)
    for job in ("per_sample", "batch_mean", "conv_bn", "hybrid"):
        _close(many["losses"][job], one["losses"][job], job)
    for key in ("hidden", "d_logits", "d_weight", "d_split", "probs"):
        _close(many[key], one[key], key)
    assert sorted(many["final"]) == sorted(one["final"])
    # model parallel: the split output layer's matmul runs on each rank's units (only the loss, which needs
    # every class, gathers its logits)
    assert one["hybrid_whole_ops"] is None
    assert not any("h_out" in op for op in many["hybrid_whole_ops"]), many["hybrid_whole_ops"]
    for name, value in one["final"].items():
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
