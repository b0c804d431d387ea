"""flow.data.ofrecord_reader on 2 gloo processes (issue 12): each rank reads its own part files, as each of
OneFlow's devices did, and feeds its part of the batch without any scatter; the numbers are those of one process
reading for two devices, with gradient accumulation too."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers.data import numbered_dataset

WORKER = Path(__file__).with_name("reader_worker.py")
pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) stand-in; CUDA runs use nccl")


def test_ranks_read_their_own_files_and_match_one_process_reading_for_two_devices(run_py, tmp_path):
    data = numbered_dataset(tmp_path / "ds", [3, 5])  # device 0 reads ids 0-2, device 1 ids 3-7
    outs = {}
    for nproc in (1, 2):
        launch = ["-m", "flowtorch"] + (["--nproc", str(nproc)] if nproc > 1 else [])
        out = tmp_path / f"r{nproc}.json"
        done = run_py(*launch, str(WORKER), str(data), str(out), cwd=str(tmp_path), timeout=240)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        outs[nproc] = json.loads(out.read_text())
    one, two = outs[1], outs[2]
    assert one["ids"][:3] == [[0, 1, 3, 4], [2, 0, 5, 6], [1, 2, 7, 3]]  # two records of each device's files
    assert two["ids"] == one["ids"]  # the watch sees the logical batch, gathered
    assert one["local_inputs"] is None and two["local_inputs"]  # each rank fed its own part
    np.testing.assert_allclose(two["losses"], one["losses"], rtol=2e-5)
    np.testing.assert_allclose(two["weight"], one["weight"], rtol=2e-5)
    # gradient accumulation (2 micro-batches a call): every micro-step's losses, and one update from both
    assert np.array(one["accumulated"]).shape == (3, 2 * 4)
    np.testing.assert_allclose(two["accumulated"], one["accumulated"], rtol=2e-5)
    np.testing.assert_allclose(two["acc_weight"], one["acc_weight"], rtol=2e-5)
