"""The loader under data pipelines: worker errors reach the job call with their traceback, workers end with
the session and at exit, and batches do not depend on the number of workers."""

from __future__ import annotations

import json
import re
import textwrap
import time

import numpy as np
import pytest
from helpers.data import numbered_dataset

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch.core.record import record_pb2


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            state = next(line for line in f if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError):
        return False
    return "Z" not in state.split()[1]  # a zombie has exited


def reader_job(data_dir, name="reader_job", batch_size=4):
    def body() -> tp.Numpy:
        r = flow.data.ofrecord_reader(str(data_dir), batch_size=batch_size)
        return flow.data.OFRecordRawDecoder(r, "x", shape=(2,), dtype=flow.float)
    body.__name__ = name
    return flow.global_function()(body)


def test_worker_error_reaches_the_caller_with_its_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "2")
    bad = lambda k: record_pb2.OFRecord(feature={"x": record_pb2.Feature(  # noqa: E731
        float_list=record_pb2.FloatList(value=[k] * (2 if k != 5 else 3)))})
    numbered_dataset(tmp_path / "ds", [8], make=bad)
    job = reader_job(tmp_path / "ds", batch_size=2)
    job(), job()
    with pytest.raises(ValueError) as info:
        job()  # records 4, 5: record 5 has 3 values
    text = str(info.value)
    assert "DataLoader worker process" in text and "Original Traceback" in text
    assert "in decode_raw" in text  # the worker's own frames
    assert "in data op 'OFRecordRawDecoder_" in text and "of job 'reader_job' (batch 2)" in text
    assert any("while job 'reader_job' loaded batch 2" in n for n in getattr(info.value, "__notes__", []))
    np.testing.assert_array_equal(job(), [[6, 6], [7, 7]])  # the job goes on with the next batch


def test_workers_end_with_the_session(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "2")
    numbered_dataset(tmp_path / "ds", [8])
    job = reader_job(tmp_path / "ds")
    job()
    pids = job.feed.worker_pids
    assert len(pids) == 2 and all(alive(p) for p in pids)
    flow.clear_default_session()
    assert not any(alive(p) for p in pids)
    with pytest.raises(AssertionError, match="closed"):
        job()


def test_workers_end_at_interpreter_exit(tmp_path, run_py):
    numbered_dataset(tmp_path / "ds", [8])
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(f"""
        import json, oneflow as flow, oneflow.typing as tp

        @flow.global_function()
        def job() -> tp.Numpy:
            r = flow.data.ofrecord_reader({str(tmp_path / "ds")!r}, batch_size=4)
            return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)

        print(job().tolist())
        print(json.dumps(job.feed.worker_pids))
        """))
    proc = run_py("-m", "flowtorch", str(script), env={"FLOWTORCH_DATA_WORKERS": "2"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "[0, 1, 2, 3]"
    pids = json.loads(lines[1])
    assert len(pids) == 2
    deadline = time.time() + 10
    while any(alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in pids)


KILL_A_WORKER = textwrap.dedent("""
    import json, logging, os, signal, sys, time
    import oneflow as flow, oneflow.typing as tp

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")

    @flow.global_function()
    def job() -> tp.Numpy:
        r = flow.data.ofrecord_reader(sys.argv[1], batch_size=2)
        return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)

    def gone(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    got, errors = [job().tolist() for _ in range(2)], []
    killed = job.feed.worker_pids[0]
    try:
        os.kill(killed, signal.SIGKILL)  # as the OOM killer does
        while not gone(killed):
            time.sleep(0.01)
        time.sleep(0.2)  # torch's SIGCHLD handler may raise its error in the main thread, here
    except RuntimeError as exc:
        errors.append(str(exc))
    for _ in range(8):
        try:
            got.append(job().tolist())
        except RuntimeError as exc:  # the program catches the error and calls the job again
            errors.append(str(exc))
    print(json.dumps({"got": got, "errors": errors, "killed": killed, "pids": job.feed.worker_pids}))
    """)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_killed_worker_is_reported_once_and_the_next_call_starts_a_new_loader(tmp_path, run_py, workers):
    # Before, the next call lost the dead worker's batches, raised a bare StopIteration or never returned.
    numbered_dataset(tmp_path / "ds", [40])
    (tmp_path / "prog.py").write_text(KILL_A_WORKER)
    proc = run_py("-m", "flowtorch", str(tmp_path / "prog.py"), str(tmp_path / "ds"), timeout=120,
                  env={"FLOWTORCH_DATA_WORKERS": str(workers)})
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["got"] == [[2 * k, 2 * k + 1] for k in range(10)]  # every batch once, in order
    assert len(out["errors"]) <= 1, out["errors"]  # torch's report, once; the later calls work
    told = rf"DataLoader worker \(pid(\(s\))? {out['killed']}\)|worker\(s\) pid {out['killed']} was killed by SIGKILL"
    assert all(re.search(told, e) for e in out["errors"]), out["errors"]
    assert len(out["pids"]) == workers and out["killed"] not in out["pids"]
    assert (f"worker(s) pid {out['killed']} was killed by SIGKILL (as the OOM killer kills when memory runs out); "
            "the loader starts again with new workers, at batch 2") in proc.stderr


@pytest.mark.parametrize("workers", ["0", "1", "2"])
def test_batches_do_not_depend_on_the_number_of_workers(tmp_path, monkeypatch, workers):
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", workers)
    numbered_dataset(tmp_path / "ds", [13, 8])

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=5, data_part_num=2, random_shuffle=True,
                                      shuffle_buffer_size=6, seed=3)
        ids = flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)
        return ids, flow.random.CoinFlip(batch_size=5, seed=11)

    got = [job() for _ in range(7)]
    ids = np.concatenate([g[0] for g in got])
    flips = np.concatenate([g[1] for g in got])
    # reference: the same job with workers=0 in a fresh session
    flow.clear_default_session()
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "0")

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        r = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=5, data_part_num=2, random_shuffle=True,
                                      shuffle_buffer_size=6, seed=3)
        ids = flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)
        return ids, flow.random.CoinFlip(batch_size=5, seed=11)

    ref = [job() for _ in range(7)]
    np.testing.assert_array_equal(ids, np.concatenate([g[0] for g in ref]))
    np.testing.assert_array_equal(flips, np.concatenate([g[1] for g in ref]))
    assert set(np.unique(flips)) <= {0, 1} and flips.dtype == np.int8


def test_bad_worker_setting_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", "many")
    numbered_dataset(tmp_path / "ds", [2])
    with pytest.raises(ValueError, match="FLOWTORCH_DATA_WORKERS must be an int >= 0; received 'many'"):
        reader_job(tmp_path / "ds")()


def test_coin_flip_feeds_graph_ops_and_watches(tmp_path):
    seen = []

    @flow.global_function()
    def job() -> tp.Numpy:
        c = flow.random.CoinFlip(batch_size=1000, probability=0.3, seed=4)
        flow.watch(c, lambda v: seen.append(v))
        return flow.cast(c, flow.float) * 2.0

    a, b = job(), job()
    assert abs(a.mean() / 2 - 0.3) < 0.05 and not np.array_equal(a, b)
    np.testing.assert_array_equal(seen[0] * 2.0, a)
    assert job.feed.workers == 0  # flips alone are made in the job's process


def test_import_loads_no_image_library_and_starts_no_worker(run_py):
    # decoding happens in loader workers: `import oneflow` alone must not pay for Pillow or start processes
    proc = run_py("-c", "import sys, multiprocessing, flowtorch; "
                        "print('PIL.Image' in sys.modules, len(multiprocessing.active_children()))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "0"]
