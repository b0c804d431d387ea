"""The process group module without processes: env parsing, device choice, one-process worlds, test skips."""

from __future__ import annotations

import logging

import pytest
import torch

from flowtorch._src import testing


def _cuda(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)


def test_env_world_reads_the_launcher_variables(clean_world, monkeypatch):
    group = clean_world
    assert group.env_world() == (0, 1, 0)
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert group.env_world() == (3, 4, 1)


@pytest.mark.parametrize("name, value, message", [
    ("WORLD_SIZE", "abc", "WORLD_SIZE must be an int >= 1; received 'abc'"),
    ("WORLD_SIZE", "0", "WORLD_SIZE must be an int >= 1; received '0'"),
    ("RANK", "-1", "RANK must be an int >= 0; received '-1'"),
    ("LOCAL_RANK", "1.5", "LOCAL_RANK must be an int >= 0; received '1.5'"),
    ("RANK", "2", "RANK=2 must be below WORLD_SIZE=1"),
])
def test_bad_launcher_variables_are_named(clean_world, monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")):
        clean_world.env_world()


def test_device_for_gives_each_process_its_gpu(clean_world, monkeypatch, caplog):
    _cuda(monkeypatch, 4)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert clean_world.device_for(3, 4, None) == "cuda:3"
        assert clean_world.device_for(1, 2, 2) == "cuda:1"
        assert clean_world.device_for(0, 2, 0) == "cpu"  # gpu_device_num(0): the program asked for the CPU
    assert not caplog.records


def test_cpu_processes_stand_in_for_missing_gpus_with_one_warning(clean_world, monkeypatch, caplog):
    _cuda(monkeypatch, 0)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert clean_world.device_for(0, 2, None) == "cpu"  # no GPU asked for, none there: nothing to say
        assert not caplog.records
        assert clean_world.device_for(0, 2, 2) == "cpu"
        assert clean_world.device_for(1, 2, 2) == "cpu"
    [record] = caplog.records
    assert "gpu_device_num(2)" in record.getMessage() and "CPU processes stand in" in record.getMessage()


def test_too_few_gpus_for_the_processes_means_cpu(clean_world, monkeypatch, caplog):
    _cuda(monkeypatch, 1)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert clean_world.device_for(0, 4, None) == "cpu"
    assert "runs 2 process(es), but torch sees 1 CUDA device(s); CPU processes stand in" in caplog.text


def test_one_process_has_no_group(clean_world):
    group = clean_world
    assert group.current() is None
    world = group.ensure_world("cpu")
    assert world == group.World(rank=0, size=1, local_rank=0, device="cpu", backend=None)
    assert group.ensure_world("cpu") is world and group.current() is world
    group.barrier()  # nothing to wait for
    with pytest.raises(RuntimeError, match="already runs on cpu"):
        group.ensure_world("cuda:0")
    group.shutdown()
    group.shutdown()  # harmless twice, and when torch.distributed was never initialized
    assert group.current() is None


def test_a_world_without_a_rendezvous_address_is_refused(clean_world, monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(RuntimeError, match="MASTER_ADDR and MASTER_PORT not set: start the program with "
                                           "`python -m flowtorch --nproc N script.py`"):
        clean_world.ensure_world("cpu")
    assert clean_world.current() is None


def test_bad_dist_timeout_is_named(clean_world, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DIST_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="FLOWTORCH_DIST_TIMEOUT must be a finite number"):
        clean_world.timeout_s()
    monkeypatch.delenv("FLOWTORCH_DIST_TIMEOUT")
    assert clean_world.timeout_s() == 60.0


def test_device_num_and_node_size_follow_the_launcher(clean_world, monkeypatch):
    assert (testing.device_num(), testing.node_size()) == (1, 1)  # not launched: OneFlow's defaults
    monkeypatch.setenv("WORLD_SIZE", "8")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "4")
    assert (testing.device_num(), testing.node_size()) == (4, 2)
    monkeypatch.setenv("ONEFLOW_TEST_DEVICE_NUM", "1")
    monkeypatch.setenv("ONEFLOW_TEST_NODE_LIST", "a,b,c")
    assert (testing.device_num(), testing.node_size()) == (1, 3)  # explicit settings win
