"""OneFlow-style programs that read their data inside the job, run unedited through `python -m flowtorch`
on datasets they write with `oneflow.core.record.record_pb2`: a CNN trained from JPEG and PNG OFRecords
learns (its loss falls and it classifies the data it learned)."""

from __future__ import annotations

import pytest

PROGRAMS = "tests/programs/data_programs"


@pytest.mark.parametrize("fmt,colors", [("JPEG", "rgb"), ("PNG", "gray")])
def test_cnn_trains_from_ofrecord_images(tmp_path, run_py, root, fmt, colors):
    made = run_py("-m", "flowtorch", str(root / PROGRAMS / "make_bars.py"), str(tmp_path), "128", fmt, colors)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"part-0000{i}" for i in range(4)]
    proc = run_py("-m", "flowtorch", str(root / PROGRAMS / "train_bars.py"), str(tmp_path), "80",
                  env={"FLOWTORCH_DATA_WORKERS": "1"}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    losses = [float(line.split()[1]) for line in proc.stdout.splitlines() if line.startswith("loss")]
    accuracy = float(proc.stdout.strip().splitlines()[-1].split()[1])
    assert len(losses) == 80
    assert all(loss == loss and loss < 50 for loss in losses)  # finite
    # initial values are unseeded, so each run learns its own way; chance accuracy is 0.1
    assert sum(losses[-10:]) / 10 < sum(losses[:10]) / 10 / 2
    assert accuracy >= 0.8
