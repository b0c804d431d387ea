"""Checkpoints on several processes: one snapshot, written by rank 0 and read by every rank, so every rank
must pass the same path (per-process temporary directories excepted)."""

from __future__ import annotations

import json
import textwrap

import pytest
import torch.distributed as dist

needs_gloo = pytest.mark.skipif(not (dist.is_available() and dist.is_gloo_available()),
                                reason="this torch has no torch.distributed with gloo")

PROGRAM = textwrap.dedent("""
    import json, os, sys, tempfile
    import numpy as np
    import oneflow as flow, oneflow.typing as tp

    rank = int(os.environ["RANK"])

    @flow.global_function()
    def job() -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(2.5))
        return w + 0.0

    job()
    out = {"rank": rank}

    def attempt(key, fn):
        try:
            out[key] = fn()
        except AssertionError as exc:  # flowtorch's SnapshotError is one, as OneFlow's checks were
            out[key] = f"{type(exc).__name__}: {exc}"

    attempt("per_rank_save", lambda: flow.checkpoint.save(f"ckpt_rank{rank}"))
    out["after_per_rank_save"] = sorted(n for n in os.listdir(".") if n.startswith("ckpt"))
    flow.checkpoint.save("ckpt")  # one path on every rank: rank 0 writes it, every rank reads it
    attempt("same_get", lambda: flow.checkpoint.get("ckpt")["w"].numpy().tolist())
    # a path only rank 0 wrote, and another that rank 1 asks for
    attempt("per_rank_get", lambda: sorted(flow.checkpoint.get("ckpt" if rank == 0 else "ckpt_rank1")))
    with tempfile.TemporaryDirectory() as tmp:  # OneFlow's tests: a different directory on every rank
        flow.checkpoint.save(os.path.join(tmp, "snap"))
        out["temp_written"] = os.path.isdir(os.path.join(tmp, "snap"))
        attempt("temp_get", lambda: flow.checkpoint.get(os.path.join(tmp, "snap"))["w"].numpy().tolist())
    sys.stdout.write(json.dumps(out) + "\\n")
""")


@needs_gloo
def test_ranks_passing_different_checkpoint_paths_are_refused_by_name(launch_flowtorch, tmp_path):
    # Before, rank 1's per-rank save wrote nothing and said nothing, and its get read rank 0's copy.
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc, _ = launch_flowtorch("--nproc", "2", "--all-ranks-output", "prog.py", cwd=tmp_path, timeout=90)
    assert proc.returncode == 0, proc.stderr
    outs = {o["rank"]: o for o in map(json.loads, (line for line in proc.stdout.splitlines() if line.startswith("{")))}
    assert sorted(outs) == [0, 1], proc.stdout + proc.stderr
    for rank, out in outs.items():
        # the same error on every rank (none waits for the other), naming both paths; nothing written
        assert out["per_rank_save"] == (
            "SnapshotError: flow.checkpoint.save: the ranks passed different paths: rank 0 'ckpt_rank0', rank 1 "
            "'ckpt_rank1'. flowtorch keeps one snapshot, written by rank 0 and read by every rank: nothing would "
            "be written at 'ckpt_rank1', and flow.checkpoint.get('ckpt_rank1') on rank 1 would read 'ckpt_rank0'. "
            "Pass the same path on every rank (a per-rank checkpoint holds nothing more: every rank has the same "
            "variables)"), out
        assert out["after_per_rank_save"] == [], out
        assert out["same_get"] == [2.5, 2.5, 2.5]
        assert out["per_rank_get"] == (
            "SnapshotError: flow.checkpoint.get: the ranks passed different paths: rank 0 'ckpt', rank 1 "
            "'ckpt_rank1'. flowtorch keeps one snapshot, written by rank 0 and read by every rank: rank 1 would "
            "read 'ckpt', not 'ckpt_rank1'. Pass the same path on every rank (a per-rank checkpoint holds "
            "nothing more: every rank has the same variables)"), out
        # per-process temporary directories: rank 0's is written and read on every rank
        assert out["temp_written"] is (rank == 0)
        assert out["temp_get"] == [2.5, 2.5, 2.5]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ckpt")) == ["ckpt"]
