"""ofrecord_reader on several devices (issue 12): each device reads its own contiguous range of the part files,
OneFlow's BalancedSplitter, ``batch_size / devices`` records per batch; the logical batch is the devices' batches in
device order. Here on one process with a placement of several devices; tests/dist runs it on processes."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from helpers.data import numbered_dataset

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.data.readers import balanced_ranges


def test_balanced_ranges_give_the_first_ranges_the_remainder():
    assert balanced_ranges(5, 2) == [range(3), range(3, 5)]
    assert [len(r) for r in balanced_ranges(7, 3)] == [3, 2, 2]
    assert balanced_ranges(4, 4) == [range(i, i + 1) for i in range(4)]


def _ids_job(data_dir, devices: str, **kwargs):
    @flow.global_function()
    def read_ids() -> tp.Numpy:
        with flow.scope.placement("cpu", devices):
            r = flow.data.ofrecord_reader(str(data_dir), **kwargs)
            return flow.data.OFRecordRawDecoder(r, "id", shape=(), dtype=flow.int32)
    return read_ids


def test_each_device_reads_its_own_part_files(tmp_path):
    numbered_dataset(tmp_path / "ds", [3, 4])  # part 0: ids 0-2, part 1: ids 3-6
    job = _ids_job(tmp_path / "ds", "0:0-1", batch_size=4, data_part_num=2)
    # device 0 cycles through 0, 1, 2; device 1 through 3 … 6; two records each per batch
    expected = [[0, 1, 3, 4], [2, 0, 5, 6], [1, 2, 3, 4]]
    assert [job().tolist() for _ in range(3)] == expected


def test_three_devices_split_five_parts_two_two_one(tmp_path):
    numbered_dataset(tmp_path / "ds", [1, 1, 1, 1, 1])
    job = _ids_job(tmp_path / "ds", "0:0-2", batch_size=3, data_part_num=5)
    assert [job().tolist() for _ in range(2)] == [[0, 2, 4], [1, 3, 4]]


def test_shuffled_devices_keep_to_their_files(tmp_path):
    numbered_dataset(tmp_path / "ds", [10, 10])
    job = _ids_job(tmp_path / "ds", "0:0-1", batch_size=8, data_part_num=2, random_shuffle=True,
                   shuffle_buffer_size=4, seed=5)
    batches = np.array([job() for _ in range(5)])
    assert (batches[:, :4] < 10).all() and (batches[:, 4:] >= 10).all()
    assert sorted(batches[:, :4].ravel().tolist()) != batches[:, :4].ravel().tolist()  # shuffled


def test_fewer_parts_than_devices_read_as_one_with_a_warning(tmp_path, caplog):
    numbered_dataset(tmp_path / "ds", [6])
    job = _ids_job(tmp_path / "ds", "0:0-1", batch_size=4, data_part_num=1)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert job().tolist() == [0, 1, 2, 3]
    assert any("OneFlow needs data_part_num >= devices" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("sizes", [[0, 3]])
def test_a_device_whose_files_are_empty_is_an_error(tmp_path, sizes):
    numbered_dataset(tmp_path / "ds", sizes)
    job = _ids_job(tmp_path / "ds", "0:0-1", batch_size=2, data_part_num=2)
    with pytest.raises(Exception, match="device 0 of 2 reads part files"):
        job()
